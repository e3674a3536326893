"""Tests of ``gpupool.engine``."""
