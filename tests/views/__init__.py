"""Tests of ``gpupool.views``."""
