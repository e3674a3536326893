"""Two node-level rules: spot capacity, and a cheaper instance type with the same GPUs.

* ``spot``: an on-demand pool of a cloud instance type whose spot price the catalog knows, where
  every GPU pod seen on its nodes has an owner that recreates it (kube-state-metrics'
  ``kube_pod_owner``: ``ReplicaSet``, ``StatefulSet``, ``Job``...; a bare pod, owner ``<none>``,
  would be lost with its node): ``capacity: {type: spot, onDemandBase: N}``, N the nodes busy in
  the median hour (the steady load stays on on-demand nodes). Saving: the on-demand less the spot
  price of the mean nodes above the base.
* ``instance-type``: a pool whose busiest node's CPU and memory requests (p95) stay under half of
  its instance's: the cheapest instance type of the same cloud with the same GPUs (model, count,
  whole GPUs) offered in the stack's region that still holds those requests with ``HEADROOM``.
  Saving: the price difference of the mean nodes.
"""

from __future__ import annotations

import statistics
from typing import ClassVar

from gpupool import catalog
from gpupool.advise.evidence import PoolUse
from gpupool.advise.recommendation import Recommendation, pool_evidence
from gpupool.advise.rule import NOTHING, Case, Findings, Rule, Scope
from gpupool.advise.words import counted, verb
from gpupool.catalog import HOURS_PER_MONTH

HEADROOM = 1.25
LOW_SHARE = 0.5
MIN_PODS = 3  # GPU pods seen on a pool's nodes before their owners say anything


def _mean_nodes(use: PoolUse) -> float:
    present = [p for p, _ in use.hourly_nodes if p]
    return statistics.fmean(present) if present else 0.0


def _pods_seen(n: int) -> str:
    """Return how many pods requesting GPUs were seen, in words."""
    if n == 0:
        return "no pod that requests a GPU was seen"
    return f"{counted(n, 'pod')} that requested GPUs {verb(n, 'was', 'were')} seen"


class Spot(Rule):
    """Spot with an on-demand base for an on-demand pool whose pods are all recreated."""

    id: ClassVar[str] = "spot"
    kind: ClassVar[str] = "spot"
    scope: ClassVar[Scope] = Scope.POOL_USE
    summary: ClassVar[str] = (
        "an on-demand pool whose every GPU pod (at least 3 seen) has an owner that recreates "
        "it, and whose instance type has a spot price in the catalog: spot above an on-demand "
        "base of the nodes busy in the median hour"
    )
    edits: ClassVar[str] = "pools[i].capacity"
    saving: ClassVar[str] = "on-demand less spot price of the mean nodes above the base"

    def judge(self, case: Case) -> Findings:
        """Propose spot above an on-demand base where every GPU pod seen is recreated."""
        return _spot(self.kind, case)


def _spot(kind: str, case: Case) -> Findings:
    pool, i, use, pods, window = case.pool, case.at, case.seen, case.pods, case.window
    instance = pool.instance
    if pool.capacity.spot or instance is None or instance.price is None:
        return NOTHING
    price = instance.price
    if price.spot_hourly is None or price.on_demand_hourly is None:
        return NOTHING
    if price.spot_hourly >= price.on_demand_hourly:
        return NOTHING
    if pods is not None and pods.bare:
        return Findings.gap(
            f"pool {pool.name}: {pods.bare} of its {counted(pods.pods, 'GPU pod')} "
            f"{verb(pods.bare, 'has', 'have')} no owner that recreates "
            f"{verb(pods.bare, 'it', 'them')} (kube_pod_owner), so spot is not proposed")
    if pods is None or pods.pods < MIN_PODS:
        seen = 0 if pods is None else pods.pods
        return Findings.gap(
            f"pool {pool.name}: {_pods_seen(seen)} on its nodes in the window (spot "
            f"needs at least {MIN_PODS} to judge whether its work survives an "
            "interruption)")
    busy = [p - idle for p, idle in use.hourly_nodes if p]
    base = min(pool.nodes.max, int(statistics.median_low(busy))) if busy else pool.nodes.min
    above = _mean_nodes(use) - base
    saving = (price.on_demand_hourly - price.spot_hourly) * above * HOURS_PER_MONTH
    if saving <= 0:
        return NOTHING
    kinds = ", ".join(f"{k} {n}" for k, n in pods.owner_kinds.items())
    return Findings.of(Recommendation(
        kind=kind,
        pool=pool.name,
        tenant=None,
        path=("pools", i, "capacity"),
        value={"type": "spot", "onDemandBase": base},
        summary=(
            f"{pool.name}: all {pods.pods} GPU pods on its nodes are recreated by their owners "
            f"({kinds}; {counted(pods.restarts, 'restart')}); spot above an on-demand base of "
            f"{counted(base, 'node')} (the median hour's busy nodes)"
        ),
        saving_per_month=saving,
        evidence=pool_evidence(
            use, window, pods=pods.pods, owner_kinds=dict(pods.owner_kinds),
            restarts=pods.restarts, on_demand_base=base,
            on_demand_hourly=price.on_demand_hourly, spot_hourly=price.spot_hourly,
            price_source=price.source,
        ),
    ))


