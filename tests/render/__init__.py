"""Tests of ``gpupool.render``."""
