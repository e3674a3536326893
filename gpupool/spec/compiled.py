"""A compiled yes/no check of the stack JSON Schema: the fast path for files that are valid.

This module owns ``compile_schema``: it turns the draft-07 schema into nested Python closures that
answer one question, "would ``jsonschema`` report no error here?", without importing
``jsonschema`` at all. ``spec.schema`` asks it first and, only when the answer is no, runs
``jsonschema`` for the diagnostics; a valid file (the common case: pre-commit hooks, CI) is never
walked twice and ``gpupool validate`` starts without loading ``jsonschema``.

Every keyword is checked exactly as ``jsonschema``'s Draft7Validator checks it (same type rules,
same ``equal`` for ``enum``/``const``/``uniqueItems``, ``re.search`` for ``pattern``), with one
type rule stricter on both sides: NaN and infinities are not numbers (``is_number``;
``spec.schema`` gives ``jsonschema`` the same rule), since every comparison with NaN is false and
so NaN would pass every ``minimum`` and ``maximum``. The check
may say "invalid" where ``jsonschema`` would not (the caller then asks ``jsonschema``, so nothing
changes), never the reverse: a schema keyword this module does not know makes ``compile_schema``
return None, and the caller always uses ``jsonschema``.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

Check = Callable[[Any], bool]

# Keywords that annotate and never fail (jsonschema ignores them, or, like "then", reads them
# through another keyword).
_ANNOTATIONS = frozenset(
    {"$schema", "$id", "$comment", "title", "description", "default", "examples", "then", "else"}
)


class _Unsupported(Exception):
    """The schema uses something this module does not check."""


def compile_schema(schema: Any) -> Check | None:
    """Return a function telling whether an instance is valid, or None when it cannot."""
    try:
        return _compile(schema)
    except (_Unsupported, re.error, TypeError, ValueError):
        return None


def _yes(_: Any) -> bool:
    return True


def _no(_: Any) -> bool:
    return False


def is_integer(x: Any) -> bool:
    """Tell whether ``x`` is a draft-07 integer: a number whose fraction is zero, not a bool."""
    if isinstance(x, bool):
        return False
    return isinstance(x, int) or (isinstance(x, float) and x.is_integer())


def is_number(x: Any) -> bool:
    """Tell whether ``x`` is a finite number (NaN and infinities are not JSON numbers)."""
    if isinstance(x, bool) or not isinstance(x, numbers.Number):
        return False
    return not isinstance(x, float) or math.isfinite(x)


_TYPES: dict[str, Check] = {
    "array": lambda x: isinstance(x, list),
    "boolean": lambda x: isinstance(x, bool),
    "integer": is_integer,
    "null": lambda x: x is None,
    "number": is_number,
    "object": lambda x: isinstance(x, dict),
    "string": lambda x: isinstance(x, str),
}


class _Sentinel:
    """Stands for True or False so that they differ from 1 and 0 (``jsonschema._utils``)."""

    __slots__ = ()


_TRUE, _FALSE = _Sentinel(), _Sentinel()


def _unbool(x: Any) -> Any:
    if x is True:
        return _TRUE
    if x is False:
        return _FALSE
    return x


def _equal(one: Any, two: Any) -> bool:
    """Return ``jsonschema._utils.equal(one, two)``: bools differ from numbers, deeply."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return bool(one == two)
    if isinstance(one, Sequence) and isinstance(two, Sequence):
        return len(one) == len(two) and all(_equal(i, j) for i, j in zip(one, two, strict=True))
    if isinstance(one, Mapping) and isinstance(two, Mapping):
        return len(one) == len(two) and all(
            key in two and _equal(value, two[key]) for key, value in one.items()
        )
    return bool(_unbool(one) == _unbool(two))


def _unique(items: list[Any]) -> bool:
    """Return True when no two items are ``_equal`` (at least as strict as ``jsonschema``)."""
    if all(isinstance(i, str) for i in items):
        return len(set(items)) == len(items)
    seen: list[Any] = []
    for item in items:
        if any(_equal(s, item) for s in seen):
            return False
        seen.append(item)
    return True


def _all(checks: list[Check]) -> Check:
    if not checks:
        return _yes
    if len(checks) == 1:
        return checks[0]
    frozen = tuple(checks)

    def check(x: Any) -> bool:
        return all(c(x) for c in frozen)

    return check


def _compile(schema: Any) -> Check:
    if schema is True:
        return _yes
    if schema is False:
        return _no
    if not isinstance(schema, dict):
        raise _Unsupported(f"a schema must be an object or a boolean, not {schema!r}")
    known = {
        "type",
        "enum",
        "const",
        "properties",
        "additionalProperties",
        "required",
        "propertyNames",
        "minProperties",
        "maxProperties",
        "items",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "allOf",
        "if",
    }
    unknown = set(schema) - known - _ANNOTATIONS
    if unknown:
        raise _Unsupported(f"keywords {sorted(unknown)}")
    checks: list[Check] = []
    if "type" in schema:
        checks.append(_type(schema["type"]))
    if "enum" in schema:
        checks.append(_enum(list(schema["enum"])))
    if "const" in schema:
        checks.append(_const(schema["const"]))
    if _OBJECT_KEYWORDS & set(schema):
        checks.append(_object(schema))
    if _ARRAY_KEYWORDS & set(schema):
        checks.append(_array(schema))
    if _STRING_KEYWORDS & set(schema):
        checks.append(_string(schema))
    if _NUMBER_KEYWORDS & set(schema):
        checks.append(_number(schema))
    if "allOf" in schema:
        checks.extend(_compile(sub) for sub in schema["allOf"])
    if "if" in schema:
        checks.append(_if(schema))
    return _all(checks)


