"""How a spot pool becomes node groups where one node pool mixes spot and on-demand (VKE)."""

from __future__ import annotations

import dataclasses

import pytest

from gpupool.clouds import aws, volcengine
from gpupool.facts.groups import capacity_groups, reach
from gpupool.model import Capacity, NodeRange, Pool
from tests.stacks import load_stack


def _pool(nodes: tuple[int, int, int], base: int, fallback: bool, kind: str = "spot") -> Pool:
    pool = load_stack("volcengine-a10.yaml").pools[0]
    return dataclasses.replace(
        pool, nodes=NodeRange(*nodes), capacity=Capacity(kind, base, None, fallback)
    )


@pytest.mark.parametrize(
    ("nodes", "base", "fallback", "want"),
    [
        # (min, max, desired, on-demand base, on-demand fallback)
        ((0, 4, 0), 0, False, (0, 4, 0, 0, False)),
        ((2, 10, 2), 3, False, (3, 10, 3, 3, False)),  # the base always runs
        ((5, 10, 5), 2, True, (5, 10, 5, 2, True)),
        ((0, 6, 0), 0, True, (0, 6, 0, 0, True)),
        ((4, 4, 4), 4, False, (4, 4, 4, 4, False)),  # no spot group to keep at 1
        ((0, 8, 7), 2, True, (2, 8, 7, 2, True)),
    ],
)
def test_a_vke_spot_pool_stays_one_mixed_group(nodes, base, fallback, want) -> None:
    # terraform-provider-volcenginecc Volcengine_VKE_NodePool.json: NodeConfig.InstancesDistribution
    # (OnDemandBaseCapacity, CompensateWithOnDemand) holds the base and the fallback inside the
    # node pool, so nothing is split off and the pool never exceeds nodes.max
    pool = _pool(nodes, base, fallback)
    [g] = capacity_groups(pool, volcengine.CLOUD)
    assert (g.part, g.suffix, g.capacity) == ("node_group", "", "spot")
    assert (g.min, g.max, g.desired, g.on_demand_base, g.on_demand_fallback) == want
    assert reach(pool, volcengine.CLOUD) == (want[0], want[1])


def test_the_same_pool_splits_where_node_pools_hold_one_kind() -> None:
    pool = _pool((0, 8, 0), 2, True)
    spot, od = capacity_groups(pool, aws.CLOUD)
    assert (spot.capacity, od.capacity) == ("spot", "on-demand")
    assert spot.on_demand_base == od.on_demand_base == 0
    assert not spot.on_demand_fallback
    assert reach(pool, aws.CLOUD) == (2, 14)  # above nodes.max, unlike VKE's 8


def test_on_demand_pools_are_one_plain_group_everywhere() -> None:
    pool = _pool((1, 3, 2), 0, False, kind="on-demand")
    for cloud in (aws.CLOUD, volcengine.CLOUD):
        [g] = capacity_groups(pool, cloud)
        assert (g.capacity, g.min, g.max, g.desired, g.on_demand_base) == ("on-demand", 1, 3, 2, 0)
