"""Volcengine VKE: node pools of GPU instances.

Volcengine publishes no static instance catalog, so VKE pools declare their GPUs (``gpu``,
``host``) and their cost shows as unknown. VKE node pools have no compact placement policy.

A node pool's instance types and system volume change in place: the Terraform Volcengine provider
(v0.0.194, which pulumi-volcengine v0.0.47 bridges) marks neither ``ForceNew`` and sends them
with ``UpdateNodePoolConfig``, which changes the pool's node configuration; nodes VKE creates
afterwards get it, and Pulumi replaces no node.

Spot: a VKE node pool buys spot instances at the market price (``NodeConfig.SpotStrategy``
``SpotAsPriceGo``; the API's only other value is ``NoSpot``, so there is no price cap) and mixes
on-demand nodes into the same pool (``NodeConfig.InstancesDistribution``: an on-demand base of
0-500 nodes, the on-demand share above it, and on-demand stand-ins when no spot instance can be
bought): volcengine/terraform-provider-volcenginecc ``internal/service/cloudcontrol/schemas/
Volcengine_VKE_NodePool.json``. pulumi-volcengine 0.0.47 has none of these inputs, so spot pools
render with pulumi-volcenginecc (``extra_sdks``; ``gpupool.providers.volcengine`` says why).
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
    extra_sdks=(
        Sdk(
            "volcenginecc",
            "pulumi_volcenginecc",
            "volcenginecc",
            "pulumi-volcenginecc",
            "0.0.64",
            extra="volcengine",
        ),
    ),
    has_instance_catalog=False,
    declares_gpus=True,
    mixes_spot=True,
    on_demand_base_max=500,
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
