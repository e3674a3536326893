"""Tests of ``gpupool.sharing``."""
