"""``gpupool advise --demo`` (issue 35, item 7): advise's demo server answers as Prometheus does,
and the command advises the bundled stack offline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpupool.advise.demo import scenario, server
from gpupool.advise.demo.promql import Series, labels_of
from gpupool.advise.prometheus import Prometheus, PrometheusError
from gpupool.cli import run
from gpupool.spec.validate import validate_text
from gpupool.usecases import advise
from gpupool.views import advise as view
from tests.advise.promserver import Family, serving

ROOT = Path(__file__).resolve().parents[2]


def _families() -> list[Family]:
    """The demo's series as OpenMetrics families for promtool (a counter without ``_total``)."""
    families: dict[str, Family] = {}
    for s in scenario.series():
        labels = dict(s.labels)
        name = labels.pop("__name__")
        counter = name.endswith("_total")
        key = name.removesuffix("_total") if counter else name
        family = families.setdefault(key, Family(key, "counter" if counter else "gauge"))
        family.add(labels, zip(s.times, s.values, strict=True))
    return list(families.values())


def _advise_json(tmp_path: Path, url: str) -> dict:
    stack_file = tmp_path / "advise-demo.yaml"
    stack_file.write_text(scenario.STACK)
    stack = validate_text(scenario.STACK, str(stack_file)).stack
    assert stack is not None
    result = advise.advise(stack_file, stack, url=url, since_seconds=scenario.DAYS * scenario.DAY,
                           end=scenario.END)
    return view.to_json(result)


def test_the_demo_server_answers_advise_as_a_real_prometheus_does(tmp_path: Path) -> None:
    # the same series in Prometheus itself (promtool's OpenMetrics backfill) and in the demo's
    # server: every query advise sends gets the same answer, so the reports are the same
    with serving(_families(), tmp_path / "prom") as url:
        real = _advise_json(tmp_path, url)
    with server.serving(scenario.series()) as url:
        demo = _advise_json(tmp_path, url)
    assert demo == real
    assert {r["kind"] for r in demo["recommendations"]} == {
        "lower-floor", "spot", "memory-overcommit", "checkpoint-interval", "service-capacity",
        "service-target", "service-replicas"}


def test_advise_demo_advises_the_bundled_stack(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["advise", "--demo", "--format", "json"]) == 0
    out = capsys.readouterr()
    doc = json.loads(out.out)
    assert doc["stack"] == scenario.NAME and doc["window"]["end"] == scenario.END
    [floor] = [r for r in doc["recommendations"]
               if r["kind"] == "lower-floor" and r["pool"] == "infer-l4"]
    # both floor nodes idle 20:00 to 08:00: 12 of every 24 hours
    assert floor["pool"] == "infer-l4" and floor["edit"]["value"] == 0
    assert floor["evidence"]["hours_with_idle_floor_nodes"] == 12 * scenario.DAYS
    # the L4 pods peak in turn (8.5 GiB together against peaks of 16) but once: 2016 windows,
    # 2 of them (the noon when l4-a's four peak together) allowed at 0.1%; 16 / 8.5 = 1.88 ->
    # 1.85 on the grid, 8.5 x 1.85 = 15.7 within 16; 4 x 1.85 = 7.4 -> 7 slots a GPU
    [over] = [r for r in doc["recommendations"] if r["kind"] == "memory-overcommit"]
    assert over["edit"]["value"] == {"slotsPerGpu": 7, "memoryGiB": 5, "memoryOvercommit": 1.85}
    assert over["evidence"]["overflow_windows"] == 2 and over["evidence"]["windows"] == 2016
    # the spot pool (advise.demo.spot): 8 nodes x 336 h less the 4 empty hours a reclaimed node
    # left = 2,684 busy node-hours over 4 interruptions: 671 h = 2,415,600 s between them.
    # Young: sqrt(2 x 60 x 2,415,600) = 17,025.6 s; Daly, x = 60 / 4,831,200 = 1.2419e-5:
    # 17,025.6 x (1 + sqrt(x) / 3 + x / 9) - 60 = 17,025.6 x 1.0011761 - 60 = 16,986 s, over
    # nine times the declared 1,800 s
    [ckpt] = [r for r in doc["recommendations"] if r["kind"] == "checkpoint-interval"]
    assert ckpt["pool"] == "spot-l4" and ckpt["edit"]["value"] == 16986
    assert ckpt["evidence"]["busy_node_hours"] == 2684 and ckpt["evidence"]["mtbi_hours"] == 671
    assert ckpt["evidence"]["vanished"].startswith("spot-02 gone by 2026-11-20 10:00, spot-05")
    # 8 nodes at once, 4 of them replaced after their reclaim: 12 nodes' GPUs seen, all of
    # those that existed (not 12 of the 8 present at once)
    spot = doc["coverage"]["spot-l4"]
    assert (spot["gpus_seen"], spot["gpus_expected"]) == (12, 12)
    assert "serving 14 generated days of metrics of the bundled stack advise-demo" in out.err
    assert "warning" not in out.err  # the bundled stack validates cleanly


