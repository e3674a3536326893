"""GCP: each pool becomes GKE node pools (``gcp:container/nodePool:NodePool``).

What a pool renders to, one node pool per ``gpupool.facts.groups.capacity_groups`` entry:

- ``node_config``: the catalog's machine type, one guest-accelerator entry (type and count from
  the catalog), ``spot``, labels and taints (``NO_SCHEDULE``...), the boot disk size
  (``disk_size_gb`` from ``disk.sizeGiB``; GKE's default is 100 GB; it changes in place and GKE
  recreates the nodes);
- when GKE manages the GPU stack (``driver: preinstalled``): GKE's default node image
  (``COS_CONTAINERD``), the driver
  (``gpu_driver_installation_config.gpu_driver_version: DEFAULT``), time-slicing and MPS through
  ``gpu_sharing_config`` (``TIME_SHARING`` / ``MPS`` with ``max_shared_clients_per_gpu`` =
  replicas), and MIG through ``gpu_partition_size`` for a layout of one profile at its maximum
  count (GKE creates as many partitions of that size as fit; other layouts are rejected by
  ``gpupool.spec.checks.clouds``). With ``driver: operator`` the driver install is disabled
  (``INSTALLATION_DISABLED``), the node image is Ubuntu (``UBUNTU_CONTAINERD``: the operator's
  driver manager does not support Container-Optimized OS) and sharing is left to the operator;
- ``autoscaling`` with pool-wide totals (``total_min_node_count``, ``total_max_node_count``)
  and ``location_policy`` (``BALANCED`` over the zones, ``ANY`` for a spot group unless
  ``topology: spread``), ``node_locations`` from ``placement.zones``,
  ``placement_policy: COMPACT`` for ``topology: compact``, ``project``, ``location`` (the region)
  and ``cluster``;
- on a GPUDirect machine type (GKE A3) with ``placement.gpuNetworks``
  (``gpupool.facts.network``): ``network_config.additional_node_network_configs``, one
  ``{network, subnetwork}`` per secondary NIC in NIC order, and gVNIC (``node_config.gvnic``),
  as GKE's GPUDirect guide creates the node pool (``--additional-node-network`` per NIC,
  ``--enable-gvnic``). GKE cannot add or remove a node pool's node networks later, so a change
  replaces the node pool (``ForceNew`` in ``resource_container_node_pool.go``).

GKE's managed autoscaler has no priority expander, so a split spot pool's on-demand group is
grown when GKE decides; pods should prefer spot nodes (``cloud.google.com/gke-spot``) by affinity.
The Kubernetes provider reads the cluster's endpoint and CA from ``gcp.container.get_cluster``
and authenticates with ``gke-gcloud-auth-plugin``. Replacement paths are the Terraform Google
provider's ``ForceNew`` fields (``node_config.go``, ``resource_container_node_pool.go``).
"""

from __future__ import annotations

from typing import Any

from gpupool.facts.groups import CapacityGroup, capacity_groups
from gpupool.facts.network import gpudirect_networks
from gpupool.graph import CloudResult, Lookup, Resource
from gpupool.model import Pool, Stack
from gpupool.modes import mps, time_slicing
from gpupool.providers import common

NODE_POOL = "gcp:container/nodePool:NodePool"

REPLACE_ON = (
    "cluster",
    "location",
    "network_config.additional_node_network_configs",
    "node_config.guest_accelerators",
    "node_config.spot",
    "placement_policy",
    "project",
)

# The GPU Operator's driver manager supports Ubuntu node images only (NVIDIA's GKE guide).
UBUNTU = "UBUNTU_CONTAINERD"
# GKE's gpu_sharing_strategy per sharing mode (GKE docs, "Share GPUs with multiple workloads")
_STRATEGY = {time_slicing.MODE.name: "TIME_SHARING", mps.MODE.name: "MPS"}


def _accelerator(stack: Stack, pool: Pool) -> dict[str, Any]:
    inst = pool.instance
    gpu = pool.gpu
    accel_type = (inst.accelerator if inst is not None else None) or (
        gpu.gke_accelerator if gpu is not None else None
    )
    accel: dict[str, Any] = {"type": accel_type, "count": pool.gpus_per_node}
    managed = common.cloud_manages_gpu(stack)
    accel["gpu_driver_installation_config"] = {
        "gpu_driver_version": "DEFAULT" if managed else "INSTALLATION_DISABLED"
    }
    sharing = pool.sharing
    if managed and sharing.mode in _STRATEGY:
        accel["gpu_sharing_config"] = {
            "gpu_sharing_strategy": _STRATEGY[sharing.mode],
            "max_shared_clients_per_gpu": sharing.replicas or 1,
        }
    if managed and sharing.kind.partitioned and len(sharing.mig_layout) == 1:
        accel["gpu_partition_size"] = sharing.mig_layout[0][0]
    return accel


def _node_pool(stack: Stack, pool: Pool, group: CapacityGroup) -> Resource:
    inst = pool.instance
    node_config: dict[str, Any] = {
        "machine_type": inst.machine_type if inst is not None else pool.instance_type,
        "image_type": "COS_CONTAINERD" if common.cloud_manages_gpu(stack) else UBUNTU,
        "guest_accelerators": [_accelerator(stack, pool)],
        "spot": group.spot,
        "disk_size_gb": pool.disk_gib,
        "labels": common.node_labels(stack, pool, group),
        "resource_labels": common.tags(stack),
    }
    if pool.taints:
        node_config["taints"] = [
            {"key": t.key, "value": t.value, "effect": common.upper_effect(t.effect)}
            for t in pool.taints
        ]
    inputs: dict[str, Any] = {
        "cluster": stack.provider.cluster,
        "location": stack.provider.region,
        "project": stack.provider.settings.project,
        "autoscaling": {
            "total_min_node_count": group.min,
            "total_max_node_count": group.max,
            # BALANCED spreads nodes evenly over the pool's zones; ANY takes the zones with
            # capacity first, which GKE recommends for Spot (GKE docs, "Location policy"), unless
            # the pool asks to be spread (placement.topology: spread)
            "location_policy": "ANY" if group.spot and pool.topology != "spread" else "BALANCED",
        },
        "node_config": node_config,
    }
    if pool.zones:
        inputs["node_locations"] = list(pool.zones)
    if pool.topology == "compact":
        inputs["placement_policy"] = {"type": "COMPACT"}
    networks = gpudirect_networks(stack, pool)
    if networks:
        node_config["gvnic"] = {"enabled": True}
        inputs["network_config"] = {
            "additional_node_network_configs": [
                {"network": n.network, "subnetwork": n.subnetwork} for n in networks
            ]
        }
    return common.node_pool(stack, pool, group, NODE_POOL, inputs, REPLACE_ON)


def k8s_provider(stack: Stack) -> Resource:
    """Return the Kubernetes provider for the GKE cluster the pools join."""
    kubeconfig = Lookup(
        "gke_kubeconfig",
        {
            "cluster": stack.provider.cluster,
            "location": stack.provider.region,
            "project": stack.provider.settings.project,
        },
    )
    return common.k8s_provider({"kubeconfig": kubeconfig})


def build(stack: Stack) -> CloudResult:
    """Build the GKE node pools of every pool."""
    resources: list[Resource] = [k8s_provider(stack)]
    node_pools: dict[str, tuple[str, ...]] = {}
    for pool in stack.pools:
        built = [_node_pool(stack, pool, g) for g in capacity_groups(pool, stack.cloud)]
        resources += built
        node_pools[pool.name] = tuple(r.address for r in built)
    return CloudResult(tuple(resources), common.K8S_PROVIDER, node_pools)
