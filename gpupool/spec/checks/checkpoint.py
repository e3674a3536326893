"""Checkpoint and downtime-budget rules (docs/stack-file.md, Checkpoints and downtime).

Each pool's and tenant's ``checkpoint`` and ``maxDowntimeSeconds`` against what the cluster can
give (``gpupool.facts.checkpoint`` holds the arithmetic):

- ``checkpoint.write-not-below-interval``: a write as long as the interval leaves no time to work;
- ``checkpoint.write-exceeds-notice``: on a spot pool, a write longer than the cloud's
  interruption notice cannot finish before the node goes (``clouds.json``
  ``spot_notice_seconds``: AWS 120 s, GCP 30 s, Azure 30 s, Volcengine 300 s, each with its
  source there);
- ``checkpoint.write-exceeds-drain``: a write longer than ``interruption.drainSeconds``, the
  grace the pool's admission rule holds its pods to;
- ``checkpoint.interval-off-optimum``: an interval more than twice, or under half, Daly's optimum
  for the pool's ``interruption.perHour``, with the GPU-hours a day it costs;
- ``checkpoint.downtime-over-budget``: the expected parts of the downtime, at the worst case of
  no free slot (a static check: ``plan`` with a simulation counts the scale-up at the simulated
  share instead, ``plan.checkpoint.simulated``), exceed ``maxDowntimeSeconds``;
- ``checkpoint.min-runtime-below-write``: a KAI tenant's declared ``minRuntime`` shorter than the
  write time, so a job placed again can be taken before it has written a checkpoint.
"""

from __future__ import annotations

import re

from gpupool import schedulers
from gpupool.checkpoint_model import Checkpoint
from gpupool.facts import checkpoint as facts
from gpupool.model import Stack, Tenant
from gpupool.spec.diagnostics import Diagnostic, error, warning

_GO_PART = re.compile(r"([0-9]+(?:\.[0-9]+)?)(ns|us|ms|s|m|h)")
_GO_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def _seconds(value: float) -> str:
    if value < 600:
        return f"{value:,.0f} s"
    return f"{value / 60:,.1f} min" if value < 7200 else f"{value / 3600:,.1f} h"


def _declared(stack: Stack) -> list[Checkpoint]:
    owners = [*stack.pools, *stack.tenants]
    return [o.recovery.checkpoint for o in owners if o.recovery.checkpoint is not None]


def _write_vs_interval(stack: Stack) -> list[Diagnostic]:
    return [
        error(
            "checkpoint.write-not-below-interval",
            "writeSeconds is not shorter than everySeconds",
            f"A job writing a checkpoint every {c.every_seconds:.0f} s for "
            f"{c.write_seconds:.0f} s never works between them. Lengthen everySeconds or "
            "shorten writeSeconds.",
            (*c.path, "writeSeconds"),
        )
        for c in _declared(stack) if c.write_seconds >= c.every_seconds
    ]


def _write_vs_stop(stack: Stack) -> list[Diagnostic]:
    notice = facts.notice_seconds(stack)
    out: dict[tuple[object, ...], Diagnostic] = {}
    for scope in facts.scopes(stack):
        ckpt, pool = scope.recovery.checkpoint, scope.pool
        if ckpt is None or not pool.capacity.spot or not stack.cloud.provisions:
            continue
        path = (*ckpt.path, "writeSeconds")
        drain = pool.interruption.drain_seconds
        if notice is not None and ckpt.write_seconds > notice:
            out.setdefault(("notice", path), error(
                "checkpoint.write-exceeds-notice",
                f"writeSeconds exceeds {stack.provider.cloud}'s {notice} s spot notice",
                f"Spot pool {pool.name}: the cloud takes the node {notice} s after its "
                f"interruption notice, so a {ckpt.write_seconds:.0f} s checkpoint written on "
                f"the notice never finishes. Write in at most {notice} s, or keep the job on "
                "on-demand capacity.",
                path,
            ))
        elif drain is not None and ckpt.write_seconds > drain:
            out.setdefault(("drain", path), error(
                "checkpoint.write-exceeds-drain",
                f"writeSeconds exceeds pool {pool.name}'s drainSeconds ({drain} s)",
                f"Pods on {pool.name} get {drain} s to stop (interruption.drainSeconds, held "
                f"by the admission rule), too short for a {ckpt.write_seconds:.0f} s "
                "checkpoint. Raise drainSeconds to at least writeSeconds (within the cloud's "
                "notice) or write faster.",
                path,
            ))
    return list(out.values())


