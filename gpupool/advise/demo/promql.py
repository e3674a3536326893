"""The part of PromQL that ``gpupool advise`` sends, evaluated over series held in memory.

This module owns the demo server's query language: enough of PromQL (Prometheus docs,
``querying/basics.md``, ``operators.md``, ``functions.md``) for the queries advise's readers
write, and nothing else; anything outside it is a :class:`QueryError`, which the server answers
as Prometheus answers a query it cannot parse (``bad_data``).

Supported: selectors with ``=``, ``!=``, ``=~``, ``!~`` matchers (regexes anchored at both ends),
range selectors ``[5m]`` and subqueries ``(expr)[14d:5m]``; the ``*_over_time`` functions
(``quantile``, ``max``, ``min``, ``avg``, ``sum``, ``count``, ``last``), ``increase`` and
``rate`` (with
Prometheus's extrapolation to the range's edges, ``promql/functions.go`` ``extrapolatedRate``);
``sum``, ``max``, ``min``, ``count``, ``avg`` with ``by``; arithmetic ``+ - * /`` and filtering
comparisons ``== != > < >= <=`` between vectors and scalars, and between vectors matched on all
labels or ``on (...)`` with ``group_left ()``. An instant selector looks back five minutes (the
server's default ``--query.lookback-delta``); a range holds the samples after its start up to
and including its end.
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

LOOKBACK_SECONDS = 300.0
NAME = "__name__"
Labels = tuple[tuple[str, str], ...]  # sorted (name, value) pairs
Vector = list[tuple[Labels, float]]
Matrix = list[tuple[Labels, list[tuple[float, float]]]]


class QueryError(ValueError):
    """A query outside the supported PromQL, or not PromQL at all."""


@dataclass
class Series:
    """One stored series: its labels (``__name__`` included) and samples in time order."""

    labels: Labels
    times: list[float] = field(default_factory=list)
    values: list[float] = field(default_factory=list)


def labels_of(name: str, labels: Mapping[str, str]) -> Labels:
    """Return the sorted label pairs of a series named ``name``."""
    return tuple(sorted({**labels, NAME: name}.items()))


# --- parsing ------------------------------------------------------------------------------------

_TOKEN = re.compile(
    r'\s*(?:(?P<num>\d+(?:\.\d+)?)|(?P<ident>[A-Za-z_:][A-Za-z0-9_:]*)|(?P<str>"(?:[^"\\]|\\.)*")'
    r"|(?P<op>==|!=|=~|!~|>=|<=|[-+*/<>=(){}\[\],:]))"
)
_DURATION = re.compile(r"(\d+)([smhdw])")
_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, "w": 604800.0}
_AGGREGATIONS = ("sum", "max", "min", "count", "avg")
_COMPARISONS = ("==", "!=", ">", "<", ">=", "<=")


@dataclass(frozen=True)
class Num:
    """A number."""

    value: float


@dataclass(frozen=True)
class Selector:
    """A series selector, with its range when it has one."""

    name: str
    matchers: tuple[tuple[str, str, str], ...]  # (label, op, value)
    range: float | None = None


@dataclass(frozen=True)
class Subquery:
    """An expression evaluated over a range at a step: ``(expr)[range:step]``."""

    expr: object
    range: float
    step: float


@dataclass(frozen=True)
class Call:
    """A function call."""

    name: str
    args: tuple[object, ...]


@dataclass(frozen=True)
class Aggregate:
    """An aggregation ``op by (labels) (expr)``."""

    op: str
    by: tuple[str, ...]
    expr: object


@dataclass(frozen=True)
class Binary:
    """A binary operation, with its vector matching."""

    op: str
    lhs: object
    rhs: object
    on: tuple[str, ...] | None = None
    group_left: bool = False


def _duration(text: str) -> float:
    parts = _DURATION.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise QueryError(f"bad duration {text!r}")
    return sum(int(n) * _UNITS[u] for n, u in parts)


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def peek(self) -> str:
        match = _TOKEN.match(self.text, self.pos)
        return match.group(match.lastgroup or "").strip() if match else ""

    def take(self, expected: str | None = None) -> str:
        match = _TOKEN.match(self.text, self.pos)
        if match is None:
            rest = self.text[self.pos:self.pos + 20]
            raise QueryError(f"unexpected text at {self.pos}: {rest!r}")
        token = match.group(match.lastgroup or "")
        if expected is not None and token != expected:
            raise QueryError(f"expected {expected!r} at {self.pos}, found {token!r}")
        self.pos = match.end()
        return token

    def brackets(self) -> str:
        """Return the raw text between ``[`` and ``]`` (a range or a subquery's range:step)."""
        self.take("[")
        end = self.text.find("]", self.pos)
        if end < 0:
            raise QueryError("unclosed [")
        inside, self.pos = self.text[self.pos:end].strip(), end + 1
        return inside

    def labels(self) -> tuple[str, ...]:
        self.take("(")
        names: list[str] = []
        while self.peek() != ")":
            names.append(self.take())
            if self.peek() == ",":
                self.take(",")
        self.take(")")
        return tuple(names)

    def expr(self, level: int = 0) -> object:
        levels = (_COMPARISONS, ("+", "-"), ("*", "/"))
        if level == len(levels):
            return self.atom()
        lhs = self.expr(level + 1)
        while self.peek() in levels[level]:
            op = self.take()
            on: tuple[str, ...] | None = None
            group_left = False
            if self.peek() == "on":
                self.take()
                on = self.labels()
            if self.peek() == "group_left":
                self.take()
                group_left = True
                if self.peek() == "(" and self.labels():
                    raise QueryError("group_left with labels is not supported")
            lhs = Binary(op, lhs, self.expr(level + 1), on, group_left)
        return lhs

    def atom(self) -> object:
        token = self.peek()
        if token == "(":
            self.take("(")
            inner = self.expr()
            self.take(")")
            if self.peek() == "[":
                span, _, step = self.brackets().partition(":")
                if not step:
                    raise QueryError("a range of an expression needs a subquery step")
                return Subquery(inner, _duration(span), _duration(step))
            return inner
        if token and token[0].isdigit():
            return Num(float(self.take()))
        name = self.take()
        if not re.fullmatch(r"[A-Za-z_:][A-Za-z0-9_:]*", name):
            raise QueryError(f"unexpected {name!r}")
        if name in _AGGREGATIONS:
            by = self.labels() if self.peek() == "by" and self.take() else ()
            self.take("(")
            inner = self.expr()
            self.take(")")
            if self.peek() == "by":
                self.take()
                by = self.labels()
            return Aggregate(name, by, inner)
        if self.peek() == "(":
            self.take("(")
            args = [self.expr()]
            while self.peek() == ",":
                self.take(",")
                args.append(self.expr())
            self.take(")")
            return Call(name, tuple(args))
        return self.selector(name)

    def selector(self, name: str) -> Selector:
        matchers: list[tuple[str, str, str]] = []
        if self.peek() == "{":
            self.take("{")
            while self.peek() != "}":
                label, op, quoted = self.take(), self.take(), self.take()
                if op not in ("=", "!=", "=~", "!~") or not quoted.startswith('"'):
                    raise QueryError(f"bad matcher {label}{op}{quoted}")
                matchers.append((label, op, quoted[1:-1].encode().decode("unicode_escape")))
                if self.peek() == ",":
                    self.take(",")
            self.take("}")
        span = _duration(self.brackets()) if self.peek() == "[" else None
        return Selector(name, tuple(matchers), span)


def parse(text: str) -> object:
    """Return the syntax tree of ``text``, or raise QueryError."""
    parser = _Parser(text)
    tree = parser.expr()
    if parser.text[parser.pos:].strip():
        raise QueryError(f"unexpected text at {parser.pos}: {parser.text[parser.pos:][:20]!r}")
    return tree


# --- evaluation ---------------------------------------------------------------------------------


def _quantile(q: float, values: list[float]) -> float:
    ordered = sorted(values)
    rank = q * (len(ordered) - 1)
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def _increase(points: list[tuple[float, float]], start: float, end: float) -> float | None:
    """Prometheus's ``increase``: the counter's rise, extrapolated towards the range's edges."""
    if len(points) < 2:
        return None
    rise = points[-1][1] - points[0][1]
    rise += sum(prev for (_, prev), (_, cur) in itertools.pairwise(points)
                if cur < prev)
    sampled = points[-1][0] - points[0][0]
    average = sampled / (len(points) - 1)
    to_start, to_end = points[0][0] - start, end - points[-1][0]
    if rise > 0 and points[0][1] >= 0:
        to_start = min(to_start, sampled * (points[0][1] / rise))
    threshold = average * 1.1
    interval = sampled + (to_start if to_start < threshold else average / 2)
    interval += to_end if to_end < threshold else average / 2
    return rise * interval / sampled


_OVER_TIME: dict[str, Callable[[list[float]], float]] = {
    "max_over_time": max, "min_over_time": min, "sum_over_time": math.fsum,
    "count_over_time": lambda v: float(len(v)), "last_over_time": lambda v: v[-1],
    "avg_over_time": lambda v: math.fsum(v) / len(v),
}
_ARITHMETIC: dict[str, Callable[[float, float], float]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: a / b if b else (math.nan if a == 0 else math.copysign(math.inf, a)),
}
_COMPARE: dict[str, Callable[[float, float], bool]] = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, ">": lambda a, b: a > b,
    "<": lambda a, b: a < b, ">=": lambda a, b: a >= b, "<=": lambda a, b: a <= b,
}


