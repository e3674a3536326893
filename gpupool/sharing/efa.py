"""AWS's EFA device plugin: the Helm release that advertises EFA interfaces to pods.

This module owns ``helm.aws-efa-k8s-device-plugin``, rendered when some pool's nodes get EFA
interfaces (``gpupool.facts.network``). The EKS-optimised AL2023 NVIDIA AMI carries EFA's host
components but not the device plugin, which must be installed before pods can ask for
``vpc.amazonaws.com/efa`` (EKS user guide, "Manage EFA devices on Amazon EKS"). The chart
(aws/eks-charts ``stable/aws-efa-k8s-device-plugin``) runs its DaemonSet only on the EFA
instance types it lists (``supportedInstanceLabels``, kept at the chart's default) and tolerates
only ``CriticalAddonsOnly`` by itself, so gpupool adds a toleration for every taint on the EFA
pools (``tolerations``).
"""

from __future__ import annotations

from typing import Any

from gpupool import facts
from gpupool.facts.network import efa_pools
from gpupool.graph import CloudResult, Resource
from gpupool.model import Stack
from gpupool.sharing.objects import chart, helm_release
from gpupool.sharing.pools import toleration

CHART = "aws-efa-k8s-device-plugin"


def values(stack: Stack) -> dict[str, Any]:
    """Return the EFA device plugin's Helm values: tolerations for the EFA pools' taints."""
    tolerations: list[dict[str, str]] = []
    for pool in efa_pools(stack):
        for taint in facts.pool_facts(stack, pool).taints:
            tol = toleration(taint)
            if tol not in tolerations:
                tolerations.append(tol)
    return {"tolerations": tolerations}


def build(stack: Stack, cloud: CloudResult) -> list[Resource]:
    """Return the EFA device plugin release when some pool's nodes get EFA interfaces."""
    pools = efa_pools(stack)
    if not pools:
        return []
    # like every release, after every node pool (a daemon needs nodes to land on)
    deps = [a for p in stack.pools for a in cloud.node_pools.get(p.name, ())]
    return [
        helm_release(
            chart(CHART),
            values(stack),
            provider=cloud.k8s_provider,
            depends_on=tuple(deps),
            create_namespace=False,
            facts={"pools": [p.name for p in pools]},
        )
    ]
