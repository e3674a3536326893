"""Azure: each pool becomes AKS agent pools (``azure-native:containerservice:AgentPool``).

What a pool renders to, one agent pool per ``gpupool.facts.groups.capacity_groups`` entry:

- ``vm_size``, ``count`` / ``min_count`` / ``max_count`` with ``enable_auto_scaling``,
  ``mode: User``, ``os_type: Linux``, ``node_labels``, ``node_taints`` (``"key=value:Effect"``),
  ``availability_zones`` from ``placement.zones``, ``resource_group_name``, the cluster as
  ``resource_name_`` (the SDK's keyword; ``resource_name`` is the Pulumi name), ``tags`` and the
  OS disk size (``os_disk_size_gb`` from ``disk.sizeGiB``);
- spot groups: ``scale_set_priority: Spot``, ``scale_set_eviction_policy: Delete``,
  ``spot_max_price`` (``maxPricePerHour``, or -1: up to the on-demand price) and AKS's own spot
  taint written out (AKS adds it anyway; declaring it avoids a permanent diff);
- ``gpu_profile.driver``: ``Install`` when AKS manages the driver, ``None`` with
  ``driver: operator``; with the AKS driver, a MIG layout that ``gpu_instance_profile``
  (``MIG1g`` ... ``MIG7g``) makes exactly (one profile at its maximum count) is set there too,
  so nodes come up partitioned; any other layout is applied by the GPU Operator's MIG Manager;
- ``topology: compact``: a proximity placement group
  (``azure-native:compute:ProximityPlacementGroup``) in the cluster's resource group.

AKS agent-pool names are 1-12 lowercase letters and digits, so gpupool derives them from the
pool name (``agent_pool_name``). A split spot pool's spot group is preferred through the
cluster-autoscaler priority expander (AKS autoscaler profile ``expander: priority``). The
Kubernetes provider uses the cluster's user kubeconfig from
``containerservice.list_managed_cluster_user_credentials`` (a secret, never written to disk).
Replacement: ``vm_size`` and ``gpu_instance_profile`` are forceNew in azure-native (PR #3655);
AKS refuses in-place changes of the spot settings, of ``node_taints`` on spot pools and of the OS
disk size (the Terraform azurerm provider's ``os_disk_size_gb``: "Changing this forces a new
resource to be created").
"""

from __future__ import annotations

from typing import Any

from gpupool.clouds.azure import CLOUD, agent_pool_name
from gpupool.facts.groups import CapacityGroup, capacity_groups
from gpupool.graph import CloudResult, Lookup, Ref, Resource
from gpupool.model import Pool, Stack
from gpupool.providers import common, expander

AGENT_POOL = "azure-native:containerservice:AgentPool"
PROXIMITY_GROUP = "azure-native:compute:ProximityPlacementGroup"
SPOT_TAINT = "{}={}:{}".format(*(CLOUD.spot_taint or ()))
_AKS_SLICES = (1, 2, 3, 4, 7)

REPLACE_ON = (
    "agent_pool_name",
    "gpu_instance_profile",
    "os_disk_size_gb",
    "resource_group_name",
    "resource_name_",
    "scale_set_eviction_policy",
    "scale_set_priority",
    "vm_size",
)


def mig_instance_profile(pool: Pool) -> str | None:
    """Return the ``gpu_instance_profile`` that makes exactly the pool's MIG layout, else None.

    ``MIG<n>g`` makes as many instances as fit of the smallest profile with ``n`` compute
    slices (``MIG1g`` on an A100 80GB: seven ``1g.10gb``), so it matches a layout of that one
    profile at its maximum count. Other layouts are left to the GPU Operator's MIG Manager.
    """
    layout = pool.sharing.mig_layout
    gpu = pool.gpu
    if not pool.sharing.kind.partitioned or len(layout) != 1 or gpu is None or gpu.mig is None:
        return None
    name, count = layout[0]
    profile = gpu.mig.profile(name)
    if profile is None or count != profile.max_count or profile.compute_slices not in _AKS_SLICES:
        return None
    same = [
        p
        for p in gpu.mig.profiles
        if p.compute_slices == profile.compute_slices and not p.media_extensions
    ]
    if min(same, key=lambda p: p.memory_gib) != profile:
        return None
    return f"MIG{profile.compute_slices}g"


