"""A large rendered program is cut into functions of ``render.PART_SIZE`` resources.

Pulumi's Python SDK calls ``traceback.extract_stack()`` for every resource it registers
(``pulumi/runtime/resource.py`` ``_get_stack_trace``, the resource's source position), and on
CPython 3.11 a frame's position is found by scanning its code object from the start, so one
module-level code object of 20,000 resources made registration quadratic. These tests hold the
cut program to the flat one: same registrations, same variables, small programs unchanged.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
import yaml

from gpupool import assemble, render
from gpupool.model import Stack
from tests.paths import ROOT
from tests.pulumi_mocks import run_programs
from tests.stacks import load_stack_text

pytestmark = pytest.mark.cloud_sdks  # runs the programs under Pulumi's mocks


def _bench_stack(pools: int) -> Stack:
    spec = importlib.util.spec_from_file_location("bench_generate", ROOT / "bench" / "generate.py")
    assert spec is not None and spec.loader is not None
    module: ModuleType = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return load_stack_text(yaml.safe_dump(module.stack(pools, 4), sort_keys=False))


def test_a_large_program_registers_the_same_as_the_flat_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stack = _bench_stack(12)
    graph = assemble.build(stack)
    assert len(graph.resources) > render.PART_SIZE  # the cut is exercised
    render.render(stack, graph, tmp_path / "parts")
    monkeypatch.setattr(render, "PART_SIZE", 10**9)
    render.render(stack, graph, tmp_path / "flat")
    parts_text = (tmp_path / "parts" / "__main__.py").read_text("utf-8")
    flat_text = (tmp_path / "flat" / "__main__.py").read_text("utf-8")
    functions = -(-len(graph.resources) // 200)
    assert parts_text.count("\ndef _resources_") == functions
    assert "def _resources_" not in flat_text
    cut, flat = run_programs([tmp_path / "parts", tmp_path / "flat"])
    assert cut.error is None and flat.error is None, cut.error or flat.error
    assert len(cut.resources) == len(graph.resources)

    def key(r: dict) -> str:
        return repr(sorted(r.items()))

    assert sorted(map(key, cut.resources)) == sorted(map(key, flat.resources))


def test_a_small_program_stays_flat() -> None:
    blocks = [{"var": f"v{i}", "lookups": []} for i in range(render.PART_SIZE)]
    (part,) = render._parts(blocks)
    assert part["function"] is None and part["pad"] == ""
    cut = render._parts([*blocks, {"var": "extra", "lookups": [("lookup_x", "f()")]}])
    assert [p["function"] for p in cut] == ["_resources_0000", "_resources_0001"]
    assert cut[1]["globals"] == ["global lookup_x, extra"]

