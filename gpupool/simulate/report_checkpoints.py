"""The checkpoint figures of a run: GPU-hours lost split, interruption rate, interval, downtime.

This module owns what ``gpupool simulate`` reports of checkpoints (docs/workload.md,
Checkpoints in a run), from the ``resume.CheckpointRun`` the run's ``checkpoints`` part kept:

* per tenant and per pool, the GPU-hours lost split into **work redone** (done since the
  latest completed checkpoint when the job was evicted; all of an evicted run for a job that
  keeps none) and **overhead**: writing and restoring checkpoints, in every run;
* per pool, the **simulated mean time between interruptions**: the seconds jobs ran there over
  the evictions (preemptions, spot interruptions and drains) and give-ups they met, and for each
  declared ``checkpoint`` that applies there (the pool's, a tenant's) the declared interval
  beside Young's and Daly's optimum for that MTBI (``facts.checkpoint``);
* per pool where a ``maxDowntimeSeconds`` applies, the **share of interruptions over it**: each
  one's time from the eviction to the job placed again, plus its ``startupSeconds`` and the
  restore it paid; a job never placed again is over;
* per pool, of the evicted jobs placed again, those that waited for a node not ready at their
  eviction (``no_slot_share``: what ``plan`` counts the downtime's scale-up at; not in the
  document).

``figures`` is None for a run where nothing of checkpoints or downtime is stated, so that such
a run's report and document are what they were.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpupool.facts import checkpoint as formulas
from gpupool.simulate.accounting import Outcome
from gpupool.simulate.resume import Lost


@dataclass(frozen=True)
class LostHours:
    """GPU-hours lost: work redone, and the overhead of writing and restoring."""

    redone: float
    write: float
    restore: float

    @property
    def overhead(self) -> float:
        """Writing and restoring."""
        return self.write + self.restore

    @property
    def total(self) -> float:
        """Everything lost."""
        return self.redone + self.write + self.restore


@dataclass(frozen=True)
class IntervalFigures:
    """A declared checkpoint interval beside the optimum for the pool's simulated MTBI."""

    tenant: str  # ``-``: the pool's own checkpoint
    every_seconds: float
    write_seconds: float
    young_seconds: float | None  # None: no interruption in the run
    optimum_seconds: float | None  # Daly's


@dataclass(frozen=True)
class DowntimeFigures:
    """Interruptions on a pool with a downtime budget, and how many went over it."""

    budgets: tuple[float, ...]  # the distinct maxDowntimeSeconds that applied
    interruptions: int
    over: int
    never_back: int  # never placed again (counted over)
    worst_seconds: float | None  # the longest measured downtime

    @property
    def share_over(self) -> float | None:
        """The share of interruptions over their budget (None: no interruption)."""
        return self.over / self.interruptions if self.interruptions else None


@dataclass(frozen=True)
class PoolCheckpoints:
    """One pool's checkpoint figures."""

    pool: str
    lost: LostHours
    interruptions: int
    job_hours: float
    mtbi_seconds: float | None  # None: no interruption
    intervals: tuple[IntervalFigures, ...]
    downtime: DowntimeFigures | None  # None: no budget applies on the pool
    returns: int = 0  # evicted jobs placed again (the pool of their first pod)
    scaled_up: int = 0  # of them, placed on a node not ready when they were evicted

    @property
    def no_slot_share(self) -> float | None:
        """The share of evicted jobs placed again that waited for a node (None: none back)."""
        return self.scaled_up / self.returns if self.returns else None


@dataclass(frozen=True)
class CheckpointFigures:
    """A run's checkpoint figures."""

    tenants: tuple[tuple[str, LostHours], ...]
    pools: tuple[PoolCheckpoints, ...]


def _hours(lost: Lost | None) -> LostHours:
    if lost is None:
        return LostHours(0.0, 0.0, 0.0)
    return LostHours(lost.redone / 3600, lost.write / 3600, lost.restore / 3600)


