"""JSON Schema validation of a loaded stack, turned into placed-ready diagnostics.

This module owns the compiled validator (built once, on first use) and the translation of
``jsonschema`` errors into diagnostics that point at the right token: unknown keys at the key,
missing keys at the parent mapping, bad values at the value, with "did you mean" suggestions for
near-miss keys and enum values. A valid document is recognised by ``spec.compiled``'s yes/no
check alone; ``jsonschema`` is imported and run only for documents that check says no to.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from typing import Any

from gpupool import didyoumean
from gpupool.resources import schema_path
from gpupool.spec.compiled import compile_schema, is_integer, is_number
from gpupool.spec.diagnostics import Diagnostic, Path, error

_TYPE_WORDS = {
    "object": "a mapping",
    "array": "a list",
    "string": "a string",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
}


@cache
def schema() -> dict[str, Any]:
    """Return the published stack JSON Schema."""
    with open(schema_path(), encoding="utf-8") as fh:
        data: dict[str, Any] = json.load(fh)
    return data


@cache
def _fast_check() -> Callable[[Any], bool] | None:
    return compile_schema(schema())


def _surely_valid(data: Any) -> bool:
    """Return True when the compiled check finds ``data`` valid (``jsonschema`` would agree)."""
    check = _fast_check()
    if check is None:
        return False
    try:
        return check(data)
    except Exception:  # whatever went wrong, jsonschema decides (and reports) as before
        return False


@cache
def _validator() -> Any:
    import jsonschema  # imported lazily: only validation needs it

    cls = jsonschema.validators.validator_for(schema())
    # the compiled check's rule: NaN and infinities are not numbers (spec.compiled)
    checker = cls.TYPE_CHECKER.redefine_many(
        {"number": lambda _, x: is_number(x), "integer": lambda _, x: is_integer(x)}
    )
    return jsonschema.validators.extend(cls, type_checker=checker)(schema())


def _field(path: Path) -> str:
    for part in reversed(path):
        if isinstance(part, str):
            return part
    return "stack"


def _did_you_mean(word: str, choices: list[str]) -> str:
    hit = didyoumean.closest(word, choices, 1, cutoff=0.6)
    return f" Did you mean '{hit[0]}'?" if hit else ""


def _description(sch: dict[str, Any], key: str) -> str:
    return str(sch.get("properties", {}).get(key, {}).get("description", ""))


def _describe(value: Any) -> str:
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _translate(err: Any) -> list[Diagnostic]:
    path: Path = tuple(err.absolute_path)
    v, sch, inst = err.validator, err.schema, err.instance
    name = _field(path)
    if v == "additionalProperties" and isinstance(inst, dict):
        known = list(sch.get("properties", {}))
        out = []
        for key in inst:
            if key in sch.get("properties", {}):
                continue
            if isinstance(sch.get("additionalProperties"), dict):
                continue
            allowed = ", ".join(known) if known else "no keys"
            out.append(
                error(
                    "schema.unknown-key",
                    f"Unknown key '{key}'",
                    f"'{key}' is not a field of {name}.{_did_you_mean(str(key), known)} "
                    f"Allowed: {allowed}.",
                    (*path, key),
                    anchor="key",
                )
            )
        return out
    if v == "required" and isinstance(inst, dict):
        return [
            error(
                "schema.required",
                f"Missing key '{key}'",
                f"{name} needs '{key}'. {_description(sch, key)}".strip(),
                path,
                anchor="parent",
            )
            for key in err.validator_value
            if key not in inst
        ]
    if v in ("enum", "const"):
        allowed = list(err.validator_value) if v == "enum" else [err.validator_value]
        hint = _did_you_mean(str(inst), [str(a) for a in allowed]) if isinstance(inst, str) else ""
        choices = ", ".join(str(a) for a in allowed)
        return [
            error(
                "schema.enum",
                f"Invalid value for '{name}'",
                f"{_describe(inst)} is not one of: {choices}.{hint}",
                path,
            )
        ]
    if v == "type":
        want = err.validator_value
        wants = [want] if isinstance(want, str) else list(want)
        words = " or ".join(_TYPE_WORDS.get(w, w) for w in wants)
        return [
            error(
                "schema.type",
                f"Wrong type for '{name}'",
                f"{name} must be {words}; got {_describe(inst)}.",
                path,
            )
        ]
    if v == "propertyNames":
        return [
            error(
                "schema.bad-key",
                f"Invalid key in '{name}'",
                f"{_describe(inst)}: {err.message}.",
                path,
            )
        ]
    desc = sch.get("description", "")
    detail = f"{err.message}." + (f" {desc}" if desc else "")
    return [error(f"schema.{v}", f"Invalid value for '{name}'", detail, path)]


def validate(data: Any) -> list[Diagnostic]:
    """Validate stack data against the JSON Schema and return its diagnostics (unplaced)."""
    if _surely_valid(data):
        return []
    out: list[Diagnostic] = []
    for err in _validator().iter_errors(data):
        if err.validator in ("allOf", "if", "then"):
            continue
        out.extend(_translate(err))
    return out
