"""The type every cloud plug-in is made of: ``Cloud``, and the SDK it renders with (``Sdk``).

A ``Cloud`` states once what is true of one cloud for gpupool: how it is named to people, which
Pulumi SDKs its program imports, whether it provisions machines or labels existing nodes, whether
the catalog lists its instance types, how its managed GPU node images behave towards the NVIDIA
GPU Operator, which taints it puts on spot nodes, whether one node pool mixes spot and on-demand
nodes, its naming limits, and the labels it puts on the nodes of node pools whose GPUs it shares
itself (``NodeSharing`` says how a pool shares them). The builders that turn pools into that
cloud's resources live beside it in ``gpupool.providers.<cloud>``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

DRIVER_OPERATOR = "operator"
DRIVER_PREINSTALLED = "preinstalled"


@dataclass(frozen=True)
class Sdk:
    """A Pulumi provider SDK the rendered program imports.

    Attributes:
        token: the package part of its type tokens (``aws`` in ``aws:eks/nodeGroup:NodeGroup``).
        module: the Python module (``pulumi_aws``).
        alias: the name the rendered program imports it as.
        distribution: the PyPI distribution (``pulumi-aws``).
        version: the version rendered programs pin and tests run them with.
        extra: gpupool's pip extra that installs it, or None for a core dependency.

    """

    token: str
    module: str
    alias: str
    distribution: str
    version: str
    extra: str | None = None


@dataclass(frozen=True)
class NodeSharing:
    """How a pool shares its GPUs, as a cloud that shares them itself labels the pool's nodes.

    Attributes:
        mode: the sharing mode's name.
        device_plugin_key: the NVIDIA device plugin's config key of the mode, or None.
        clients: pods per GPU when the mode replicates GPUs (time-slicing, MPS), else None.
        replicated: the mode replicates GPUs, whether or not ``clients`` is set.
        mig_profiles: the MIG profiles of the pool's layout (none without MIG).

    """

    mode: str
    device_plugin_key: str | None
    clients: int | None
    replicated: bool
    mig_profiles: tuple[str, ...]


@dataclass(frozen=True)
class Cloud:
    """One cloud's facts.

    Attributes:
        name: ``provider.cloud`` in a stack file.
        display: the name people read (``AWS``).
        node_pool_noun: what the cloud calls a group of nodes (``node group``).
        sdk: the provider SDK its program imports, or None when it needs only Kubernetes.
        extra_sdks: further provider SDKs some of its programs import (VKE spot node pools come
            from pulumi-volcenginecc); each is pinned in ``requirements.txt`` only where used.
        provisions: gpupool creates machines (False: it labels existing nodes).
        has_instance_catalog: the catalog lists the cloud's instance types.
        declares_gpus: pools may declare ``gpu`` and ``host`` beside an instance type, because
            no static catalog exists for the cloud.
        default_driver: the GPU driver default (managed GPU images carry one).
        shares_gpus_itself: with the preinstalled driver the cloud's node pools, not the GPU
            Operator, implement time-sharing, MPS and MIG (GKE).
        node_sharing_labels: where the cloud shares GPUs itself, the labels it puts on a pool's
            nodes (a None value: the label must be absent), which drift checks instead of GPU
            Feature Discovery's; None where it does not.
        device_plugin_opt_out_label: the node label that turns the cloud's own device plugin
            off when another one serves the GPUs, or None.
        operator_values: GPU Operator values the cloud needs whatever the driver.
        operator_values_preinstalled: GPU Operator values the cloud's managed GPU image needs
            when the driver is preinstalled (merged over ``operator_values``).
        preinstalled_runtime_class: the containerd runtime handler GPU pods must use when the
            cloud's image carries the driver and container toolkit and the operator installs
            neither; None keeps the operator's own RuntimeClass ``nvidia``.
        mig_manager_env: extra environment for the operator's MIG Manager on this cloud.
        critical_pod_quota: the cloud admits system-node-critical pods outside kube-system only
            under a matching ResourceQuota (GKE).
        cluster_nodes_max: the most nodes one of the cloud's clusters can hold, where it
            matters to gpupool (the GKE quota above must admit a daemon on every node), or None.
        spot_taint: (key, value, effect) the cloud puts on every spot node, or None.
        spot_node_labels: (key, value) labels the cloud itself puts on its spot nodes, which
            keep pods that must not run on spot (a highly available scheduler) off them.
        mixes_spot: one spot node pool keeps an on-demand base and buys on-demand nodes when
            spot runs out by itself (VKE's ``InstancesDistribution``), so a spot pool stays one
            node pool; False: the base and the fallback are a separate on-demand node pool
            (``gpupool.facts.groups.capacity_groups``).
        on_demand_base_max: the largest on-demand base such a mixed node pool takes, or None.
        node_pool_name_max: the longest name gpupool may give a node pool, or None.
        node_pool_name: the cloud's node-pool name for a pool's group (pool name, on-demand
            companion?), when the cloud shortens names; None keeps the pool's name.
        compact_placement: the cloud can keep a pool's nodes close (placement group or policy).
        zonal_compact: compact placement holds one zone only.
        zones_by_subnet: a node pool's zones are those of its subnets, so ``placement.zones``
            takes effect only through subnets whose zones the stack gives
            (``settings.subnets``; AWS EKS).
        zone_in_region: whether a zone name belongs to a region, where the cloud's zone names
            say so (AWS: the region's code and a letter, or a Local Zone's
            ``<region>-<location>``); None where gpupool does not check.
        attaches_efa: the cloud's node groups can attach EFA interfaces through a launch
            template (AWS), so compact pools on EFA instance types get them
            (``gpupool.facts.network``).
        labels_instance_type: nodes carry ``node.kubernetes.io/instance-type`` from the pool.
        program_helpers: the rendered program's helpers (``templates/helpers``) that call the
            cloud's SDK, so a program that uses one imports it.
        delete_before_replace: type tokens of the cloud's resources that Pulumi replaces by
            deleting the old one first (gpupool chose their names, and the cloud would reuse a
            name for the replacement before deleting the old resource).
        recreates_nodes_on_update: when a node pool's machine settings (machine type, disk)
            change in place, the cloud recreates its nodes (GKE rolls them through the node
            pool's upgrade strategy); False: only nodes the cloud creates afterwards get them
            (VKE's UpdateNodePoolConfig changes the pool's node template).
        starter: the ``provider`` keys besides ``cloud`` that ``gpupool init`` writes (region,
            cluster, settings), each placeholder marked ``REPLACE-ME`` and valid as it stands.
        starter_instance_type: the instance type placeholder ``gpupool init`` writes where
            pools declare their GPUs beside an instance type the catalog does not list.
        autoscaler_gpu_label: (key, value) of the label cluster-autoscaler's provider for the
            cloud reads as "a GPU node" (its ``GPULabel``) where neither the cloud nor gpupool's
            node pools set it already; gpupool puts it on the nodes of pools that serve
            services, so the autoscaler waits for the device plugin instead of adding nodes
            (kubernetes/autoscaler #1949, PR #461). None: nothing to add.

    """

    name: str
    display: str
    node_pool_noun: str
    sdk: Sdk | None
    extra_sdks: tuple[Sdk, ...] = ()
    provisions: bool = True
    has_instance_catalog: bool = True
    declares_gpus: bool = False
    default_driver: str = DRIVER_PREINSTALLED
    shares_gpus_itself: bool = False
    node_sharing_labels: Callable[[NodeSharing], dict[str, str | None]] | None = None
    device_plugin_opt_out_label: str | None = None
    operator_values: Mapping[str, Any] = field(default_factory=dict)
    operator_values_preinstalled: Mapping[str, Any] = field(default_factory=dict)
    preinstalled_runtime_class: str | None = None
    mig_manager_env: tuple[Mapping[str, str], ...] = ()
    critical_pod_quota: bool = False
    cluster_nodes_max: int | None = None
    spot_taint: tuple[str, str, str] | None = None
    spot_node_labels: tuple[tuple[str, str], ...] = ()
    mixes_spot: bool = False
    on_demand_base_max: int | None = None
    node_pool_name_max: int | None = None
    node_pool_name: Callable[[str, bool], str] | None = None
    compact_placement: bool = True
    zonal_compact: bool = True
    zones_by_subnet: bool = False
    zone_in_region: Callable[[str, str], bool] | None = None
    attaches_efa: bool = False
    labels_instance_type: bool = True
    program_helpers: tuple[str, ...] = ()
    delete_before_replace: tuple[str, ...] = ()
    recreates_nodes_on_update: bool = True
    starter: Mapping[str, Any] = field(default_factory=dict)
    starter_instance_type: str = ""
    autoscaler_gpu_label: tuple[str, str] | None = None
