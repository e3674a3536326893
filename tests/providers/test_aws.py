"""AWS EKS node groups: what the cluster autoscaler, EKS and EFA need of them."""

from __future__ import annotations

import dataclasses
import inspect
import re

import pytest

from gpupool import catalog, providers
from gpupool.graph import Lookup, Ref
from gpupool.model import Stack
from gpupool.providers import aws
from tests.paths import EXAMPLES
from tests.stacks import load_stack

AWS_EXAMPLES = sorted(
    p.name for p in EXAMPLES.glob("*.yaml") if load_stack(p.name).provider.cloud == "aws"
)
LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")


def _node_groups(stack: Stack) -> list:
    return [r for r in providers.build(stack).resources if r.type == aws.NODE_GROUP]


@pytest.mark.parametrize("example_stack", AWS_EXAMPLES, indirect=True)
def test_gpu_node_groups_carry_the_autoscaler_accelerator_label(example_stack: Stack) -> None:
    # kubernetes/autoscaler cluster-autoscaler/cloudprovider/aws/README.md, "Special note on GPU
    # instances": without k8s.amazonaws.com/accelerator=<gpu-type> set when the node joins, the
    # autoscaler sees a new GPU node before the device plugin advertises its GPUs and may scale
    # out again; aws_cloud_provider.go reads that key as GPULabel.
    groups = _node_groups(example_stack)
    assert groups
    for ng in groups:
        pool = example_stack.pool(ng.facts["pool"])
        assert ng.inputs["labels"][aws.ACCELERATOR_LABEL] == aws.accelerator_type(pool.gpu)
        assert list(ng.inputs["labels"]) == sorted(ng.inputs["labels"])


def test_accelerator_types_follow_the_autoscalers_names() -> None:
    # aws_cloud_provider.go availableGPUTypes: nvidia-tesla-t4, nvidia-tesla-v100,
    # nvidia-tesla-a100, nvidia-a10g, nvidia-l4, nvidia-l40s.
    for name, want in [
        ("T4", "nvidia-tesla-t4"),
        ("V100-SXM2-16GB", "nvidia-tesla-v100"),
        ("A100-SXM4-40GB", "nvidia-tesla-a100"),
        ("A10G", "nvidia-a10g"),
        ("L4", "nvidia-l4"),
        ("L40S", "nvidia-l40s"),
    ]:
        gpu = catalog.gpu(name)
        assert gpu is not None
        assert aws.accelerator_type(gpu) == want
    for inst in catalog.instances("aws"):
        gpu = catalog.gpu(inst.gpu)
        assert gpu is not None
        value = aws.accelerator_type(gpu)
        assert len(value) <= 63 and LABEL_VALUE.match(value), value


def test_a_pool_label_of_that_key_wins() -> None:
    stack = load_stack("aws-inference-l4.yaml")
    pool = stack.pools[0]
    labelled = dataclasses.replace(pool, labels={aws.ACCELERATOR_LABEL: "custom"})
    stack = dataclasses.replace(stack, pools=(labelled, *stack.pools[1:]))
    [ng] = [r for r in _node_groups(stack) if r.facts["pool"] == pool.name]
    assert ng.inputs["labels"][aws.ACCELERATOR_LABEL] == "custom"


def _with_instance(name: str, instance_type: str, topology: str | None = "compact") -> Stack:
    stack = load_stack(name)
    pools = tuple(
        dataclasses.replace(p, instance_type=instance_type, topology=topology)
        if p.topology == "compact"
        else p
        for p in stack.pools
    )
    return dataclasses.replace(stack, pools=pools)


def _efa(stack: Stack) -> tuple[list, list]:
    res = providers.build(stack).resources
    return (
        [r for r in res if r.type == aws.LAUNCH_TEMPLATE],
        [r for r in res if r.type == aws.SECURITY_GROUP],
    )


