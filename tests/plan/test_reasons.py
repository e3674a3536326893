"""Reasons that agree with the action: a change the cloud makes in place never says "replaced"."""

from __future__ import annotations

import dataclasses

from gpupool import assemble, plan
from gpupool.model import Stack
from tests.stacks import load_stack


def _node_pool_change(stack: Stack, **changes: object) -> plan.ResourceChange:
    pool = dataclasses.replace(stack.pools[0], **changes)
    desired = dataclasses.replace(stack, pools=(pool, *stack.pools[1:]))
    address = f"pool.{pool.name}.node_group"
    changes = plan.diff(assemble.build(stack), assemble.build(desired))
    [c] = [c for c in changes if c.address == address]
    return c


def test_vke_gpu_change_is_an_update_and_says_what_vke_does() -> None:
    # terraform-provider-volcengine v0.0.194 (bridged by pulumi-volcengine v0.0.47)
    # vke/node_pool/resource_volcengine_vke_node_pool.go: node_config.instance_type_ids has its
    # ForceNew commented out and is sent with UpdateNodePoolConfig, so Pulumi updates the node
    # pool in place and replaces no node; the plan must not also say "nodes are replaced".
    stack = load_stack("volcengine-a10.yaml")
    c = _node_pool_change(stack, instance_type="ecs.gni3c.11xlarge", gpu_model="L40S")
    assert c.action == "update"
    assert not any("nodes are replaced" in r for r in c.reasons), c.reasons
    assert any(
        r.startswith("GPU memory 24 GiB -> 48 GiB: Volcengine updates the node pool in place")
        and "nodes it creates from now on get the new GPUs" in r
        for r in c.reasons
    ), c.reasons


def test_a_replacement_still_says_nodes_are_replaced() -> None:
    # terraform-provider-aws internal/service/eks/node_group.go: instance_types is ForceNew.
    c = _node_pool_change(load_stack("aws-inference-l4.yaml"), instance_type="g6e.2xlarge")
    assert c.action == "replace"
    assert any("GPU memory cannot be resized in place, nodes are replaced" in r for r in c.reasons)
