"""A unit's price (per GPU, per slot) whatever a pool's node count, and how its range reads.

Issue 35, item 1: with ``nodes.min: 0`` (what ``gpupool init`` writes) the price per unit was
unknown at nodes.min although the catalog knows the instance's price. The expected prices are
read from the catalog's JSON files here, not through gpupool's cost code.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from gpupool import plan
from gpupool.assemble import build
from gpupool.cli import run
from gpupool.views import plan_json, plan_text
from tests.plan.test_plan import graph, node_pool
from tests.plan.test_plan_fixtures import CASES, catalog_rows
from tests.stacks import load_stack, load_stack_text

HEAD = (
    "apiVersion: gpupool.io/v1\nkind: GpuPoolStack\nmetadata: {name: zero}\n"
    "provider: {cloud: aws, region: us-east-1, cluster: ml, settings: {subnetIds: "
    '[subnet-0a1b2c3d4e5f60718], nodeRoleArn: "arn:aws:iam::123456789012:role/gpu"}}\n'
    "pools:\n"
)


def _plan(pools: str) -> plan.PlanResult:
    stack = load_stack_text(HEAD + pools)
    return plan.make_plan(plan.Base("empty", None, None), build(stack), stack)


def _unit_prices(result: plan.PlanResult, pool: str) -> list[dict[str, object]]:
    (cap,) = [c for c in plan_json.to_json(result)["capacity"] if c["pool"] == pool]
    return list(cap["unitPrices"])


def test_a_pool_that_scales_from_zero_keeps_its_price_per_gpu() -> None:
    """nodes.min 0: the unit price at both ends is the instance's price over its GPUs."""
    result = _plan("  - {name: l4, instanceType: g6.12xlarge, workload: inference,"
                   " nodes: {min: 0, max: 3}}\n")  # fmt: skip
    row = catalog_rows("aws")["g6.12xlarge"]
    per_gpu = row["price"]["on_demand_hourly"] / row["gpu_count"]
    ((price,),) = [[u["hourly"] for u in _unit_prices(result, "l4")]]
    assert price == pytest.approx({"min": per_gpu, "max": per_gpu}, abs=1e-4)
    capacity = plan_text.format_text(result).split("Capacity:")[1]
    assert f"${per_gpu:.2f}/GPU" in capacity and "  ?  " not in capacity


def test_a_spot_pool_from_zero_is_priced_at_spot_and_a_slot_shares_it() -> None:
    """Spot from zero (no on-demand base): one of 4 time-slicing slots is a quarter of spot."""
    result = _plan("  - {name: s, instanceType: g6.2xlarge, workload: inference,"
                   " nodes: {min: 0, max: 4}, capacity: {type: spot, fallbackToOnDemand: true},"
                   " interruption: {drainSeconds: 90, checkpoint: none},"
                   " sharing: {mode: time-slicing, replicas: 4}}\n")  # fmt: skip
    spot = catalog_rows("aws")["g6.2xlarge"]["price"]["spot_hourly"]
    ((price,),) = [[u["hourly"] for u in _unit_prices(result, "s")]]
    assert price["min"] == pytest.approx(spot / 4, abs=1e-4)


def test_a_mixed_spot_node_pool_from_zero_buys_its_on_demand_base_first() -> None:
    """A VKE-style spot node pool with an on-demand base: its first node is on-demand."""
    base_pool = node_pool(capacity="spot", lo=0, hi=4, price=0.3, on_demand=0.8)
    mixed = graph(replace(base_pool, facts={**base_pool.facts, "on_demand_base": 1}))
    report = plan.tenant_costs(graph(), mixed)
    assert report.gpu_hourly["infer"].min == pytest.approx(0.8)


def test_existing_nodes_without_a_price_stay_unknown_at_every_count() -> None:
    """Nothing to price (no catalog price, none declared): still unknown, never invented."""
    bare = node_pool(instance=None, lo=0, hi=2, price=None, on_demand=None)
    assert plan.tenant_costs(graph(), graph(bare)).gpu_hourly["infer"] == plan.MinMax(None, None)


@pytest.mark.parametrize("cloud", ["aws", "gcp", "azure"])
def test_the_plan_of_a_fresh_init_stack_prices_its_unit(
    cloud: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """gpupool init writes nodes.min 0; its first plan names a price per GPU, not ``?``."""
    stack_file = tmp_path / "stack.yaml"
    assert run(["init", str(stack_file), "--cloud", cloud]) == 0
    capsys.readouterr()
    assert run(["plan", str(stack_file), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    stack = load_stack(stack_file)
    (pool,) = stack.pools
    assert pool.nodes.min == 0
    row = catalog_rows(cloud)[str(pool.instance_type)]
    per_gpu = row["price"]["on_demand_hourly"] / row["gpu_count"]
    ((price,),) = [[u["hourly"] for u in doc["capacity"][0]["unitPrices"]]]
    assert price == pytest.approx({"min": per_gpu, "max": per_gpu}, abs=1e-4)
    assert run(["plan", str(stack_file)]) == 0
    assert f"${per_gpu:.2f}/GPU" in capsys.readouterr().out


def test_a_unit_price_range_reads_from_the_least_to_the_most() -> None:
    """A split spot pool's slot costs more at nodes.min (its on-demand base) than at max."""
    stack = load_stack(CASES / "cost-spot-split" / "desired.yaml")
    result = plan.make_plan(plan.Base("empty", None, None), build(stack), stack)
    ((hourly,),) = [[u["hourly"] for u in _unit_prices(result, "serve")]]
    assert hourly["min"] > hourly["max"]  # the case this test is about
    capacity = plan_text.format_text(result).split("Capacity:")[1].split("\n\n")[0]
    (row,) = [line for line in capacity.splitlines() if line.startswith("  serve ")]
    found = re.search(r"\$(\d+\.\d\d) to \$(\d+\.\d\d)/slot", row)
    assert found is not None, row
    low, high = (float(v) for v in found.groups())
    assert (low, high) == (round(hourly["max"], 2), round(hourly["min"], 2))


def test_advise_prices_a_gpu_of_a_pool_that_scales_from_zero() -> None:
    """advise prices its savings by a GPU at nodes.min: known for a pool that starts at 0."""
    from gpupool.usecases.advise import _prices

    stack = load_stack_text(HEAD + "  - {name: l4, instanceType: g6.2xlarge, workload: inference,"
                                   " nodes: {min: 0, max: 2}}\n")  # fmt: skip
    hourly, currency = _prices(stack)
    row = catalog_rows("aws")["g6.2xlarge"]
    assert hourly["l4"] == pytest.approx(row["price"]["on_demand_hourly"] / row["gpu_count"])
    assert currency == "USD"
