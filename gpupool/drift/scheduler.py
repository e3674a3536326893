"""Drift of the GPU scheduler: its Deployments against the replicas the stack declares.

KAI or HAMi places every GPU pod that names it, so a scheduler Deployment with fewer ready
replicas than declared is drift a platform engineer must hear of before the last one goes: the
stack declares two (``cluster.schedulerHighAvailability``) or one, per Deployment
(``gpupool.sharing.scheduler_ha.placement``). Three findings: the Deployment does not exist, its
``spec.replicas`` is below the declared count (someone scaled it down), or fewer of its replicas
are ready than declared (a pod pending, crashing, or on a lost node).
"""

from __future__ import annotations

from collections.abc import Sequence

from gpupool.cluster import ObservedDeployment
from gpupool.drift.items import DriftItem
from gpupool.model import Stack
from gpupool.sharing import scheduler_ha

SOURCE = "cluster"


def wanted(stack: Stack) -> list[tuple[str, str]]:
    """Return the ``(namespace, name)`` of each scheduler Deployment the stack declares."""
    placement = scheduler_ha.placement(stack)
    if placement is None:
        return []
    return [(d.namespace, d.name) for d in placement.deployments]


def compare(stack: Stack, observed: Sequence[ObservedDeployment]) -> list[DriftItem]:
    """Return a drift item per scheduler Deployment that is missing, scaled down or not ready."""
    placement = scheduler_ha.placement(stack)
    if placement is None:
        return []
    seen = {(o.namespace, o.name): o for o in observed}
    out = []
    for dep in placement.deployments:
        address = f"scheduler/{dep.namespace}/{dep.name}"
        got = seen.get((dep.namespace, dep.name))
        if got is None or not got.found:
            out.append(DriftItem(
                SOURCE, address, dep.replicas, None,
                f"{placement.scheduler} Deployment {dep.namespace}/{dep.name} does not exist: "
                "no GPU pod it schedules is placed",
            ))
        elif got.replicas < dep.replicas:
            out.append(DriftItem(
                SOURCE, address, dep.replicas, got.replicas,
                f"{placement.scheduler} Deployment {dep.namespace}/{dep.name} is scaled to "
                f"{got.replicas} replica(s), {dep.replicas} declared",
            ))
        elif got.ready < dep.replicas:
            lost = "none is ready: GPU pods are not being placed" if got.ready == 0 else (
                "one more failure stops GPU scheduling" if got.ready == 1 else "")
            out.append(DriftItem(
                SOURCE, address, dep.replicas, got.ready,
                f"{placement.scheduler} Deployment {dep.namespace}/{dep.name} has {got.ready} "
                f"of {dep.replicas} declared replicas ready" + (f"; {lost}" if lost else ""),
            ))
    return out
