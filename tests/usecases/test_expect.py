"""The reviewed plan of ``up --expect``: reading it, and how a preview may differ from it."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest

from gpupool.assemble import build
from gpupool.errors import InputError
from gpupool.plan import (
    CREATE,
    DELETE,
    NO_OP,
    REPLACE,
    REPLACE_DELETE_FIRST,
    UPDATE,
    Base,
    PlanResult,
    ResourceChange,
    make_plan,
)
from gpupool.usecases import expect
from gpupool.usecases.expect import PlanMismatchError, load_reviewed, require_same
from gpupool.views import plan_json
from tests.paths import EXAMPLES
from tests.stacks import load_stack, load_stack_text

POOL = "pool.infer-l4.node_group"


@pytest.fixture(scope="module")
def first_plan() -> PlanResult:
    stack = load_stack("aws-inference-l4")
    return make_plan(Base("empty", None, None), build(stack), stack)


def _with(plan: PlanResult, **actions: tuple[str, ...]) -> PlanResult:
    """The plan with some addresses' actions replaced (keys: the address, ``.``/``-`` -> ``_``)."""
    changes = []
    for c in plan.changes:
        key = c.address.replace(".", "_").replace("-", "_")
        changes.append(dataclasses.replace(c, actions=actions.get(key, c.actions)))
    return dataclasses.replace(plan, changes=tuple(changes))


def _reviewed(plan: PlanResult, tmp_path: Path) -> Path:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan_json.to_json(plan)), encoding="utf-8")
    return path


def test_the_same_plan_passes(first_plan: PlanResult, tmp_path: Path) -> None:
    reviewed = load_reviewed(_reviewed(first_plan, tmp_path), "inference-prod")
    assert reviewed.actions[POOL] == CREATE
    require_same(reviewed, first_plan)


def test_no_ops_on_either_side_do_not_count(first_plan: PlanResult, tmp_path: Path) -> None:
    reviewed = load_reviewed(_reviewed(first_plan, tmp_path), "inference-prod")
    extra = ResourceChange("k8s.namespace.extra", "kubernetes:core/v1:Namespace", "extra",
                           "cluster", NO_OP)
    preview = dataclasses.replace(first_plan, changes=(*first_plan.changes, extra))
    require_same(reviewed, preview)


@pytest.mark.parametrize(
    ("engine", "said"),
    [
        (UPDATE, "reviewed plan: create; engine preview: update"),
        (REPLACE, "reviewed plan: create; engine preview: replace (create then delete)"),
        (NO_OP, "reviewed plan: create; engine preview: no change"),
    ],
)
def test_each_kind_of_difference_is_named(
    first_plan: PlanResult, tmp_path: Path, engine: tuple[str, ...], said: str
) -> None:
    reviewed = load_reviewed(_reviewed(first_plan, tmp_path), "inference-prod")
    with pytest.raises(PlanMismatchError) as caught:
        require_same(reviewed, _with(first_plan, pool_infer_l4_node_group=engine))
    assert caught.value.differences == (f"{POOL}: {said}",)
    assert "in 1 resource;" in str(caught.value)


def test_the_order_of_a_replacement_is_an_action_too(
    first_plan: PlanResult, tmp_path: Path
) -> None:
    """Delete-before-replace takes the GPUs away before the new nodes exist; a reviewer who saw
    create-then-delete did not agree to that."""
    reviewed_plan = _with(first_plan, pool_infer_l4_node_group=REPLACE)
    reviewed = load_reviewed(_reviewed(reviewed_plan, tmp_path), "inference-prod")
    preview = _with(first_plan, pool_infer_l4_node_group=REPLACE_DELETE_FIRST)
    with pytest.raises(PlanMismatchError) as caught:
        require_same(reviewed, preview)
    assert caught.value.differences == (
        f"{POOL}: reviewed plan: replace (create then delete); engine preview: replace (delete "
        "then create)",)


def test_an_engine_change_the_plan_never_had_is_a_difference(
    first_plan: PlanResult, tmp_path: Path
) -> None:
    reviewed = load_reviewed(_reviewed(first_plan, tmp_path), "inference-prod")
    stray = ResourceChange("kubernetes:core/v1:ConfigMap::old", "kubernetes:core/v1:ConfigMap",
                           "old", "cluster", DELETE)
    preview = dataclasses.replace(first_plan, changes=(stray, *first_plan.changes))
    with pytest.raises(PlanMismatchError) as caught:
        require_same(reviewed, preview)
    assert caught.value.differences == (
        "kubernetes:core/v1:ConfigMap::old: reviewed plan: no change; engine preview: delete",)


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("{ not json", "not JSON (Expecting property name"),
        ('{"format_version": "1"}', "not a plan document"),
        ('{"format_version": "0", "stack": "s", "resource_changes": []}',
         "format_version '0', but this gpupool reads '1'"),
        ('{"format_version": "1", "stack": "s", "resource_changes": [{"address": 3}]}',
         "a resource change without an address and actions"),
        ('{"format_version": "1", "stack": "other", "resource_changes": []}',
         "is the plan of stack 'other', not 's'"),
        ('{"format_version": "1", "stack": "s", "resource_changes": []}',
         "the plan does not pin the graph it was made from"),
        ('{"format_version": "1", "stack": "s", "resource_changes": [], "pins": '
         '{"algorithm": "md5", "graph": "00", "resources": {}}}',
         "'pins.algorithm' is 'md5', not 'sha256'"),
        (json.dumps({"format_version": "1", "stack": "s", "resource_changes": [], "pins": {
            "algorithm": "sha256", "graph": "0" * 64,
            "resources": {"a": {"digest": "x", "parts": {}}}}}),
         "'pins.resources' entry 'a' is not a digest with its parts"),
        ('{"format_version": [1], "stack": "s", "resource_changes": []}',
         "format_version of type list"),
        ('{"format_version": "1", "stack": "s", "resource_changes": [{"address": "a", '
         '"actions": []}]}', "'a' has actions [], which no plan of gpupool writes"),
        ("[" * 200_000 + "]" * 200_000, "JSON nested too deeply to read"),
        ('{"format_version": "1", "stack": "s", "resource_changes": [], "x": ' + "9" * 5000 + "}",
         "not a plan of gpupool (Exceeds the limit"),
    ],
)
def test_what_is_not_a_plan_of_this_stack_is_an_input_error(
    tmp_path: Path, content: str, says: str
) -> None:
    path = tmp_path / "plan.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=r"^--expect ") as caught:
        load_reviewed(path, "s")
    assert says in str(caught.value)


