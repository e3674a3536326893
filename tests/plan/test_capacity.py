"""The plan's capacity and cost equal what the rendered node groups can really reach.

The cluster autoscaler bounds each node group by that group's own minimum and maximum
(kubernetes/autoscaler cluster-autoscaler/cloudprovider/aws/README.md, "Manual configuration":
``--nodes=<min>:<max>:<asg-name>`` per Auto Scaling group; GKE's ``total_max_node_count`` and
AKS's ``max_count`` are per node pool too), and nothing bounds the sum of a split pool's groups.
So a pool holds at most the sum of its groups' maxima, which for a spot pool with
``fallbackToOnDemand`` is above ``nodes.max``; the plan must count and price that.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpupool import assemble, plan, providers
from gpupool.graph import Resource, ResourceGraph
from gpupool.model import Stack
from gpupool.plan import Base
from gpupool.views import plan_text
from tests.paths import EXAMPLES
from tests.stacks import load_stack

ALL_EXAMPLES = sorted(p.name for p in EXAMPLES.glob("*.yaml"))


def _rendered_bounds(res: Resource) -> tuple[int, int]:
    """Return the min and max nodes a rendered node-pool resource lets the autoscaler reach."""
    i: dict[str, Any] = dict(res.inputs)
    if "scaling_config" in i:  # aws:eks/nodeGroup:NodeGroup
        return i["scaling_config"]["min_size"], i["scaling_config"]["max_size"]
    if "autoscaling" in i:  # gcp:container/nodePool:NodePool
        return i["autoscaling"]["total_min_node_count"], i["autoscaling"]["total_max_node_count"]
    if "max_count" in i:  # azure-native:containerservice:AgentPool
        return i["min_count"], i["max_count"]
    if "auto_scaling" in i:  # volcengine:vke/nodePool:NodePool
        return i["auto_scaling"]["min_replicas"], i["auto_scaling"]["max_replicas"]
    return 1, 1  # kubernetes:core/v1:NodePatch: one existing node


def _plan(stack: Stack) -> plan.PlanResult:
    graph = assemble.build(stack)
    return plan.make_plan(Base("empty", None, None), graph, stack)


@pytest.mark.parametrize("example_stack", ALL_EXAMPLES, indirect=True)
def test_capacity_nodes_are_the_sum_of_the_rendered_groups(example_stack: Stack) -> None:
    stack = example_stack
    result = providers.build(stack)
    by_address = {r.address: r for r in result.resources}
    capacity = {p.pool: p for p in _plan(stack).capacity}
    for pool in stack.pools:
        bounds = [_rendered_bounds(by_address[a]) for a in result.node_pools[pool.name]]
        lo, hi = sum(b[0] for b in bounds), sum(b[1] for b in bounds)
        got = capacity[pool.name]
        assert (got.nodes.min, got.nodes.max) == (lo, hi), pool.name
        per_node = pool.instance.gpus if pool.instance is not None else pool.gpus_per_node
        assert got.gpus.max == pytest.approx(hi * per_node), pool.name


@pytest.mark.parametrize("example_stack", ALL_EXAMPLES, indirect=True)
def test_cost_prices_what_the_rendered_groups_reach(example_stack: Stack) -> None:
    stack = example_stack
    result = providers.build(stack)
    by_address = {r.address: r for r in result.resources}
    costs = {p.pool: p for p in _plan(stack).cost.pools}
    for pool in stack.pools:
        groups = [by_address[a] for a in result.node_pools[pool.name]]
        # the plan prices from each node-pool resource's facts: they are its rendered bounds
        for g in groups:
            assert (g.facts["nodes_min"], g.facts["nodes_max"]) == _rendered_bounds(g), g.address
        prices = [g.facts["on_demand_price_hourly"] for g in groups]
        if pool.instance is None or None in prices:
            continue
        want = sum(_rendered_bounds(g)[1] * price for g, price in zip(groups, prices, strict=True))
        assert costs[pool.name].on_demand_hourly.max == pytest.approx(want), pool.name


def test_fallback_pool_counts_and_prices_both_groups_full() -> None:
    stack = load_stack("aws-inference-l4.yaml")
    result = _plan(stack)
    # batch-l4-spot: nodes 2..16, onDemandBase 2, fallbackToOnDemand: spot 0..14, on-demand 2..16
    pool = next(p for p in result.capacity if p.pool == "batch-l4-spot")
    assert (pool.nodes.min, pool.nodes.max, pool.nodes_max) == (2, 30, 16)
    assert pool.above_nodes_max
    assert pool.gpus.max == 30
    cost = next(p for p in result.cost.pools if p.pool == "batch-l4-spot")
    price = stack.pool("batch-l4-spot").instance.price
    od, spot = price.on_demand_hourly, price.spot_hourly
    assert cost.on_demand_hourly.max == pytest.approx(30 * od)
    assert cost.hourly.max == pytest.approx(14 * spot + 16 * od)  # both groups full
    assert cost.hourly.min == pytest.approx(2 * od)
    [note] = plan_text.ceiling_notes(result)
    assert note.startswith("batch-l4-spot: its node groups (spot up to 14 and on-demand up to 16)")
    assert "can hold 30 nodes together, above nodes.max 16" in note


def test_fallback_cost_is_spot_full_plus_on_demand_full() -> None:
    # nodes 1..6, spot with fallback and no base: spot group 1..6 and on-demand group 0..6
    spot = _group_resource("serve", "spot", 1, 6, price=1.0, on_demand=3.0)
    od = _group_resource("serve", "on-demand", 0, 6, price=3.0, on_demand=3.0)
    report = plan.cost(ResourceGraph("s", "aws", ()), ResourceGraph("s", "aws", (spot, od)), None)
    [cost] = report.pools
    assert cost.hourly.min == pytest.approx(1 * 1.0)
    assert cost.hourly.max == pytest.approx(6 * 1.0 + 6 * 3.0)
    assert cost.on_demand_hourly.max == pytest.approx(12 * 3.0)
    assert cost.falls_back


def _group_resource(
    pool: str, capacity: str, lo: int, hi: int, price: float, on_demand: float
) -> Resource:
    part = "node_group" if capacity == "spot" else "on_demand_node_group"
    facts = {
        "kind": "node-pool", "pool": pool, "gpu": "L4", "gpu_memory_gib": 24.0,
        "gpus_per_node": 1, "instance_type": "g6.xlarge", "capacity": capacity,
        "nodes_min": lo, "nodes_max": hi, "price_hourly": price,
        "on_demand_price_hourly": on_demand, "price_as_of": "2026-07-20",
        "sharing": {"mode": "exclusive", "replicas": None, "mig_layout": {}, "slots_per_gpu": 1},
    }  # fmt: skip
    return Resource(
        address=f"pool.{pool}.{part}", type="aws:eks/nodeGroup:NodeGroup", name=pool,
        inputs={}, owner=f"pool:{pool}", facts=facts,
    )  # fmt: skip


def test_pools_without_fallback_stay_within_nodes_max() -> None:
    for name in ALL_EXAMPLES:
        stack = load_stack(name)
        for p in _plan(stack).capacity:
            pool = stack.pool(p.pool)
            if not pool.capacity.fallback_to_on_demand:
                assert not p.above_nodes_max, (name, p.pool)


def test_vke_fallback_pool_stays_within_nodes_max_and_its_cost_unknown() -> None:
    # VKE keeps the base and the on-demand stand-ins inside the one node pool
    # (terraform-provider-volcenginecc Volcengine_VKE_NodePool.json InstancesDistribution), whose
    # max_replicas is nodes.max: batch is nodes 0..8, onDemandBase 2, fallbackToOnDemand
    stack = load_stack("checks-spot-volcengine.yaml")
    result = _plan(stack)
    pool = next(p for p in result.capacity if p.pool == "batch")
    assert (pool.nodes.min, pool.nodes.max, pool.nodes_max) == (2, 8, 8)
    assert not pool.above_nodes_max
    assert plan_text.ceiling_notes(result) == []
    [np_] = [r for r in assemble.build(stack).resources if r.address == "pool.batch.node_group"]
    assert _rendered_bounds(np_) == (2, 8)
    # no Volcengine price has a source: unknown at both ends, never $0, and said so
    cost = next(p for p in result.cost.pools if p.pool == "batch")
    assert cost.hourly == cost.on_demand_hourly == plan.MinMax(None, None)
    assert cost.falls_back
    assert result.cost.hourly == plan.MinMax(None, None)
    assert "batch: ecs.gni2.3xlarge spot price" in result.cost.unpriced
    assert "batch: ecs.gni2.3xlarge on-demand price" in result.cost.unpriced
    text = plan_text.format_text(result)
    [row] = [line for line in text.splitlines() if line.split()[:2] == ["batch", "unknown"]]
    assert "$" not in row
