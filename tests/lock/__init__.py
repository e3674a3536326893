"""Tests of ``gpupool.lock``."""
