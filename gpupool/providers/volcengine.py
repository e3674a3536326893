"""Volcengine: each pool becomes a VKE node pool.

What a pool renders to:

- an explicit Volcengine provider (``pulumi:providers:volcengine``, address ``cloud.provider``)
  for the stack's region; credentials stay in the environment (``VOLCENGINE_ACCESS_KEY`` ...);
- one node pool per pool: ``node_config`` (the instance type, the stack's ``subnetIds``,
  ``security.security_group_ids`` from ``securityGroupIds``, pay-as-you-go ``PostPaid``, the
  system volume's ``size`` from ``disk.sizeGiB``: 20-2048 GiB in the Terraform Volcengine
  provider's docs, 40-2048 GiB for ESSD disks in the Cloud Control schema),
  ``kubernetes_config`` (labels and taints as ``{key, value[, effect]}`` lists, not cordoned),
  ``auto_scaling`` (enabled, min / max / desired replicas, zone-balanced), ``tags`` and the
  cluster's id (``provider.cluster`` is a VKE cluster id or name; the program looks it up with
  ``vke.get_clusters`` either way). An on-demand pool is a ``volcengine:vke/nodePool:NodePool``
  (pulumi-volcengine 0.0.47); replacement paths follow the Terraform Volcengine provider's
  ``ForceNew`` flags (``cluster_id``, ``node_config.instance_charge_type``);
- a spot pool is one ``volcenginecc:vke/nodePool:NodePool`` (pulumi-volcenginecc 0.0.64, the
  Cloud Control provider, through its own explicit provider ``pulumi:providers:volcenginecc`` at
  ``cloud.cc_provider``, same region and the same ``VOLCENGINE_*`` credentials) with the same
  inputs and ``node_config.spot_strategy: SpotAsPriceGo`` (spot at the market price, the only
  spot strategy VKE node pools have: no price cap) and ``node_config.instances_distribution``:
  ``on_demand_base_capacity`` = ``onDemandBase`` (VKE takes 0-500), no on-demand share above it
  (``on_demand_percentage_above_base_capacity: 0``) and ``compensate_with_on_demand`` =
  ``fallbackToOnDemand`` (VKE buys on-demand instances when it can buy no spot ones). One VKE
  node pool mixes the two, so the pool is not split into a spot and a ``-od`` pool
  (``Cloud.mixes_spot``; ``gpupool.facts.groups.capacity_groups`` keeps the base's nodes inside
  the pool's minimum) and never holds more than ``nodes.max``. The only input the Cloud Control
  schema makes create-only, of those gpupool sets, is ``NodeConfig.SpotStrategy``
  (``createOnlyProperties`` of ``Volcengine_VKE_NodePool.json`` in
  volcengine/terraform-provider-volcenginecc, which marks them ``RequiresReplaceIfConfigured``;
  its ``ClusterId`` is not create-only, so a new cluster is sent as an update, as Pulumi will).

Why two SDKs: pulumi-volcengine 0.0.47's ``vke.NodePool`` has no spot input (spot exists there
only on ``ecs.Instance``), and pulumi-volcenginecc's has. Rendering every pool with
pulumi-volcenginecc would change the type token of every existing on-demand node pool, which
Pulumi carries out by creating a new node pool and deleting the old one; spot pools could not be
rendered before, so giving only them the new type changes no existing node pool. A pool that
changes between on-demand and spot changes type and so gets a new node pool, which VKE would need
anyway (``SpotStrategy`` is create-only). The cluster lookups (``vke.get_clusters``,
``vke.get_kubeconfigs``) stay on pulumi-volcengine for both kinds of pool; the rendered program
imports pulumi-volcenginecc, and ``requirements.txt`` pins it, only when a pool is spot.

VKE node pools have no placement policy (``topology: compact`` renders as ``any``;
``gpupool.spec.checks.clouds`` warns). No login is set: VKE nodes then accept no password or
key-pair login, which gpupool never needs. The Kubernetes provider uses a kubeconfig of the
cluster from ``vke.get_kubeconfigs`` (public if there is one, else private; a secret, never
written to disk); when the cluster has none, the program fails instead of falling back to the
ambient kubeconfig (which could point at any other cluster).
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
SPOT_NODE_POOL = "volcenginecc:vke/nodePool:NodePool"
CC_PROVIDER = "pulumi:providers:volcenginecc"
CC_PROVIDER_ADDRESS = "cloud.cc_provider"
SPOT_STRATEGY = "SpotAsPriceGo"

REPLACE_ON = ("cluster_id", "node_config.instance_charge_type")
# Volcengine_VKE_NodePool.json createOnlyProperties (terraform-provider-volcenginecc): of the
# inputs gpupool sets, only NodeConfig.SpotStrategy
SPOT_REPLACE_ON = ("node_config.spot_strategy",)


def _cluster_id(stack: Stack) -> Lookup:
    return Lookup(
        "vke_cluster_id",
        {"cluster": stack.provider.cluster, "provider": Ref(PROVIDER_ADDRESS, "")},
    )


def _node_pool(stack: Stack, pool: Pool, group: CapacityGroup) -> Resource:
    settings = stack.provider.settings
    inst = pool.instance
    labels = common.node_labels(stack, pool, group)
    kubernetes_config: dict[str, Any] = {
        "cordon": False,
        "labels": [{"key": k, "value": v} for k, v in labels.items()],
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
    type_, replace_on, provider = NODE_POOL, REPLACE_ON, PROVIDER_ADDRESS
    if group.spot:
        inputs["node_config"]["spot_strategy"] = SPOT_STRATEGY
        inputs["node_config"]["instances_distribution"] = {
            "on_demand_base_capacity": group.on_demand_base,
            "on_demand_percentage_above_base_capacity": 0,
            "compensate_with_on_demand": group.on_demand_fallback,
        }
        type_, replace_on, provider = SPOT_NODE_POOL, SPOT_REPLACE_ON, CC_PROVIDER_ADDRESS
    return common.node_pool(
        stack,
        pool,
        group,
        type_,
        inputs,
        replace_on,
        provider,
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


def cc_provider(stack: Stack) -> Resource:
    """Return the Volcengine Cloud Control provider (spot node pools) for the stack's region."""
    return Resource(
        address=CC_PROVIDER_ADDRESS,
        type=CC_PROVIDER,
        name="volcenginecc",
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
    """Build the Volcengine providers and the VKE node pool of every pool."""
    resources: list[Resource] = [cloud_provider(stack), k8s_provider(stack)]
    if any(pool.capacity.spot for pool in stack.pools):
        resources.insert(1, cc_provider(stack))
    node_pools: dict[str, tuple[str, ...]] = {}
    for pool in stack.pools:
        built = [_node_pool(stack, pool, g) for g in capacity_groups(pool, stack.cloud)]
        resources += built
        node_pools[pool.name] = tuple(r.address for r in built)
    return CloudResult(tuple(resources), common.K8S_PROVIDER, node_pools)
