"""AWS EKS node groups: what the cluster autoscaler and EKS need of them."""

from __future__ import annotations

import dataclasses
import re

import pytest

from gpupool import catalog, providers
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
