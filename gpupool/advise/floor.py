"""The ``lower-floor`` rule: a lower ``nodes.min`` where idle hours save more than the waits cost.

A floor node idle overnight costs its price every idle hour; without it, the pool's first pods
of the morning wait for a node. The rule weighs the two, from the evidence's hours (nodes that
reported, nodes whose every GPU was idle) at the floor (no more nodes reporting than
``nodes.min``):

* the drop: the idle floor nodes of the median hour that had any, from at least
  ``MIN_IDLE_HOURS`` such hours in the window;
* the saving: the dropped nodes' price for the idle hours (``drop`` nodes each such hour), per day
  of the window and per month;
* the expected wait: each hour in which the pool's busy nodes rise after an hour with idle floor
  nodes brings that many nodes (up to the drop) up cold; the pods that arrive for a cold node
  wait the cloud's node provisioning time, ``autoscaler.SCALE_UP_SECONDS`` (the figure
  ``gpupool simulate`` uses for every cloud, from cluster-autoscaler's FAQ). The pods a cold node
  keeps waiting are taken as its GPU slots (GPUs a node times the slots a GPU offers to pods),
  the most that can arrive for it: the wait is provisioning time times those pods;
* the wait's cost: a waiting pod is valued at its node's price for the time it waits (the work
  the node would have given it), so the floor is lowered only where the idle node-hours saved
  exceed the pod-hours of waiting. Where they do not, the "not judged" list says why.
"""

from __future__ import annotations

import itertools
import statistics
from typing import ClassVar

from gpupool.advise.recommendation import Recommendation, pool_evidence
from gpupool.advise.rule import NOTHING, Case, Findings, Rule, Scope
from gpupool.advise.words import counted
from gpupool.catalog import HOURS_PER_MONTH
from gpupool.facts import pool_facts
from gpupool.simulate.autoscaler import SCALE_UP_SECONDS

MIN_IDLE_HOURS = 12  # hours with idle floor nodes in the window before the floor is judged
HOURS_PER_DAY = 24


def cold_nodes(hours: tuple[tuple[int, int], ...], floor: int, drop: int) -> int:
    """Return the nodes a floor lowered by ``drop`` would bring up cold over ``hours``.

    In an hour at the floor with idle nodes, up to ``drop`` of them are gone; when the next
    hour's busy nodes rise, that many of the gone nodes (no more) are provisioned again.
    """
    out = 0
    for (present, idle), (present_next, idle_next) in itertools.pairwise(hours):
        if not 0 < present <= floor or idle <= 0:
            continue
        rise = (present_next - idle_next) - (present - idle)
        out += max(0, min(drop, idle, rise))
    return out


class LowerFloor(Rule):
    """A lower ``nodes.min`` where its idle hours save more than the cold starts cost."""

    id: ClassVar[str] = "lower-floor"
    kind: ClassVar[str] = "lower-floor"
    scope: ClassVar[Scope] = Scope.POOL_USE
    summary: ClassVar[str] = (
        "nodes at the floor idle in at least 12 hours of the window, where the idle node-hours "
        "saved a day exceed the pod-hours the scale-ups after idle hours keep waiting: the "
        "floor lowered by the idle nodes of the median such hour"
    )
    edits: ClassVar[str] = "pools[i].nodes.min"
    saving: ClassVar[str] = "those nodes' price times the share of idle hours"

    def judge(self, case: Case) -> Findings:
        """Propose a lower ``nodes.min`` where idle hours save more than the cold starts cost."""
        return _lower_floor(self.kind, case)


def _lower_floor(kind: str, case: Case) -> Findings:
    stack, pool, i, use, node_hourly = case.stack, case.pool, case.at, case.seen, case.node_price
    floor = pool.nodes.min
    if floor <= 0 or not use.hourly_nodes:
        return NOTHING
    at_floor = [(p, idle) for p, idle in use.hourly_nodes if 0 < p <= floor]
    idle_hours = [idle for _, idle in at_floor if idle > 0]
    if len(idle_hours) < MIN_IDLE_HOURS:
        return NOTHING
    drop = int(statistics.median_low(idle_hours))
    if drop <= 0:
        return NOTHING
    new_min = floor - drop
    days = len(use.hourly_nodes) / HOURS_PER_DAY
    facts = pool_facts(stack, pool)
    pods_per_node = max(1, facts.gpus_per_node * max(1, facts.slots_per_gpu))
    cold = cold_nodes(use.hourly_nodes, floor, drop)
    waiting_pods_per_day = cold * pods_per_node / days
    wait_hours_per_day = waiting_pods_per_day * SCALE_UP_SECONDS / 3600
    idle_node_hours_per_day = drop * len(idle_hours) / days
    figures = {
        "hours_at_floor": len(at_floor), "hours_with_idle_floor_nodes": len(idle_hours),
        "idle_nodes_median": drop,
        "saving_per_day": None if node_hourly is None
        else round(idle_node_hours_per_day * node_hourly, 2),
        "cold_nodes_per_day": round(cold / days, 2),
        "pods_per_cold_node": pods_per_node,
        "node_provisioning_seconds": SCALE_UP_SECONDS,
        "expected_wait_pod_minutes_per_day": round(wait_hours_per_day * 60, 1),
        "wait_cost_per_day": None if node_hourly is None
        else round(wait_hours_per_day * node_hourly, 2),
    }
    if wait_hours_per_day >= idle_node_hours_per_day:
        return Findings.gap(
            f"pool {pool.name}: nodes.min {floor} -> {new_min} not proposed: it would save "
            f"{idle_node_hours_per_day:.1f} idle node-hours a day, but the scale-ups after idle "
            f"hours would keep about {waiting_pods_per_day:.1f} pods a day waiting "
            f"{SCALE_UP_SECONDS / 60:g} min for a node ({wait_hours_per_day:.1f} pod-hours "
            "a day, each valued at its node's price)"
        )
    share = len(idle_hours) / max(1, len(use.hourly_nodes))
    saving_month = None if node_hourly is None else drop * node_hourly * share * HOURS_PER_MONTH
    return Findings.of(Recommendation(
        kind=kind,
        pool=pool.name,
        tenant=None,
        path=("pools", i, "nodes", "min"),
        value=new_min,
        summary=(
            f"{pool.name}: {drop} of its {counted(floor, 'floor node')} ran no pod in "
            f"{len(idle_hours)} of {len(use.hourly_nodes)} hours; nodes.min {floor} -> {new_min}"
        ),
        saving_per_month=saving_month,
        evidence=pool_evidence(use, case.window, **figures),
    ))
