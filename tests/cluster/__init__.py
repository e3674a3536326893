"""Tests of ``gpupool.cluster``."""
