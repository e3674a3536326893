"""What a job that checkpoints does with its time, and what a run measured of interruptions.

This module owns the arithmetic of a run that checkpoints (``simulate.checkpoints`` is the part
of the run that uses it; docs/workload.md, Checkpoints in a run): how long a run doing some
work lasts with its writes and restore (``run_seconds``), where the seconds of a run stopped
part-way went (``split``: work saved by completed checkpoints, work to redo, writing,
restoring), and the figures a run keeps per tenant and pool (``Lost``, ``PoolRecovery``,
``CheckpointRun``), which the report reads.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

EPS = 1e-9


@dataclass(frozen=True, slots=True)
class Plan:
    """A job's checkpoint on one pool, in seconds."""

    every: float
    write: float
    restore: float


@dataclass(frozen=True, slots=True)
class Split:
    """Where the seconds of one run went: work saved, work redone, writing and restoring."""

    saved: float  # work its completed checkpoints saved in this run
    redone: float  # work done since its latest completed checkpoint (lost at an eviction)
    write: float
    restore: float


def writes(work: float, every: float) -> int:
    """Checkpoints written while doing ``work`` seconds: one per interval but the last."""
    if work <= 0:
        return 0
    return max(0, math.ceil(work / every - EPS) - 1)


def run_seconds(work: float, plan: Plan, restore: float) -> float:
    """Return how long a run doing ``work`` lasts: ``restore``, the work and its writes."""
    return restore + work + writes(work, plan.every) * plan.write


def split(elapsed: float, work: float, plan: Plan, restore: float) -> Split:
    """Return where ``elapsed`` seconds of a run (``restore`` first, then ``work``) went.

    The run reads its checkpoint back for ``restore`` seconds, then works ``every`` seconds
    and writes for ``write`` seconds, again and again; a write not complete saves nothing.
    """
    if elapsed <= restore:
        return Split(0.0, 0.0, 0.0, elapsed)
    t = elapsed - restore
    n = writes(work, plan.every)
    cycle = plan.every + plan.write
    done = min(n, math.floor((t + EPS) / cycle))
    pos = max(0.0, t - done * cycle)
    wrote = done * plan.write
    if done < n and pos > plan.every:  # in the middle of a write: the interval is not saved
        return Split(done * plan.every, plan.every, wrote + pos - plan.every, restore)
    return Split(done * plan.every, min(pos, work - done * plan.every), wrote, restore)


@dataclass(slots=True)
class Progress:
    """A job that checkpoints: its work saved so far and its run now."""

    saved: float = 0.0  # work seconds its latest completed checkpoint holds
    plan: Plan | None = None  # this run's checkpoint
    restore: float = 0.0  # seconds this run starts with, reading its checkpoint back
    run: float = 0.0  # this run's planned length


@dataclass(slots=True)
class Lost:
    """GPU-seconds of work redone, writing and restoring (one tenant or pool)."""

    redone: float = 0.0
    write: float = 0.0
    restore: float = 0.0


@dataclass(slots=True)
class PoolRecovery:
    """One pool's interruptions and downtimes over the run."""

    lost: Lost = field(default_factory=Lost)
    job_seconds: float = 0.0  # seconds jobs ran on it (a gang counts once)
    interruptions: int = 0  # evictions and give-ups of jobs running on it
    downtimes: list[tuple[float, float]] = field(default_factory=list)  # (seconds, budget)
    never_back: list[float] = field(default_factory=list)  # budgets of jobs never placed again
    returns: int = 0  # evicted jobs placed again
    scaled_up: int = 0  # of them, placed on a node not yet ready when they were evicted


@dataclass(frozen=True)
class CheckpointRun:
    """What the part measured, for the report."""

    pools: dict[str, PoolRecovery]
    tenants: dict[str, Lost]