def test_advise_demo_with_a_short_window_is_too_little_data(
    capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["advise", "--demo", "--since", "6h"]) == 0
    out = capsys.readouterr().out
    assert "pool infer-l4: too little data to judge" in out
    assert "high confidence" not in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["advise", "--demo", "stack.yaml"], "drop FILE"),
     (["advise", "--demo", "--prometheus", "http://x", "--write", "o.yaml"],
      "drop --prometheus, --write"),
     (["advise"], "give a stack FILE and --prometheus URL (or --demo"),
     (["advise", "stack.yaml"], "give a stack FILE and --prometheus URL")],
)
def test_advise_demo_usage_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(argv) == 64
    err = capsys.readouterr().err
    assert message in err.splitlines()[0] and "Traceback" not in err


def test_a_query_the_demo_cannot_evaluate_is_a_refused_query() -> None:
    with server.serving(scenario.series()) as url:
        client = Prometheus(url)
        assert client.query("count by (gpu) (DCGM_FI_DEV_FB_USED)", scenario.END)
        with pytest.raises(PrometheusError, match="refused a query: function irate"):
            client.query("irate(DCGM_FI_DEV_FB_USED[5m])", scenario.END)
        with pytest.raises(PrometheusError, match="refused a query"):
            client.query("sum(", scenario.END)


def _varied() -> list[Series]:
    """Two days of gauges that vary sample to sample, and a counter that resets, off the edges."""
    end, step = scenario.END, 600.0
    times = [end - 2 * scenario.DAY + k * step - 17 for k in range(1, 289)]
    out = []
    for node in ("a", "b"):
        for gpu in ("0", "1"):
            labels = {"Hostname": node, "gpu": gpu, "namespace": f"ns-{node}", "pod": f"p{gpu}"}
            s = Series(labels_of("m", labels))
            s.times, s.values = times, [float((k * 37 + ord(node) * 11 + int(gpu)) % 101)
                                        for k in range(len(times))]
            out.append(s)
        c = Series(labels_of("c_total", {"namespace": f"ns-{node}", "pod": "p0"}))
        c.times, c.values = times, [float(k % 50) * 2 for k in range(len(times))]
        out.append(c)
        r = Series(labels_of("phase", {"namespace": f"ns-{node}", "pod": "p0", "phase": "Running"}))
        r.times, r.values = times, [1.0 if node == "a" else 0.0] * len(times)
        out.append(r)
    return out


QUERIES = [
    'max by (Hostname, gpu) (quantile_over_time(0.99, m{gpu="0"}[2880m]))',
    "max by (Hostname, gpu) (quantile_over_time(0.95, m[1000m])) / 100",
    "max by (Hostname) (count_over_time(m[2880m]) + last_over_time(m[2880m]))",
    "sum by (namespace, pod) (increase(c_total[2880m]))",
    "increase(c_total[95m])",
    "avg_over_time(m[3h])",
    'count by (gpu) (m{Hostname=~"a|b", gpu!="1"})',
    "quantile_over_time(0.95, (sum by (Hostname) (m))[2880m:5m])",
    "sum by (namespace) (max by (namespace, pod) (m) * on (namespace, pod) group_left () "
    '(max by (namespace, pod) (phase{phase="Running"}) == 1))',
    "max by (namespace, pod) (max_over_time(m[2880m])) > 99",
]


def test_the_demo_engine_agrees_with_prometheus_on_varied_series(tmp_path: Path) -> None:
    # Prometheus's own answers (promtool backfill, a real server) to the kinds of query advise
    # sends: quantiles that interpolate, a counter's increase across resets and extrapolated to
    # the range's edges (promql/functions.go extrapolatedRate), a subquery, matching
    series = _varied()
    families: dict[str, Family] = {}
    for s in series:
        labels = dict(s.labels)
        name = labels.pop("__name__")
        key = name.removesuffix("_total")
        family = families.setdefault(key, Family(key, "counter" if key != name else "gauge"))
        family.add(labels, zip(s.times, s.values, strict=True))
    at = scenario.END
    with serving(list(families.values()), tmp_path / "prom") as real_url, \
            server.serving(series) as demo_url:
        real, demo = Prometheus(real_url), Prometheus(demo_url)
        for expr in QUERIES:
            want = sorted((tuple(sorted(s.labels.items())), s.value) for s in real.query(expr, at))
            got = sorted((tuple(sorted(s.labels.items())), s.value) for s in demo.query(expr, at))
            assert [k for k, _ in got] == [k for k, _ in want], expr
            assert [v for _, v in got] == pytest.approx([v for _, v in want], rel=1e-9), expr
            assert want, expr  # each query has an answer to compare
        expr = "max by (Hostname) (max_over_time(m[1h]))"
        start = at - scenario.DAY
        want_range = [(dict(s.labels), s.points) for s in real.query_range(expr, start, at, 3600)]
        got_range = [(dict(s.labels), s.points) for s in demo.query_range(expr, start, at, 3600)]
        assert got_range == want_range
