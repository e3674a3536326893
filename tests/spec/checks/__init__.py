"""Tests of ``gpupool.spec.checks``."""
