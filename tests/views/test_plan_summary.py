"""What a plan leads with, what ``plan --summary`` prints, and where its warnings go.

Issue 35: validation warnings never reached the pull-request comment or the JSON plan (they went
to the job's stderr only), the text plan put its counts and cost after 140-odd lines of changes,
and a price of another region than the stack's was said so only in a footnote. The stack here
runs in eu-west-1 on g6.2xlarge, which the catalog prices for us-east-1 and does not list in
eu-west-1: one real warning (``catalog.instance-not-in-region``) and one price from elsewhere.
Markdown is rendered with cmark-gfm, GitHub's own fork of cmark (github/cmark-gfm), as a comment
is.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpupool.cli import run
from gpupool.spec.validate import validate_file
from tests.plan.test_plan_fixtures import catalog_rows

Capture = pytest.CaptureFixture[str]

STACK = """\
apiVersion: gpupool.io/v1
kind: GpuPoolStack
metadata: {name: eu}
provider:
  cloud: aws
  region: eu-west-1
  cluster: ml
  settings:
    subnetIds: [subnet-0a1b2c3d4e5f60718]
    nodeRoleArn: "arn:aws:iam::123456789012:role/gpu"
pools:
  - name: l4
    instanceType: g6.2xlarge
    workload: inference
    nodes: {min: 1, max: 2}
tenants:
  - {name: team-a, pools: [l4], limit: {gpus: 1}}
"""
#: where the warning points: the instance type's value (line, column), counted from 1
AT = next((n, line.index("g6") + 1) for n, line in enumerate(STACK.splitlines(), 1)
          if "instanceType" in line)  # fmt: skip


@pytest.fixture
def stack_file(tmp_path: Path) -> Path:
    path = tmp_path / "eu.yaml"
    path.write_text(STACK, encoding="utf-8")
    return path


def _warnings(path: Path) -> list[dict[str, object]]:
    """The file's warnings as validate reports them (what the plan must carry too)."""
    found = validate_file(path, str(path)).diagnostics
    return [d.to_json() for d in found if d.severity.value == "warning"]


def _plan(capsys: Capture, *argv: str) -> str:
    assert run(["plan", *argv]) == 0
    return capsys.readouterr().out


def test_the_json_plan_carries_the_warnings_and_advice(stack_file: Path, capsys: Capture) -> None:
    """``diagnostics``: code, severity, summary and file:line:col, as validate's JSON has them."""
    doc = json.loads(_plan(capsys, str(stack_file), "--format", "json"))
    warnings = _warnings(stack_file)
    assert [w["code"] for w in warnings] == ["catalog.instance-not-in-region"]  # the reproducer
    found = [d for d in doc["diagnostics"] if d["severity"] == "warning"]
    assert found == warnings
    (w,) = found
    assert w["range"]["filename"] == str(stack_file) and w["range"]["start"]["line"] == AT[0]
    advice = [d["code"] for d in doc["diagnostics"] if d["severity"] == "info"]
    assert advice == [a["code"] for a in doc["advice"]] and advice  # the advice, as diagnostics
    assert all(d["severity"] != "error" for d in doc["diagnostics"])


def _html(markdown: str) -> str:
    cmarkgfm = pytest.importorskip("cmarkgfm")
    from cmarkgfm.cmark import Options

    return str(cmarkgfm.github_flavored_markdown_to_html(markdown,
                                                         options=Options.CMARK_OPT_UNSAFE))


@pytest.mark.cloud_sdks  # cmarkgfm is a dev-only dependency
def test_the_comment_shows_each_warning_before_the_capacity(
    stack_file: Path, capsys: Capture
) -> None:
    """A reviewer reads the warning, its code and where it is, right under the cost."""
    md = _plan(capsys, str(stack_file), "--format", "markdown")
    html = _html(md)
    assert "1 warning (below)" in html
    head, rest = html.split("<h4>Warnings (1)</h4>")
    assert "<h4>Cost (USD a month)</h4>" in head and "<h4>Capacity</h4>" in rest
    item = rest.split("</li>")[0]
    assert "g6.2xlarge is not listed in eu-west-1" in item
    assert "<code>catalog.instance-not-in-region</code>" in item
    assert f"<code>{stack_file}:{AT[0]}:{AT[1]}</code>" in item
    assert "Pick a listed region" in item  # its detail, small


