"""Hostile Prometheus answers and window bounds: one error or usage error, never an internal one.

The answers come from a stand-in on 127.0.0.1 (``tests/advise/standin.py``): what no real
Prometheus sends, in the shapes of its HTTP API (Prometheus docs, ``querying/api.md``: a
vector's ``value`` and a matrix's ``values`` are ``[<unix time>, "<value>"]``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from gpupool.advise import prometheus as prom
from gpupool.advise.evidence import Evidence, TenantUse
from gpupool.advise.quota import MAX_QUOTA_GPUS
from gpupool.cli import run
from gpupool.spec.schema import schema
from gpupool.spec.validate import validate_text
from gpupool.usecases.advise import _propose
from tests.advise.scenario import STACK
from tests.advise.standin import Seen, fixed, standing_in

NOW = float(int(time.time()) // 3600 * 3600)


def _vector(value: object, labels: dict[str, str] | None = None) -> bytes:
    result = [{"metric": labels or {}, "value": [NOW, value]}]
    return json.dumps({"status": "success",
                       "data": {"resultType": "vector", "result": result}}).encode()


def _matrix(values: list[object]) -> bytes:
    result = [{"metric": {"Hostname": "n"}, "values": values}]
    return json.dumps({"status": "success",
                       "data": {"resultType": "matrix", "result": result}}).encode()


def test_an_answer_nested_200000_deep_is_not_the_api() -> None:
    # json.loads recursed past the interpreter's limit: RecursionError, an internal error
    deep = b'{"status":"success","data":' + b"[" * 200_000 + b"]" * 200_000 + b"}"
    with (
        standing_in(fixed(200, deep)) as server,
        pytest.raises(prom.PrometheusError, match="did not answer with the Prometheus API's JSON"),
    ):
        prom.Prometheus(server.url).query("up", NOW)


@pytest.mark.parametrize("value", ["+Inf", "-Inf", "1e308", "1e16", "yesterday", {}, None, True])
def test_a_value_that_is_no_figure_is_one_error(value: object) -> None:
    with (
        standing_in(fixed(200, _vector(value))) as server,
        pytest.raises(prom.PrometheusError, match=r"answered a sample value"),
    ):
        prom.Prometheus(server.url).query("count_over_time(x[1h])", NOW)


def test_nan_and_figures_within_the_bound_are_kept() -> None:
    with standing_in(fixed(200, _vector("NaN"))) as server:
        [nan] = prom.Prometheus(server.url).query("up", NOW)
    with standing_in(fixed(200, _vector(f"{prom.MAX_VALUE:g}"))) as server:
        [top] = prom.Prometheus(server.url).query("up", NOW)
    assert nan.value != nan.value and top.value == prom.MAX_VALUE


@pytest.mark.parametrize("moment", [float("nan"), "yesterday", {}, None, 1e300, -5, 10**400])
def test_a_range_point_whose_time_is_no_time_is_one_error(moment: object) -> None:
    body = _matrix([[NOW, "1"], [moment, "2"]]) if moment != 10**400 else (
        _matrix([[NOW, "1"]]).replace(str(NOW).encode(), b"1" * 400))
    with (
        standing_in(fixed(200, body)) as server,
        pytest.raises(prom.PrometheusError, match=r"answered a range point whose time is"),
    ):
        prom.Prometheus(server.url).query_range("x", NOW - 3600, NOW, 60)


@pytest.mark.parametrize("pair", [{}, [NOW], "x", [NOW, "1", "2"]])
def test_a_range_point_that_is_no_pair_is_one_error(pair: object) -> None:
    with (
        standing_in(fixed(200, _matrix([pair]))) as server,
        pytest.raises(prom.PrometheusError, match=r"a range point that is not \[time, value\]"),
    ):
        prom.Prometheus(server.url).query_range("x", NOW - 3600, NOW, 60)


def test_a_server_s_error_text_is_quoted_on_one_line_and_cut() -> None:
    text = "parse error:\nline two\r\n\u2028line three " + "x" * 5000
    body = json.dumps({"status": "error", "errorType": "bad_data", "error": text}).encode()
    for status in (200, 400):
        with standing_in(fixed(status, body)) as server, pytest.raises(prom.PrometheusError) as e:
            prom.Prometheus(server.url).query("up", NOW)
        message = str(e.value)
        assert "refused a query: parse error: line two line three xxx" in message
        assert len(message.splitlines()) == 1 and len(message) < 300


def test_a_range_whose_end_is_too_far_out_never_loops() -> None:
    # at 1e20 s adding a step changes nothing: the split ranges never advanced (20,000 queries
    # in 20 s); no request is sent now
    client = prom.Prometheus("http://127.0.0.1:9")
    with pytest.raises(ValueError, match="finite times"):
        client.query_range("up", 1e20 - 86400, 1e20, 3600)
    with pytest.raises(ValueError, match="more than 1000000 points"):
        client.query_range("up", 0, 1e9, 1)
    assert client.queries == 0


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    def call(url: str, *extra: str) -> tuple[int, str, str]:
        stack = tmp_path / "stack.yaml"
        stack.write_text(STACK)
        code = run(["advise", str(stack), "--prometheus", url, "--format", "json", *extra])
        out = capsys.readouterr()
        return code, out.out, out.err
    return call


@pytest.mark.parametrize(("value", "shown"), [("+Inf", "+Inf"), ("1e308", "1e308")])
def test_an_infinite_count_or_a_1e308_request_is_one_error_end_to_end(
    value: str, shown: str, cli
) -> None:
    # every query answered with one series on a node of the stack: a count of +Inf was an
    # OverflowError (int(inf)), and 1e308 requested GPUs put a 309-digit quota in the report
    labels = {"Hostname": "h100-a", "node": "h100-a", "gpu": "0", "namespace": "llm",
              "label_gpupool_io_pool": "h100"}

    def answer(seen: Seen) -> tuple[int, dict[str, str], bytes]:
        if seen.path.endswith("query_range"):
            body = {"status": "success", "data": {"resultType": "matrix", "result": [
                {"metric": labels, "values": [[NOW - 3600, value], [NOW, value]]}]}}
            return 200, {}, json.dumps(body).encode()
        return 200, {}, _vector(value, labels)

    with standing_in(answer) as server:
        code, out, err = cli(server.url, "--until", f"{NOW:.0f}")
    assert code == 1
    assert "internal error" not in err and "9" * 20 not in out + err
    doc = json.loads(out)
    assert doc["error"]["kind"] == "prometheus"
    assert f"answered a sample value of {shown}" in doc["error"]["message"]


def test_requests_beyond_what_a_quota_holds_are_a_gap_not_a_quota() -> None:
    stack = validate_text(STACK, "stack.yaml").stack
    assert stack is not None
    ev = Evidence(window_seconds=14 * 86400.0, end=NOW, pools={},
                  tenants={"llm": TenantUse("llm", "llm", 1e9, 1e9)})
    found, gaps = _propose(stack, ev, {})
    assert [r for r in found if r.kind == "tenant-quota"] == []
    assert any(g.startswith("tenant llm: its pods requested 1e+09 GPUs at most") for g in gaps)


def test_the_quota_bound_is_the_schema_s() -> None:
    tenant = schema()["properties"]["tenants"]["items"]["properties"]
    assert tenant["quota"]["properties"]["gpus"]["maximum"] == MAX_QUOTA_GPUS


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--until", "nan"), ("--until", "inf"), ("--until", "-inf"), ("--until", "1e20"),
        ("--until", "-1"), ("--until", "10000-01-01T00:00:00+00:00"),
        ("--since", "9" * 400 + "d"), ("--since", f"{10**14}d"), ("--since", "367d"),
        ("--since", "0d"), ("--since", "\u0661\u0662d"), ("--since", "1.5d"),
    ],
)
def test_a_window_out_of_its_bounds_is_a_usage_error(
    flag: str, value: str, cli
) -> None:
    # before: nan and inf reached the queries, 1e20 looped, 400 digits were an OverflowError
    # and 10**14 days allocated a slot an hour
    with standing_in(fixed(200, _vector("1"))) as server:
        code, _out, err = cli(server.url, f"{flag}={value}")
        assert server.seen == []
    assert code == 64
    assert f"argument {flag}: takes" in err
    assert "internal error" not in err


@pytest.mark.parametrize(("flag", "value"), [("--since", "366d"), ("--since", "1s"),
                                             ("--until", "0"),
                                             ("--until", "9999-12-31T23:59:59Z")])
def test_the_bounds_themselves_are_accepted(flag: str, value: str, cli) -> None:
    empty = b'{"status":"success","data":{"resultType":"vector","result":[]}}'

    def answer(seen: Seen) -> tuple[int, dict[str, str], bytes]:
        if seen.path.endswith("query_range"):
            return 200, {}, empty.replace(b"vector", b"matrix")
        return 200, {}, empty

    with standing_in(answer) as server:
        code, out, err = cli(server.url, f"{flag}={value}")
    assert code == 0, err
    assert json.loads(out)["stack"] == "advise-scenario"
