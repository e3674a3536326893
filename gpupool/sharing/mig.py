"""MIG Manager configuration: one named mig-parted config per MIG pool.

This module owns the mig-parted ConfigMap (key ``config.yaml``) the GPU Operator's MIG Manager
reads when ``migManager.config.name`` is set. Each MIG pool gets the config ``pool-<name>``,
selected on its nodes by the label ``nvidia.com/mig.config``; ``all-disabled`` is always present
because every other GPU node carries that value. The cluster-wide strategy comes from
``gpupool.facts``.

Without MIG pools nothing is rendered and MIG Manager keeps the configs it generates per node,
which include ``all-disabled``. On GKE with ``driver: preinstalled`` GKE creates the partitions
(``gpu_partition_size``) and MIG Manager stays off.
"""

from __future__ import annotations

from typing import Any

import yaml

from gpupool import facts
from gpupool.errors import RenderError
from gpupool.facts.names import (
    GPU_OPERATOR_NAMESPACE,
    MIG_CONFIGMAP,
    MIG_CONFIGMAP_KEY,
    MIG_DISABLED,
    mig_config_name,
)
from gpupool.graph import CloudResult, Resource
from gpupool.model import Stack
from gpupool.sharing.objects import k8s_object


def enabled(stack: Stack) -> bool:
    """Return True when MIG Manager partitions the GPUs (not where the cloud does: GKE)."""
    return facts.of(stack).mig_manager


def mig_pools(stack: Stack) -> list[str]:
    """Return the names of the pools whose GPUs MIG Manager partitions."""
    if not enabled(stack):
        return []
    return [p.name for p in stack.pools if p.sharing.kind.partitioned]


def config(stack: Stack) -> dict[str, Any]:
    """Return the mig-parted config (``version: v1``) with ``all-disabled`` and one per MIG pool.

    Raises:
        RenderError: a MIG pool without a layout or with a zero count.

    """
    configs: dict[str, Any] = {MIG_DISABLED: [{"devices": "all", "mig-enabled": False}]}
    for pool in stack.pools:
        if not pool.sharing.kind.partitioned:
            continue
        layout = dict(pool.sharing.mig_layout)
        if not layout or any(count < 1 for count in layout.values()):
            raise RenderError(f"pool {pool.name}: MIG layout {layout} has no instances")
        configs[mig_config_name(pool)] = [
            {"devices": "all", "mig-enabled": True, "mig-devices": layout}
        ]
    return {"version": "v1", "mig-configs": configs}


def build(stack: Stack, cloud: CloudResult, namespace_deps: tuple[str, ...]) -> list[Resource]:
    """Return the mig-parted ConfigMap, or nothing when no pool uses MIG.

    Args:
        stack: the validated stack.
        cloud: the cloud result (provider and node-pool addresses).
        namespace_deps: addresses of the operator namespace, when gpupool creates it.

    """
    names = mig_pools(stack)
    if not names:
        return []
    deps = list(namespace_deps)
    for name in names:
        deps.extend(cloud.node_pools.get(name, ()))
    manifest = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": MIG_CONFIGMAP, "namespace": GPU_OPERATOR_NAMESPACE},
        "data": {MIG_CONFIGMAP_KEY: yaml.safe_dump(config(stack), sort_keys=False)},
    }
    plan_facts = {
        "mig_strategy": facts.mig_strategy(stack),
        "pools": {
            pool.name: {
                "pool": pool.name,
                "config": mig_config_name(pool),
                "mode": pool.sharing.mode,
                "replicas": None,
                "mig_layout": dict(pool.sharing.mig_layout),
            }
            for pool in stack.pools
            if pool.sharing.kind.partitioned
        },
    }
    return [
        k8s_object(
            stack, manifest, provider=cloud.k8s_provider, depends_on=tuple(deps), facts=plan_facts
        )
    ]
