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
"""

from gpupool.clouds.base import Cloud, Sdk

GKE_DRIVER_DIR = "/home/kubernetes/bin/nvidia"

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
