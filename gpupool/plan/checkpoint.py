"""Checkpoints in a plan: each pool's (or tenant's) interval against the optimum, and its downtime.

This module owns ``CheckpointPlan``: for every pool that states a ``checkpoint``,
``maxDowntimeSeconds`` or ``startupSeconds``, and every tenant that does on each of its pools,
the declared interval beside Young's and Daly's optimum for the pool's ``interruption.perHour``
with the share of each GPU-hour both lose and the GPU-hours a day between them, and the expected
downtime part by part against the budget. The figures are ``gpupool.facts.checkpoint``'s, the
ones ``validate`` warns on; the scale-up counts in full (no free slot, the worst case), as there.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpupool.facts import checkpoint as facts
from gpupool.model import Stack


@dataclass(frozen=True)
class CheckpointPlan:
    """One pool, or one tenant on one pool, as the plan shows its checkpoints and downtime.

    Attributes:
        pool, tenant: where it applies (``tenant`` None: the pool's own).
        every_seconds, write_seconds, restore_seconds: the checkpoint, or None without one.
        interval: the declared interval against the optimum, or None where the pool states no
            interruption rate (or no checkpoint applies).
        downtime: the expected downtime, part by part.
        grace_seconds: the ``terminationGracePeriodSeconds`` the snippets give, or None.

    """

    pool: str
    tenant: str | None
    every_seconds: float | None
    write_seconds: float | None
    restore_seconds: float | None
    interval: facts.Interval | None
    downtime: facts.Downtime
    grace_seconds: int | None


def checkpoint_plans(stack: Stack) -> tuple[CheckpointPlan, ...]:
    """Return the plan's rows: pools first, in file order, then tenants on each of their pools."""
    out = []
    for scope in facts.scopes(stack):
        ckpt = scope.recovery.checkpoint
        out.append(CheckpointPlan(
            pool=scope.pool.name,
            tenant=None if scope.tenant is None else scope.tenant.name,
            every_seconds=None if ckpt is None else ckpt.every_seconds,
            write_seconds=None if ckpt is None else ckpt.write_seconds,
            restore_seconds=None if ckpt is None else ckpt.restore_seconds,
            interval=None if ckpt is None else facts.interval(scope.pool, ckpt),
            downtime=facts.downtime(stack, scope.pool, scope.recovery, no_slot_share=1.0),
            grace_seconds=facts.grace_seconds(scope.pool, scope.recovery),
        ))
    return tuple(out)
