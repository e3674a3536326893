"""PromQL's names and their types, as Prometheus 2.x's parser knows them (``promql/parser``).

This module owns the tables ``gpupool.spec.promql`` reads: each function with the types of its
arguments and of its result (prometheus ``promql/parser/functions.go``), and each aggregation
with the type of its parameter (``promql/parser/lex.go``, the aggregators), and which
aggregations leave one series when they group by nothing.
"""

from __future__ import annotations

SCALAR, VECTOR, MATRIX, STRING = "scalar", "instant vector", "range vector", "string"

#: Functions: argument types (a trailing ``?``: optional; ``*``: any more of the last) -> result.
_S, _V, _M, _T = SCALAR, VECTOR, MATRIX, STRING
_OVER_TIME = ("avg", "min", "max", "sum", "count", "stddev", "stdvar", "last", "present",
              "absent", "mad")  # fmt: skip
FUNCTIONS: dict[str, tuple[tuple[str, ...], str]] = {
    **{f"{n}_over_time": ((_M,), _V) for n in _OVER_TIME if n != "mad"},
    **{n: ((_V,), _V) for n in (
        "abs", "absent", "ceil", "exp", "floor", "ln", "log10", "log2", "sgn", "sort",
        "sort_desc", "sqrt", "timestamp", "acos", "acosh", "asin", "asinh", "atan", "atanh",
        "cos", "cosh", "sin", "sinh", "tan", "tanh", "deg", "rad", "histogram_count",
        "histogram_sum")},
    **{n: ((_V + "?",), _V) for n in (
        "day_of_month", "day_of_week", "day_of_year", "days_in_month", "hour", "minute",
        "month", "year")},
    **{n: ((_M,), _V) for n in (
        "changes", "delta", "deriv", "idelta", "increase", "irate", "rate", "resets")},
    "clamp": ((_V, _S, _S), _V),
    "clamp_max": ((_V, _S), _V),
    "clamp_min": ((_V, _S), _V),
    "histogram_quantile": ((_S, _V), _V),
    "histogram_fraction": ((_S, _S, _V), _V),
    "holt_winters": ((_M, _S, _S), _V),
    "label_join": ((_V, _T, _T, _T + "*"), _V),
    "label_replace": ((_V, _T, _T, _T, _T), _V),
    "predict_linear": ((_M, _S), _V),
    "quantile_over_time": ((_S, _M), _V),
    "round": ((_V, _S + "?"), _V),
    "scalar": ((_V,), _S),
    "time": ((), _S),
    "pi": ((), _S),
    "vector": ((_S,), _V),
}
#: Aggregations and the type of their parameter, if they take one.
AGGREGATIONS: dict[str, str | None] = {
    "sum": None, "avg": None, "min": None, "max": None, "count": None, "group": None,
    "stddev": None, "stdvar": None, "topk": _S, "bottomk": _S, "quantile": _S,
    "count_values": _T,
}  # fmt: skip
SINGLE_AGGREGATIONS = ("sum", "avg", "min", "max", "count", "group", "stddev", "stdvar",
                        "quantile")  # fmt: skip
