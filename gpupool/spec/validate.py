"""The validation pipeline: file -> document -> schema -> model -> checks -> placed diagnostics.

This module owns the order of the stages and the rule that later stages run only on input the
earlier ones accepted (no model is built from schema-invalid data). When every schema error lies
inside pools or tenants, the checks still run on the rest: the stack without those parts (and
without the tenants that name a broken pool) is built and checked, and what the checks find in
the parts that are valid is reported with the schema errors, so one round shows every problem. It
is what ``gpupool validate`` and every other command call first.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from gpupool import model
from gpupool.spec import checks, diagnostics, load, schema
from gpupool.spec.diagnostics import Diagnostic


@dataclass(frozen=True)
class ValidateResult:
    """What validating one file gave: its diagnostics and, when it is valid, its stack."""

    filename: str
    diagnostics: tuple[Diagnostic, ...]
    stack: model.Stack | None
    document: load.Document | None

    @property
    def valid(self) -> bool:
        """True when no diagnostic is an error."""
        return not diagnostics.has_errors(self.diagnostics)


def _place(doc: load.Document, diags: list[Diagnostic]) -> list[Diagnostic]:
    out = []
    for d in diags:
        if d.range is not None:
            out.append(d)
            continue
        # A missing key is reported on its parent; where the parent has a key of its own
        # ("sharing:"), that line is where a reader looks for it.
        anchor = "key" if d.anchor in ("key", "parent") else "value"
        out.append(d.placed(doc.locate(d.path, anchor)))
    return out


#: The lists whose items are checked one by one: a schema error in one item leaves the others.
_PARTS = ("pools", "tenants")


def _broken_parts(diags: list[Diagnostic]) -> dict[str, set[int]] | None:
    """Return the pools and tenants (by index) the schema errors lie in; None if one is outside."""
    broken: dict[str, set[int]] = {part: set() for part in _PARTS}
    for d in diags:
        path = d.path
        if len(path) < 2 or path[0] not in broken or not isinstance(path[1], int):
            return None
        broken[str(path[0])].add(path[1])
    return broken


def _checks_of_valid_parts(
    data: Mapping[str, Any], broken: dict[str, set[int]], filename: str
) -> list[Diagnostic]:
    """Run the checks on the stack without its broken parts; keep what they find in valid parts.

    A tenant naming a broken pool goes too (its quota cannot be judged without the pool).
    Diagnostics outside the kept pools and tenants are left for the next round: they may come
    from what is missing.
    """
    items = {part: data.get(part) or [] for part in _PARTS}
    if not all(isinstance(v, list) for v in items.values()):
        return []
    lost = {
        pool.get("name")
        for i, pool in enumerate(items["pools"])
        if i in broken["pools"] and isinstance(pool, dict) and isinstance(pool.get("name"), str)
    }
    kept = {part: [i for i in range(len(items[part])) if i not in broken[part]] for part in _PARTS}
    kept["tenants"] = [i for i in kept["tenants"] if not lost & set(_names(items["tenants"][i]))]
    rest = dict(data)
    for part in _PARTS:
        if part in data:
            rest[part] = [items[part][i] for i in kept[part]]
    if schema.validate(rest):
        return []
    out = []
    for d in checks.run(model.build(rest, filename), rest):
        if len(d.path) < 2 or d.path[0] not in kept:
            continue
        part, index = str(d.path[0]), d.path[1]
        if isinstance(index, int) and 0 <= index < len(kept[part]):
            out.append(replace(d, path=(part, kept[part][index], *d.path[2:])))
    return out


def _names(tenant: Any) -> list[str]:
    """Return the pool names a (schema-valid) tenant mapping lists."""
    pools = tenant.get("pools") if isinstance(tenant, dict) else None
    return [p for p in pools if isinstance(p, str)] if isinstance(pools, list) else []


def validate_document(doc: load.Document) -> tuple[list[Diagnostic], model.Stack | None]:
    """Validate a parsed document; return its placed diagnostics and, if valid, the stack."""
    diags = schema.validate(doc.data)
    stack = None
    if not diagnostics.has_errors(diags):
        stack = model.build(doc.data, doc.filename)
        diags += checks.run(stack, doc.data)
    elif (broken := _broken_parts(diags)) is not None:
        diags += _checks_of_valid_parts(doc.data, broken, doc.filename)
    placed = diagnostics.sort(_place(doc, diags))
    return placed, (None if diagnostics.has_errors(placed) else stack)


def validate_text(text: str, filename: str) -> ValidateResult:
    """Validate stack YAML given as text."""
    doc, diags = load.parse(text, filename)
    if doc is None:
        return ValidateResult(filename, tuple(diagnostics.sort(diags)), None, None)
    more, stack = validate_document(doc)
    all_diags = diagnostics.sort([*diags, *more])
    if diagnostics.has_errors(all_diags):
        stack = None
    return ValidateResult(filename, tuple(all_diags), stack, doc)


def validate_file(path: Path, display_name: str | None = None) -> ValidateResult:
    """Validate a stack file.

    Raises:
        InputError: the path cannot be read as a file.

    """
    name = display_name or str(path)
    text, diags = load.read_text(path, name)
    if text is None:
        return ValidateResult(name, tuple(diags), None, None)
    return validate_text(text, name)
