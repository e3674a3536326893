"""Tests of ``gpupool.nodes``."""
