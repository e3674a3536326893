"""Golden programs: the cloud part of two examples, byte for byte.

Only the cloud module's resources are rendered (``gpupool.providers.build``), so the in-cluster
configuration can evolve without touching these files. A difference means the program text
changed: check it reads well, then refresh with ``GPUPOOL_UPDATE_GOLDEN=1 pytest
tests/render/test_render_golden.py``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gpupool import providers, render
from gpupool.graph import ResourceGraph, order
from tests.paths import GOLDEN
from tests.stacks import load_stack


@pytest.mark.parametrize("name", ["aws-training-compact", "volcengine-a10"])
def test_cloud_program_matches_golden(name: str, tmp_path: Path) -> None:
    stack = load_stack(name)
    cloud = providers.build(stack)
    graph = ResourceGraph(stack.name, stack.provider.cloud, order(list(cloud.resources)))
    render.render(stack, graph, tmp_path)
    got = (tmp_path / "__main__.py").read_text(encoding="utf-8")
    golden = GOLDEN / "render" / f"{name}.py.txt"
    if os.environ.get("GPUPOOL_UPDATE_GOLDEN") == "1":
        golden.write_text(got, encoding="utf-8")
    assert got == golden.read_text(encoding="utf-8")