def test_a_missing_file_or_a_directory_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        load_reviewed(tmp_path / "nope.json", "s")
    with pytest.raises(InputError, match="is a directory"):
        load_reviewed(tmp_path, "s")


def _changed(text: str) -> PlanResult:
    stack = load_stack_text(text)
    return make_plan(Base("empty", None, None), build(stack), stack)


def test_values_changed_after_the_review_are_refused(
    first_plan: PlanResult, tmp_path: Path
) -> None:
    """Issue 27 item 4: the same addresses and actions, other values. The reviewed plan pins
    each resource's inputs; a preview made from another graph differs where the inputs do."""
    reviewed = load_reviewed(_reviewed(first_plan, tmp_path), "inference-prod")
    text = (EXAMPLES / "aws-inference-l4.yaml").read_text(encoding="utf-8")
    assert "nodes: {min: 3, max: 8}" in text
    bigger = _changed(text.replace("nodes: {min: 3, max: 8}", "nodes: {min: 3, max: 600}"))
    assert [c.actions for c in bigger.changes] == [c.actions for c in first_plan.changes]
    with pytest.raises(PlanMismatchError) as caught:
        require_same(reviewed, bigger)
    said = caught.value.differences
    assert f"{POOL}: inputs scaling_config differ from the reviewed plan" in said
    assert all("differ from the reviewed plan" in line for line in said)


def test_a_plan_pins_what_the_engine_acts_on_not_what_explains_it(
    first_plan: PlanResult, tmp_path: Path
) -> None:
    """Facts (prices, GPU model) explain a change and are not applied: the same graph with
    other facts is the reviewed one; another type, name or dependency is not."""
    reviewed = load_reviewed(_reviewed(first_plan, tmp_path), "inference-prod")
    stack = load_stack("aws-inference-l4")
    graph = build(stack)
    pool = graph.get(POOL)
    assert pool is not None
    priced = dataclasses.replace(pool, facts={**pool.facts, "price_hourly": 99.0})
    moved = dataclasses.replace(pool, depends_on=(*pool.depends_on, "k8s.namespace.extra"))
    for resource, same in ((priced, True), (moved, False)):
        other = dataclasses.replace(graph, resources=tuple(
            resource if r.address == POOL else r for r in graph.resources))
        preview = dataclasses.replace(first_plan, desired=other)
        if same:
            require_same(reviewed, preview)
        else:
            with pytest.raises(PlanMismatchError) as caught:
                require_same(reviewed, preview)
            assert caught.value.differences == (
                f"{POOL}: its type, name, dependencies, provider or replace/ignore paths differ "
                "from the reviewed plan",)


def test_added_and_removed_resources_are_named(first_plan: PlanResult, tmp_path: Path) -> None:
    reviewed = load_reviewed(_reviewed(first_plan, tmp_path), "inference-prod")
    graph = build(load_stack("aws-inference-l4"))
    moved = tuple(dataclasses.replace(r, address="pool.moved.node_group") if r.address == POOL
                  else r for r in graph.resources)
    preview = dataclasses.replace(first_plan, desired=dataclasses.replace(graph, resources=moved))
    with pytest.raises(PlanMismatchError) as caught:
        require_same(reviewed, preview)
    assert caught.value.differences == (
        "pool.moved.node_group: not in the reviewed plan's graph; it would be applied",
        f"{POOL}: in the reviewed plan's graph, not in the file applied",
    )


def test_only_regular_files_are_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 27 item 4: a FIFO hung the reader and a link to /dev/zero ran it out of memory."""
    fifo = tmp_path / "plan.fifo"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="not a regular file"):
        load_reviewed(fifo, "s")
    zero = tmp_path / "zero.json"
    zero.symlink_to("/dev/zero")
    with pytest.raises(InputError, match="not a regular file"):
        load_reviewed(zero, "s")
    big = tmp_path / "big.json"
    big.write_text('{"stack": "s"}' + " " * 100, encoding="utf-8")
    monkeypatch.setattr(expect, "MAX_PLAN_BYTES", 64)
    with pytest.raises(InputError, match="larger than 0 MiB"):
        load_reviewed(big, "s")
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe{")
    with pytest.raises(InputError, match="not UTF-8 text"):
        load_reviewed(binary, "s")
