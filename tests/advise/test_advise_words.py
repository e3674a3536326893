"""Advise's words (issue 35, item 6): what the report says of a pool agrees with itself, counts
read as English, and a floor idle every night is weighed against the morning's cold start."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from gpupool.advise.capacity import Spot
from gpupool.advise.coverage import Coverage
from gpupool.advise.evidence import Evidence, GpuUse, PoolUse
from gpupool.advise.floor import LowerFloor
from gpupool.advise.pods import PoolPods
from gpupool.advise.report import AdviseResult
from gpupool.advise.rule import Case
from gpupool.catalog import instance as catalog_instance
from gpupool.cli import run
from gpupool.simulate.autoscaler import SCALE_UP_SECONDS
from gpupool.spec.validate import validate_text
from gpupool.views import advise as view
from tests.advise.promserver import serving
from tests.advise.scenario import DAY, NIGHT_NODES, NIGHT_STACK, night_series, stack_head

END = float((int(time.time()) // 86400 - 1) * 86400)  # midnight yesterday


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> str:
    with serving(night_series(END), tmp_path_factory.mktemp("prom")) as url:
        yield url


def _advise(tmp_path: Path, url: str, *extra: str, capsys: pytest.CaptureFixture[str]) -> str:
    stack = tmp_path / "stack.yaml"
    stack.write_text(NIGHT_STACK)
    code = run(["advise", str(stack), "--prometheus", url, "--until", str(END), *extra])
    out = capsys.readouterr()
    assert code == 0, out.err
    return out.out


def test_a_pool_idle_every_night_gets_a_lower_floor_with_its_saving_and_wait(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = json.loads(_advise(tmp_path, server, "--since", "14d", "--format", "json",
                             capsys=capsys))
    [low] = [r for r in doc["recommendations"] if r["kind"] == "lower-floor"]
    ev = low["evidence"]
    # both floor nodes are idle the same night hours: the floor drops by both
    assert low["edit"] == {"path": "pools[0].nodes.min", "value": 0}
    assert ev["idle_nodes_median"] == len(NIGHT_NODES)
    # the night is 12 hours; the hourly series sees fewer idle ones (an hour that holds the
    # evening's last busy sample or the morning's first is busy), under half of the window's
    days = ev["window_hours"] / 24
    assert 10 * days <= ev["hours_with_idle_floor_nodes"] <= 12 * days
    # the saving: both nodes' price for the idle hours, a day
    price = catalog_instance("aws", "g6.xlarge").price.on_demand_hourly
    assert ev["saving_per_day"] == pytest.approx(
        2 * price * ev["hours_with_idle_floor_nodes"] / days, abs=0.01)
    # the wait: each morning both nodes come up cold, each keeping its four time-sliced slots'
    # pods waiting the provisioning time
    assert ev["cold_nodes_per_day"] == pytest.approx(2.0, abs=0.15)
    assert ev["pods_per_cold_node"] == 4
    assert ev["node_provisioning_seconds"] == SCALE_UP_SECONDS
    assert ev["expected_wait_pod_minutes_per_day"] == pytest.approx(
        ev["cold_nodes_per_day"] * 4 * SCALE_UP_SECONDS / 60, abs=0.1)
    assert ev["saving_per_day"] > ev["wait_cost_per_day"] > 0


def _pool_use(name: str, hours: list[tuple[int, int]], gpus: int) -> PoolUse:
    per_gpu = 2000
    devices = tuple(GpuUse(node="n", gpu=str(g), profile=None, memory_p99_mib=2048.0,
                           memory_max_mib=2048.0, samples=per_gpu, activity_p95=0.5,
                           activity_metric="DCGM_FI_PROF_GR_ENGINE_ACTIVE") for g in range(gpus))
    return PoolUse(name, devices, tuple(hours))


def _sliced_h100_stack() -> tuple:
    text = stack_head("advise-floor") + """\
  - name: h100
    instanceType: p5.48xlarge
    workload: inference
    nodes: {min: 1, max: 2}
    sharing: {mode: time-slicing, replicas: 4}