def _interval(stack: Stack) -> list[Diagnostic]:
    out: dict[tuple[object, ...], Diagnostic] = {}
    for scope in facts.scopes(stack):
        ckpt = scope.recovery.checkpoint
        found = None if ckpt is None else facts.interval(scope.pool, ckpt)
        if ckpt is None or found is None or not found.off:
            continue
        path = (*ckpt.path, "everySeconds")
        way = "longer" if found.every_seconds > found.optimum_seconds else "shorter"
        out.setdefault((path, scope.pool.name), warning(
            "checkpoint.interval-off-optimum",
            f"everySeconds is far {way} than the optimum for pool {scope.pool.name} "
            f"({_seconds(found.optimum_seconds)})",
            f"At {scope.pool.interruption.per_hour:g} interruptions per node and hour "
            f"(interruption.perHour) and a {found.write_seconds:.0f} s write, Daly's optimum "
            f"interval is {_seconds(found.optimum_seconds)} (Young's first order: "
            f"{_seconds(found.young_seconds)}). Every {_seconds(found.every_seconds)} loses "
            f"{found.declared_loss:.1%} of each GPU-hour to writes and redone work against "
            f"{found.optimum_loss:.1%}: {found.gpu_hours_a_day:,.1f} GPU-hours a day more on "
            f"its {found.gpus} GPUs. Set everySeconds near {found.optimum_seconds:.0f}.",
            path,
        ))
    return list(out.values())


def _downtime(stack: Stack) -> list[Diagnostic]:
    out: dict[tuple[object, ...], Diagnostic] = {}
    for scope in facts.scopes(stack):
        d = facts.downtime(stack, scope.pool, scope.recovery, no_slot_share=1.0)
        if not d.over:
            continue
        parts = ", ".join(f"{name} {s:.0f} s" for name, s in d.parts() if s)
        who = scope.pool.name if scope.tenant is None else (
            f"{scope.tenant.name} on {scope.pool.name}")
        out.setdefault((scope.recovery.downtime_path, scope.pool.name), warning(
            "checkpoint.downtime-over-budget",
            f"An interruption of {who} is expected to take {d.total_seconds:.0f} s, over "
            f"maxDowntimeSeconds ({d.budget_seconds:.0f} s)",
            f"From an interruption to the job running again: {parts}. The scale-up counts in "
            "full (the worst case: no free slot when the job is placed again; a plan that "
            "runs a simulation counts it at the share the run measured). Keep a warm node "
            "(nodes.min), shorten startupSeconds or restoreSeconds, or raise the budget.",
            scope.recovery.downtime_path,
        ))
    return list(out.values())


def _go_seconds(text: str) -> float:
    """Seconds in a Go duration the schema allowed (``1h30m``, ``90s``, ``500ms``)."""
    return sum(float(n) * _GO_UNITS[u] for n, u in _GO_PART.findall(text))


def _min_runtime(stack: Stack, t: Tenant) -> list[Diagnostic]:
    write = facts.tenant_write_seconds(stack, t)
    if write is None or not schedulers.of(stack).queues:
        return []
    out = []
    for key, value in (("preempt", t.preempt_min_runtime), ("reclaim", t.reclaim_min_runtime)):
        if value is None or _go_seconds(value) >= write:
            continue
        out.append(warning(
            "checkpoint.min-runtime-below-write",
            f"minRuntime.{key} ({value}) is shorter than a checkpoint write ({write:.0f} s)",
            f"KAI may {'preempt' if key == 'preempt' else 'reclaim'} a job of {t.name} "
            f"{value} after it starts, before it has written a checkpoint, so it loses what it "
            f"ran each time. Set minRuntime.{key} to at least {write:.0f}s, or remove it: "
            "gpupool then renders the write time.",
            (*t.path, "minRuntime", key),
        ))
    return out


def run(stack: Stack) -> list[Diagnostic]:
    """Check each checkpoint and downtime budget against the pool it applies on."""
    out = _write_vs_interval(stack) + _write_vs_stop(stack) + _interval(stack) + _downtime(stack)
    for t in stack.tenants:
        out += _min_runtime(stack, t)
    return out
