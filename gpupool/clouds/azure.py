"""Azure AKS: agent pools of N-series VMs.

AKS GPU images carry the driver and the container toolkit, and their containerd runtime for GPU
pods is ``nvidia-container-runtime`` (also the node's default): there is no runtime called
``nvidia``, so with the preinstalled driver the GPU Operator must name AKS's runtime in
``operator.runtimeClass`` (NVIDIA cloud-native-docs ``gpu-operator/microsoft-aks.rst``: "--set
driver.enabled=false --set toolkit.enabled=false --set
operator.runtimeClass=nvidia-container-runtime"; Azure AgentBaker's containerd template makes
``nvidia-container-runtime`` the N-series default). Agent-pool names are 1-12 lowercase letters
and digits, and AKS taints every spot node
``kubernetes.azure.com/scalesetpriority=spot:NoSchedule`` (AKS docs, "Add a spot node pool").
Agent pools carry names gpupool chose, and Azure would PUT a same-named replacement over the old
pool and then delete it, so Pulumi replaces them by deleting first.
"""

import hashlib
import re

from gpupool.clouds.base import Cloud, Sdk

MAX_NAME = 12
AKS_GPU_RUNTIME = "nvidia-container-runtime"


def agent_pool_name(pool_name: str, on_demand: bool = False) -> str:
    """Return the AKS agent-pool name of a pool's group (1-12 lowercase letters and digits).

    A pool name that already fits (letters and digits, at most 12) is used as it is; any other
    name, and every on-demand companion group, becomes its first letters and digits plus four
    hex digits of a hash of the name, so distinct groups keep distinct names.
    """
    base = re.sub(r"[^a-z0-9]", "", pool_name.lower())
    if not base[:1].isalpha():
        base = "p" + base
    if not on_demand and base == pool_name and len(base) <= MAX_NAME:
        return base
    key = pool_name + ("/on-demand" if on_demand else "")
    digest = hashlib.sha256(key.encode()).hexdigest()[:4]
    return base[: MAX_NAME - len(digest)] + digest


CLOUD = Cloud(
    name="azure",
    # AKS labels (and taints) spot node pools' nodes kubernetes.azure.com/scalesetpriority=spot
    # (AKS docs, "Add an Azure Spot node pool").
    spot_node_labels=(("kubernetes.azure.com/scalesetpriority", "spot"),),
    display="Azure",
    node_pool_noun="node pool",
    sdk=Sdk(
        "azure-native",
        "pulumi_azure_native",
        "azure_native",
        "pulumi-azure-native",
        "3.29.0",
        extra="azure",
    ),
    operator_values_preinstalled={
        "toolkit": {"enabled": False},
        "operator": {"runtimeClass": AKS_GPU_RUNTIME},
    },
    preinstalled_runtime_class=AKS_GPU_RUNTIME,
    spot_taint=("kubernetes.azure.com/scalesetpriority", "spot", "NoSchedule"),
    node_pool_name=agent_pool_name,
    program_helpers=("aks_kubeconfig",),
    delete_before_replace=("azure-native:containerservice:AgentPool",),
    # cluster-autoscaler's Azure provider: GPULabel "accelerator", value the GPU vendor
    # (kubernetes/autoscaler cluster-autoscaler/cloudprovider/azure azure_cloud_provider.go and
    # azure_cloud_provider_gpu_test.go, {GPULabel: "nvidia"}); AKS's own labels are
    # kubernetes.azure.com/*, so the pools that serve services get it from gpupool
    autoscaler_gpu_label=("accelerator", "nvidia"),
    starter={
        "region": "eastus",
        "cluster": "REPLACE-ME-aks-cluster",
        "settings": {"resourceGroup": "REPLACE-ME-resource-group"},
    },
)
