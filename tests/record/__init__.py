"""Tests of ``gpupool.record``."""
