"""MIG: each GPU is cut into hardware instances by mig-parted (the ``sharing.mig`` section)."""

from gpupool.modes.base import SharingMode

MODE = SharingMode(name="mig", partitioned=True, section="mig", isolates=True)
