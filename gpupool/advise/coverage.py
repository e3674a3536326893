"""How much of a pool the evidence covers, and so how far its recommendations can be trusted.

Per pool: the distinct GPUs whose memory series came back against the GPUs its nodes carry (the
most nodes that reported in any hour, or the pool's ``nodeNames``, times its GPUs a node), and
the hours any of its nodes reported against the window's. The smaller share is the coverage:
``high`` from ``HIGH`` up, ``medium`` from ``MEDIUM``, ``low`` below, and ``low`` too where the
pool has fewer than ``MIN_SAMPLES`` memory samples or ``MIN_HOURS`` hours (too little data to
judge, however complete it is); no rule judges a pool of ``low`` confidence (a gap says why), as
krr keeps a minimum of data points and AWS Compute Optimizer one of 30 hours before they
recommend.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpupool.advise.evidence import Evidence, PoolUse
from gpupool.facts import pool_facts
from gpupool.model import Stack

HIGH = 0.9
MEDIUM = 0.5
MIN_SAMPLES = 1000  # memory samples of a pool, all its GPUs together, before it is judged
MIN_HOURS = 24  # hours in which its nodes reported, before it is judged


@dataclass(frozen=True)
class Coverage:
    """One pool's coverage: GPUs and hours seen against those expected."""

    pool: str
    gpus_seen: int  # distinct physical GPUs (a MIG GPU's instances count once)
    gpus_expected: int | None  # None: the pool's GPUs a node are unknown
    instances_seen: int  # series: GPUs, or MIG instances
    samples: int
    hours_seen: int
    window_hours: float

    @property
    def share(self) -> float:
        """The smaller of the GPU share and the hour share seen (0 to 1)."""
        hours = min(1.0, self.hours_seen / self.window_hours) if self.window_hours else 0.0
        if not self.gpus_expected:
            return hours if self.gpus_seen else 0.0
        return min(hours, min(1.0, self.gpus_seen / self.gpus_expected))

    @property
    def too_little_data(self) -> bool:
        """Whether the pool has fewer samples or hours than any rule judges from."""
        return self.samples < MIN_SAMPLES or self.hours_seen < MIN_HOURS

    @property
    def confidence(self) -> str:
        """``high``, ``medium``, ``low``, or ``none`` when no GPU of the pool was seen."""
        if not self.gpus_seen:
            return "none"
        if self.too_little_data:
            return "low"
        if self.share >= HIGH:
            return "high"
        return "medium" if self.share >= MEDIUM else "low"


def of_pool(stack: Stack, name: str, use: PoolUse, window_seconds: float) -> Coverage:
    """Return the coverage of pool ``name``."""
    per_node = 0
    declared_nodes = 0
    for p in stack.pools:
        if p.name == name:
            per_node = pool_facts(stack, p).gpus_per_node
            declared_nodes = len(p.node_names)
    nodes = max((present for present, _ in use.hourly_nodes), default=0)
    nodes = max(nodes, declared_nodes)
    seen = len({(g.node, g.gpu) for g in use.gpus})
    # at least every GPU seen existed: a pool whose nodes were replaced (spot) saw more GPUs
    # over the window than it had at once
    return Coverage(
        pool=name,
        gpus_seen=seen,
        gpus_expected=max(nodes * per_node, seen) if per_node and nodes else None,
        instances_seen=len(use.gpus),
        samples=use.samples,
        hours_seen=use.hours,
        window_hours=window_seconds / 3600,
    )


def of(stack: Stack, ev: Evidence) -> dict[str, Coverage]:
    """Return every pool's coverage, in the stack's order."""
    return {p.name: of_pool(stack, p.name, ev.pools[p.name], ev.window_seconds)
            for p in stack.pools if p.name in ev.pools}