def _taint(key: str, value: str, effect: str) -> str:
    return f"{key}={value}:{effect}" if value else f"{key}:{effect}"


def _agent_pool(
    stack: Stack, pool: Pool, group: CapacityGroup, proximity: str | None
) -> Resource:
    inst = pool.instance
    managed = common.cloud_manages_gpu(stack)
    taints = [_taint(t.key, t.value, t.effect) for t in pool.taints]
    inputs: dict[str, Any] = {
        "resource_group_name": stack.provider.settings.resource_group,
        "resource_name_": stack.provider.cluster,
        "agent_pool_name": agent_pool_name(pool.name, group.suffix != ""),
        "vm_size": inst.machine_type if inst is not None else pool.instance_type,
        "mode": "User",
        "os_type": "Linux",
        "enable_auto_scaling": True,
        "count": group.desired,
        "min_count": group.min,
        "max_count": group.max,
        "node_labels": common.node_labels(stack, pool, group),
        "gpu_profile": {"driver": "Install" if managed else "None"},
        "os_disk_size_gb": pool.disk_gib,
        "tags": common.tags(stack),
    }
    if group.spot:
        price = pool.capacity.max_price_per_hour
        inputs["scale_set_priority"] = "Spot"
        inputs["scale_set_eviction_policy"] = "Delete"
        inputs["spot_max_price"] = float(price) if price is not None else -1.0
        if SPOT_TAINT not in taints:
            taints.append(SPOT_TAINT)
    if taints:
        inputs["node_taints"] = taints
    profile = mig_instance_profile(pool)
    if managed and profile is not None:
        inputs["gpu_instance_profile"] = profile
    if pool.zones:
        inputs["availability_zones"] = list(pool.zones)
    if proximity is not None:
        inputs["proximity_placement_group_id"] = Ref(proximity, "id")
    replace_on = REPLACE_ON + (("node_taints",) if group.spot else ())
    return common.node_pool(
        stack,
        pool,
        group,
        AGENT_POOL,
        inputs,
        tuple(sorted(replace_on)),
        ignore_changes=("count",),
    )


def _proximity(stack: Stack, pool: Pool) -> Resource:
    return Resource(
        address=common.address(pool, "proximity_placement_group"),
        type=PROXIMITY_GROUP,
        name=pool.name,
        inputs={
            "resource_group_name": stack.provider.settings.resource_group,
            "location": stack.provider.region,
            "proximity_placement_group_type": "Standard",
            "tags": common.tags(stack),
        },
        replace_on=("location", "resource_group_name"),
        owner=common.owner(pool),
    )


def k8s_provider(stack: Stack) -> Resource:
    """Return the Kubernetes provider for the AKS cluster the pools join."""
    kubeconfig = Lookup(
        "aks_kubeconfig",
        {
            "resource_group_name": stack.provider.settings.resource_group,
            "cluster_name": stack.provider.cluster,
        },
    )
    return common.k8s_provider({"kubeconfig": kubeconfig})


def build(stack: Stack) -> CloudResult:
    """Build the AKS agent pools (and proximity placement groups) of every pool."""
    resources: list[Resource] = [k8s_provider(stack)]
    node_pools: dict[str, tuple[str, ...]] = {}
    spot_patterns: list[str] = []
    split: list[str] = []
    for pool in stack.pools:
        proximity = None
        if pool.topology == "compact":
            ppg = _proximity(stack, pool)
            resources.append(ppg)
            proximity = ppg.address
        groups = capacity_groups(pool, stack.cloud)
        built = [_agent_pool(stack, pool, g, proximity) for g in groups]
        resources += built
        node_pools[pool.name] = tuple(r.address for r in built)
        if len(groups) > 1:
            # the autoscaler sees AKS node groups as the scale sets aks-<agent pool>-<id>-vmss
            name = built[0].inputs["agent_pool_name"]
            spot_patterns.append(f"^aks-{expander.regex_literal(name)}-[0-9]+-vmss$")
            split += [r.address for r in built]
    priority = expander.configmap(stack, spot_patterns, split)
    if priority is not None:
        resources.append(priority)
    return CloudResult(tuple(resources), common.K8S_PROVIDER, node_pools)