class InstanceType(Rule):
    """The cheapest instance type with the same GPUs that holds the pods' host requests."""

    id: ClassVar[str] = "instance-type"
    kind: ClassVar[str] = "instance-type"
    scope: ClassVar[Scope] = Scope.POOL_USE
    summary: ClassVar[str] = (
        "the busiest node's CPU and memory requests (p95) under half its instance's: the "
        "cheapest type of the cloud with the same GPUs (model, count, whole GPUs), offered in "
        "the region, holding the requests x 1.25"
    )
    edits: ClassVar[str] = "pools[i].instanceType"
    saving: ClassVar[str] = "the price difference of the mean nodes"

    def judge(self, case: Case) -> Findings:
        """Propose a cheaper instance type with the same GPUs where host requests stay low."""
        return _instance_type(self.kind, case)


def _instance_type(kind: str, case: Case) -> Findings:
    pool, i, use, pods, window = case.pool, case.at, case.seen, case.pods, case.window
    current = pool.instance
    if current is None or current.price is None or current.price.on_demand_hourly is None:
        return NOTHING
    if pods is None or pods.cpu_p95 is None or pods.memory_p95_gib is None:
        return Findings.gap(
            f"pool {pool.name}: no CPU and memory requests of running pods on its nodes "
            "(kube_pod_container_resource_requests), so its instance type is not judged")
    cpu, memory = pods.cpu_p95, pods.memory_p95_gib
    if cpu > LOW_SHARE * current.vcpus or memory > LOW_SHARE * current.memory_gib:
        return NOTHING
    region = case.stack.provider.region
    fits = [
        c for c in catalog.instances(pool.cloud, current.gpu)
        if c.gpu == current.gpu and c.gpu_count == current.gpu_count
        and c.gpu_fraction == current.gpu_fraction and c.name != current.name
        and c.vcpus >= cpu * HEADROOM and c.memory_gib >= memory * HEADROOM
        and c.price is not None and c.price.on_demand_hourly is not None
        and c.price.on_demand_hourly < current.price.on_demand_hourly
        and (not c.regions or region is None or region in c.regions)
    ]
    if not fits:
        return NOTHING
    best = min(fits, key=lambda c: (c.price.on_demand_hourly if c.price else 0.0, c.name))
    assert best.price is not None and best.price.on_demand_hourly is not None
    nodes = _mean_nodes(use)
    cheaper = current.price.on_demand_hourly - best.price.on_demand_hourly
    saving = cheaper * nodes * HOURS_PER_MONTH
    return Findings.of(Recommendation(
        kind=kind,
        pool=pool.name,
        tenant=None,
        path=("pools", i, "instanceType"),
        value=best.name,
        summary=(
            f"{pool.name}: its busiest node's pods request {cpu:g} of {current.vcpus} vCPUs and "
            f"{memory:.1f} of {current.memory_gib:g} GiB (p95); {best.name} has the same "
            f"{current.gpu_count} x {current.gpu} with {best.vcpus} vCPUs and "
            f"{best.memory_gib:g} GiB"
        ),
        saving_per_month=saving,
        evidence=pool_evidence(
            use, window, cpu_requests_p95=round(cpu, 2), memory_requests_p95_gib=round(memory, 2),
            mean_nodes=round(nodes, 2), resolution=pods.resolution,
            on_demand_hourly=current.price.on_demand_hourly,
            new_on_demand_hourly=best.price.on_demand_hourly,
        ),
    ))
