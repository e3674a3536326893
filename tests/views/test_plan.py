"""How a plan reads: Terraform-like text, the documented JSON shape and the pull-request comment."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from gpupool import plan
from gpupool.assemble import build
from gpupool.graph import ResourceGraph
from gpupool.views import plan_json, plan_markdown, plan_text
from tests.facts.test_tenancy import MIXED
from tests.paths import EXAMPLES, FIXTURES
from tests.plan.test_plan import graph, node_pool, queue, sharing_config
from tests.stacks import load_stack, load_stack_text

EXAMPLE = EXAMPLES / "aws-inference-l4.yaml"
HEAD = (
    (FIXTURES / "plan" / "no-changes" / "base.yaml")
    .read_text(encoding="utf-8")
    .split("pools:")[0]
)


def _result(
    base_graph: ResourceGraph | None, desired_graph: ResourceGraph, kind: str = "recorded"
) -> plan.PlanResult:
    """A plan of hand-built graphs with the example stack's capacity."""
    stack = load_stack(EXAMPLE)
    base = plan.Base(kind, "x.json" if kind == "recorded" else None, base_graph)
    return plan.make_plan(base, desired_graph, stack)


def _changes_plan() -> plan.PlanResult:
    """One create, one update, one replace and one delete."""
    base = graph(
        node_pool(),
        node_pool("gone", hi=2),
        queue("search", 2, None),
        sharing_config({"infer": {"mode": "time-slicing", "replicas": 4}}),
    )
    desired = graph(node_pool(instance="g6e.xlarge", gpu="L40S"), node_pool("new", hi=3),
                    queue("search", 4, None),
                    sharing_config({"infer": {"mode": "time-slicing", "replicas": 4}}))  # fmt: skip
    return _result(base, desired)


# --------------------------------------------------------------------------------- text


def test_text_uses_terraform_symbols_and_summary_line() -> None:
    """+ ~ - +/- per resource, forced paths marked, reasons, and Terraform's Plan: line.

    An EKS node group is replaced create-first (Pulumi's default; the rendered program sets no
    deleteBeforeReplace on it), which Terraform writes +/- "create replacement and then destroy".
    """
    text = plan_text.format_text(_changes_plan())
    assert "  # pool.infer.node_group must be replaced" in text
    assert '+/- aws:eks/nodeGroup:NodeGroup "infer"' in text
    assert '      ~ instance_types.0: "g6.xlarge" -> "g6e.xlarge"  # forces replacement' in text
    assert "      # GPU memory 24 GiB -> 48 GiB: GPU memory cannot be resized in place" in text
    assert '  + aws:eks/nodeGroup:NodeGroup "new"' in text
    assert '  - aws:eks/nodeGroup:NodeGroup "gone"' in text
    assert "  ~ kubernetes:scheduling.run.ai/v2:Queue" in text
    assert "      # GPU quota 2 -> 4 GPUs" in text
    assert "Plan: 2 to add, 1 to change, 2 to destroy." in text
    legend = text.split("gpupool will perform")[0]
    assert all(f"{s} " in legend for s in ("  +", "  ~", "  -", "+/-"))
    assert "+/- create replacement and then destroy" in legend
    assert "-/+" not in legend


def test_text_no_changes() -> None:
    """An empty plan says No changes and still shows capacity and cost."""
    g = graph(node_pool())
    text = plan_text.format_text(_result(g, g))
    assert "No changes." in text
    assert "Plan:" not in text
    assert "Capacity:" in text and "Cost (USD):" in text


def test_text_names_the_base_and_the_price_date() -> None:
    """The header says which base was used; the cost says where prices come from and when."""
    text = plan_text.format_text(_result(None, graph(node_pool()), kind="empty"))
    assert "Base: empty (every resource is new)" in text
    assert "as of 2026-07-20" in text


def test_text_shows_unknown_prices_as_unknown() -> None:
    """A spot pool without a price reads unknown, and the note names it."""
    text = plan_text.format_text(_result(None, graph(node_pool(capacity="spot", price=None)),
                                         kind="empty"))  # fmt: skip
    assert "$0.00 to unknown" not in text  # min is 1 node, so both ends are unknown
    assert "unknown" in text.split("Cost (USD):")[1]
    assert "infer: g6.xlarge spot price" in text


