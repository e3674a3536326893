"""Tests of ``gpupool.plan``."""
