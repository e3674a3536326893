"""The figures of a simulation run, per tenant and per pool, and their JSON document.

This module owns what ``gpupool simulate`` reports from an ``engine.Outcome``:

* per tenant: pods submitted, started, rejected and never started (each with its reasons and
  how many pods each), queue wait p50, p95 and max over the pods that started (nearest-rank
  percentiles; a gang's pods wait alike), preemptions suffered (pods) and the GPU-hours they
  lost, spot interruptions, GPU-hours used and their cost at the price per GPU-hour of the
  node each pod ran on (the plan's node price over its GPUs);
* per pool: the time-weighted GPU allocation ratio (allocated over ready GPUs), idle GPU-hours,
  node-hours (from the node's request to its removal), peak nodes, and cost (each node at its
  group's price: spot nodes at spot, on-demand at on-demand), None where a price is unknown,
  and its fragmentation: the FGD measure's fragmented share of its ready GPU capacity, as
  ``simulate.metered`` samples it (None where the run was not metered or nothing was measured).

With checkpoints or a downtime budget stated, the GPU-hours lost split into work redone and
overhead, the simulated interruption rate and interval, and the downtime budget's share over
(``report_checkpoints``).

``document`` is the JSON form (``format_version``), and ``compare`` puts a base run beside it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpupool.formats import FORMAT_VERSION
from gpupool.quantile import weighted_percentile
from gpupool.simulate import report_checkpoints
from gpupool.simulate.cluster import fraction_given
from gpupool.simulate.engine import GAVE_UP_STATE, REJECTED, Gang, Outcome
from gpupool.simulate.report_checkpoints import CheckpointFigures

TIMELINE_POINTS = 120
"""Points of the queue and allocation timeline kept for charts (evenly spaced in time)."""


@dataclass(frozen=True)
class Waits:
    """Queue wait in seconds: median, 95th percentile and most."""

    p50: float | None
    p95: float | None
    max: float | None


@dataclass(frozen=True)
class TenantFigures:
    """One tenant's figures (``-`` for pods of no tenant)."""

    tenant: str
    submitted: int
    started: int
    rejected: int
    never_started: int
    reasons: Mapping[str, int]  # reason -> pods rejected or never started for it
    wait: Waits
    preemptions: int
    gpu_hours_lost: float
    interruptions: int
    gpu_hours: float
    cost: float | None


@dataclass(frozen=True)
class PoolFigures:
    """One pool's figures."""

    pool: str
    allocation_ratio: float | None
    fragmentation: float | None
    idle_gpu_hours: float
    gpu_hours: float
    node_hours: float
    peak_nodes: int
    cost: float | None
    spot_unfilled: int = 0  # spot nodes asked for that the cloud could not fill
    # on-demand nodes grown because the spot group could not (at its most nodes, backed
    # off), and the GPU-hours that ran on them
    fallback_nodes: int = 0
    fallback_at_max: int = 0
    fallback_backed_off: int = 0
    fallback_gpu_hours: float = 0.0
    # pods of ``fraction`` rows that ran on the pool though it shares no GPU by fraction, and
    # what each was given and billed there ("a whole GPU", "one replica, 1/4 of a GPU")
    fraction_unshared_pods: int = 0
    fraction_given: str = ""


@dataclass(frozen=True)
class Report:
    """A whole run's figures."""

    stack: str
    workload: str
    seed: int
    scheduler: str
    currency: str
    hours: float  # simulated time from the start to the last start or end of a pod
    pods: Mapping[str, int]  # submitted, started, rejected, never_started
    tenants: tuple[TenantFigures, ...]
    pools: tuple[PoolFigures, ...]
    timeline: tuple[tuple[float, int, float], ...] = field(default=())
    checkpoints: CheckpointFigures | None = None  # where the run followed checkpoints


