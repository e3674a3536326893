"""Tests of ``gpupool.catalog``."""
