"""Tests of ``gpupool.facts``."""
