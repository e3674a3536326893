"""Cost per tenant: guarantees and ceilings priced from the catalog, remainders that reconcile.

The expected amounts are computed here from the catalog's JSON files and the fixture's numbers,
not through gpupool's cost code.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from gpupool import plan
from gpupool.assemble import build
from gpupool.views import plan_json
from tests.paths import EXAMPLES
from tests.plan.test_plan_fixtures import CASES, MONTH, catalog_rows, plan_case, plan_files
from tests.stacks import load_stack, load_stack_text

EXAMPLE_FILES = sorted(EXAMPLES.glob("*.yaml"))


def _doc(result: plan.PlanResult) -> dict[str, Any]:
    return plan_json.to_json(result)


def _tenant(doc: dict[str, Any], name: str) -> dict[str, Any]:
    (hit,) = [t for t in doc["cost"]["tenants"] if t["tenant"] == name]
    return hit


def _share(doc: dict[str, Any], tenant: str, pool: str) -> dict[str, Any]:
    (hit,) = [p for p in _tenant(doc, tenant)["pools"] if p["pool"] == pool]
    return hit


def test_guarantees_ceilings_and_delta_against_an_independent_calculation() -> None:
    """One GPU of infer costs g6.2xlarge's hour x 730; mixed's quota of 3 splits 8:4."""
    aws = catalog_rows("aws")
    l4 = aws["g6.2xlarge"]["price"]["on_demand_hourly"] * MONTH  # one GPU per node
    l40s = aws["g6e.4xlarge"]["price"]["on_demand_hourly"] * MONTH
    doc = _doc(plan_case("tenant-cost"))
    assert _share(doc, "serve", "infer")["guaranteedMonthly"] == pytest.approx(
        {"min": l4, "max": l4}, abs=0.01)
    # mixed: 3 GPUs over infer (8 at max) and train (4 at max): 2 and 1; train holds 0 at min
    infer, train = _share(doc, "mixed", "infer"), _share(doc, "mixed", "train")
    assert infer["guaranteedGpus"] == {"min": 2, "max": 2}
    assert train["guaranteedGpus"] == {"min": 0, "max": 1}
    assert infer["guaranteedMonthly"]["max"] == pytest.approx(2 * l4, abs=0.01)
    assert train["guaranteedMonthly"] == {"min": 0, "max": pytest.approx(l40s, abs=0.01)}
    # ceilings: serve's limit 4 reaches 4 of infer's GPUs; scratch has no limit: all of train
    assert _share(doc, "serve", "infer")["ceilingMonthly"]["max"] == pytest.approx(4 * l4, abs=0.01)
    assert _share(doc, "scratch", "train")["ceilingMonthly"] == {
        "min": 0, "max": pytest.approx(4 * l40s, abs=0.01)}
    # base: mixed's quota was 1 (2/3 on infer, 1/3 on train)
    mixed = _tenant(doc, "mixed")
    assert mixed["deltaMonthly"]["min"] == pytest.approx((2 - 2 / 3) * l4, abs=0.01)
    assert mixed["deltaMonthly"]["max"] == pytest.approx((2 - 2 / 3) * l4 + (1 - 1 / 3) * l40s,
                                                         abs=0.01)
    assert _tenant(doc, "serve")["deltaMonthly"] == {"min": 0, "max": 0}
    # the pool's remainder: 8 GPUs at max, 3 of them guaranteed
    (left,) = [u for u in doc["cost"]["unallocated"] if u["pool"] == "infer"]
    assert left["monthly"]["max"] == pytest.approx(5 * l4, abs=0.02)


@pytest.mark.parametrize("path", [*EXAMPLE_FILES, *sorted(CASES.glob("*/desired.yaml"))],
                         ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_tenants_and_remainder_add_up_to_each_pool_to_the_cent(path: Any) -> None:
    """Per pool and end: the tenants' guaranteed cents plus the remainder's are the pool's."""
    doc = _doc(plan_files(path, None))
    pools = {p["pool"]: p["monthly"] for p in doc["cost"]["pools"]
             if not p["existingNodes"]}  # existing nodes are not priced (test below)
    left = {u["pool"]: u["monthly"] for u in doc["cost"]["unallocated"]}
    for pool, total in pools.items():
        for end in ("min", "max"):
            shares = [s["guaranteedMonthly"][end] for t in doc["cost"]["tenants"]
                      for s in t["pools"] if s["pool"] == pool]
            if total[end] is None:
                assert left[pool][end] is None
                continue
            if any(v is None for v in shares):
                continue
            cents = round(sum(round(v * 100) for v in shares) + left[pool][end] * 100)
            assert cents == round(total[end] * 100), (pool, end)


