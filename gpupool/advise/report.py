"""The result of ``gpupool advise``: what the views show and the use case returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from gpupool.advise.coverage import Coverage
from gpupool.advise.evidence import Evidence
from gpupool.advise.recommendation import Dropped, Recommendation
from gpupool.advise.workload import Fidelity


@dataclass(frozen=True)
class AdviseResult:
    """What ``gpupool advise`` found for one stack and window."""

    stack: str
    file: str
    evidence: Evidence
    currency: str
    recommendations: tuple[Recommendation, ...]
    dropped: tuple[Dropped, ...]
    gaps: tuple[str, ...]
    written: str | None  # the file written, None when nothing was
    coverage: Mapping[str, Coverage] = field(default_factory=dict)
    workload_file: str | None = None  # the workload CSV written, None when none was
    workload_pods: int = 0  # the pods it holds
    observed_waits: Mapping[str, float] = field(default_factory=dict)  # tenant -> p95 seconds
    fidelity: Fidelity | None = None  # today's stack replayed against the window
    replayed: str | None = None  # the workload the edits were replayed with, None: not replayed
    requests_file: str | None = None  # the services' demand written (--export-requests)