_OBJECT_KEYWORDS = frozenset(
    {"properties", "additionalProperties", "required", "propertyNames", "minProperties"}
    | {"maxProperties"}
)
_ARRAY_KEYWORDS = frozenset({"items", "minItems", "maxItems", "uniqueItems"})
_STRING_KEYWORDS = frozenset({"minLength", "maxLength", "pattern"})
_NUMBER_KEYWORDS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"})


def _type(types: Any) -> Check:
    names = [types] if isinstance(types, str) else list(types)
    if not names or not all(isinstance(n, str) and n in _TYPES for n in names):
        raise _Unsupported(f"type {types!r}")
    tests = tuple(_TYPES[n] for n in names)
    if len(tests) == 1:
        return tests[0]
    return lambda x: any(t(x) for t in tests)


def _enum(choices: list[Any]) -> Check:
    if all(isinstance(c, str) for c in choices):
        strings = frozenset(choices)
        # equal() compares anything with a string by ==; only a str equals a str here
        return lambda x: isinstance(x, str) and x in strings
    return lambda x: any(_equal(c, x) for c in choices)


def _const(value: Any) -> Check:
    if isinstance(value, str):
        return lambda x: isinstance(x, str) and x == value
    return lambda x: _equal(x, value)


def _object(schema: dict[str, Any]) -> Check:
    props = {key: _compile(sub) for key, sub in schema.get("properties", {}).items()}
    extra = schema.get("additionalProperties", True)
    if isinstance(extra, dict):
        other: Check | None = _compile(extra)
        closed = False
    elif extra is True or extra is False:
        other, closed = None, extra is False
    else:
        raise _Unsupported(f"additionalProperties {extra!r}")
    required = tuple(schema.get("required", ()))
    if not all(isinstance(r, str) for r in required):
        raise _Unsupported("required names must be strings")
    names = _compile(schema["propertyNames"]) if "propertyNames" in schema else None
    least = schema.get("minProperties")
    most = schema.get("maxProperties")

    def check(x: Any) -> bool:
        if not isinstance(x, dict):
            return True
        for key in required:
            if key not in x:
                return False
        if least is not None and len(x) < least:
            return False
        if most is not None and len(x) > most:
            return False
        for key, value in x.items():
            if names is not None and not names(key):
                return False
            sub = props.get(key) if isinstance(key, str) else None
            if sub is not None:
                if not sub(value):
                    return False
            # a non-string key equal to a property name (never from YAML): stay strict
            elif key in props or closed or (other is not None and not other(value)):
                return False
        return True

    return check


def _array(schema: dict[str, Any]) -> Check:
    items = schema.get("items", True)
    if isinstance(items, list):
        positional: tuple[Check, ...] | None = tuple(_compile(s) for s in items)
        each = _yes
    else:
        positional, each = None, _compile(items)
    least = schema.get("minItems")
    most = schema.get("maxItems")
    unique = bool(schema.get("uniqueItems", False))

    def check(x: Any) -> bool:
        if not isinstance(x, list):
            return True
        if least is not None and len(x) < least:
            return False
        if most is not None and len(x) > most:
            return False
        if positional is not None:
            for item, sub in zip(x, positional, strict=False):
                if not sub(item):
                    return False
        elif each is not _yes:
            for item in x:
                if not each(item):
                    return False
        return not (unique and not _unique(x))

    return check


def _string(schema: dict[str, Any]) -> Check:
    least = schema.get("minLength")
    most = schema.get("maxLength")
    search = re.compile(schema["pattern"]).search if "pattern" in schema else None

    def check(x: Any) -> bool:
        if not isinstance(x, str):
            return True
        if least is not None and len(x) < least:
            return False
        if most is not None and len(x) > most:
            return False
        return search is None or search(x) is not None

    return check


def _number(schema: dict[str, Any]) -> Check:
    low = schema.get("minimum")
    high = schema.get("maximum")
    above = schema.get("exclusiveMinimum")
    below = schema.get("exclusiveMaximum")
    for bound in (low, high, above, below):
        if bound is not None and not is_number(bound):
            raise _Unsupported(f"bound {bound!r}")

    def check(x: Any) -> bool:
        if not is_number(x):
            return True  # the type check refuses NaN and infinities
        if low is not None and x < low:
            return False
        if high is not None and x > high:
            return False
        if above is not None and x <= above:
            return False
        return not (below is not None and x >= below)

    return check


def _if(schema: dict[str, Any]) -> Check:
    cond = _compile(schema["if"])
    then = _compile(schema["then"]) if "then" in schema else _yes
    other = _compile(schema["else"]) if "else" in schema else _yes
    return lambda x: then(x) if cond(x) else other(x)