def _tenant(name: str, gangs: list[Gang], outcome: Outcome) -> TenantFigures:
    submitted = started = rejected = never = preempted = interrupted = 0
    lost = 0.0
    reasons: dict[str, int] = {}
    waits: list[tuple[float, int]] = []  # (wait, pods)
    for g in gangs:
        n = g.pods
        submitted += n
        if g.state == REJECTED:
            rejected += n
            reasons[g.reason] = reasons.get(g.reason, 0) + n
        elif g.first_start is None:
            never += n
            reasons[g.reason] = reasons.get(g.reason, 0) + n
        else:
            started += n
            waits.append((g.first_start - g.job.submit, n))
            if g.state == GAVE_UP_STATE:  # it ran, but never to its end
                reasons[g.reason] = reasons.get(g.reason, 0) + n
        preempted += g.preemptions * n
        interrupted += g.interruptions * n
        lost += g.gpu_seconds_lost
    stats = outcome.tenants.get(name)
    priced = all(p.cost_known for p in outcome.pools.values())
    return TenantFigures(
        tenant=name,
        submitted=submitted,
        started=started,
        rejected=rejected,
        never_started=never,
        reasons=dict(sorted(reasons.items())),
        wait=Waits(weighted_percentile(waits, 50), weighted_percentile(waits, 95),
                   max((w for w, _ in waits), default=None)),
        preemptions=preempted,
        gpu_hours_lost=lost / 3600,
        interruptions=interrupted,
        gpu_hours=(stats.gpu_seconds if stats else 0.0) / 3600,
        cost=(stats.cost if stats else 0.0) if priced else None,
    )


def _timeline(points: Sequence[tuple[float, int, float]], end: float) -> tuple[
        tuple[float, int, float], ...]:
    """Return the timeline at ``TIMELINE_POINTS`` instants evenly spaced over the run."""
    if not points or end <= 0:
        return tuple(points)
    out = []
    i = 0
    last = (0.0, 0, 0.0)
    for k in range(TIMELINE_POINTS + 1):
        t = end * k / TIMELINE_POINTS
        while i < len(points) and points[i][0] <= t:
            last = points[i]
            i += 1
        out.append((t, last[1], last[2]))
    return tuple(out)


def _unshared_fractions(outcome: Outcome) -> dict[str, int]:
    """Pods of ``fraction`` rows that started, per pool they ran on (once per pool)."""
    out: dict[str, int] = {}
    for g in outcome.gangs:
        if g.job.fraction is not None and g.first_start is not None:
            for name in g.pools_used:
                out[name] = out.get(name, 0) + g.pods
    return out


def report(outcome: Outcome, fragmentation: Mapping[str, float | None] | None = None) -> Report:
    """Return the figures of a run (``fragmentation``: per pool, from ``simulate.metered``)."""
    by_tenant: dict[str, list[Gang]] = {}
    stack = outcome.stack
    names = [t.name for t in stack.tenants]
    for g in outcome.gangs:
        key = g.job.tenant if g.job.tenant is not None else "-"
        by_tenant.setdefault(key, []).append(g)
    order = [n for n in names if n in by_tenant] + sorted(k for k in by_tenant if k not in names)
    tenants = tuple(_tenant(n, by_tenant[n], outcome) for n in order)
    fractions = _unshared_fractions(outcome)
    pools = []
    for pm in outcome.cluster.pools:
        s = outcome.pools[pm.name]
        given = fraction_given(pm)
        ratio = s.allocated_gpu_seconds / s.capacity_gpu_seconds if s.capacity_gpu_seconds else None
        pools.append(PoolFigures(
            pool=pm.name,
            allocation_ratio=ratio,
            fragmentation=(fragmentation or {}).get(pm.name),
            idle_gpu_hours=(s.capacity_gpu_seconds - s.allocated_gpu_seconds) / 3600,
            gpu_hours=s.allocated_gpu_seconds / 3600,
            node_hours=s.node_seconds / 3600,
            peak_nodes=s.peak_nodes,
            cost=s.cost if s.cost_known else None,
            spot_unfilled=s.spot_unfilled,
            fallback_nodes=s.fallback_nodes,
            fallback_at_max=s.fallback_at_max,
            fallback_backed_off=s.fallback_backed_off,
            fallback_gpu_hours=s.fallback_gpu_seconds / 3600,
            fraction_unshared_pods=fractions.get(pm.name, 0) if given else 0,
            fraction_given=given or "",
        ))
    currencies = sorted({pm.currency for pm in outcome.cluster.pools if pm.currency})
    totals = {
        "submitted": sum(t.submitted for t in tenants),
        "started": sum(t.started for t in tenants),
        "rejected": sum(t.rejected for t in tenants),
        "never_started": sum(t.never_started for t in tenants),
    }
    return Report(
        stack=stack.name,
        workload=outcome.workload.source,
        seed=outcome.settings.seed,
        scheduler=stack.cluster.scheduler,
        currency=currencies[0] if len(currencies) == 1 else "USD",
        hours=outcome.end / 3600,
        pods=totals,
        tenants=tenants,
        pools=tuple(pools),
        timeline=_timeline(outcome.timeline, outcome.end),
        checkpoints=report_checkpoints.figures(outcome, order),
    )


