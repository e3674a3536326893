"""Fractional: slots of a GPU that HAMi or KAI enforce (the ``sharing.fractional`` section)."""

from gpupool.modes.base import SharingMode

MODE = SharingMode(name="fractional", scheduler_slots=True, section="fractional")
