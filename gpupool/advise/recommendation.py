"""One recommendation: the stack edit proposed, its evidence and saving; and a dropped one."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpupool.advise.evidence import PoolUse


@dataclass(frozen=True)
class Recommendation:
    """One proposed stack edit with its evidence and its monthly saving (negative: a cost)."""

    kind: str
    pool: str | None
    tenant: str | None
    path: tuple[str | int, ...]  # the stack path edited, from the document's root
    value: Any  # its new value (plain data)
    summary: str
    saving_per_month: float | None  # in the plan's currency; None where a price is unknown
    evidence: Mapping[str, Any] = field(default_factory=dict)

    @property
    def path_text(self) -> str:
        """The edited path as the docs write it: ``pools[0].nodes.min``."""
        out = ""
        for part in self.path:
            out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
        return out


@dataclass(frozen=True)
class Dropped:
    """A recommendation that failed its check, and why."""

    recommendation: Recommendation
    reason: str


def pool_evidence(use: PoolUse, window: float, **figures: Any) -> dict[str, Any]:
    """Return the figures every pool recommendation states: window, hours, samples, GPUs."""
    return {
        "window_hours": round(window / 3600, 1),
        "hours_seen": use.hours,
        "samples": use.samples,
        "gpus_seen": len(use.gpus),
        **figures,
    }

