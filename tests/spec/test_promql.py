"""gpupool's PromQL parser (``gpupool.spec.promql``) held to Prometheus's own, through promtool.

Whether a query is valid PromQL is promtool's verdict (``promtool check rules`` parses every rule
expression with Prometheus's parser: prometheus ``cmd/promtool/main.go``, ``rulefmt.Parse``), so
the parser must agree with it on every query here: a corpus of the shapes KEDA triggers use, the
mistakes people make, and mutants of the valid ones (a character dropped, doubled or swapped in,
from a fixed seed). How many series a query can return is KEDA's rule (kedacore/keda
``pkg/scalers/prometheus_scaler.go``: more than one element is an error) applied to PromQL's
semantics (an aggregation without ``by`` yields one series; ``by``/``without`` one per group),
stated per query below.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from gpupool.spec.promql import MAX_DEPTH, PromQLError, parse
from tests import promtool

#: (query, at most one series?) for queries promtool accepts.
VALID: list[tuple[str, bool]] = [
    ('sum(rate(http_requests_total{service="x"}[1m]))', True),
    ("rate(http_requests_total[1m])", False),
    ("sum by (pod) (rate(x[5m]))", False),
    ("sum(rate(x[5m])) by (pod)", False),
    ("sum by () (x)", True),
    ('avg(vllm:num_requests_waiting{model_name="m"})', True),
    ("max(vllm:num_requests_waiting)", True),
    ("topk(1, x)", True),
    ("topk(2, x)", False),
    ("bottomk(1, sum by (a) (x))", True),
    ('count_values("v", x)', False),
    ("scalar(sum(x))", True),
    ("vector(1)", True),
    ("1 + 2 * 3", True),
    ("1 > bool 2", True),
    ("sum(a) / sum(b)", True),
    ("sum(a) / b", False),
    ("sum(a) or vector(0)", True),
    ("sum(a) and b", True),
    ("x unless sum(y)", False),
    ("max_over_time(sum(x)[10m:1m])", True),
    ("rate(x[5m] offset 1h)", False),
    ("x @ 1609746000", False),
    ("x @ start()", False),
    ("histogram_quantile(0.95, sum by (le) (rate(h_bucket[5m])))", True),
    ("histogram_quantile(0.95, sum by (le, pod) (rate(h_bucket[5m])))", False),
    ("clamp_min(sum(rate(a[1m])), 1)", True),
    ("sum(rate(nv_inference_queue_duration_us[1m])) / "
     "clamp_min(sum(rate(nv_inference_compute_infer_duration_us[1m])), 1)", True),
    ("avg(DCGM_FI_DEV_GPU_UTIL{namespace=\"ml\", pod=~\"ranker-.*\"})", True),
    ('{__name__=~"x.*"}', False),
    ('x{a="b",}', False),
    ('label_replace(sum(x), "a", "b", "c", "d")', True),
    ("round(sum(x), 0.5)", True),
    ("time()", True),
    ("pi() * 2", True),
    ("-sum(x)", True),
    ("2 ^ 3 ^ 2", True),
    ("sum without (a) (x)", False),
    ("quantile(0.9, x)", True),
    ("x == bool y", False),
    ("a * on(b) group_left(c) d", False),
    ("1 * on() 2", True),
    ("day_of_week()", True),
    ("0x1f + 1e3 * sum(x)", True),
    ("NaN > bool Inf", True),
    ("sum(x) # a comment", True),
    ("x[1h30m]", False),
    ("x{a=\"\\n\"} + x{a='b'} + x{a=`c\nd`}", False),
    ("sum(\nx\n)", True),
    ("rate(x[5m:])", False),
    ("sum by (a)(x) / on(a) sum by (a)(y)", False),
    ('"a string"', True),
]
#: Queries promtool refuses.
INVALID = [
    "1 > 2", "x and 1", "rate(x)", "sum(x)[5m]", "sum(x) offset 5m", "unknown_fn(x)", "sum(x",
    "sum(x))", "{}", '{a=""}', 'x{a="b" b="c"}', "x{a=b}", 'x{a=~"("}',
    'label_replace(x, "a", "b", "c")', "quantile(x)", "count(x) by (a) by (b)", "abs(x, y)",
    "sum(x, y)", "x[1.5h]", "x[5]", 'x{a="\\q"}', 'x{a="b\nc"}', "((x))[5m]", "x > 5m",
    "1 * on(a) 2", "", "sum(rate(x[5m])) offset 1m", "x @", "-x[5m]", "sum(,)",
]


def _verdicts(queries: list[str], tmp_path: Path) -> list[bool]:
    """promtool's verdict on each query: True when it parses (one rule group per query)."""
    groups = [{"name": f"q{i}", "rules": [{"record": "gpupool:q", "expr": q}]}
              for i, q in enumerate(queries)]
    out = promtool.check_rules(groups, tmp_path)
    refused = {int(n) for n in re.findall(r'group "q(\d+)"', out)}
    assert not out or refused, out  # a complaint names the groups it refuses
    return [i not in refused for i in range(len(queries))]


def _mine(query: str) -> bool:
    try:
        parse(query)
    except PromQLError:
        return False
    return True


def _mutants(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    alphabet = '(){}[],:=~!"+-*/ ^5mxby'
    out = []
    for _ in range(n):
        q = rng.choice(VALID)[0]
        i = rng.randrange(len(q))
        kind = rng.randrange(3)
        if kind == 0:
            q = q[:i] + q[i + 1:]
        elif kind == 1:
            q = q[:i] + rng.choice(alphabet) + q[i:]
        else:
            q = q[:i] + q[i] * 2 + q[i + 1:]
        out.append(q)
    return out


def test_the_parser_and_promtool_agree_on_the_corpus(tmp_path: Path) -> None:
    queries = [q for q, _ in VALID] + [q for q in INVALID if q]
    theirs = _verdicts(queries, tmp_path)
    assert theirs == [True] * len(VALID) + [False] * (len(queries) - len(VALID))
    assert [_mine(q) for q in queries] == theirs


def test_the_parser_and_promtool_agree_on_mutants(tmp_path: Path) -> None:
    queries = _mutants(20261204, 300)
    theirs = _verdicts(queries, tmp_path)
    assert 30 < sum(theirs) < len(queries) - 30  # both kinds, or the test proves little
    wrong = [(q, t) for q, t in zip(queries, theirs, strict=True) if _mine(q) != t]
    assert wrong == []


@pytest.mark.parametrize(("query", "single"), VALID, ids=[q[:40] for q, _ in VALID])
def test_one_series_or_more(query: str, single: bool) -> None:
    assert parse(query).single is single


def test_an_empty_query_and_deep_nesting_are_one_clear_error() -> None:
    with pytest.raises(PromQLError, match="no expression"):
        parse("   ")
    deep = "(" * (MAX_DEPTH + 1) + "1" + ")" * (MAX_DEPTH + 1)
    with pytest.raises(PromQLError, match="nested deeper"):
        parse(deep)
    assert parse("(" * MAX_DEPTH + "1" + ")" * MAX_DEPTH).single


def test_a_hostile_query_is_an_error_at_its_offset() -> None:
    with pytest.raises(PromQLError) as caught:
        parse('sum(x) \x1b[31m"; rm -rf /')
    assert caught.value.offset == 7
