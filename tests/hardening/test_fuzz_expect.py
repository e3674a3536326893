"""Fuzzing the reader of ``up --expect PLAN.json`` and its comparison with a preview.

A reviewed plan is input like a stack file: whoever can change the artifact between the review
and ``up`` can write anything into it. Real ``plan --format json`` documents of the examples are
mutated (any value replaced by a hostile one: NaN, infinities, 1e308, a 5,000-digit integer,
another JSON type, a string with control characters, a document nested 100,000 deep; keys
dropped; digests edited; the bytes cut short or made invalid UTF-8), written to a file and read.
Reading must return a reviewed plan or raise ``InputError``; holding what it returned against
the example's own preview must pass or raise ``PlanMismatchError``; an edited digest must never
pass. Anything else is a failure.

The budget is ``GPUPOOL_FUZZ_EXAMPLES`` cases (default 400, as in ``test_fuzz.py``), no deadline.
"""

from __future__ import annotations

import copy
import json
import os
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpupool import assemble, plan
from gpupool.errors import InputError
from gpupool.plan import Base, PlanResult
from gpupool.usecases.expect import PlanMismatchError, load_reviewed, require_same
from gpupool.views import plan_json
from tests import paths
from tests.hardening.test_fuzz import leaves, put
from tests.stacks import load_stack

EXAMPLES = sorted(paths.EXAMPLES.glob("*.yaml"))[:4]
FUZZ_EXAMPLES = int(os.environ.get("GPUPOOL_FUZZ_EXAMPLES", "400"))
HOSTILE: tuple[Any, ...] = (
    float("nan"), float("inf"), -float("inf"), 1e308, None, True, 0, -1, "", [], {},
    "\x1b[31m::error::x\u202e", "a" * 10_000, {"$ref": ["a", "b"]},
)


@cache
def example(path: Path) -> tuple[str, PlanResult, str]:
    """The example's stack name, its plan against an empty base and that plan's document."""
    stack = load_stack(path)
    result = plan.make_plan(Base("empty", None, None), assemble.build(stack), stack)
    return stack.name, result, json.dumps(plan_json.to_json(result))


def mutate(doc: dict[str, Any], data: st.DataObject) -> str:
    """Return the document's text after one hostile change."""
    kind = data.draw(st.sampled_from(("value", "drop", "digest", "text")))
    spots = [(p, v) for p, v in leaves(doc) if p]
    path, _ = data.draw(st.sampled_from(spots))
    if kind == "value":
        put(doc, path, data.draw(st.sampled_from(HOSTILE)))
    elif kind == "drop":
        parent = doc
        for part in path[:-1]:
            parent = parent[part]
        del parent[path[-1]]
    elif kind == "digest":
        pins = doc["pins"]["resources"]
        address = data.draw(st.sampled_from(sorted(pins)))
        old = pins[address]["digest"]
        pins[address]["digest"] = ("0" if old[0] != "0" else "1") + old[1:]
    text = json.dumps(doc)  # NaN and Infinity as Python writes them: not JSON, read anyway
    if kind == "text":
        cut = data.draw(st.integers(0, len(text)))
        text = data.draw(st.sampled_from((
            text[:cut], text[:cut] + "\udcff" + text[cut:], "[" * 100_000 + "]" * 100_000,
            '{"a": ' + "9" * 5000 + "}",
        )))
    return text


@settings(max_examples=FUZZ_EXAMPLES, deadline=None, database=None, print_blob=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.sampled_from(EXAMPLES), st.data())
def _fuzz(path: Path, data: st.DataObject) -> None:
    name, preview, text = example(path)
    doc = json.loads(text)
    hostile = mutate(copy.deepcopy(doc), data)
    with tempfile.TemporaryDirectory() as tmp:
        file = Path(tmp) / "plan.json"
        file.write_bytes(hostile.encode("utf-8", "surrogateescape"))
        try:
            reviewed = load_reviewed(file, name)
        except InputError:
            return
    try:
        require_same(reviewed, preview)
    except PlanMismatchError:
        return
    # accepted: every resource digest it read is the preview's own (parts only name differences)
    assert preview.pins is not None
    assert {a: p.digest for a, p in reviewed.pins.resources.items()} == {
        a: p.digest for a, p in preview.pins.resources.items()}


@pytest.mark.slow
def test_hostile_reviewed_plans_are_input_errors_or_mismatches() -> None:
    _fuzz()


def test_the_examples_own_plans_are_accepted() -> None:
    """The fuzz baseline: each example's plan document is its preview's reviewed plan."""
    for path in EXAMPLES:
        name, preview, text = example(path)
        with tempfile.TemporaryDirectory() as tmp:
            file = Path(tmp) / "plan.json"
            file.write_text(text, encoding="utf-8")
            require_same(load_reviewed(file, name), preview)
