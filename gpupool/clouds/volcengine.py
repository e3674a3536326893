"""Volcengine VKE: node pools of GPU instances.

Volcengine publishes no static instance catalog, so VKE pools declare their GPUs (``gpu``,
``host``) and their cost shows as unknown. VKE node pools have no compact placement policy.

A node pool's instance types and system volume change in place: the Terraform Volcengine provider
(v0.0.194, which pulumi-volcengine v0.0.47 bridges) marks neither ``ForceNew`` and sends them
with ``UpdateNodePoolConfig``, which changes the pool's node configuration; nodes VKE creates
afterwards get it, and Pulumi replaces no node.
"""

from gpupool.clouds.base import Cloud, Sdk

CLOUD = Cloud(
    name="volcengine",
    display="Volcengine",
    node_pool_noun="node pool",
    sdk=Sdk(
        "volcengine",
        "pulumi_volcengine",
        "volcengine",
        "pulumi-volcengine",
        "0.0.47",
        extra="volcengine",
    ),
    has_instance_catalog=False,
    declares_gpus=True,
    compact_placement=False,
    zonal_compact=False,
    program_helpers=("vke_cluster_id", "vke_kubeconfig"),
    recreates_nodes_on_update=False,
    starter={
        "region": "cn-beijing",
        "cluster": "REPLACE-ME-vke-cluster-id",
        "settings": {"subnetIds": ["subnet-REPLACE-ME"], "securityGroupIds": ["sg-REPLACE-ME"]},
    },
    starter_instance_type="ecs.REPLACE-ME",
)
