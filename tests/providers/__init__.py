"""Tests of ``gpupool.providers``."""
