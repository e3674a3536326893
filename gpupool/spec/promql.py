"""A small PromQL parser: whether a query is valid, and whether it yields one series at most.

This module owns ``parse``, which reads a PromQL expression as Prometheus's parser does
(prometheus ``promql/parser``: its lexer's tokens, the operator precedence of its grammar, the
functions and aggregations of Prometheus 2.x and the type rules that reject ``rate(x)`` or
``sum(x)[5m]``) and returns what the services' checks need: the expression's type and whether it
yields at most one series. Its verdicts are held to ``promtool check rules`` in the tests
(``tests/spec/test_promql.py``), which is the one judge of validity.

One series is what KEDA's Prometheus scaler needs: it refuses a result of several elements
("prometheus query ... returned multiple elements", kedacore/keda
``pkg/scalers/prometheus_scaler.go``). A query yields at most one series when its top is a
scalar, an aggregation without grouping labels (``sum``, ``avg``, ``max``, ``min``, ``count``,
``group``, ``stddev``, ``stdvar``, ``quantile``; ``topk``/``bottomk`` with k 1), ``vector()``,
``absent()``, ``histogram_quantile`` over buckets summed ``by (le)``, or a function or
operation over such expressions only.

What it does not do: it does not check regular expressions in ``=~`` matchers with Go's RE2 (a
pattern Python's ``re`` reads is taken), and it refuses expressions nested deeper than
``MAX_DEPTH`` that Prometheus would read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpupool.spec.promql_names import (
    AGGREGATIONS,
    FUNCTIONS,
    MATRIX,
    SCALAR,
    SINGLE_AGGREGATIONS,
    STRING,
    VECTOR,
)

MAX_DEPTH = 50

_KEYWORDS = ("by", "without", "on", "ignoring", "group_left", "group_right", "bool", "offset",
             "and", "or", "unless", "atan2")  # fmt: skip
#: Binary operators by precedence, loosest first (prometheus ``promql/parser/lex.go``).
_LEVELS: tuple[tuple[str, ...], ...] = (
    ("or",), ("and", "unless"), ("==", "!=", "<=", "<", ">=", ">"), ("+", "-"),
    ("*", "/", "%", "atan2"),
)
_COMPARISONS = ("==", "!=", "<=", "<", ">=", ">")
_SET_OPS = ("and", "or", "unless")

_TOKEN = re.compile(
    r"""(?P<space>[ \t\r\n]+|\#[^\n]*)
      | (?P<number>0[xX][0-9a-fA-F]+|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)
      | (?P<ident>[a-zA-Z_:][a-zA-Z0-9_:]*)
      | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`[^`]*`)
      | (?P<op>=~|!~|!=|==|<=|>=|[-+*/%^<>=(){}\[\],:@])""",
    re.X,
)
_DURATION = re.compile(r"^(?:[0-9]+(?:ms|s|m|h|d|w|y))+$")
_LABEL = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")


class PromQLError(ValueError):
    """The text is not a PromQL expression; ``offset`` is where the parser stopped."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


@dataclass(frozen=True)
class Expr:
    """What a parsed expression is: its type, and whether it yields at most one series."""

    type: str
    single: bool
    #: A plain vector selector (a range may follow it), an aggregation's grouping labels.
    selector: bool = False
    grouping: tuple[str, ...] | None = None
    number: float | None = None  # a number literal's value


@dataclass(frozen=True)
class _Tok:
    kind: str
    text: str
    at: int


def _tokens(text: str) -> list[_Tok]:
    out: list[_Tok] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise PromQLError(f"unexpected character {text[pos]!r}", pos)
        kind = m.lastgroup or ""
        if kind != "space":
            word = m.group()
            if kind == "ident" and word.lower() in ("inf", "nan"):
                kind = "number"
            out.append(_Tok(kind, word, pos))
        pos = m.end()
    out.append(_Tok("end", "", len(text)))
    return out


class _Parser:
    def __init__(self, text: str) -> None:
        self.toks = _tokens(text)
        self.i = 0
        self.depth = -1  # the top expression is at depth 0, each parenthesis one deeper

    # -- token helpers ------------------------------------------------------------------------
    @property
    def tok(self) -> _Tok:
        return self.toks[self.i]

    def peek(self, ahead: int = 1) -> _Tok:
        return self.toks[min(self.i + ahead, len(self.toks) - 1)]

    def take(self) -> _Tok:
        tok = self.tok
        self.i += 1
        return tok

    def expect(self, text: str) -> _Tok:
        if self.tok.text != text or self.tok.kind not in ("op", "ident"):
            raise PromQLError(f"expected {text!r}, found {self._shown()}", self.tok.at)
        return self.take()

    def _shown(self) -> str:
        return "the end" if self.tok.kind == "end" else repr(self.tok.text)

    def fail(self, message: str) -> PromQLError:
        return PromQLError(message, self.tok.at)

    # -- expressions --------------------------------------------------------------------------
    def expr(self, level: int = 0) -> Expr:
        self.depth += level == 0
        if self.depth > MAX_DEPTH:
            raise self.fail(f"expression nested deeper than {MAX_DEPTH}")
        try:
            if level == len(_LEVELS):
                return self.power()
            left = self.expr(level + 1)
            while self.tok.kind in ("op", "ident") and self.tok.text.lower() in _LEVELS[level]:
                op = self.take().text.lower()
                left = self.binary(left, op, level)
            return left
        finally:
            self.depth -= level == 0

    def power(self) -> Expr:
        base = self.unary()
        if self.tok.kind == "op" and self.tok.text == "^":
            self.take()
            return self.binary(base, "^", None)
        return base

    def binary(self, left: Expr, op: str, level: int | None) -> Expr:
        at = self.tok.at
        use_bool = False
        if self.tok.kind == "ident" and self.tok.text == "bool":
            if op not in _COMPARISONS:
                raise self.fail("bool modifier can only be used on comparison operators")
            self.take()
            use_bool = True
        matching = self.matching()
        right = self.expr(level + 1) if level is not None else self.power()
        return _combine(left, op, right, use_bool=use_bool, matching=matching, at=at)

    def matching(self) -> bool:
        """Read ``on(...)``/``ignoring(...)`` and a group modifier; True when labels are named."""
        if not (self.tok.kind == "ident" and self.tok.text in ("on", "ignoring")):
            return False
        self.take()
        named = bool(self.labels())
        if self.tok.kind == "ident" and self.tok.text in ("group_left", "group_right"):
            self.take()
            if self.tok.text == "(":
                self.labels()
        return named

    def unary(self) -> Expr:
        if self.tok.kind == "op" and self.tok.text in ("+", "-"):
            self.take()
            inner = self.unary()
            if inner.type not in (SCALAR, VECTOR):
                raise self.fail("unary expression only allowed on expressions of type scalar "
                                "or instant vector")
            return Expr(inner.type, inner.single)
        return self.postfix(self.primary())

    def postfix(self, e: Expr) -> Expr:
        while True:
            if self.tok.text == "[" and self.tok.kind == "op":
                e = self.range(e)
            elif self.tok.kind == "ident" and self.tok.text == "offset":
                self.take()
                if self.tok.text == "-":
                    self.take()
                self.duration()
                e = self._modified(e, "offset")
            elif self.tok.kind == "op" and self.tok.text == "@":
                self.take()
                self.at_value()
                e = self._modified(e, "@")
            else:
                return e

    def _modified(self, e: Expr, what: str) -> Expr:
        if e.type not in (VECTOR, MATRIX) or not (e.selector or e.type == MATRIX):
            raise self.fail(f"{what} modifier must be preceded by an instant vector selector "
                            "or range vector selector or a subquery")
        return e

    def at_value(self) -> None:
        if self.tok.kind == "ident" and self.tok.text in ("start", "end"):
            self.take()
            self.expect("(")
            self.expect(")")
            return
        if self.tok.text in ("+", "-"):
            self.take()
        if self.tok.kind != "number":
            raise self.fail("unexpected @ modifier value, expected a timestamp")
        self.take()

    def range(self, e: Expr) -> Expr:
        self.take()  # [
        self.duration()
        if self.tok.kind == "op" and self.tok.text == ":":
            self.take()
            if self.tok.text != "]":
                self.duration()
            self.expect("]")
            if e.type != VECTOR:
                raise self.fail(f"subquery is only allowed on instant vector, got {e.type}")
            return Expr(MATRIX, e.single)
        self.expect("]")
        if not e.selector:
            raise self.fail("ranges only allowed for vector selectors")
        return Expr(MATRIX, e.single)

    def duration(self) -> None:
        text = self.tok.text
        nxt = self.peek()
        # the lexer reads "5m" as the number 5 and the name m ("5m:1m": the name m:1m), where
        # Prometheus's lexer reads durations inside brackets: split and rejoin them as it does
        if self.tok.kind == "number" and nxt.kind == "ident" and nxt.at == self.tok.at + len(text):
            if ":" in nxt.text:
                self._split(nxt)
                nxt = self.peek()
            text += nxt.text
            self.take()
        if not _DURATION.match(text):
            raise self.fail(f"bad duration {text!r}")
        self.take()

    def _split(self, tok: _Tok) -> None:
        head, _, tail = tok.text.partition(":")
        rest = [_Tok(r.kind, r.text, r.at + tok.at + len(head) + 1) for r in _tokens(tail)[:-1]]
        where = self.i + 1
        self.toks[where:where + 1] = [_Tok("ident", head, tok.at),
                                      _Tok("op", ":", tok.at + len(head)), *rest]

    def primary(self) -> Expr:
        tok = self.tok
        if tok.kind == "number":
            self.take()
            return Expr(SCALAR, True, number=_number(tok.text))
        if tok.kind == "string":
            self.take()
            return Expr(STRING, True)
        if tok.kind == "op" and tok.text == "(":
            self.take()
            inner = self.expr()
            self.expect(")")
            return Expr(inner.type, inner.single)
        if tok.kind == "op" and tok.text == "{":
            if not self.matchers():
                raise PromQLError("vector selector must contain at least one non-empty "
                                  "matcher", tok.at)
            return Expr(VECTOR, False, selector=True)
        if tok.kind == "ident":
            return self.named()
        raise self.fail(f"unexpected {self._shown()}")

    def named(self) -> Expr:
        name = self.tok.text
        nxt = self.peek()
        if name in AGGREGATIONS and (nxt.text == "(" or nxt.text in ("by", "without")):
            return self.aggregation()
        if nxt.kind == "op" and nxt.text == "(":
            return self.call()
        if name in _KEYWORDS:
            raise self.fail(f"unexpected {name!r}")
        self.take()
        if self.tok.kind == "op" and self.tok.text == "{":
            self.matchers()
        return Expr(VECTOR, False, selector=True)

    def matchers(self) -> bool:
        """Read ``{...}``; return whether one matcher matches something non-empty."""
        self.expect("{")
        non_empty = False
        while self.tok.text != "}":
            label = self.take()
            if label.kind != "ident" or not _LABEL.match(label.text):
                raise PromQLError(f"unexpected {label.text!r} in label matching", label.at)
            op = self.take()
            if op.text not in ("=", "!=", "=~", "!~"):
                raise PromQLError("expected a label matching operator", op.at)
            value = self.take()
            if value.kind != "string":
                raise PromQLError("expected a string in label matching", value.at)
            literal = _unquote(value)
            if op.text in ("=~", "!~"):
                try:
                    matches_empty = re.fullmatch(literal, "") is not None
                except re.error as exc:
                    raise PromQLError(f"bad regular expression: {exc}", value.at) from None
            else:
                matches_empty = literal == ""
            non_empty = non_empty or (op.text in ("=", "=~") and not matches_empty) or (
                op.text in ("!=", "!~") and matches_empty)
            if self.tok.text == ",":
                self.take()
            elif self.tok.text != "}":
                raise self.fail(f"unexpected {self._shown()} in label matching")
        self.take()
        return non_empty

    def labels(self) -> tuple[str, ...]:
        self.expect("(")
        out = []
        while self.tok.text != ")":
            tok = self.take()
            if tok.kind != "ident" or not _LABEL.match(tok.text):
                raise PromQLError(f"unexpected {tok.text!r} in grouping opts", tok.at)
            out.append(tok.text)
            if self.tok.text == ",":
                self.take()
            elif self.tok.text != ")":
                raise self.fail(f"unexpected {self._shown()} in grouping opts")
        self.take()
        return tuple(out)

    def grouping(self) -> tuple[str, tuple[str, ...]] | None:
        if self.tok.kind == "ident" and self.tok.text in ("by", "without"):
            how = self.take().text
            return how, self.labels()
        return None

    def aggregation(self) -> Expr:
        name = self.take().text
        group = self.grouping()
        self.expect("(")
        param = AGGREGATIONS[name]
        k: Expr | None = None
        if param is not None:
            k = self.expr()
            if k.type != param:
                raise self.fail(f"expected type {param} in aggregation parameter, got {k.type}")
            self.expect(",")
        inner = self.expr()
        if self.tok.text == "," and param is None:
            raise self.fail("wrong number of arguments for aggregate expression provided, "
                            "expected 1, got 2")
        self.expect(")")
        if inner.type != VECTOR:
            raise self.fail(f"expected type instant vector in aggregation expression, "
                            f"got {inner.type}")
        after = self.grouping()
        if group is not None and after is not None:
            raise self.fail("aggregation has two grouping clauses")
        group = group or after
        ungrouped = group is None or (group[0] == "by" and not group[1])
        single = ungrouped and (name in SINGLE_AGGREGATIONS or (
            name in ("topk", "bottomk") and k is not None and k.number == 1))
        by = group[1] if group is not None and group[0] == "by" else None
        return Expr(VECTOR, single, grouping=by)

    def call(self) -> Expr:
        tok = self.take()
        if tok.text not in FUNCTIONS:
            raise PromQLError(f"unknown function with name {tok.text!r}", tok.at)
        params, result = FUNCTIONS[tok.text]
        self.expect("(")
        args: list[Expr] = []
        while self.tok.text != ")":
            args.append(self.expr())
            if self.tok.text == ",":
                self.take()
                if self.tok.text == ")":
                    raise self.fail("unexpected ')' after ','")
            elif self.tok.text != ")":
                raise self.fail(f"unexpected {self._shown()} in function call")
        self.take()
        _check_args(tok, params, args)
        return Expr(result, _call_single(tok.text, result, args))


def _check_args(tok: _Tok, params: tuple[str, ...], args: list[Expr]) -> None:
    least = len([p for p in params if not p.endswith(("?", "*"))])
    most = None if params and params[-1].endswith("*") else len(params)
    if len(args) < least or (most is not None and len(args) > most):
        raise PromQLError(f"wrong number of arguments for function {tok.text!r}", tok.at)
    for n, arg in enumerate(args):
        want = params[min(n, len(params) - 1)].rstrip("?*")
        if arg.type != want:
            raise PromQLError(f"expected type {want} in call to function {tok.text!r}, "
                              f"got {arg.type}", tok.at)


def _call_single(name: str, result: str, args: list[Expr]) -> bool:
    if result == SCALAR or name in ("vector", "absent", "absent_over_time"):
        return True
    vectors = [a for a in args if a.type in (VECTOR, MATRIX)]
    if name == "histogram_quantile" and vectors and vectors[0].grouping == ("le",):
        return True  # one bucket set: the quantile drops le
    return all(a.single for a in vectors)  # no vector argument: a function of time


def _combine(left: Expr, op: str, right: Expr, *, use_bool: bool, matching: bool,
             at: int) -> Expr:
    for side in (left, right):
        if side.type not in (SCALAR, VECTOR):
            raise PromQLError("binary expression must contain only scalar and instant "
                              "vector types", at)
    scalars = left.type == SCALAR and right.type == SCALAR
    if op in _SET_OPS:
        if SCALAR in (left.type, right.type):
            raise PromQLError(f"set operator {op!r} not allowed in binary scalar expression", at)
        return Expr(VECTOR, left.single if op in ("and", "unless") else
                    left.single and right.single)
    if matching and SCALAR in (left.type, right.type):
        # Prometheus drops an empty on()/ignoring() between scalars, and refuses named labels
        raise PromQLError("vector matching only allowed between instant vectors", at)
    if scalars:
        if op in _COMPARISONS and not use_bool:
            raise PromQLError("comparisons between scalars must use BOOL modifier", at)
        return Expr(SCALAR, True)
    return Expr(VECTOR, left.single and right.single)


def _number(text: str) -> float:
    low = text.lower()
    if low.startswith("0x"):
        return float(int(low, 16))
    return float(low)


#: The escapes Go's strconv.Unquote reads (the Prometheus lexer unquotes strings with it).
_ESCAPE = re.compile(r"\\(?:[abfnrtv\\'\"]|x[0-9a-fA-F]{2}|[0-7]{3}|u[0-9a-fA-F]{4}"
                     r"|U[0-9a-fA-F]{8})")


def _unquote(tok: _Tok) -> str:
    body = tok.text[1:-1]
    if tok.text[0] == "`":
        return body
    pos = 0
    out = []
    while True:
        at = body.find("\\", pos)
        if at < 0:
            out.append(body[pos:])
            return "".join(out)
        m = _ESCAPE.match(body, at)
        if m is None:
            raise PromQLError("invalid syntax in a quoted string: a bad escape", tok.at + at)
        out.append(body[pos:at])
        code = m.group()[1:]
        out.append({"n": "\n", "t": "\t", "r": "\r"}.get(code, code if len(code) == 1 else "?"))
        pos = m.end()


def parse(text: str) -> Expr:
    """Parse a PromQL expression; any type may come out (``promtool`` takes them all).

    Raises:
        PromQLError: the text is not a valid expression (the message says why, ``offset``
            where).

    """
    parser = _Parser(text)
    if parser.tok.kind == "end":
        raise PromQLError("no expression found in input", 0)
    out = parser.expr()
    if parser.tok.kind != "end":
        raise parser.fail(f"unexpected {parser._shown()} after the expression")
    return out
