"""How a simulation reads: tables with changes, markdown kept literal, charts, JSON keys."""

from __future__ import annotations

import json
import re

from gpupool.simulate.engine import simulate
from gpupool.simulate.jobs import Workload
from gpupool.simulate.report import report
from gpupool.views.simulate import CHART_POINTS, format_json, format_markdown, format_text
from tests.simulate.simstacks import job, lab, workload

ONE_NODE = "  - {name: a, nodeNames: [n1], gpu: {model: L4, count: 4}}\n"


def _reports(source: str = "w.csv"):  # type: ignore[no-untyped-def]
    wl = workload(*(job(f"j{i}", i * 60, 600, gpus=2) for i in range(6)))
    wl = Workload(source, wl.jobs)
    small = lab(ONE_NODE)
    big = lab("  - {name: a, nodeNames: [n1, n2], gpu: {model: L4, count: 4}}\n")
    return report(simulate(small, wl)), report(simulate(big, wl))


def test_text_shows_each_figure_with_its_change() -> None:
    head, base = _reports()
    text = format_text(head, base)
    row = next(line for line in text.splitlines() if line.startswith("-  "))
    # one node instead of two: the same pods, longer waits
    assert "6 (=)" in row and "(+" in row
    pool = next(line for line in text.splitlines() if line.startswith("a "))
    assert "(-1)" in pool  # peak nodes 1, base 2


def test_markdown_keeps_the_workload_path_literal() -> None:
    head, base = _reports("w_*evil*`|.csv")
    md = format_markdown(head, base)
    assert "w\\_\\*evil\\*\\`\\|.csv" in md


def test_charts_have_one_line_per_run_and_the_documented_grammar() -> None:
    """Mermaid's xychart grammar (mermaid docs/syntax/xyChart.md): ``xychart-beta``, a quoted
    ``title``, ``x-axis "title" [categories]``, ``y-axis "title"``, ``line [numbers]``.
    @mermaid-js/parser (tests/js) does not cover xychart, so the shape is checked here."""
    head, base = _reports()
    md = format_markdown(head, base)
    charts = re.findall(r"^```mermaid\n(.*?)^```$", md, re.M | re.S)
    assert len(charts) == 2
    for chart in charts:
        lines = chart.splitlines()
        assert lines[0] == "xychart-beta"
        assert re.fullmatch(r'    title "[^"]+"', lines[1])
        assert re.fullmatch(r'    x-axis "hours" \[[0-9., ]+\]', lines[2])
        assert re.fullmatch(r'    y-axis "[a-zA-Z]+"', lines[3])
        series = [ln for ln in lines[4:] if ln.startswith("    line [")]
        assert len(series) == 2  # base, then head
        for s in series:
            assert len(s[len("    line ["):-1].split(", ")) == CHART_POINTS


def test_json_keys() -> None:
    head, base = _reports()
    doc = json.loads(format_json(head, base))
    assert {"format_version", "stack", "seed", "pods", "pools", "tenants", "base"} <= set(doc)
    assert "base" not in doc["base"]
    assert doc["pools"][0]["peak_nodes"] == 1 and doc["base"]["pools"][0]["peak_nodes"] == 2
