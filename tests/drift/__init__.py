"""Tests of ``gpupool.drift``."""
