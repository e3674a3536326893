"""The ``checkpoint-interval`` rule: ``checkpoint.everySeconds`` from the interruptions measured.

For each pool a ``checkpoint`` applies on (the pool's own, or a tenant's whose only pool it is),
the mean time between interruptions the window measured (``advise.interruptions``: the pool's
nodes that vanished busy, over its busy node-hours) and the checkpoint's ``writeSeconds`` give
the optimum interval by Daly's estimate (``facts.checkpoint.daly``, the one validate's
``checkpoint.interval-off-optimum`` uses; Young's first-order ``sqrt(2 x write x MTBI)``,
``facts.checkpoint.young``, beside it: J. W. Young, CACM 17(9), 1974; J. T. Daly, FGCS 22(3),
2006). Where the declared ``everySeconds`` is more than twice or under half of it
(``facts.checkpoint.OFF_BY``, validate's band), the edit sets ``everySeconds`` to it in whole
seconds (above ``writeSeconds``, as validate requires).

The saving: the share of each GPU-hour the declared interval loses beyond the optimum's
(``facts.checkpoint.loss_share``: the writes, plus half an interval redone at each
interruption) times the pool's busy GPU-hours a month (its busy node-hours over the window,
times its GPUs a node) at its GPU price.

Cannot tell (a gap, no edit): under ``MIN_NODE_HOURS`` busy node-hours, or no node vanished
busy in the window (the mean time between interruptions is then only known to exceed the
busy node-hours seen).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, ClassVar

from gpupool.advise.interruptions import HOUR, PoolInterruptions
from gpupool.advise.recommendation import Recommendation
from gpupool.advise.rule import NOTHING, Case, Findings, Rule, Scope
from gpupool.advise.words import counted
from gpupool.catalog import HOURS_PER_MONTH
from gpupool.checkpoint_model import Checkpoint
from gpupool.facts import checkpoint as formulas
from gpupool.model import Pool, Stack

MIN_NODE_HOURS = 168  # busy node-hours (a node-week) before a rate is told
SHOWN = 5  # vanished nodes named in the evidence
MAX_EVERY = 31_622_400  # checkpoint.everySeconds' bound in the stack schema (366 days)


@dataclass(frozen=True)
class Target:
    """A checkpoint that applies on the pool judged, and the stack path of its interval."""

    checkpoint: Checkpoint
    owner: str  # "pool NAME" or "tenant NAME"
    tenant: str | None


def targets(stack: Stack, pool: Pool) -> tuple[list[Target], list[str]]:
    """Return the checkpoints judged on ``pool``, and the gaps of those that cannot be.

    The pool's own, and each tenant's own whose only pool it is: a tenant's checkpoint that
    applies on several pools has one interval for several rates, and is not judged.
    """
    out: list[Target] = []
    gaps: list[str] = []
    if pool.recovery.checkpoint is not None:
        out.append(Target(pool.recovery.checkpoint, f"pool {pool.name}", None))
    for t in stack.tenants:
        ckpt = t.recovery.checkpoint
        if ckpt is None or pool.name not in t.pools:
            continue
        if len(t.pools) == 1:
            out.append(Target(ckpt, f"tenant {t.name}", t.name))
        elif t.pools[0] == pool.name:  # said once, on its first pool
            gaps.append(f"tenant {t.name}: its checkpoint applies on {len(t.pools)} pools "
                        f"({', '.join(t.pools)}), each with its own interruption rate: "
                        "checkpoint-interval does not judge it")
    return out, gaps


def _whole(value: float) -> float | int:
    """Return a value read as a float as the stack wrote it (``60``, not ``60.0``)."""
    return int(value) if value.is_integer() else value


def _when(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M")


def _cannot_tell(pool: str, seen: PoolInterruptions | None) -> str | None:
    """Return why the pool's rate cannot be told, or None where it can."""
    hours = 0 if seen is None else seen.busy_node_hours
    if hours < MIN_NODE_HOURS:
        return (f"pool {pool}: checkpoint interval: cannot tell the interruption rate from "
                f"{counted(hours, 'busy node-hour')} (at least {MIN_NODE_HOURS} are needed)")
    if seen is not None and not seen.interruptions:
        idle = seen.idle_gone
        also = "" if not idle else (
            f"; {counted(len(idle), 'node')} vanished idle ({idle[0]}...), not counted")
        return (f"pool {pool}: checkpoint interval: cannot tell: no node vanished busy in the "
                f"window's {hours} busy node-hours, so the mean time between interruptions is "
                f"only known to exceed {hours} h{also}")
    return None


