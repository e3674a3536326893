"""Volcengine: each pool becomes a VKE node pool (``volcengine:vke/nodePool:NodePool``).

What a pool renders to:

- an explicit Volcengine provider (``pulumi:providers:volcengine``, address ``cloud.provider``)
  for the stack's region; credentials stay in the environment (``VOLCENGINE_ACCESS_KEY`` ...);
- one node pool per pool: ``node_config`` (the instance type, the stack's ``subnetIds``,
  ``security.security_group_ids`` from ``securityGroupIds``, pay-as-you-go ``PostPaid``, the
  system volume's ``size`` from ``disk.sizeGiB``, 20-2048 GiB in the VKE API),
  ``kubernetes_config`` (labels and taints as ``{key, value[, effect]}`` lists, not cordoned),
  ``auto_scaling`` (enabled, min / max / desired replicas, zone-balanced), ``tags`` and the
  cluster's id (``provider.cluster`` is a VKE cluster id or name; the program looks it up with
  ``vke.get_clusters`` either way).

VKE node pools have no spot capacity (validation rejects spot pools) and no placement policy
(``topology: compact`` renders as ``any``; ``gpupool.spec.checks.clouds`` warns). No login is
set: VKE nodes then accept no password or key-pair login, which gpupool never needs. The
Kubernetes provider uses a kubeconfig of the cluster from ``vke.get_kubeconfigs`` (public if
there is one, else private; a secret, never written to disk); when the cluster has none, the
program fails instead of falling back to the ambient kubeconfig (which could point at any other
cluster). Replacement paths follow the Terraform Volcengine provider's
``ForceNew`` flags (``cluster_id``, ``node_config.instance_charge_type``).
"""

from __future__ import annotations

from typing import Any

from gpupool.facts.groups import CapacityGroup, capacity_groups
from gpupool.graph import CloudResult, Lookup, Ref, Resource
from gpupool.model import Pool, Stack
from gpupool.providers import common

NODE_POOL = "volcengine:vke/nodePool:NodePool"
PROVIDER = "pulumi:providers:volcengine"
PROVIDER_ADDRESS = "cloud.provider"

REPLACE_ON = ("cluster_id", "node_config.instance_charge_type")


def _cluster_id(stack: Stack) -> Lookup:
    return Lookup(
        "vke_cluster_id",
        {"cluster": stack.provider.cluster, "provider": Ref(PROVIDER_ADDRESS, "")},
    )


def _node_pool(stack: Stack, pool: Pool, group: CapacityGroup) -> Resource:
    settings = stack.provider.settings
    inst = pool.instance
    kubernetes_config: dict[str, Any] = {
        "cordon": False,
        "labels": [{"key": k, "value": v} for k, v in common.node_labels(stack, pool).items()],
    }
    if pool.taints:
        kubernetes_config["taints"] = [
            {"key": t.key, "value": t.value, "effect": t.effect} for t in pool.taints
        ]
    inputs: dict[str, Any] = {
        "cluster_id": _cluster_id(stack),
        "kubernetes_config": kubernetes_config,
        "node_config": {
            "instance_type_ids": [inst.machine_type if inst is not None else pool.instance_type],
            "subnet_ids": list(settings.subnet_ids),
            "security": {"security_group_ids": list(settings.security_group_ids)},
            "instance_charge_type": "PostPaid",
            "system_volume": {"size": pool.disk_gib},
        },
        "auto_scaling": {
            "enabled": True,
            "min_replicas": group.min,
            "max_replicas": group.max,
            "desired_replicas": group.desired,
            "subnet_policy": "ZoneBalance",
        },
        "tags": [{"key": k, "value": v} for k, v in common.tags(stack).items()],
    }
    return common.node_pool(
        stack,
        pool,
        group,
        NODE_POOL,
        inputs,
        REPLACE_ON,
        PROVIDER_ADDRESS,
        ignore_changes=("auto_scaling.desired_replicas",),
    )


def cloud_provider(stack: Stack) -> Resource:
    """Return the Volcengine provider for the stack's region."""
    return Resource(
        address=PROVIDER_ADDRESS,
        type=PROVIDER,
        name="volcengine",
        inputs={"region": stack.provider.region},
        owner="cluster",
    )


def k8s_provider(stack: Stack) -> Resource:
    """Return the Kubernetes provider for the VKE cluster the pools join."""
    kubeconfig = Lookup(
        "vke_kubeconfig", {"cluster_id": _cluster_id(stack), "provider": Ref(PROVIDER_ADDRESS, "")}
    )
    return common.k8s_provider({"kubeconfig": kubeconfig})


def build(stack: Stack) -> CloudResult:
    """Build the Volcengine provider and the VKE node pool of every pool."""
    resources: list[Resource] = [cloud_provider(stack), k8s_provider(stack)]
    node_pools: dict[str, tuple[str, ...]] = {}
    for pool in stack.pools:
        built = [_node_pool(stack, pool, g) for g in capacity_groups(pool)]
        resources += built
        node_pools[pool.name] = tuple(r.address for r in built)
    return CloudResult(tuple(resources), common.K8S_PROVIDER, node_pools)
