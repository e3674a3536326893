"""Checkpoints in a plan: each pool's (or tenant's) interval against the optimum, and its downtime.

This module owns ``CheckpointPlan``: for every pool that states a ``checkpoint``,
``maxDowntimeSeconds`` or ``startupSeconds``, and every tenant that does on each of its pools,
the declared interval beside Young's and Daly's optimum for the pool's ``interruption.perHour``
with the share of each GPU-hour both lose and the GPU-hours a day between them, and the expected
downtime part by part against the budget. The figures are ``gpupool.facts.checkpoint``'s, the
ones ``validate`` warns on; the scale-up counts in full (no free slot, the worst case), as there,
unless the plan runs a simulation (the stack's ``simulation`` block, ``--workload``): then
``simulated`` counts each pool's at the share of the evicted jobs the run placed again that
waited for a node (``simulate.report_checkpoints.PoolCheckpoints.no_slot_share``), where any
came back; ``validate``'s check stays the worst case.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

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
        no_slot: (evicted jobs that waited for a node, evicted jobs placed again) in the
            plan's simulation, the downtime's scale-up counted at their ratio; None: not
            simulated, or none came back (the scale-up counts in full).

    """

    pool: str
    tenant: str | None
    every_seconds: float | None
    write_seconds: float | None
    restore_seconds: float | None
    interval: facts.Interval | None
    downtime: facts.Downtime
    grace_seconds: int | None
    no_slot: tuple[int, int] | None = None


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


def simulated(stack: Stack, plans: tuple[CheckpointPlan, ...],
              returns: Mapping[str, tuple[int, int]]) -> tuple[CheckpointPlan, ...]:
    """Return ``plans`` with each downtime's scale-up at the simulated share of its pool.

    ``returns`` maps a pool to (evicted jobs placed again that waited for a node, evicted jobs
    placed again) in the plan's simulation; a pool none came back on keeps the worst case.
    """
    out = []
    for p in plans:
        waited, back = returns.get(p.pool, (0, 0))
        if not back:
            out.append(p)
            continue
        pool = stack.pool(p.pool)
        tenant = None if p.tenant is None else next(
            t for t in stack.tenants if t.name == p.tenant)
        if pool is None:
            out.append(p)
            continue
        recovery = pool.recovery if tenant is None else facts.applying(stack, tenant, pool)
        out.append(replace(p, downtime=facts.downtime(stack, pool, recovery, waited / back),
                           no_slot=(waited, back)))
    return tuple(out)