def test_the_text_plan_leads_with_its_summary(stack_file: Path, capsys: Capture) -> None:
    """Header, then counts, cost a month and its change, and the warnings; then the changes."""
    text = _plan(capsys, str(stack_file))
    lines = text.splitlines()
    assert lines[0].startswith("gpupool plan: stack eu") and lines[1].startswith("Base: ")
    summary = text.split("\n\n")[1].splitlines()
    assert summary[0] == "Summary:"
    changes = [line for line in lines if line.startswith("Plan: ")]
    assert summary[1] == "  Changes: " + changes[0].removeprefix("Plan: ")
    od = catalog_rows("aws")["g6.2xlarge"]["price"]["on_demand_hourly"]
    low, high = f"${od * 730:,.0f}", f"${2 * od * 730:,.0f}"
    assert summary[2].startswith("  Cost a month (USD, at nodes.min to nodes.max): ")
    assert f"{low} to {high}*" in summary[2] and f"+{low} to +{high}*" in summary[2]
    at = f"{stack_file}:{AT[0]}:{AT[1]}"
    assert summary[3:5] == ["  Warnings: 1", f"    {at}: g6.2xlarge is not listed in eu-west-1 "
                            "[catalog.instance-not-in-region]"]  # fmt: skip
    assert text.index("Summary:") < text.index("Resource actions") < text.index("Capacity:")


def test_plan_summary_prints_only_the_summary(stack_file: Path, capsys: Capture) -> None:
    """--summary: the full plan's first lines, and nothing after them."""
    full = _plan(capsys, str(stack_file))
    short = _plan(capsys, str(stack_file), "--summary")
    assert full.startswith(short.rstrip("\n") + "\n\n")
    assert "Resource actions" not in short and "Capacity:" not in short
    assert "Summary:" in short and "Warnings: 1" in short


@pytest.mark.cloud_sdks  # cmarkgfm is a dev-only dependency
def test_plan_summary_in_markdown_is_the_comments_head(stack_file: Path, capsys: Capture) -> None:
    """--summary --format markdown: the marker, counts, cost and warnings; no tables below."""
    full = _plan(capsys, str(stack_file), "--format", "markdown")
    short = _plan(capsys, str(stack_file), "--format", "markdown", "--summary")
    assert short.startswith(f"<!-- gpupool-plan: {stack_file} -->\n")
    assert full.startswith(short)
    html = _html(short)
    assert "<h4>Warnings (1)</h4>" in html and "<h4>Capacity</h4>" not in html
    assert "<details>" not in html


def test_plan_summary_in_json_is_the_documents_leading_keys(
    stack_file: Path, capsys: Capture
) -> None:
    """--summary --format json: the same values the whole document has under the same keys."""
    full = json.loads(_plan(capsys, str(stack_file), "--format", "json"))
    short = json.loads(_plan(capsys, str(stack_file), "--format", "json", "--summary"))
    assert set(short) == {"format_version", "stack", "base", "summary", "cost", "diagnostics"}
    for key in ("format_version", "stack", "base", "summary", "diagnostics"):
        assert short[key] == full[key]
    for key, value in short["cost"].items():
        assert value == full["cost"][key], key


def test_a_price_of_another_region_is_marked_in_the_price_columns(
    stack_file: Path, capsys: Capture
) -> None:
    """The unit price and the pool's cost carry the mark; the legend names both regions."""
    text = _plan(capsys, str(stack_file))
    capacity = text.split("Capacity:\n")[1].split("\n\n")[0].splitlines()
    od = catalog_rows("aws")["g6.2xlarge"]["price"]["on_demand_hourly"]
    assert f"  ${od:.2f}/GPU*  " in capacity[1]  # price/unit-hour
    cost = text.split("Cost (USD):\n")[1].split("\n\n")[0].splitlines()
    (pool,) = [line for line in cost if line.startswith("  l4 ")]
    assert pool.count("*") == 4  # per hour, per month, all on-demand, change
    legend = [line for line in cost if line.startswith("  * ")]
    assert legend == ["  * priced at us-east-1 list prices: the stack runs in eu-west-1, where "
                      "they may differ (`gpupool catalog refresh --cloud aws --region eu-west-1` "
                      "prices them there)."]  # fmt: skip
    doc = json.loads(_plan(capsys, str(stack_file), "--format", "json"))
    assert doc["cost"]["pools"][0]["priceRegion"] == "us-east-1"


def test_a_price_of_the_stacks_own_region_is_not_marked(tmp_path: Path, capsys: Capture) -> None:
    """In the catalog's own region no amount is marked and no legend is printed."""
    path = tmp_path / "us.yaml"
    path.write_text(STACK.replace("eu-west-1", "us-east-1"), encoding="utf-8")
    text = _plan(capsys, str(path))
    assert "*" not in text.split("Capacity:")[1].split("Advice")[0]
    assert "priced at" not in text