"""
    checked = validate_text(text, "stack.yaml")
    assert checked.stack is not None
    return checked.stack, checked.stack.pools[0]


def test_a_floor_idle_in_short_gaps_stays_and_says_why() -> None:
    # an 8-GPU node time-sliced four ways (32 slots) idle every other hour: each hour it comes
    # back, up to 32 pods wait 5 minutes for it (160 pod-minutes) to save one idle node-hour
    stack, _ = _sliced_h100_stack()
    hours = [(1, 1) if h % 2 else (1, 0) for h in range(14 * 24)]
    use = _pool_use("h100", hours, 8)
    ev = Evidence(window_seconds=14 * DAY, end=0.0, pools={"h100": use}, tenants={})
    prices = {"h100": 55.04 / 8}  # a GPU of the p5.48xlarge, an hour
    found = LowerFloor().judge(Case(stack, ev, prices, {}, 0))
    assert found.recommendations == ()
    [gap] = found.gaps
    # 168 idle hours, 167 of them followed by a busy one in the window: 167 cold starts of 32
    # pods in 14 days
    assert gap.startswith("pool h100: nodes.min 1 -> 0 not proposed: it would save 12.0 idle "
                          "node-hours a day, but the scale-ups after idle hours would keep "
                          f"about {167 * 32 / 14:.1f} pods a day waiting 5 min for a node "
                          f"({167 * 32 / 14 / 12:.1f} pod-hours a day")
    # the same node idle twelve hours in a row each night: one cold start a day, proposed
    night = [(1, 1) if h % 24 < 12 else (1, 0) for h in range(14 * 24)]
    use = _pool_use("h100", night, 8)
    ev = Evidence(window_seconds=14 * DAY, end=0.0, pools={"h100": use}, tenants={})
    found = LowerFloor().judge(Case(stack, ev, prices, {}, 0))
    [low] = found.recommendations
    assert low.value == 0 and found.gaps == ()
    assert low.evidence["expected_wait_pod_minutes_per_day"] == pytest.approx(
        32 * SCALE_UP_SECONDS / 60, rel=0.1)


def test_too_little_data_is_never_shown_at_high_confidence(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _advise(tmp_path, server, "--since", "6h", capsys=capsys)
    assert "pool infer-l4: too little data to judge" in text
    [line] = [line for line in text.splitlines() if line.startswith("  infer-l4: ")]
    assert line.endswith(": low confidence (too little data to judge)"), line
    assert "high confidence" not in text
    doc = json.loads(_advise(tmp_path, server, "--since", "6h", "--format", "json",
                             capsys=capsys))
    assert doc["coverage"]["infer-l4"]["confidence"] == "low"


def test_a_pool_with_no_gpu_seen_has_no_none_confidence() -> None:
    ev = Evidence(window_seconds=DAY, end=0.0, pools={}, tenants={})
    cover = Coverage(pool="a", gpus_seen=0, gpus_expected=8, instances_seen=0, samples=0,
                     hours_seen=0, window_hours=24.0)
    result = AdviseResult(stack="s", file="s.yaml", evidence=ev, currency="USD",
                          recommendations=(), dropped=(), gaps=(), written=None,
                          coverage={"a": cover})
    out = view.render(result, "text")
    assert "none confidence" not in out
    assert "  a: 0 of 8 GPUs, 0 samples over 0 of 24 h: no GPU seen, not judged\n" in out


@pytest.mark.parametrize(
    ("pods", "words"),
    [(None, "no pod that requests a GPU was seen on its nodes"),
     (PoolPods("h100", pods=1, owner_kinds={"Job": 1}), "1 pod that requested GPUs was seen"),
     (PoolPods("h100", pods=2, owner_kinds={"Job": 2}), "2 pods that requested GPUs were seen")],
)
def test_the_pods_spot_needs_are_counted_in_words(pods: PoolPods | None, words: str) -> None:
    stack, _ = _sliced_h100_stack()
    use = _pool_use("h100", [(1, 0)] * 48, 8)
    ev = Evidence(window_seconds=2 * DAY, end=0.0, pools={"h100": use}, tenants={},
                  pods={} if pods is None else {"h100": pods})
    found = Spot().judge(Case(stack, ev, {}, {}, 0))
    assert found.recommendations == ()
    [gap] = found.gaps
    assert gap.startswith(f"pool h100: {words}")
    assert "(s)" not in gap and "0 GPU pod" not in gap