def test_text_and_markdown_name_the_plan_currency() -> None:
    """Prices in CNY read as CNY amounts under a CNY heading, never as dollars."""
    priced = graph(node_pool(capacity="spot", hi=4, price=2.35, on_demand=None, currency="CNY"))
    result = _result(None, priced, kind="empty")
    text = plan_text.format_text(result)
    cost = text.split("Cost (CNY):")[1]
    assert "CNY 2.35 to CNY 9.40" in cost and "$" not in cost.split("Prices:")[0]
    markdown = plan_markdown.format_markdown(result)
    assert "#### Cost (CNY a month)" in markdown and "CNY 6,862" in markdown
    assert json.loads(plan_json.format_json(result))["cost"]["currency"] == "CNY"


def test_text_diffs_multi_line_inputs_by_line() -> None:
    """A rendered config file that changes shows only its changed lines."""
    before = graph(sharing_config({"a": {"mode": "time-slicing", "replicas": 2}}))
    config = before.resources[0]
    after_res = replace(config, inputs={"data": {"x": "a: 1\nb: 2\n"}})
    before_res = replace(config, inputs={"data": {"x": "a: 1\nb: 1\n"}})
    text = plan_text.format_text(_result(graph(before_res), graph(after_res)))
    assert "      ~ data.x: (text)" in text
    assert "          - b: 1" in text and "          + b: 2" in text


# --------------------------------------------------------------------------------- json


def test_json_has_exactly_the_spec_fields() -> None:
    """Every documented field (docs/commands.md) is present with its type; additions are allowed."""
    doc = json.loads(plan_json.format_json(_changes_plan()))
    assert doc["format_version"] == "1"
    assert doc["stack"] == "ml-prod"
    assert doc["base"]["kind"] == "recorded" and doc["base"]["ref"] == "x.json"
    for item in doc["resource_changes"]:
        assert {"address", "type", "actions", "replace_paths", "reasons"} <= set(item)
    replaced = next(i for i in doc["resource_changes"] if i["address"] == "pool.infer.node_group")
    assert replaced["actions"] == ["create", "delete"]
    assert replaced["replace_paths"] == [["instance_types"]]
    assert set(doc["summary"]) == {"add", "change", "destroy", "replace"}
    assert doc["summary"] == {"add": 2, "change": 1, "destroy": 2, "replace": 1}
    for row in doc["capacity"]:
        assert {"pool", "gpu", "gpus", "slotsPerGpu", "slotMemoryGiB", "qos"} <= set(row)
        assert set(row["gpus"]) == {"min", "max"}
    cost = doc["cost"]
    assert {"currency", "hourly", "monthly", "onDemandEquivalentHourly", "deltaMonthly"} <= set(
        cost
    )
    for key in ("hourly", "monthly", "onDemandEquivalentHourly", "deltaMonthly"):
        assert set(cost[key]) == {"min", "max"}


def test_json_lists_no_ops_with_terraform_vocabulary() -> None:
    """Unchanged resources appear with actions ["no-op"], as in Terraform's plan JSON."""
    g = graph(node_pool())
    doc = plan_json.to_json(_result(g, g))
    assert [i["actions"] for i in doc["resource_changes"]] == [["no-op"]]
    assert doc["summary"] == {"add": 0, "change": 0, "destroy": 0, "replace": 0}


# ----------------------------------------------------------------------------- markdown


def test_markdown_marker_first_then_summary_and_cost_before_details() -> None:
    """Hidden marker on line 1; counts, then cost, then capacity, then folded details."""
    md = plan_markdown.format_markdown(_changes_plan())
    assert md.splitlines()[0] == "<!-- gpupool-plan: ml-prod -->"
    order = [md.index(s) for s in ("**Plan: 2 to add", "#### Cost", "#### Capacity", "<details>")]
    assert order == sorted(order)
    assert "`pool.infer.node_group` must be replaced" in md  # replacements are not folded away
    assert re.search(r"^```diff$", md, re.M) and md.rstrip().endswith("</details>")
    assert "\n+/- aws:eks/nodeGroup:NodeGroup" in md  # symbols in column 1 for GitHub colours
    assert "Truncated" not in md


