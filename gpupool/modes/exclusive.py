"""Exclusive: one pod owns a whole GPU; ``nvidia.com/gpu`` once per GPU."""

from gpupool.modes.base import SharingMode

MODE = SharingMode(name="exclusive", whole=True)
