"""Which subnets, and so which zones, a pool's node groups get (gpupool.facts.placement).

EKS CreateNodegroup API, ``subnets``: "The subnets to use for the Auto Scaling group that is
created for your node group"; a managed node group has no zone setting of its own, so its nodes
land in its subnets' zones. EC2 Auto Scaling CreateAutoScalingGroup API, ``PlacementGroup``: "A
cluster placement group is a logical grouping of instances within a single Availability Zone. You
cannot specify multiple Availability Zones and a cluster placement group", so a compact pool must
get the subnets of one zone only.
"""

from __future__ import annotations

from gpupool import providers
from gpupool.facts import placement
from gpupool.providers import aws
from tests.stacks import load_stack

A1, A2, B1 = "subnet-0a1b2c3d4e5f60718", "subnet-0b2c3d4e5f6071829", "subnet-0d4e5f60718293a4b"


def test_each_pool_gets_the_subnets_of_its_zones() -> None:
    stack = load_stack("clouds-aws-subnet-zones.yaml")
    got = {p.name: placement.pool_subnets(stack, p) for p in stack.pools}
    assert got == {
        "island": (A1, A2),
        "serve": (A1, A2, B1),  # file order, whichever order the zones are listed in
        "batch": (B1,),
        "anywhere": (A1, A2, B1),
    }
    island = stack.pool("island")
    assert island is not None
    assert placement.pool_subnet_zones(stack, island) == ("us-east-1a",)


def test_node_groups_render_the_pools_subnets() -> None:
    stack = load_stack("clouds-aws-subnet-zones.yaml")
    result = providers.build(stack)
    by_address = {r.address: r for r in result.resources}
    for pool in stack.pools:
        for address in result.node_pools[pool.name]:
            ng = by_address[address]
            assert ng.type == aws.NODE_GROUP
            assert tuple(ng.inputs["subnet_ids"]) == placement.pool_subnets(stack, pool)


def test_subnet_ids_without_zones_give_every_pool_every_subnet() -> None:
    stack = load_stack("aws-training-compact.yaml")
    assert not placement.zones_known(stack)
    for pool in stack.pools:
        assert placement.pool_subnets(stack, pool) == ("subnet-0f1e2d3c4b5a69788",)
        assert placement.pool_subnet_zones(stack, pool) == ()
