"""The order of a replacement: what the plan says against what Pulumi and the program do.

Pulumi docs, "Resource option: deleteBeforeReplace": "By default, to minimize downtime, Pulumi
creates new instances of resources before deleting old ones"; with ``deleteBeforeReplace`` it
deletes the existing resource first. Terraform's JSON plan writes the first as
``["create", "delete"]`` and the second as ``["delete", "create"]``.
"""

from __future__ import annotations

import dataclasses

import pytest

from gpupool import assemble, clouds, plan
from gpupool.engine.results import EngineResult, ResourceStep
from gpupool.model import Stack
from gpupool.render import program
from gpupool.usecases.engine import engine_changes
from gpupool.views import plan_text
from tests.stacks import load_stack

NODE_POOL_TYPES = {
    "aws": "aws:eks/nodeGroup:NodeGroup",
    "gcp": "gcp:container/nodePool:NodePool",
    "azure": "azure-native:containerservice:AgentPool",
    "volcengine": "volcengine:vke/nodePool:NodePool",
}


@pytest.mark.parametrize("cloud", clouds.all_clouds(), ids=lambda c: c.name)
def test_replace_order_is_the_one_the_program_asks_for(cloud: clouds.Cloud) -> None:
    # The rendered program sets delete_before_replace on exactly these types (render/program.py),
    # so the plan deletes first for them and creates first for every other type.
    for token in cloud.delete_before_replace:
        assert token in program.DELETE_BEFORE_REPLACE
        assert plan.replace_actions(token) == plan.REPLACE_DELETE_FIRST == ("delete", "create")
    token = NODE_POOL_TYPES.get(cloud.name)
    if token is not None and token not in cloud.delete_before_replace:
        assert plan.replace_actions(token) == plan.REPLACE == ("create", "delete")


def _replaced(stack: Stack, pool: int, **changes: object) -> plan.ResourceChange:
    """Plan a change of one pool and return the change of its node pool."""
    changed = dataclasses.replace(stack.pools[pool], **changes)
    desired = dataclasses.replace(
        stack, pools=tuple(changed if i == pool else p for i, p in enumerate(stack.pools))
    )
    address = f"pool.{changed.name}.node_group"
    found = [
        c for c in plan.diff(assemble.build(stack), assemble.build(desired)) if c.address == address
    ]
    assert len(found) == 1, address
    return found[0]


def test_eks_node_group_is_created_before_the_old_one_goes() -> None:
    # Pulumi docs, resource option deleteBeforeReplace: "By default, to minimize downtime, Pulumi
    # creates new instances of resources before deleting old ones"; the program sets it on no
    # EKS type (Pulumi names node groups with a random suffix, so old and new never clash).
    c = _replaced(load_stack("aws-inference-l4.yaml"), 0, instance_type="g6e.2xlarge")
    assert c.actions == ("create", "delete") and not c.deletes_first
    assert "Pulumi creates the new node group before it deletes the old one" in c.reasons
    lines = plan_text.change_lines(c)
    assert lines[1].startswith("+/- aws:eks/nodeGroup:NodeGroup")


def test_aks_agent_pool_is_deleted_before_its_replacement() -> None:
    # The AKS agent-pool name is gpupool's (clouds/azure.py agent_pool_name), so the program asks
    # Pulumi to delete the old pool first (Cloud.delete_before_replace), and the plan says so.
    c = _replaced(load_stack("azure-kai-fair.yaml"), 0, instance_type="Standard_NC48ads_A100_v4")
    assert c.actions == ("delete", "create") and c.deletes_first
    first = "Pulumi deletes the old node pool before it creates the new one"
    assert any(r.startswith(first) for r in c.reasons)
    lines = plan_text.change_lines(c)
    assert lines[1].startswith("-/+ azure-native:containerservice:AgentPool")
    result = dataclasses.replace(_empty_plan(), changes=(c,))
    legend = plan_text.changes_section(result)
    assert "-/+ destroy and then create replacement" in legend
    assert not any("+/-" in line for line in legend[:3])


def _empty_plan() -> plan.PlanResult:
    stack = load_stack("azure-kai-fair.yaml")
    graph = assemble.build(stack)
    return plan.make_plan(plan.Base("empty", None, graph=None), graph, stack)


def _steps(*ops: tuple[str, str]) -> EngineResult:
    steps = tuple(
        ResourceStep(urn=f"urn::{name}", type="test:index:Thing", name=name, op=op)
        for op, name in ops
    )
    return EngineResult(kind="preview", steps=steps, summary={})


def test_engine_preview_keeps_the_order_pulumi_reports() -> None:
    # Pulumi's engine emits create-replacement, replace, delete-replaced for a default
    # replacement and delete-replaced first for deleteBeforeReplace (Pulumi's lifecycle tests;
    # the streams of tests/engine/events).
    result = _steps(
        ("create-replacement", "a"), ("replace", "a"), ("delete-replaced", "b"),
        ("delete-replaced", "a"), ("replace", "b"), ("create-replacement", "b"),
    )  # fmt: skip
    changes = {c.name: c for c in engine_changes(result)}
    assert changes["a"].actions == plan.REPLACE
    assert changes["b"].actions == plan.REPLACE_DELETE_FIRST
