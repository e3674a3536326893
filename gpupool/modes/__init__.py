"""Sharing modes as plug-ins: how one GPU is split, and the types that say so.

This package owns the ``Sharing`` and ``Fractional`` value types the model carries, and one
module per sharing mode (``exclusive``, ``time_slicing``, ``mps``, ``mig``, ``fractional``). Each
module defines ``MODE``, a ``SharingMode`` that states the mode's traits once: its name in the
stack file, whether it replicates ``nvidia.com/gpu`` (time-slicing, MPS), partitions the GPU
(MIG) or leaves slots to a scheduler (fractional), the section of ``sharing`` it reads, its
device-plugin config key, the QoS tier it gives by default and how many schedulable slots one GPU
offers. Everything else in gpupool asks these traits instead of comparing mode names, so a new
mode is a new module here plus its schema entry.

This package imports nothing else of gpupool; it sits below the model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gpupool.modes import exclusive, fractional, mig, mps, time_slicing
from gpupool.modes.base import (
    QOS_EXCLUSIVE,
    QOS_GUARANTEED,
    QOS_SHARED,
    QOS_TIERS,
    ClientLimit,
    Fractional,
    NodeDevices,
    SharingMode,
)

__all__ = [
    "QOS_EXCLUSIVE",
    "QOS_GUARANTEED",
    "QOS_SHARED",
    "QOS_TIERS",
    "ClientLimit",
    "Fractional",
    "NodeDevices",
    "Sharing",
    "SharingMode",
    "all_modes",
    "default",
    "find",
    "get",
    "names",
    "parse",
    "with_trait",
]

_MODES: dict[str, SharingMode] = {
    m.MODE.name: m.MODE for m in (exclusive, time_slicing, mps, mig, fractional)
}


@dataclass(frozen=True)
class Sharing:
    """How one GPU of a pool is split."""

    mode: str
    replicas: int | None = None
    mig_layout: tuple[tuple[str, int], ...] = ()
    fractional: Fractional | None = None

    @property
    def kind(self) -> SharingMode:
        """The plug-in of this sharing mode."""
        return _MODES[self.mode]

    @property
    def slots_per_gpu(self) -> int:
        """Schedulable units one GPU offers (MIG: instances per GPU)."""
        return self.kind.slots_per_gpu(self)


def all_modes() -> tuple[SharingMode, ...]:
    """Return every sharing mode, in the stack file's order."""
    return tuple(_MODES.values())


def names() -> tuple[str, ...]:
    """Return every mode's name."""
    return tuple(_MODES)


def find(name: str) -> SharingMode | None:
    """Return the mode called ``name``, or None (e.g. a name from an older record)."""
    return _MODES.get(name)


def get(name: str) -> SharingMode:
    """Return the mode called ``name``.

    Raises:
        KeyError: no such mode (schema validation rules this out for stack files).

    """
    return _MODES[name]


def with_trait(trait: str) -> tuple[SharingMode, ...]:
    """Return the modes whose trait ``trait`` is set (e.g. ``replicated``), in file order."""
    return tuple(m for m in _MODES.values() if getattr(m, trait))


def _by_trait(trait: str) -> SharingMode:
    return with_trait(trait)[0]


def default() -> SharingMode:
    """Return the mode a pool has when its file names none (whole GPUs)."""
    return _by_trait("whole")


def parse(raw: Mapping[str, Any]) -> Sharing:
    """Build a ``Sharing`` from a schema-valid ``sharing`` block."""
    mode = raw.get("mode", default().name)
    frac_section = _by_trait("scheduler_slots").section or ""
    mig_section = _by_trait("partitioned").section or ""
    frac = raw.get(frac_section)
    fractional = None
    if isinstance(frac, Mapping):
        fractional = Fractional(
            slots_per_gpu=int(frac.get("slotsPerGpu", 2)),
            memory_gib=frac.get("memoryGiB"),
            memory_percent=frac.get("memoryPercent"),
            cores_percent=frac.get("coresPercent"),
            memory_overcommit=float(frac.get("memoryOvercommit", 1.0)),
        )
    mig_block = raw.get(mig_section)
    layout = mig_block.get("layout", {}) if isinstance(mig_block, Mapping) else {}
    return Sharing(
        mode=mode,
        replicas=raw.get("replicas"),
        mig_layout=tuple(sorted(layout.items())),
        fractional=fractional,
    )