def _without_name(labels: Labels) -> Labels:
    return tuple(pair for pair in labels if pair[0] != NAME)


class Engine:
    """Evaluates supported PromQL over ``series`` at a time, or over a range of steps."""

    def __init__(self, series: Iterable[Series]) -> None:
        self.by_name: dict[str, list[Series]] = {}
        for s in series:
            self.by_name.setdefault(dict(s.labels)[NAME], []).append(s)
        self._matched: dict[Selector, list[Series]] = {}

    def _select(self, sel: Selector) -> list[Series]:
        key = Selector(sel.name, sel.matchers)
        if key not in self._matched:
            def keep(s: Series) -> bool:
                labels = dict(s.labels)
                for label, op, value in sel.matchers:
                    have = labels.get(label, "")
                    hit = have == value if op in ("=", "!=") else bool(re.fullmatch(value, have))
                    if hit != (op in ("=", "=~")):
                        return False
                return True
            self._matched[key] = [s for s in self.by_name.get(sel.name, []) if keep(s)]
        return self._matched[key]

    def instant(self, tree: object, t: float) -> Vector | float:
        """Return the value of ``tree`` at ``t``: an instant vector or a scalar."""
        if isinstance(tree, Num):
            return tree.value
        if isinstance(tree, Selector):
            if tree.range is not None:
                raise QueryError("a range vector is not an instant result")
            out: Vector = []
            for s in self._select(tree):
                i = bisect.bisect_right(s.times, t) - 1
                if i >= 0 and s.times[i] > t - LOOKBACK_SECONDS:
                    out.append((s.labels, s.values[i]))
            return out
        if isinstance(tree, Call):
            return self._call(tree, t)
        if isinstance(tree, Aggregate):
            return self._aggregate(tree, self._vector(tree.expr, t))
        if isinstance(tree, Binary):
            return self._binary(tree, t)
        raise QueryError("a subquery is not an instant result")

    def _vector(self, tree: object, t: float) -> Vector:
        value = self.instant(tree, t)
        if isinstance(value, float):
            raise QueryError("expected an instant vector, got a scalar")
        return value

    def _range(self, tree: object, t: float) -> Matrix:
        if isinstance(tree, Selector) and tree.range is not None:
            out: Matrix = []
            for s in self._select(tree):
                lo = bisect.bisect_right(s.times, t - tree.range)
                hi = bisect.bisect_right(s.times, t)
                if hi > lo:
                    out.append((s.labels, list(zip(s.times[lo:hi], s.values[lo:hi],
                                                   strict=True))))
            return out
        if isinstance(tree, Subquery):
            first = math.floor((t - tree.range) / tree.step) * tree.step + tree.step
            steps = [first + k * tree.step for k in range(int((t - first) // tree.step) + 1)]
            return [(labels, points) for labels, points in self.matrix(tree.expr, steps)]
        raise QueryError("expected a range vector")

    def _call(self, call: Call, t: float) -> Vector:
        if call.name == "quantile_over_time" and len(call.args) == 2:
            q = self.instant(call.args[0], t)
            if not isinstance(q, float):
                raise QueryError("quantile_over_time takes a scalar first")
            return [(_without_name(labels), _quantile(q, [v for _, v in points]))
                    for labels, points in self._range(call.args[1], t)]
        if call.name in _OVER_TIME and len(call.args) == 1:
            fn = _OVER_TIME[call.name]
            return [(_without_name(labels), fn([v for _, v in points]))
                    for labels, points in self._range(call.args[0], t)]
        if call.name in ("increase", "rate") and len(call.args) == 1:
            arg = call.args[0]
            span = arg.range if isinstance(arg, Selector) and arg.range else 0.0
            out: Vector = []
            for labels, points in self._range(arg, t):
                rise = _increase(points, t - span, t)
                if rise is not None:  # rate: the extrapolated rise over the range's seconds
                    per = rise / span if call.name == "rate" and span else rise
                    out.append((_without_name(labels), per))
            return out
        raise QueryError(f"function {call.name} is not supported here")

    @staticmethod
    def _aggregate(agg: Aggregate, vector: Vector) -> Vector:
        groups: dict[Labels, list[float]] = {}
        for labels, value in vector:
            kept = tuple(pair for pair in labels if pair[0] in agg.by and pair[1])
            groups.setdefault(kept, []).append(value)
        combine: dict[str, Callable[[list[float]], float]] = {
            "sum": math.fsum, "max": max, "min": min, "count": lambda v: float(len(v)),
            "avg": lambda v: math.fsum(v) / len(v),
        }
        return [(labels, combine[agg.op](values)) for labels, values in groups.items()]

    def _binary(self, b: Binary, t: float) -> Vector:
        lhs, rhs = self.instant(b.lhs, t), self.instant(b.rhs, t)
        compare = b.op in _COMPARE
        if isinstance(lhs, float) and isinstance(rhs, float):
            raise QueryError("an operation of two scalars is not supported here")
        if isinstance(rhs, float) or isinstance(lhs, float):
            vector, scalar = (lhs, rhs) if isinstance(rhs, float) else (rhs, lhs)
            assert isinstance(vector, list) and isinstance(scalar, float)
            out: Vector = []
            for labels, value in vector:
                a, c = (value, scalar) if isinstance(rhs, float) else (scalar, value)
                if compare:
                    if _COMPARE[b.op](a, c):
                        out.append((labels, value))
                else:
                    out.append((_without_name(labels), _ARITHMETIC[b.op](a, c)))
            return out
        return self._match(b, lhs, rhs)

    @staticmethod
    def _match(b: Binary, lhs: Vector, rhs: Vector) -> Vector:
        def signature(labels: Labels) -> Labels:
            if b.on is not None:
                return tuple(pair for pair in labels if pair[0] in b.on)
            return _without_name(labels)

        right: dict[Labels, float] = {}
        for labels, value in rhs:
            if signature(labels) in right:
                raise QueryError("many-to-many matching: the right side is not unique")
            right[signature(labels)] = value
        out: Vector = []
        seen: set[Labels] = set()
        for labels, value in lhs:
            key = signature(labels)
            if key not in right:
                continue
            if not b.group_left:
                if key in seen:
                    raise QueryError("many-to-one matching needs group_left")
                seen.add(key)
            if b.op in _COMPARE:
                if _COMPARE[b.op](value, right[key]):
                    out.append((labels, value))
                continue
            result = _without_name(labels)
            if b.on is not None and not b.group_left:
                result = key
            out.append((result, _ARITHMETIC[b.op](value, right[key])))
        return out

    def matrix(self, tree: object, steps: list[float]) -> Matrix:
        """Return ``tree`` evaluated at each of ``steps``, one series per label set."""
        series: dict[Labels, list[tuple[float, float]]] = {}
        for t in steps:
            for labels, value in self._vector(tree, t):
                series.setdefault(labels, []).append((t, value))
        return sorted(series.items())
