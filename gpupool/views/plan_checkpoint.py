"""How a plan shows checkpoints: the rows of the text and markdown sections, and JSON.

This module owns the checkpoint section the plan views add after the services: per pool (or
tenant on a pool) the declared interval, Daly's optimum for the pool's interruption rate (and
Young's), the share of each GPU-hour both lose and the GPU-hours a day between them; then the
expected downtime, part by part, against ``maxDowntimeSeconds``, and under it the share of
interruptions its scale-up counts at (in full, or as the plan's simulation measured it). It
computes nothing: ``gpupool.plan.checkpoint`` does.
"""

from __future__ import annotations

from typing import Any

from gpupool.plan import PlanResult
from gpupool.plan.checkpoint import CheckpointPlan
from gpupool.views.plan_text import table

INTERVAL_HEAD = ("pool", "tenant", "every", "write", "optimum (Daly)", "Young", "lost/GPU-hour",
                 "at optimum", "GPU-hours/day more")
DOWNTIME_HEAD = ("pool", "tenant", "drain", "rescheduling", "scale-up", "startup", "restore",
                 "total", "budget")
#: What the text and markdown sections say under the downtime table, where nothing simulated.
DOWNTIME_NOTE = ("the scale-up counts in full, the worst case of no free slot when the job is "
                 "placed again; a plan that runs a simulation counts it at the share it measured")


def downtime_note(result: PlanResult) -> str:
    """Return the note under the downtime table: the share each scale-up counts at, and why."""
    measured: dict[str, tuple[int, int]] = {}
    for p in result.checkpoints:
        if p.no_slot is not None:
            measured.setdefault(p.pool, p.no_slot)
    if not measured:
        return DOWNTIME_NOTE
    shares = "; ".join(f"{pool} {waited} of {back}" for pool, (waited, back) in measured.items())
    rest = ("" if all(p.pool in measured for p in result.checkpoints)
            else "; elsewhere in full, the worst case (no evicted job came back)")
    return ("the scale-up counts at the share of evicted jobs the simulation placed again on a "
            f"node not ready when they were evicted ({shares}){rest}")


def _s(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds:,.0f} s"


def interval_rows(result: PlanResult) -> list[list[str]]:
    """Return one row per pool or tenant with a checkpoint (``INTERVAL_HEAD``)."""
    out = []
    for p in result.checkpoints:
        if p.every_seconds is None:
            continue
        i = p.interval
        tail = ["no interruption.perHour"] + ["-"] * 4 if i is None else [
            _s(i.optimum_seconds), _s(i.young_seconds), f"{i.declared_loss:.1%}",
            f"{i.optimum_loss:.1%}", f"{i.gpu_hours_a_day:,.1f}"]
        out.append([p.pool, p.tenant or "-", _s(p.every_seconds), _s(p.write_seconds), *tail])
    return out


def downtime_rows(result: PlanResult) -> list[list[str]]:
    """Return one row per pool or tenant (``DOWNTIME_HEAD``)."""
    out = []
    for p in result.checkpoints:
        d = p.downtime
        over = " OVER" if d.over else ""
        out.append([p.pool, p.tenant or "-", *(_s(s) for _, s in d.parts()),
                    _s(d.total_seconds) + over, _s(d.budget_seconds)])
    return out


def text_section(result: PlanResult) -> list[str]:
    """Return the text plan's checkpoint section (empty when no pool or tenant states one)."""
    if not result.checkpoints:
        return []
    lines = []
    intervals = interval_rows(result)
    if intervals:
        lines += ["", "Checkpoints (interval against the optimum for interruption.perHour; "
                      "GPU-hours at nodes.max):"]
        lines += table(INTERVAL_HEAD, intervals)
    lines += ["", "Downtime from an interruption to running again:"]
    lines += table(DOWNTIME_HEAD, downtime_rows(result))
    lines.append(f"  ({downtime_note(result)})")
    return lines


def _plan_json(p: CheckpointPlan) -> dict[str, Any]:
    i, d = p.interval, p.downtime
    return {
        "pool": p.pool, "tenant": p.tenant,
        "checkpoint": None if p.every_seconds is None else {
            "everySeconds": p.every_seconds, "writeSeconds": p.write_seconds,
            "restoreSeconds": p.restore_seconds},
        "interval": None if i is None else {
            "mtbiSeconds": round(i.mtbi_seconds, 3),
            "optimumSeconds": round(i.optimum_seconds, 3),
            "youngSeconds": round(i.young_seconds, 3),
            "lossShare": round(i.declared_loss, 6), "optimumLossShare": round(i.optimum_loss, 6),
            "gpus": i.gpus, "gpuHoursADayMore": round(i.gpu_hours_a_day, 3), "off": i.off},
        "terminationGracePeriodSeconds": p.grace_seconds,
        "downtime": {
            "parts": {name: round(s, 3) for name, s in d.parts()},
            "noSlotShare": d.no_slot_share,
            "totalSeconds": round(d.total_seconds, 3),
            "budgetSeconds": d.budget_seconds, "over": d.over},
    }


def to_json(result: PlanResult) -> dict[str, Any]:
    """Return the JSON document's ``checkpoints`` entry."""
    return {"checkpoints": [_plan_json(p) for p in result.checkpoints]}
