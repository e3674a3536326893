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


def test_vke_on_demand_base_change_updates_the_spot_node_pool_in_place() -> None:
    # terraform-provider-volcenginecc Volcengine_VKE_NodePool.json: InstancesDistribution is not
    # among the createOnlyProperties, so a new base is an update of the same node pool
    stack = load_stack("checks-spot-volcengine.yaml")
    cap = dataclasses.replace(
        stack.pools[0].capacity, on_demand_base=3, fallback_to_on_demand=False
    )
    c = _node_pool_change(stack, capacity=cap)
    assert c.action == "update"
    assert "on-demand base 2 -> 3" in c.reasons
    assert "on-demand fallback on -> off" in c.reasons
    assert "nodes min 2 -> 3" in c.reasons


def test_vke_pool_turning_spot_gets_a_new_node_pool() -> None:
    # pulumi-volcengine 0.0.47's vke.NodePool has no spot input, so a spot pool is a
    # pulumi-volcenginecc node pool: another type, which Pulumi creates anew (and VKE's
    # SpotStrategy is create-only in the Cloud Control schema anyway)
    stack = load_stack("volcengine-a10.yaml")
    cap = dataclasses.replace(stack.pools[0].capacity, type="spot")
    c = _node_pool_change(stack, capacity=cap)
    assert c.actions == ("create", "delete")  # the new node pool first, then the old goes
    assert c.type == "volcenginecc:vke/nodePool:NodePool"
    assert any("a different kind of resource" in r for r in c.reasons), c.reasons
