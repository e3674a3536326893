"""GCP GKE: node pools with guest accelerators.

With ``driver: preinstalled`` GKE installs the driver under ``/home/kubernetes/bin/nvidia`` and
its own device plugin shares GPUs (time-sharing, MPS, MIG partitions) from node-pool settings;
the operator's toolkit must install there (NVIDIA cloud-native-docs ``google-gke.rst``). The
label ``gke-no-default-nvidia-gpu-device-plugin`` keeps GKE's plugin off nodes another plugin
serves. GKE admits system-node-critical pods outside kube-system only under a quota, a Standard
cluster holds at most 15,000 nodes (GKE docs, "Quotas and limits": nodes per cluster), and
node-pool names have at most 40 characters, of which Pulumi's random suffix takes 8.

On GKE 1.33 and later the container toolkit misconfigures containerd unless it reads the runtime
config from the file (``RUNTIME_CONFIG_SOURCE=file``; NVIDIA cloud-native-docs PR #312,
``google-gke.rst`` known issue, merged 2025-11-14; gpu-operator issue #1679). gpu-operator
v26.7.0, the version gpupool pins, has no GKE handling of its own, so every GKE stack sets it on
the toolkit, whichever driver it uses.

Nodes of node pools GKE shares itself carry GKE's sharing labels, which drift checks in place of
GPU Feature Discovery's: ``cloud.google.com/gke-gpu-sharing-strategy`` (``time-sharing``, or
``mps``) and ``cloud.google.com/gke-max-shared-clients-per-gpu`` (GKE docs, "About GPU
time-sharing"), only on the pools it shares, and ``cloud.google.com/gke-gpu-partition-size`` on
MIG-partitioned ones (kubernetes/autoscaler ``cluster-autoscaler/cloudprovider/gce``:
``GPUPartitionSizeLabel``, next to the two above).
"""

from gpupool.clouds.base import Cloud, NodeSharing, Sdk

GKE_DRIVER_DIR = "/home/kubernetes/bin/nvidia"

SHARING_STRATEGY_LABEL = "cloud.google.com/gke-gpu-sharing-strategy"
MAX_CLIENTS_LABEL = "cloud.google.com/gke-max-shared-clients-per-gpu"
PARTITION_SIZE_LABEL = "cloud.google.com/gke-gpu-partition-size"
#: GKE's strategy value where it differs from the device plugin's key: time-slicing is GKE's
#: "time-sharing"; MPS is written as the mode's name.
_STRATEGY_BY_PLUGIN_KEY = {"timeSlicing": "time-sharing"}


def node_sharing_labels(sharing: NodeSharing) -> dict[str, str | None]:
    """Return GKE's sharing labels on a node of a pool that shares GPUs as ``sharing`` says."""
    if sharing.clients:
        key = sharing.device_plugin_key or ""
        return {
            SHARING_STRATEGY_LABEL: _STRATEGY_BY_PLUGIN_KEY.get(key, sharing.mode),
            MAX_CLIENTS_LABEL: str(sharing.clients),
        }
    out: dict[str, str | None] = {}
    if not sharing.replicated:  # GKE labels only the pools it shares
        out = {SHARING_STRATEGY_LABEL: None, MAX_CLIENTS_LABEL: None}
    if len(sharing.mig_profiles) == 1:
        out[PARTITION_SIZE_LABEL] = sharing.mig_profiles[0]
    return out


CLOUD = Cloud(
    name="gcp",
    # GKE labels Spot VM nodes cloud.google.com/gke-spot=true and preemptible VM nodes
    # cloud.google.com/gke-preemptible=true (GKE docs, "Use Spot VMs"; "Preemptible VMs").
    spot_node_labels=(
        ("cloud.google.com/gke-spot", "true"),
        ("cloud.google.com/gke-preemptible", "true"),
    ),
    display="GCP",
    node_pool_noun="node pool",
    sdk=Sdk("gcp", "pulumi_gcp", "gcp", "pulumi-gcp", "10.2.0", extra="gcp"),
    shares_gpus_itself=True,
    node_sharing_labels=node_sharing_labels,
    device_plugin_opt_out_label="gke-no-default-nvidia-gpu-device-plugin",
    operator_values={"toolkit": {"env": [{"name": "RUNTIME_CONFIG_SOURCE", "value": "file"}]}},
    operator_values_preinstalled={
        "hostPaths": {"driverInstallDir": GKE_DRIVER_DIR},
        "toolkit": {"installDir": GKE_DRIVER_DIR},
    },
    mig_manager_env=({"name": "WITH_REBOOT", "value": "true"},),
    critical_pod_quota=True,
    cluster_nodes_max=15_000,
    node_pool_name_max=40 - 8,
    program_helpers=("gke_kubeconfig",),
    starter={
        "region": "us-central1",
        "cluster": "REPLACE-ME-gke-cluster",
        "settings": {"project": "replace-me-project"},
    },
)