def _evidence(seen: PoolInterruptions, target: Target, window: float, mtbi: float,
              young: float, optimum: float, losses: tuple[float, float]) -> dict[str, Any]:
    busy = [v for v in seen.vanished if v.busy]
    return {
        "window_hours": round(window / HOUR, 1),
        "busy_node_hours": seen.busy_node_hours,
        "vanished_nodes": seen.interruptions,
        "vanished": ", ".join(f"{v.node} gone by {_when(v.last_seen)}" for v in busy[:SHOWN])
        + (f" and {len(busy) - SHOWN} more" if len(busy) > SHOWN else ""),
        "vanished_idle_not_counted": len(seen.idle_gone),
        "interruptions_per_node_hour": round(seen.interruptions / seen.busy_node_hours, 6),
        "mtbi_hours": round(mtbi / HOUR, 1),
        "write_seconds": _whole(target.checkpoint.write_seconds),
        "every_seconds": _whole(target.checkpoint.every_seconds),
        "young_seconds": round(young),
        "daly_seconds": round(optimum),
        "loss_share_declared": round(losses[0], 4),
        "loss_share_optimum": round(losses[1], 4),
    }


def _judge(kind: str, case: Case, target: Target, seen: PoolInterruptions) -> Recommendation | None:
    mtbi = seen.mtbi_seconds
    ckpt = target.checkpoint
    if mtbi is None:
        return None
    optimum = formulas.daly(ckpt.write_seconds, mtbi)
    young = formulas.young(ckpt.write_seconds, mtbi)
    every = ckpt.every_seconds
    ratio = every / optimum
    if 1.0 / formulas.OFF_BY <= ratio <= formulas.OFF_BY:
        return None
    value = min(MAX_EVERY, max(round(optimum), int(ckpt.write_seconds) + 1))
    losses = (min(1.0, formulas.loss_share(every, ckpt.write_seconds, mtbi)),
              min(1.0, formulas.loss_share(value, ckpt.write_seconds, mtbi)))
    gpus = seen.busy_node_hours / (case.window / HOUR) * case.pool.gpus_per_node
    price = case.gpu_price
    saving = None if price is None else (
        (losses[0] - losses[1]) * gpus * price * HOURS_PER_MONTH)
    way = "longer" if value > every else "shorter"
    return Recommendation(
        kind=kind, pool=case.pool.name, tenant=target.tenant,
        path=(*ckpt.path, "everySeconds"), value=value,
        summary=(f"{target.owner}: checkpoint every {value} s, {way} than {every:.0f} s: "
                 f"{counted(seen.interruptions, 'node')} of {case.pool.name} vanished busy in "
                 f"{seen.busy_node_hours} busy node-hours (one every {mtbi / HOUR:.1f} h), "
                 f"and Daly's optimum for a {ckpt.write_seconds:.0f} s write is {value} s "
                 f"(Young's sqrt(2 x write x MTBI): {young:.0f} s); its jobs would lose "
                 f"{losses[1]:.2%} of each GPU-hour to writes and redone work, not "
                 f"{losses[0]:.2%}"),
        saving_per_month=saving,
        evidence=_evidence(seen, target, case.window, mtbi, young, optimum, losses),
    )


class CheckpointInterval(Rule):
    """``checkpoint.everySeconds`` from the interruptions the window measured."""

    id: ClassVar[str] = "checkpoint-interval"
    kind: ClassVar[str] = "checkpoint-interval"
    scope: ClassVar[Scope] = Scope.POOL
    summary: ClassVar[str] = (
        "a pool where a checkpoint applies and whose nodes vanished busy in the window (at "
        "least 168 busy node-hours seen): everySeconds set to Daly's optimum for the measured "
        "mean time between interruptions, where the declared one is over twice or under half "
        "of it"
    )
    edits: ClassVar[str] = "pools[i].checkpoint.everySeconds, tenants[i].checkpoint.everySeconds"
    saving: ClassVar[str] = (
        "the share of a GPU-hour lost to writes and redone work, declared less optimum, "
        "times the pool's busy GPU-hours at its price")

    def judge(self, case: Case) -> Findings:
        """Propose each applying checkpoint's interval from the pool's measured rate."""
        found, gaps = targets(case.stack, case.pool)
        if not found:
            return Findings(gaps=tuple(gaps))
        seen = case.evidence.interruptions.get(case.pool.name)
        why = _cannot_tell(case.pool.name, seen)
        if why is not None or seen is None:
            return Findings(gaps=(*gaps, *([why] if why else [])))
        recs = [r for t in found if (r := _judge(self.kind, case, t, seen)) is not None]
        if not recs and not gaps:
            return NOTHING
        return Findings(recommendations=tuple(recs), gaps=tuple(gaps))