@pytest.mark.parametrize(("instance_type", "count"), [("p5.48xlarge", 32), ("p4d.24xlarge", 4)])
def test_compact_efa_pool_attaches_one_efa_per_network_card(instance_type: str, count: int) -> None:
    # terraform-aws-eks modules/eks-managed-node-group/main.tf (efa_network_interfaces): one
    # interface per network card, network_card_index i, device_index 0 on card 0 and 1 on the
    # others, interface_type "efa", no subnet_id (EKS sets it: "Set on EKS managed node group,
    # will fail if set here", launch-templates.md). Counts: EC2 EfaInfo.MaximumEfaInterfaces as
    # Karpenter's instance-types.md lists it (p5.48xlarge 32, as AWS EC2 UG
    # efa-acc-inst-types.md "EFA configuration for P5" and terraform-aws-eks docs/networking/
    # efa.md say; p4d.24xlarge 4).
    stack = _with_instance("aws-training-compact.yaml", instance_type)
    [lt], [sg] = _efa(stack)
    nics = lt.inputs["network_interfaces"]
    assert [n["network_card_index"] for n in nics] == list(range(count))
    assert [n["device_index"] for n in nics] == [0] + [1] * (count - 1)
    assert {n["interface_type"] for n in nics} == {"efa"}
    assert all("subnet_id" not in n for n in nics)
    # security groups sit on each interface: the cluster's own (EKS adds it only to a template
    # without security groups) and the pool's EFA group
    cluster_sg = Lookup(
        "eks_vpc_config",
        {
            "cluster_name": "research-eks",
            "region": "us-east-1",
            "field": "cluster_security_group_id",
        },
    )
    assert all(n["security_groups"] == [cluster_sg, Ref(sg.address, "id")] for n in nics)
    assert "vpc_security_group_ids" not in lt.inputs


def test_efa_security_group_admits_all_traffic_from_and_to_itself() -> None:
    # AWS PCS user guide "Create a security group to support EFA communications":
    # authorize-security-group-ingress and -egress --protocol -1 --source-group <itself>;
    # terraform-aws-eks node_groups.tf efa_security_group_rules (protocol -1, ports 0, self).
    [_], [sg] = _efa(load_stack("aws-training-compact.yaml"))
    for direction in ("ingress", "egress"):
        [rule] = sg.inputs[direction]
        assert (rule["protocol"], rule["from_port"], rule["to_port"], rule["self"]) == (
            "-1",
            0,
            0,
            True,
        )
        assert not {"cidr_blocks", "ipv6_cidr_blocks", "security_groups"} & set(rule)
    assert sg.inputs["vpc_id"] == Lookup(
        "eks_vpc_config", {"cluster_name": "research-eks", "region": "us-east-1", "field": "vpc_id"}
    )


@pytest.mark.parametrize(
    ("instance_type", "topology"), [("p5.48xlarge", None), ("g6.xlarge", "compact")]
)
def test_no_efa_without_compact_placement_or_efa(instance_type: str, topology: str | None) -> None:
    # EFA interfaces can only be attached when an instance launches (AWS EC2 UG
    # efa-working-with.md), and gpupool attaches them to the pool meant for multi-node jobs
    stack = _with_instance("aws-training-compact.yaml", instance_type, topology)
    lts, sgs = _efa(stack)
    assert sgs == []
    assert all("network_interfaces" not in lt.inputs for lt in lts)


@pytest.mark.cloud_sdks
def test_efa_inputs_are_the_sdks_names() -> None:
    # pulumi-aws 7.51.1 ec2/_inputs.py LaunchTemplateNetworkInterfaceArgs and
    # SecurityGroupIngressArgs / SecurityGroupEgressArgs: nested dicts are not checked by the
    # constructor, so compare their keys with the argument classes' parameters here
    ec2_inputs = pytest.importorskip("pulumi_aws.ec2._inputs")
    [lt], [sg] = _efa(load_stack("aws-training-compact.yaml"))

    def params(cls: type) -> set[str]:
        return set(inspect.signature(cls.__init__).parameters) - {"__self__"}

    nic_args = params(ec2_inputs.LaunchTemplateNetworkInterfaceArgs)
    assert all(set(n) <= nic_args for n in lt.inputs["network_interfaces"])
    assert set(sg.inputs["ingress"][0]) <= params(ec2_inputs.SecurityGroupIngressArgs)
    assert set(sg.inputs["egress"][0]) <= params(ec2_inputs.SecurityGroupEgressArgs)
