"""Names shared by the sharing modules: label keys, config names, resource names.

One place decides what a pool's device-plugin and MIG configs are called, so the node labels the
cloud modules apply and the ConfigMaps the sharing modules render cannot disagree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpupool.model import Pool

POOL_LABEL = "gpupool.io/pool"
TENANT_LABEL = "gpupool.io/tenant"
STACK_LABEL = "gpupool.io/stack"
MANAGED_BY_LABEL = "app.kubernetes.io/managed-by"
MANAGED_BY = "gpupool"

DEVICE_PLUGIN_CONFIG_LABEL = "nvidia.com/device-plugin.config"
MIG_CONFIG_LABEL = "nvidia.com/mig.config"
MIG_DISABLED = "all-disabled"
HAMI_NODE_LABEL = "gpu"
GKE_NO_DEVICE_PLUGIN_LABEL = "gke-no-default-nvidia-gpu-device-plugin"
KAI_QUEUE_LABEL = "kai.scheduler/queue"

# Pool configs are "pool-<name>"; the device-plugin default config is "default". A pool name is a
# DNS label, so "pool-<name>" never equals "default" or "all-disabled".
DEFAULT_DEVICE_PLUGIN_CONFIG = "default"

GPU_OPERATOR_NAMESPACE = "gpu-operator"
DEVICE_PLUGIN_CONFIGMAP = "gpupool-device-plugin-config"
MIG_CONFIGMAP = "gpupool-mig-parted-config"
MIG_CONFIGMAP_KEY = "config.yaml"

GPU_RESOURCE = "nvidia.com/gpu"


def device_plugin_config_name(pool: Pool) -> str:
    """Return the device-plugin ConfigMap key (and node label value) of a pool."""
    return f"pool-{pool.name}"


def mig_config_name(pool: Pool) -> str:
    """Return the mig-parted config name (and node label value) of a MIG pool."""
    return f"pool-{pool.name}"


def mig_resource(profile: str) -> str:
    """Return the mixed-strategy resource name of a MIG profile (``+`` becomes ``.``)."""
    return "nvidia.com/mig-" + profile.replace("+", ".")
