"""Node-pool sizes belong to the cluster autoscaler after creation: neither the program nor the
plan fights it, while every other input still counts."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gpupool import assemble, plan, render
from gpupool.graph import ResourceGraph
from gpupool.plan import Base
from tests.stacks import load_stack

CASES = [
    ("aws-inference-l4.yaml", "scalingConfig.desiredSize"),
    ("azure-kai-fair.yaml", "count"),
    ("volcengine-a10.yaml", "autoScaling.desiredReplicas"),
]


@pytest.mark.parametrize(("example", "wire"), CASES)
def test_program_tells_pulumi_to_leave_the_current_size_alone(
    example: str, wire: str, tmp_path: Path
) -> None:
    """Every node pool block carries ignore_changes with the provider's property path."""
    stack = load_stack(example)
    g = assemble.build(stack)
    node_pools = [r for r in g.resources if r.address.startswith("pool.") and r.facts]
    assert node_pools and all(r.ignore_changes for r in node_pools)
    render.render(stack, g, tmp_path)
    program = (tmp_path / "__main__.py").read_text(encoding="utf-8")
    assert program.count(f"ignore_changes=[{wire!r}]") == len(node_pools)


def test_plan_ignores_a_changed_desired_size_but_not_the_maximum() -> None:
    """nodes.desired alone is not a change; nodes.max still is."""
    stack = load_stack("aws-inference-l4.yaml")
    pool = stack.pools[0]
    desired_only = dataclasses.replace(
        stack,
        pools=(
            dataclasses.replace(pool, nodes=dataclasses.replace(pool.nodes, desired=7)),
            *stack.pools[1:],
        ),
    )
    base = Base("file", "base.yaml", assemble.build(stack))
    result = plan.make_plan(base, assemble.build(desired_only), desired_only)
    assert not result.has_changes
    bigger = dataclasses.replace(
        stack,
        pools=(
            dataclasses.replace(pool, nodes=dataclasses.replace(pool.nodes, max=12)),
            *stack.pools[1:],
        ),
    )
    result = plan.make_plan(base, assemble.build(bigger), bigger)
    changed = {c.address: c for c in result.changes if c.action != "no-op"}
    # (tenant quota ceilings follow the pool's size too, so they may change as well)
    node_group = changed["pool.infer-l4.node_group"]
    assert node_group.action == "update"
    assert [c.path for c in node_group.changes] == [("scaling_config", "max_size")]


def test_ignore_changes_survive_the_applied_record() -> None:
    """The recorded graph keeps ignore_changes, so a plan against it ignores the same paths."""
    g = assemble.build(load_stack("aws-inference-l4.yaml"))
    again = ResourceGraph.from_json(g.to_json())
    assert again == g
    assert again.get("pool.infer-l4.node_group").ignore_changes == ("scaling_config.desired_size",)
