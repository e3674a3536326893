"""Every cloud's node pools get the pool's root disk (``disk.sizeGiB``, default 200 GiB).

The clouds' own defaults are too small for nodes that pull CUDA and NGC images of several GiB:
pulumi-aws 7.51.1 ``eks/node_group.py`` ``disk_size``: "Defaults to 50 for Windows, 20 all other
node groups"; pulumi-gcp 10.2.0 ``container`` ``disk_size_gb``: "Defaults to 100GB".
"""

from __future__ import annotations

import dataclasses

import pytest

from gpupool import providers
from gpupool.model import DEFAULT_DISK_GIB, Stack
from gpupool.providers import aws, azure, gcp, volcengine
from tests.stacks import load_stack, load_stack_text


def _by_type(stack: Stack, type_: str) -> list:
    return [r for r in providers.build(stack).resources if r.type == type_]


def _sized(name: str, gib: int) -> Stack:
    stack = load_stack(name)
    return dataclasses.replace(
        stack, pools=tuple(dataclasses.replace(p, disk_gib=gib) for p in stack.pools)
    )


def test_default_is_200_gib() -> None:
    assert DEFAULT_DISK_GIB == 200
    assert all(p.disk_gib == 200 for p in load_stack("aws-inference-l4.yaml").pools)


def test_eks_node_group_without_a_launch_template_sets_disk_size() -> None:
    for ng in _by_type(_sized("aws-inference-l4.yaml", 300), aws.NODE_GROUP):
        assert ng.inputs["disk_size"] == 300
        # terraform-provider-aws internal/service/eks/node_group.go: disk_size is ForceNew
        assert "disk_size" in ng.replace_on


def test_eks_node_group_with_a_launch_template_sizes_the_templates_root_volume() -> None:
    # EKS CreateNodegroup API, diskSize: "If you specify launchTemplate, then don't specify
    # diskSize, or the node group deployment will fail"; EKS user guide launch-templates.md: the
    # disk size "must" be in the launch template (Storage volumes).
    stack = _sized("aws-training-compact.yaml", 500)
    [lt] = _by_type(stack, aws.LAUNCH_TEMPLATE)
    assert lt.inputs["block_device_mappings"] == [
        {
            "device_name": "/dev/xvda",
            "ebs": {"delete_on_termination": "true", "volume_size": 500, "volume_type": "gp3"},
        }
    ]
    compact = [ng for ng in _by_type(stack, aws.NODE_GROUP) if "launch_template" in ng.inputs]
    assert compact
    assert all("disk_size" not in ng.inputs for ng in compact)


def test_gke_node_pools_set_disk_size_gb() -> None:
    for np_ in _by_type(_sized("gcp-inference-sharing.yaml", 250), gcp.NODE_POOL):
        assert np_.inputs["node_config"]["disk_size_gb"] == 250
        # terraform-provider-google node_config.go: disk_size_gb is not ForceNew (GKE updates
        # the node pool and recreates its nodes)
        assert "node_config.disk_size_gb" not in np_.replace_on


def test_aks_agent_pools_set_os_disk_size_gb() -> None:
    for ap in _by_type(_sized("azure-kai-fair.yaml", 256), azure.AGENT_POOL):
        assert ap.inputs["os_disk_size_gb"] == 256
        # AKS refuses a new OS disk size on an existing agent pool (Terraform azurerm
        # kubernetes_cluster_node_pool os_disk_size_gb: "Changing this forces a new resource")
        assert "os_disk_size_gb" in ap.replace_on


def test_vke_node_pools_set_the_system_volume() -> None:
    # terraform-provider-volcengine v0.0.194 vke/node_pool: node_config.system_volume.size,
    # "the value range in 20~2048", updated in place (UpdateNodePoolConfig)
    for np_ in _by_type(_sized("volcengine-a10.yaml", 400), volcengine.NODE_POOL):
        assert np_.inputs["node_config"]["system_volume"] == {"size": 400}


def _gke_text(size: int) -> str:
    return (
        "apiVersion: gpupool.io/v1\nkind: GpuPoolStack\nmetadata: {name: t}\n"
        "provider: {cloud: gcp, region: us-central1, cluster: c, settings: {project: my-proj-1}}\n"
        f"pools:\n  - {{name: a, instanceType: g2-standard-8, nodes: {{min: 0, max: 1}}, "
        f"disk: {{sizeGiB: {size}}}}}\n"
    )


def test_the_file_sets_the_size() -> None:
    assert load_stack_text(_gke_text(300)).pools[0].disk_gib == 300


@pytest.mark.parametrize("size", [19, 2049])
def test_schema_bounds(size: int) -> None:
    # 20..2048: VKE's system volume takes 20~2048 GiB and AKS managed OS disks at most 2048
    with pytest.raises(AssertionError):
        load_stack_text(_gke_text(size))
