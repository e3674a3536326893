"""The plan comment's pie of cost by tenant, read by Mermaid's own parser.

GitHub renders ```mermaid blocks in comments with Mermaid; ``tests/js/parse_mermaid.mjs`` runs
the npm package ``@mermaid-js/parser`` (pinned in ``tests/js/package.json``, installed by
``.ci/run``) on every pie the examples' plans emit, and the slices it reads must add up, to the
cent, to what the pools cost at the end the pie shows.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from gpupool import plan
from gpupool.assemble import build
from gpupool.views.plan_json import to_json
from gpupool.views.plan_markdown import format_markdown, pie_slices
from tests.paths import EXAMPLES, TESTS
from tests.stacks import load_stack

JS = TESTS / "js"
PIE = re.compile(r"^```mermaid\n(.*?)^```$", re.M | re.S)


def _parser() -> list[str]:
    node = shutil.which("node")
    if node is None or not (JS / "node_modules" / "@mermaid-js" / "parser").is_dir():
        message = "Mermaid's parser is not installed (npm ci --prefix tests/js)"
        if os.environ.get("CI"):
            pytest.fail(message + "; .ci/run installs it")
        pytest.skip(message)
    return [node, str(JS / "parse_mermaid.mjs")]


def parse(diagrams: list[tuple[str, str]]) -> list[dict]:
    """Parse ``(type, text)`` diagrams with @mermaid-js/parser."""
    done = subprocess.run(_parser(), input=json.dumps(diagrams), capture_output=True, text=True,
                          check=True, timeout=120)
    return json.loads(done.stdout)


def _plan(path: Path) -> plan.PlanResult:
    stack = load_stack(path)
    return plan.make_plan(plan.Base("empty", None, None), build(stack), stack)


def test_every_example_pie_parses_and_adds_up_to_the_pools() -> None:
    results = {p.stem: _plan(p) for p in sorted(EXAMPLES.glob("*.yaml"))}
    pies = {name: PIE.findall(format_markdown(r)) for name, r in results.items()}
    drawn = {name: found[0] for name, found in pies.items() if found}
    assert drawn, "no example draws a pie"
    parsed = dict(zip(drawn, parse([("pie", text) for text in drawn.values()]), strict=True))
    for name, got in parsed.items():
        assert got["ok"], (name, got)
        end, slices = pie_slices(results[name])
        assert got["sections"] == [[label, value] for label, value in slices]
        pools = to_json(results[name])["cost"]["pools"]
        total = sum(p["monthly"][end.removeprefix("nodes.")] for p in pools)
        cents = sum(round(v * 100) for _, v in got["sections"])
        assert cents == round(total * 100), name
        assert got["title"] == f"Monthly cost by tenant at {end} (USD)"
    # every example with tenants and known prices at some end draws one
    for name, result in results.items():
        if pie_slices(result)[1]:
            assert name in drawn


def test_the_parser_rejects_a_broken_pie() -> None:
    """The harness can fail: a slice without a number is a parse error."""
    (got,) = parse([("pie", 'pie title x\n    "a" : many\n')])
    assert not got["ok"]