def figures(outcome: Outcome, tenant_order: list[str]) -> CheckpointFigures | None:
    """Return the run's checkpoint figures (None where it followed none)."""
    run = outcome.checkpoints
    if run is None:
        return None
    stack = outcome.stack
    scopes = formulas.scopes(stack)
    pools = []
    for pm in outcome.cluster.pools:
        measured = run.pools.get(pm.name)
        mine = [s for s in scopes if s.pool.name == pm.name]
        if measured is None and not mine:
            continue
        interruptions = measured.interruptions if measured else 0
        seconds = measured.job_seconds if measured else 0.0
        mtbi = seconds / interruptions if interruptions else None
        intervals = tuple(
            IntervalFigures(
                tenant=s.tenant.name if s.tenant is not None else "-",
                every_seconds=s.recovery.checkpoint.every_seconds,
                write_seconds=s.recovery.checkpoint.write_seconds,
                young_seconds=None if mtbi is None else formulas.young(
                    s.recovery.checkpoint.write_seconds, mtbi),
                optimum_seconds=None if mtbi is None else formulas.daly(
                    s.recovery.checkpoint.write_seconds, mtbi),
            )
            for s in mine if s.recovery.checkpoint is not None
        )
        budgets = sorted({s.recovery.max_downtime_seconds for s in mine
                          if s.recovery.max_downtime_seconds is not None})
        downtime = None
        if budgets:
            times = measured.downtimes if measured else []
            never = measured.never_back if measured else []
            downtime = DowntimeFigures(
                budgets=tuple(budgets),
                interruptions=len(times) + len(never),
                over=sum(1 for d, b in times if d > b + 1e-9) + len(never),
                never_back=len(never),
                worst_seconds=max((d for d, _ in times), default=None),
            )
        pools.append(PoolCheckpoints(
            pool=pm.name, lost=_hours(measured.lost if measured else None),
            interruptions=interruptions, job_hours=seconds / 3600, mtbi_seconds=mtbi,
            intervals=intervals, downtime=downtime,
            returns=measured.returns if measured else 0,
            scaled_up=measured.scaled_up if measured else 0,
        ))
    tenants = tuple((name, _hours(run.tenants.get(name))) for name in tenant_order)
    return CheckpointFigures(tenants=tenants, pools=tuple(pools))


def _round(x: float | None, places: int = 4) -> float | None:
    return None if x is None else round(x, places)


def _lost_json(lost: LostHours) -> dict[str, Any]:
    return {"redone_gpu_hours": _round(lost.redone), "write_gpu_hours": _round(lost.write),
            "restore_gpu_hours": _round(lost.restore),
            "overhead_gpu_hours": _round(lost.overhead), "lost_gpu_hours": _round(lost.total)}


def document(c: CheckpointFigures) -> dict[str, Any]:
    """Return the JSON form of a run's checkpoint figures."""
    pools = []
    for p in c.pools:
        d = p.downtime
        pools.append({
            "pool": p.pool, **_lost_json(p.lost), "interruptions": p.interruptions,
            "job_hours": _round(p.job_hours), "mtbi_seconds": _round(p.mtbi_seconds, 1),
            "intervals": [{"tenant": i.tenant, "every_seconds": i.every_seconds,
                           "write_seconds": i.write_seconds,
                           "young_seconds": _round(i.young_seconds, 1),
                           "optimum_seconds": _round(i.optimum_seconds, 1)}
                          for i in p.intervals],
            "downtime": None if d is None else {
                "budget_seconds": list(d.budgets), "interruptions": d.interruptions,
                "over": d.over, "never_back": d.never_back,
                "share_over": _round(d.share_over), "worst_seconds": _round(d.worst_seconds, 1),
            },
        })
    return {"tenants": [{"tenant": name, **_lost_json(lost)} for name, lost in c.tenants],
            "pools": pools}
