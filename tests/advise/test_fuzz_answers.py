"""Fuzzing advise with generated Prometheus answers: one error or a finite report, never a crash.

A stand-in on 127.0.0.1 (``tests/advise/standin.py``) answers each query of ``gpupool advise``
with the next answer of a generated script: series in the API's shapes (``querying/api.md``: a
vector's ``value`` and a matrix's ``values`` are ``[<unix time>, "<value>"]``) whose labels name
the test stack's nodes, pools, GPUs and tenant, so answers reach the rules, with values and times
a hostile server could send (NaN, infinities, 1e308, words, maps, nothing, 400-digit numbers);
the wrong result type; the API's error with a multi-line text; and raw answers (nesting 200,000
deep, a login page, an empty or cut body, a redirect, 401, 500).

Each run must end with exit 0 and a JSON report whose every number is finite and of a size a
stack can hold, or exit 1 and one error line; never an internal error or a traceback. The budget
is ``GPUPOOL_FUZZ_EXAMPLES`` / 8 cases (default 50), no deadline.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpupool.cli import run
from gpupool.sharing.promql import KSM_POOL_LABEL
from tests.advise import overcommit_scenario
from tests.advise.scenario import STACK
from tests.advise.standin import Seen, StandIn, standing_in

EXAMPLES = max(10, int(os.environ.get("GPUPOOL_FUZZ_EXAMPLES", "400")) // 8)
NOW = float(int(time.time()) // 3600 * 3600)
_LABELS = {
    "Hostname": ["h100-a", "h100-b", "l4-a", "vgpu-a", "elsewhere"],
    "node": ["h100-a", "l4-a", "vgpu-a"],
    "gpu": ["0", "1"],
    KSM_POOL_LABEL: ["h100", "l4", "vgpu", "another-stack"],
    "namespace": ["llm", "batch", "search"],
    # HAMi's per-container series (the HAMi stack's pool vgpu; cmd/vGPUmonitor/metrics.go)
    "container": ["main"],
    "device_uuid": ["GPU-vgpu-a-0", "GPU-vgpu-b-0"],
    "pod": ["p-0", "p-1"],
    "tenant": ["llm"],
    "owner_kind": ["Job", "<none>", "ReplicaSet"],
    "resource": ["nvidia_com_gpu", "cpu", "memory"],
    "GPU_I_PROFILE": ["1g.10gb"],
}
_HOSTILE_VALUES: list[object] = ["NaN", "+Inf", "-Inf", "1e308", "-1e308", "1e16", "yesterday",
                                 "", {}, None, [], True, 10**400]
_HOSTILE_TIMES: list[object] = [float("nan"), "yesterday", {}, None, 1e300, -5.0, 10**400, []]


def _number(x: float) -> str:
    return "NaN" if x != x else "+Inf" if x == float("inf") else "-Inf" if x < -1e308 else repr(x)


values = st.one_of(
    st.floats(min_value=0, max_value=100_000).map(_number),
    st.floats(allow_nan=True, allow_infinity=True).map(_number),
    st.sampled_from(_HOSTILE_VALUES),
)
times = st.one_of(
    st.integers(min_value=0, max_value=48).map(lambda k: NOW - 3600.0 * k),
    st.sampled_from(_HOSTILE_TIMES),
)
labels = st.dictionaries(st.sampled_from(sorted(_LABELS)), st.just(""), max_size=6).flatmap(
    lambda keys: st.fixed_dictionaries({k: st.sampled_from(_LABELS[k]) for k in keys})
)
def _series(value: st.SearchStrategy[object],
            moment: st.SearchStrategy[object]) -> st.SearchStrategy[Any]:
    points = st.lists(st.tuples(moment, value), min_size=1, max_size=4)
    return st.lists(st.tuples(labels, points), max_size=4)


_hours = st.integers(min_value=0, max_value=48).map(lambda k: NOW - 3600.0 * k)
# series a real server could send (finite values, times in the window), so a run gets to the rules
clean = st.tuples(st.just("series"),
                  _series(st.floats(min_value=0, max_value=100_000).map(_number), _hours),
                  st.just(False))
_RAW = [
    (200, {}, b'{"status":"success","data":' + b"[" * 200_000 + b"]" * 200_000 + b"}"),
    (200, {}, b"<html><form>login</form></html>"),
    (200, {}, b""),
    (200, {}, b'{"status":"success","data":{"resultType":"vec'),
    (302, {"Location": "http://127.0.0.1:9/api/v1/query"}, b""),
    (401, {}, b"no"),
    (500, {}, b"oops"),
    (200, {}, b'{"status":"success","data":{"resultType":"vector","result":[{"metric":7}]}}'),
]
hostile = st.one_of(
    st.tuples(st.just("series"), _series(values, times), st.just(False)),
    st.tuples(st.just("series"), _series(values, times), st.just(True)),  # the wrong type
    st.tuples(st.just("error"), st.text(max_size=300), st.just(False)),
    st.tuples(st.just("raw"), st.sampled_from(range(len(_RAW))), st.just(False)),
)
# clean answers in turn for every query, but for the hostile ones at the queries they name: a
# run reaches the rules, and any query may be the one a hostile answer meets
scripts = st.tuples(
    st.lists(clean, min_size=1, max_size=6),
    st.dictionaries(st.integers(min_value=0, max_value=24), hostile, max_size=3),
)


def _render(answer: tuple[str, Any, bool], seen: Seen) -> tuple[int, dict[str, str], bytes]:
    kind, payload, wrong = answer
    if kind == "raw":
        return _RAW[payload]
    if kind == "error":
        body = {"status": "error", "errorType": "bad_data", "error": payload}
        return 400, {}, json.dumps(body).encode()
    matrix = seen.path.endswith("query_range") != wrong
    result = [
        {"metric": metric, "values": [list(p) for p in points]} if matrix
        else {"metric": metric, "value": list(points[0])}
        for metric, points in payload
    ]
    body = {"status": "success",
            "data": {"resultType": "matrix" if matrix else "vector", "result": result}}
    return 200, {}, json.dumps(body).encode()


class _Script:
    """The answers of the current example: clean ones in turn, hostile ones at their query."""

    clean: ClassVar[list[tuple[str, Any, bool]]] = []
    hostile: ClassVar[dict[int, tuple[str, Any, bool]]] = {}
    served: ClassVar[int] = 0

    @classmethod
    def answer(cls, seen: Seen) -> tuple[int, dict[str, str], bytes]:
        at, cls.served = cls.served, cls.served + 1
        return _render(cls.hostile.get(at) or cls.clean[at % len(cls.clean)], seen)


@pytest.fixture(scope="module")
def server() -> Iterator[StandIn]:
    with standing_in(_Script.answer) as running:
        yield running


def _walk(value: object) -> Iterator[object]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)
    else:
        yield value


def _refuse_constant(name: str) -> float:
    raise AssertionError(f"the JSON output holds {name}, which is not JSON")


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(script=scripts)
def test_generated_answers_give_one_error_or_a_finite_report(
    server: StandIn,
    script: tuple[list[tuple[str, Any, bool]], dict[int, tuple[str, Any, bool]]],
) -> None:
    _answers_give_one_error_or_a_finite_report(server, script, STACK)


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(script=scripts)
def test_generated_answers_on_a_hami_pool_give_one_error_or_a_finite_report(
    server: StandIn,
    script: tuple[list[tuple[str, Any, bool]], dict[int, tuple[str, Any, bool]]],
) -> None:
    """The HAMi stack reads the per-container series memory-overcommit judges."""
    _answers_give_one_error_or_a_finite_report(server, script, overcommit_scenario.STACK)


# the scenario's H100 pool with a checkpoint: advise then reads the nodes that vanished
CHECKPOINTED = STACK.replace(
    "    nodes: {min: 2, max: 4}  # two warm nodes\n",
    "    nodes: {min: 2, max: 4}  # two warm nodes\n"
    "    checkpoint: {everySeconds: 600, writeSeconds: 60, restoreSeconds: 60}\n", 1)


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(script=scripts)
def test_generated_answers_on_a_checkpointed_pool_give_one_error_or_a_finite_report(
    server: StandIn,
    script: tuple[list[tuple[str, Any, bool]], dict[int, tuple[str, Any, bool]]],
) -> None:
    """A checkpointed pool reads the nodes that vanished (checkpoint-interval, issue 40)."""
    assert CHECKPOINTED != STACK
    _answers_give_one_error_or_a_finite_report(server, script, CHECKPOINTED)


def _answers_give_one_error_or_a_finite_report(
    server: StandIn,
    script: tuple[list[tuple[str, Any, bool]], dict[int, tuple[str, Any, bool]]],
    stack_text: str,
) -> None:
    (_Script.clean, _Script.hostile), _Script.served = script, 0
    server.seen.clear()
    with tempfile.TemporaryDirectory(prefix="gpupool-fuzz-") as folder:
        stack = Path(folder) / "stack.yaml"
        stack.write_text(stack_text)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = run(["advise", str(stack), "--prometheus", server.url, "--since", "2d",
                        "--until", f"{NOW:.0f}", "--format", "json"], stderr=err)
    text = err.getvalue()
    assert "internal error" not in text and "Traceback" not in text, text
    doc = json.loads(out.getvalue(), parse_constant=_refuse_constant)
    if code == 1:
        assert [line for line in text.splitlines() if line.startswith("error:")] == [
            f"error: {doc['error']['message']}"
        ]
        return
    assert code == 0, text
    for value in _walk(doc):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            assert abs(value) <= 1e18, value
