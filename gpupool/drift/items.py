"""What drift found, as plain data: each finding (``DriftItem``), each source's status, the report.

How a report reads (text, JSON, markdown) is ``gpupool.views.drift``'s job.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class DriftItem:
    """One difference between what is declared and what is observed.

    Attributes:
        source: ``cloud`` (cloud resources), ``cluster`` (Kubernetes objects and node state) or
            ``node`` (NVML reports).
        address: what drifted: a resource address, ``pool.<name>/node/<node>``, ...
        declared: the declared value (None when nothing was declared).
        observed: the observed value (None when absent).
        summary: one sentence a platform engineer can act on.
        kind: ``drift`` (differs from the file), ``fault`` (hardware trouble) or ``note``
            (how something was read, not a finding: a 2020 GFD's MIG label spelling).
        evidence_of: ``(node, fault)`` when the item reports a hardware fault another source
            may report too (``gpupool.drift.conditions.fold`` makes them one item); not shown.

    """

    source: str
    address: str
    declared: Any
    observed: Any
    summary: str
    kind: str = "drift"
    evidence_of: tuple[str, str] | None = None


@dataclass(frozen=True)
class SourceStatus:
    """Whether one drift source ran, and why not when it did not."""

    name: str  # engine | cluster | node
    checked: bool
    reason: str = ""


@dataclass(frozen=True)
class DriftReport:
    """Everything drift found for one stack."""

    stack: str
    items: tuple[DriftItem, ...]
    sources: tuple[SourceStatus, ...] = field(default_factory=tuple)
    notes: tuple[DriftItem, ...] = ()  # kind ``note``: said, never counted as drift

    @property
    def drifted(self) -> bool:
        """True when any item was found (drift or fault)."""
        return bool(self.items)

    @property
    def status(self) -> str:
        """Return ``drift``, ``no-drift`` or ``unknown`` (no source checked: nothing looked at)."""
        if self.items:
            return "drift"
        return "no-drift" if any(s.checked for s in self.sources) else "unknown"


class NodeFindings:
    """Collects one node's findings under its address (``pool.<pool>/node/<node>``)."""

    def __init__(self, addr: str) -> None:
        self.addr = addr
        self.items: list[DriftItem] = []

    def __call__(self, declared: object, observed: object, summary: str) -> None:
        """Add one finding."""
        self.items.append(DriftItem("cluster", self.addr, declared, observed, summary))