def test_markdown_code_fence_outlasts_backticks_in_values() -> None:
    """Backticks inside input values cannot close the diff block early."""
    before = node_pool()
    after = replace(before, inputs={**before.inputs, "labels": {"x": "```"}})
    md = plan_markdown.format_markdown(_result(graph(before), graph(after)))
    assert "````diff" in md


def _huge_stack(tmp_path: Path, pools: int) -> Path:
    """A stack with many pools, each with its own tenant."""
    lines = [HEAD, "pools:"]
    for i in range(pools):
        lines += [f"  - name: pool-{i:04d}", "    instanceType: g6.2xlarge",
                  "    workload: inference", "    nodes: {min: 1, max: 4}",
                  "    sharing: {mode: time-slicing, replicas: 4}",
                  f"    labels: {{team: team-{i:04d}, tier: online}}"]  # fmt: skip
    lines.append("tenants:")
    for i in range(pools):
        lines += [f"  - name: tenant-{i:04d}", f"    pools: [pool-{i:04d}]", "    quota: {gpus: 1}"]
    path = tmp_path / "huge.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("pools", [300, 1200])
def test_markdown_of_a_huge_stack_stays_under_the_limit(tmp_path: Path, pools: int) -> None:
    """A huge plan is cut below 65,000 characters, keeps summary and cost, says it was cut."""
    path = _huge_stack(tmp_path, pools)
    stack = load_stack(path)
    result = plan.make_plan(plan.Base("empty", None, None), build(stack), stack)
    md = plan_markdown.format_markdown(result)
    assert len(md) <= plan_markdown.MARKDOWN_LIMIT
    assert md.startswith("<!-- gpupool-plan: plan-test -->\n")
    assert f"**Plan: {result.summary.add} to add, 0 to change, 0 to destroy.**" in md
    assert "#### Cost" in md
    assert "**Truncated**" in md and "lines were left out" in md
    assert md.count("<details>") == md.count("</details>") == 1
    fences = re.findall(r"^`{3,}", md, re.M)
    pies = md.count("```mermaid")  # the cost-per-tenant pie, when there are tenants
    assert len(fences) == 2 + 2 * pies  # the diff block (and the pie) opened and closed


def test_text_lists_each_quota_line_in_its_own_units() -> None:
    # Kubernetes docs "Resource Quotas" (extended resources): requests.nvidia.com/gpu counts the
    # resource one for one, and a time-sliced GPU advertises nvidia.com/gpu once per replica
    # (NVIDIA k8s-device-plugin README, "Shared Access to GPUs"), so the plan states each line in
    # its resource's units and what that admits in GPUs of each pool (limit 8 over a 4-replica
    # pool and an exclusive 8 x H100 pool).
    stack = load_stack_text(MIXED % {"scheduler": "default", "priority": "normal"})
    result = plan.make_plan(plan.Base("empty", None, None), build(stack), stack)
    assert plan_text.quota_rows(result) == [
        ["team", "nvidia.com/gpu", "8", "8 GPUs on h100, 2 GPUs on shared-l4"]
    ]
    text = plan_text.format_text(result)
    assert "ResourceQuota per tenant (each line in its resource's own units):" in text


# ------------------------------------------------------------------------ declared prices


def _declared_plan(**prices: dict[str, object] | None) -> plan.PlanResult:
    """aws-inference-l4 with the given pools' ``price`` set (None: removed), planned from empty."""
    data = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    for pool in data["pools"]:
        if pool["name"] in prices:
            if prices[pool["name"]] is None:
                pool.pop("price", None)
            else:
                pool["price"] = prices[pool["name"]]
    stack = load_stack_text(yaml.safe_dump(data, sort_keys=False))
    return plan.make_plan(plan.Base("empty", None, None), build(stack), stack)


CONTRACT = {"perGpuHour": 0.5, "currency": "USD", "source": "contract 2026-04 | *EDP*"}


