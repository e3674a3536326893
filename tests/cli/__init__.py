"""Tests of ``gpupool.cli``."""
