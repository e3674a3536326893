"""Tests of ``gpupool.spec``."""
