"""Names gpupool and the GPU stack agree on: label keys, config names, resource names.

One place decides what a pool's device-plugin and MIG configs are called, which labels GPU
Feature Discovery and the GPU Operator put on nodes, and what HAMi and KAI call their resources
and labels, so the node labels the cloud modules apply, the ConfigMaps the sharing modules render,
the snippets and drift's expectations cannot disagree. Upstream names: NVIDIA k8s-device-plugin
README (``nvidia.com/device-plugin.config``, GFD labels), GPU Operator values (``mig.config``),
HAMi 2.10.0 ``charts/hami/values.yaml`` (resource names), KAI v0.17.0 values (queue label) and
``pkg/common/constants/constants.go`` (the fractional pods' annotations).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpupool.model import Pool

POOL_LABEL = "gpupool.io/pool"
# The capacity type of a node group's nodes, ``spot`` or ``on-demand`` (``CapacityGroup.capacity``);
# the cloud modules set it on every node group that holds one kind of capacity only.
CAPACITY_LABEL = "gpupool.io/capacity"
# The node labels gpupool's PromQL reads from kube-state-metrics' kube_node_labels, which carries
# a node label only when kube-state-metrics is started with it allowlisted (kube-state-metrics
# docs/developer/cli-arguments.md, --metric-labels-allowlist; one line for both labels).
KSM_NODE_LABELS = (POOL_LABEL, CAPACITY_LABEL)
KSM_ALLOWLIST = f"--metric-labels-allowlist=nodes=[{','.join(KSM_NODE_LABELS)}]"
# KAI's pod annotations asking for a fraction of a GPU, by share or by MiB, in place of a GPU
# resource (KAI v0.17.0 pkg/common/constants/constants.go GpuFraction, GpuMemory).
KAI_GPU_FRACTION = "gpu-fraction"
KAI_GPU_MEMORY = "gpu-memory"
# The pod annotations gpupool's PromQL reads from kube-state-metrics' kube_pod_annotations, which
# carries an annotation only when kube-state-metrics is started with it allowlisted
# (docs/developer/cli-arguments.md, --metric-annotations-allowlist): KAI's fractional pods request
# no GPU resource, so only these say a pod holds (or waits for) part of a GPU.
KSM_POD_ANNOTATIONS = (KAI_GPU_FRACTION, KAI_GPU_MEMORY)
KSM_ANNOTATIONS_ALLOWLIST = (
    f"--metric-annotations-allowlist=pods=[{','.join(KSM_POD_ANNOTATIONS)}]"
)
TENANT_LABEL = "gpupool.io/tenant"
STACK_LABEL = "gpupool.io/stack"
MANAGED_BY_LABEL = "app.kubernetes.io/managed-by"
MANAGED_BY = "gpupool"

DEVICE_PLUGIN_CONFIG_LABEL = "nvidia.com/device-plugin.config"
MIG_CONFIG_LABEL = "nvidia.com/mig.config"
MIG_DISABLED = "all-disabled"
HAMI_NODE_LABEL = "gpu"
KAI_QUEUE_LABEL = "kai.scheduler/queue"

# Pool configs are "pool-<name>"; the device-plugin default config is "default". A pool name is a
# DNS label, so "pool-<name>" never equals "default" or "all-disabled".
DEFAULT_DEVICE_PLUGIN_CONFIG = "default"

GPU_OPERATOR_NAMESPACE = "gpu-operator"
# NVSentinel's namespace: its chart's README installs it there, and the chart's own defaults name
# it (node-drainer systemNamespaces, the MongoDB exporter's URI) (NVSentinel v1.19.0).
NVSENTINEL_NAMESPACE = "nvsentinel"
# The RuntimeClass the GPU Operator creates for GPU containers (gpu-operator v26.7.0 values.yaml
# ``operator.runtimeClass: nvidia``; controllers/object_controls.go sets handler = name).
OPERATOR_RUNTIME_CLASS = "nvidia"
# The GPU Operator chart's values key for the MIG strategy (gpu-operator v26.7.0 values.yaml).
OPERATOR_MIG_VALUES_KEY = "mig"
DEVICE_PLUGIN_CONFIGMAP = "gpupool-device-plugin-config"
MIG_CONFIGMAP = "gpupool-mig-parted-config"
MIG_CONFIGMAP_KEY = "config.yaml"

GPU_RESOURCE = "nvidia.com/gpu"
MIG_RESOURCE_PREFIX = "nvidia.com/mig-"

# HAMi's pod-side resources (HAMi 2.10.0 charts/hami/values.yaml resourceMem etc.)
HAMI_MEMORY = "nvidia.com/gpumem"
HAMI_MEMORY_PERCENT = "nvidia.com/gpumem-percentage"
HAMI_CORES = "nvidia.com/gpucores"
HAMI_PRIORITY = "nvidia.com/priority"

# Labels GPU Feature Discovery and the GPU Operator put on GPU nodes.
GFD_PRODUCT = "nvidia.com/gpu.product"
GFD_MEMORY = "nvidia.com/gpu.memory"
GFD_COUNT = "nvidia.com/gpu.count"
GFD_REPLICAS = "nvidia.com/gpu.replicas"
GFD_SHARING_STRATEGY = "nvidia.com/gpu.sharing-strategy"
MIG_CONFIG_STATE_LABEL = "nvidia.com/mig.config.state"
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"


def device_plugin_config_name(pool: Pool) -> str:
    """Return the device-plugin ConfigMap key (and node label value) of a pool."""
    return f"pool-{pool.name}"


def mig_config_name(pool: Pool) -> str:
    """Return the mig-parted config name (and node label value) of a MIG pool."""
    return f"pool-{pool.name}"


def mig_resource(profile: str) -> str:
    """Return the mixed-strategy resource name of a MIG profile (``+`` becomes ``.``)."""
    return MIG_RESOURCE_PREFIX + profile.replace("+", ".")