def test_text_says_a_declared_price_is_declared_and_names_its_source() -> None:
    """infer-l4 (g6.2xlarge, 1 L4, nodes 3..8) at a negotiated 0.50 a GPU-hour: its row is that
    price, the Prices: line keeps the catalog's date for the other pools and names the declared
    pool with its source, and advice on it says it compares list prices."""
    text = plan_text.format_text(_declared_plan(**{"infer-l4": CONTRACT}))
    cost = text.split("Cost (USD):")[1]
    row = next(line for line in cost.splitlines() if line.strip().startswith("infer-l4"))
    assert "$1.50 to $4.00" in row  # 3 to 8 nodes x 1 GPU x 0.50
    prices = next(line for line in cost.splitlines() if "Prices:" in line)
    assert "gpupool catalog list prices for us-east-1 as of" in prices
    assert ('declared in the stack file (pools[].price), not list prices: infer-l4 from '
            '"contract 2026-04 | *EDP*"') in prices
    advice = text.split("Advice (")[1]
    (line,) = [a for a in advice.splitlines() if a.strip().startswith("infer-l4:")]
    assert "at catalog list prices, not the pool's declared price" in line
    (other,) = [a for a in advice.splitlines() if a.strip().startswith("infer-l40s-mps:")]
    assert "declared" not in other


def test_json_and_markdown_carry_the_declared_price_and_its_source() -> None:
    """JSON: cost.pools[].declaredPrice with source and currency (null for catalog prices);
    markdown: the note names it, escaped."""
    result = _declared_plan(**{"infer-l4": CONTRACT})
    doc = json.loads(plan_json.format_json(result))
    pools = {p["pool"]: p for p in doc["cost"]["pools"]}
    assert pools["infer-l4"]["declaredPrice"] == {"source": CONTRACT["source"], "currency": "USD"}
    assert pools["infer-l4"]["hourly"] == {"min": 1.5, "max": 4.0}
    assert pools["infer-l40s-mps"]["declaredPrice"] is None
    md = plan_markdown.format_markdown(result)
    assert "infer-l4 from \"contract 2026-04 \\| \\*EDP\\*\"" in md


def test_existing_nodes_with_a_declared_price_are_priced_in_every_view() -> None:
    """The on-prem example declares its chargeback rates: no 'not priced' row, totals known, and
    the note no longer says gpupool does not price them."""
    stack = load_stack(EXAMPLES / "onprem-hami.yaml")
    result = plan.make_plan(plan.Base("empty", None, None), build(stack), stack)
    text = plan_text.format_text(result)
    assert "not priced" not in text and "does not provision or price" not in text
    rates = {p["name"]: p["price"]["perGpuHour"] * len(p["nodeNames"]) * p["gpu"]["count"]
             for p in yaml.safe_load((EXAMPLES / "onprem-hami.yaml").read_text("utf-8"))["pools"]}
    doc = json.loads(plan_json.format_json(result))
    total = sum(rates.values())
    assert doc["cost"]["hourly"] == pytest.approx({"min": total, "max": total})
    assert all(p["existingNodes"] and p["declaredPrice"] for p in doc["cost"]["pools"])
    assert "#### Cost (USD a month)" in plan_markdown.format_markdown(result)


def test_existing_nodes_without_a_price_point_at_the_field() -> None:
    """Without a declared price existing nodes are not priced, and the note says how to price
    them."""
    data = yaml.safe_load((EXAMPLES / "onprem-hami.yaml").read_text(encoding="utf-8"))
    for pool in data["pools"]:
        pool.pop("price")
    stack = load_stack_text(yaml.safe_dump(data, sort_keys=False))
    text = plan_text.format_text(plan.make_plan(plan.Base("empty", None, None), build(stack),
                                                stack))  # fmt: skip
    assert "dgx          existing nodes: not priced" in text
    assert ("dgx, interactive: existing nodes, which gpupool does not provision or price "
            "(pools[].price declares a price for them).") in text
    assert "Prices:" not in text


def test_a_declared_price_in_another_currency_is_named_never_added() -> None:
    """A pool declared in EUR beside USD-priced pools is unknown in a USD plan, named with it."""
    euro = {"perGpuHour": 0.45, "currency": "EUR", "source": "contract 2026-04"}
    result = _declared_plan(**{"infer-l4": euro})
    text = plan_text.format_text(result)
    cost = text.split("Cost (USD):")[1]
    assert "infer-l4: g6.2xlarge declared on-demand price (priced in EUR, not USD)" in cost
    total = next(line for line in cost.splitlines() if line.strip().startswith("total"))
    assert "unknown" in total and "EUR" not in total
    doc = json.loads(plan_json.format_json(result))
    assert doc["cost"]["currency"] == "USD" and doc["cost"]["hourly"]["max"] is None