def _round(x: float | None, places: int = 4) -> float | None:
    return None if x is None else round(x, places)


def _tenant_json(t: TenantFigures) -> dict[str, Any]:
    return {
        "tenant": t.tenant,
        "submitted": t.submitted,
        "started": t.started,
        "rejected": t.rejected,
        "never_started": t.never_started,
        "reasons": dict(t.reasons),
        "wait_seconds": {"p50": _round(t.wait.p50, 1), "p95": _round(t.wait.p95, 1),
                         "max": _round(t.wait.max, 1)},
        "preemptions": t.preemptions,
        "gpu_hours_lost": _round(t.gpu_hours_lost),
        "interruptions": t.interruptions,
        "gpu_hours": _round(t.gpu_hours),
        "cost": _round(t.cost, 2),
    }


def _pool_json(p: PoolFigures) -> dict[str, Any]:
    return {
        "pool": p.pool,
        "allocation_ratio": _round(p.allocation_ratio),
        "fragmentation": _round(p.fragmentation),
        "gpu_hours": _round(p.gpu_hours),
        "idle_gpu_hours": _round(p.idle_gpu_hours),
        "node_hours": _round(p.node_hours),
        "peak_nodes": p.peak_nodes,
        "cost": _round(p.cost, 2),
        "spot_unfilled": p.spot_unfilled,
        "on_demand_fallback": {
            "nodes": p.fallback_nodes,
            "spot_at_max": p.fallback_at_max,
            "spot_backed_off": p.fallback_backed_off,
            "gpu_hours": _round(p.fallback_gpu_hours),
        },
        "fraction_unshared_pods": p.fraction_unshared_pods,
    }


def document(r: Report, base: Report | None = None) -> dict[str, Any]:
    """Return the JSON document of a run (with ``base``: the base run's under ``base``)."""
    doc: dict[str, Any] = {
        "format_version": FORMAT_VERSION,
        "stack": r.stack,
        "workload": r.workload,
        "seed": r.seed,
        "scheduler": r.scheduler,
        "currency": r.currency,
        "hours": _round(r.hours),
        "pods": dict(r.pods),
        "pools": [_pool_json(p) for p in r.pools],
        "tenants": [_tenant_json(t) for t in r.tenants],
        **({} if r.checkpoints is None else
           {"checkpoints": report_checkpoints.document(r.checkpoints)}),
        "timeline": [
            {"seconds": round(t, 1), "queued_pods": q, "allocated_gpus": _round(a)}
            for t, q, a in r.timeline
        ],
    }
    if base is not None:
        doc["base"] = document(base)
    return doc