def test_guarantees_above_what_a_pool_holds_at_nodes_min_are_scaled_alike() -> None:
    """Two tenants guaranteed 2 and 1 GPUs of a pool holding 2 at nodes.min share those 2."""
    stack = load_stack_text("""
apiVersion: gpupool.io/v1
kind: GpuPoolStack
metadata: {name: over}
provider:
  cloud: aws
  region: us-east-1
  cluster: ml
  settings: {subnetIds: [subnet-0a1b2c3d], nodeRoleArn: "arn:aws:iam::123456789012:role/gpu-nodes"}
cluster: {scheduler: kai}
pools:
  - {name: infer, instanceType: g6.2xlarge, workload: inference, nodes: {min: 2, max: 4}}
tenants:
  - {name: a, pools: [infer], priority: low, quota: {gpus: 2}}
  - {name: b, pools: [infer], priority: low, quota: {gpus: 1}}
""")
    result = plan.make_plan(plan.Base("empty", None, None), build(stack), stack)
    assert result.tenant_cost is not None
    shares = {t.tenant: t.shares[0] for t in result.tenant_cost.tenants}
    assert shares["a"].guaranteed_gpus == plan.MinMax(pytest.approx(4 / 3), 2.0)
    assert shares["b"].guaranteed_gpus == plan.MinMax(pytest.approx(2 / 3), 1.0)
    price = catalog_rows("aws")["g6.2xlarge"]["price"]["on_demand_hourly"]
    assert result.tenant_cost.unallocated_hourly["infer"].min == pytest.approx(0, abs=1e-9)
    assert result.tenant_cost.unallocated_hourly["infer"].max == pytest.approx(price, abs=1e-9)


def _onprem(declared: bool) -> tuple[dict[str, Any], plan.PlanResult]:
    """The on-prem example as YAML data and its plan, with or without its declared prices."""
    data = yaml.safe_load((EXAMPLES / "onprem-hami.yaml").read_text(encoding="utf-8"))
    if not declared:
        for pool in data["pools"]:
            pool.pop("price")
    stack = load_stack_text(yaml.safe_dump(data, sort_keys=False))
    return data, plan.make_plan(plan.Base("empty", None, None), build(stack), stack)


def test_existing_nodes_have_unknown_tenant_cost_never_zero() -> None:
    """On-prem pools without a declared price are not priced: their tenants' cost is unknown
    (null), not $0."""
    doc = _doc(_onprem(declared=False)[1])
    assert doc["cost"]["tenants"]
    for t in doc["cost"]["tenants"]:
        for s in t["pools"]:
            assert s["ceilingMonthly"] == {"min": None, "max": None}
            if s["guaranteedGpus"]["max"]:
                assert s["guaranteedMonthly"] == {"min": None, "max": None}
    assert all(u["monthly"] == {"min": None, "max": None} for u in doc["cost"]["unallocated"])


def test_existing_nodes_with_a_declared_price_price_their_tenants() -> None:
    """A declared chargeback rate prices existing nodes: a tenant's ceiling is its limit.gpus
    at the pool's rate per GPU-hour, and a pool's remainder is all its GPUs at that rate."""
    data, result = _onprem(declared=True)
    doc = _doc(result)
    pools = {p["name"]: p for p in data["pools"]}
    rate = {name: p["price"]["perGpuHour"] for name, p in pools.items()}
    gpus = {name: len(p["nodeNames"]) * p["gpu"]["count"] for name, p in pools.items()}
    for tenant in data["tenants"]:
        (pool,) = tenant["pools"]
        share = _share(doc, tenant["name"], pool)
        expected = tenant["limit"]["gpus"] * rate[pool] * MONTH
        assert share["ceilingMonthly"] == pytest.approx({"min": expected, "max": expected},
                                                        abs=0.01)  # fmt: skip
    for u in doc["cost"]["unallocated"]:  # no quotas: every GPU is unallocated
        whole = gpus[u["pool"]] * rate[u["pool"]] * MONTH
        assert u["monthly"] == pytest.approx({"min": whole, "max": whole}, abs=0.01)


def test_unit_prices_of_one_gpu_add_up_to_its_price() -> None:
    """MIG instances share a GPU's price by compute slices; time-slicing replicas equally."""
    stack = load_stack("aws-training-compact")
    result = plan.make_plan(plan.Base("empty", None, None), build(stack), stack)
    assert result.tenant_cost is not None
    for cap in result.capacity:
        per_gpu = result.tenant_cost.gpu_hourly[cap.pool]
        prices = dict(plan.slot_prices(cap, per_gpu))
        counts = {s.name: s.per_gpu for s in cap.slot_profiles}
        total = sum(prices[n].max * counts[n] for n in prices)  # type: ignore[operator]
        assert total == pytest.approx(per_gpu.max)
        if cap.mode == "mig":  # 1g : 2g : 3g in the ratio of their compute slices
            assert prices["2g.20gb"].max == pytest.approx(2 * prices["1g.10gb"].max)  # type: ignore[operator]
            assert prices["3g.40gb"].max == pytest.approx(3 * prices["1g.10gb"].max)  # type: ignore[operator]
    l4 = load_stack("aws-inference-l4")
    result = plan.make_plan(plan.Base("empty", None, None), build(l4), l4)
    assert result.tenant_cost is not None
    (infer,) = [c for c in result.capacity if c.pool == "infer-l4"]  # 4 time-slicing replicas
    ((_, price),) = plan.slot_prices(infer, result.tenant_cost.gpu_hourly["infer-l4"])
    g6 = catalog_rows("aws")["g6.2xlarge"]["price"]["on_demand_hourly"]
    assert price.max == pytest.approx(g6 / 4)
