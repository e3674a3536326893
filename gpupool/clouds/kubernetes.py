"""An existing Kubernetes cluster: gpupool labels named nodes and provisions no machines.

The pools name their nodes (``nodeNames``) and declare their GPUs; the GPU Operator installs the
driver by default, since nothing else is known to. The Kubernetes SDK itself is every program's
(``KUBERNETES_SDK``), whatever the cloud.
"""

from gpupool.clouds.base import DRIVER_OPERATOR, Cloud, Sdk

KUBERNETES_SDK = Sdk("kubernetes", "pulumi_kubernetes", "k8s", "pulumi-kubernetes", "4.34.2")

CLOUD = Cloud(
    name="kubernetes",
    display="Kubernetes",
    node_pool_noun="node set",
    sdk=None,
    provisions=False,
    has_instance_catalog=False,
    declares_gpus=True,
    default_driver=DRIVER_OPERATOR,
    compact_placement=False,
    zonal_compact=False,
    labels_instance_type=False,
)
