"""Advice that saves money, with amounts checked against the catalog's JSON files."""

from __future__ import annotations

import dataclasses

import pytest

from gpupool import catalog, plan
from gpupool.assemble import build
from gpupool.spec.checks import advice
from gpupool.spec.checks.gpus import run as gpu_checks
from gpupool.views import plan_json
from gpupool.views.plan_markdown import format_markdown
from gpupool.views.plan_text import format_text
from tests.plan.test_plan_fixtures import MONTH, catalog_rows
from tests.stacks import load_stack

FIXTURE = "advice-money"


def _advice(stack_name: str) -> dict[str, advice.Advice]:
    return {a.pool: a for a in advice.advice(load_stack(stack_name))}


def test_training_at_1_to_16_and_inference_above_2_are_advised_with_their_saving() -> None:
    """g4dn.16xlarge (1:16) for training -> g4dn.2xlarge; g6e.8xlarge (1:5.3) for inference."""
    aws = catalog_rows("aws")
    got = _advice(FIXTURE)
    train = got["train-t4"]
    assert train.code == "advice.host-memory-high" and "g4dn.2xlarge" in train.detail
    per_hour = (aws["g4dn.16xlarge"]["price"]["on_demand_hourly"]
                - aws["g4dn.2xlarge"]["price"]["on_demand_hourly"])
    assert train.monthly == pytest.approx((0, per_hour * 4 * MONTH))  # nodes 0..4
    serve = got["serve-l40s-big"]  # a spot pool: priced at spot
    spot = {n: aws[n]["price"]["spot_hourly"] for n in ("g6e.8xlarge", "g6e.2xlarge")}
    per_hour = spot["g6e.8xlarge"] - spot["g6e.2xlarge"]
    assert serve.code == "advice.host-memory-high" and "g6e.2xlarge" in serve.detail
    assert serve.monthly == pytest.approx((0, per_hour * 2 * MONTH))


def test_spot_saving_and_idle_floor() -> None:
    aws = catalog_rows("aws")
    got = _advice(FIXTURE)
    price = aws["g6e.2xlarge"]["price"]
    saving = price["on_demand_hourly"] - price["spot_hourly"]
    assert got["serve-l40s"].code == "advice.spot-saving"
    assert got["serve-l40s"].monthly == pytest.approx((saving * 1 * MONTH, saving * 3 * MONTH))
    floor = aws["g6e.4xlarge"]["price"]["spot_hourly"] * 2 * MONTH  # a spot pool's floor
    assert got["train-l40s"].code == "advice.idle-floor"
    assert got["train-l40s"].monthly == pytest.approx((floor, floor))


def test_g6_xlarge_inference_suggests_a_whole_l4_never_a_fractional_size() -> None:
    """g6.xlarge (16 GiB for an L4's 24 GiB) is low for inference: g6.2xlarge, not g6f.large."""
    stack = load_stack(FIXTURE)
    small = next(p for p in stack.pools if p.name == "small")
    pool = dataclasses.replace(small, workload="inference")
    (warned,) = [d for d in gpu_checks(dataclasses.replace(stack, pools=(pool,)))
                 if d.code == "gpu.memory-ratio"]
    assert "g6.2xlarge has the same 1 x L4" in warned.detail
    assert "g6f" not in warned.detail


@pytest.mark.parametrize("cloud", ["aws", "gcp", "azure"])
def test_better_instance_keeps_the_gpu_model_and_count_whole_and_in_band(cloud: str) -> None:
    """For every catalog type as a pool of every workload, any suggestion is a like-for-like."""
    stack = load_stack({"aws": "aws-inference-l4", "gcp": "gcp-inference-sharing",
                        "azure": "azure-kai-fair"}[cloud])
    template = stack.pools[0]
    for inst in catalog.instances(cloud):
        for workload, (low, high) in advice.BANDS.items():
            pool = dataclasses.replace(template, instance_type=inst.name, workload=workload)
            better = advice.better_instance(stack, pool)
            if better is None:
                continue
            assert (better.gpu, better.gpu_count) == (inst.gpu, inst.gpu_count)
            assert better.gpu_fraction == 1.0 and inst.gpu_fraction == 1.0
            assert low <= advice.host_ratio(better) <= high
            assert better.price.on_demand_hourly is not None


def test_nothing_is_advised_from_an_unknown_price() -> None:
    """A pool whose instance has no spot price gets no spot advice."""
    stack = load_stack(FIXTURE)
    serve = next(p for p in stack.pools if p.name == "serve-l40s")
    unknown = [i for i in catalog.instances("aws") if i.price.spot_hourly is None
               and i.price.on_demand_hourly is not None and i.gpu_fraction == 1.0]
    if not unknown:
        pytest.skip("every AWS instance type in the catalog has a spot price")
    pool = dataclasses.replace(serve, instance_type=unknown[0].name)
    got = advice.advice(dataclasses.replace(stack, pools=(pool,)))
    assert not [a for a in got if a.code == "advice.spot-saving"]


def test_the_plan_carries_the_advice_in_every_format() -> None:
    stack = load_stack(FIXTURE)
    result = plan.make_plan(plan.Base("empty", None, None), build(stack), stack)
    doc = plan_json.to_json(result)
    codes = sorted(a["code"] for a in doc["advice"])
    assert codes == sorted(a.code for a in advice.advice(stack))
    (floor,) = [a for a in doc["advice"] if a["code"] == "advice.idle-floor"]
    assert floor["pool"] == "train-l40s" and floor["monthly"]["min"] == floor["monthly"]["max"]
    text, markdown = format_text(result), format_markdown(result)
    for a in advice.advice(stack):
        assert f"{a.pool}: {a.summary}" in text
        assert f"{a.pool}: {a.summary}" in markdown


def test_a_mixed_pool_below_the_band_is_told_what_a_better_type_costs_more() -> None:
    aws = catalog_rows("aws")
    (low,) = [a for a in advice.advice(load_stack(FIXTURE)) if a.code == "advice.host-memory-low"]
    assert low.pool == "small" and "g6.2xlarge" in low.detail
    od = {n: aws[n]["price"]["on_demand_hourly"] for n in ("g6.2xlarge", "g6.xlarge")}
    more = od["g6.2xlarge"] - od["g6.xlarge"]
    assert low.monthly == pytest.approx((0, -more * 2 * MONTH))


def test_no_advice_from_a_price_in_another_currency(monkeypatch: pytest.MonkeyPatch) -> None:
    """Advice amounts are USD: the same catalog rows priced in CNY (as a refreshed Volcengine
    overlay writes them) advise nothing, since nothing converts CNY to USD."""
    assert _advice(FIXTURE)  # in USD the fixture is advised
    one, every = catalog.instance, catalog.instances

    def in_cny(entry: catalog.InstanceType) -> catalog.InstanceType:
        return dataclasses.replace(entry, price=dataclasses.replace(entry.price, currency="CNY"))

    monkeypatch.setattr(catalog, "instance", lambda c, n: (e := one(c, n)) and in_cny(e))
    monkeypatch.setattr(catalog, "instances", lambda *a, **k: tuple(map(in_cny, every(*a, **k))))
    assert _advice(FIXTURE) == {}
