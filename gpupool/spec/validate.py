"""The validation pipeline: file -> document -> schema -> model -> checks -> placed diagnostics.

This module owns the order of the stages and the rule that later stages run only on input the
earlier ones accepted (no model is built from schema-invalid data). Schema errors set aside only
the parts they lie in: a pool or tenant (and the tenants naming a broken pool), a field of a
section, or a section. The stack without them is built and checked, and each finding whose rule
reads nothing set aside (``checks._FAMILIES`` says what each family reads) is reported with the
schema errors, so one round shows every problem. The stack's ``acknowledge`` list is applied
last (``gpupool.spec.acknowledge``): the warnings it names leave the diagnostics for the
result's ``acknowledged``. It is what ``gpupool validate`` and every other command call first.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from gpupool import model
from gpupool.spec import acknowledge, checks, diagnostics, load, schema
from gpupool.spec.acknowledge import Acknowledged
from gpupool.spec.diagnostics import Diagnostic


@dataclass(frozen=True)
class ValidateResult:
    """What validating one file gave: its diagnostics and, when it is valid, its stack."""

    filename: str
    diagnostics: tuple[Diagnostic, ...]
    stack: model.Stack | None
    document: load.Document | None
    #: The warnings the file's ``acknowledge`` list names, left out of ``diagnostics``.
    acknowledged: tuple[Acknowledged, ...] = ()

    @property
    def valid(self) -> bool:
        """True when no diagnostic is an error."""
        return not diagnostics.has_errors(self.diagnostics)

    def quieted(self) -> ValidateResult:
        """Return this result with its errors alone: what ``--quiet`` shows, in every format."""
        errors = tuple(d for d in self.diagnostics if d.is_error)
        return replace(self, diagnostics=errors, acknowledged=())


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
#: The mapping sections whose fields are set aside one by one.
_SECTIONS = ("metadata", "provider", "state", "cluster", "simulation")
#: Lists set aside whole by a schema error in any of their items (their checks compare items).
_WHOLE_LISTS = ("services",)
#: Read by the schema alone: an error there sets nothing aside.
_UNREAD = ("apiVersion", "kind")
#: Required fields no check reads as such: a broken one is replaced by a valid stand-in.
_STAND_INS: Mapping[tuple[str, str], str] = {("metadata", "name"): "stack"}
#: How many times setting parts aside may uncover another schema error (a removed field that
#: its section requires) before validation gives up on the checks.
_ROUNDS = 4


@dataclass
class _SetAside:
    """What the schema errors put out of the checks' reach.

    ``items``: pools and tenants by index; ``cuts``: the paths removed from the data (a field,
    or a whole optional section); ``fields``: what a finding must not rest on, in the terms of
    ``checks._FAMILIES`` (an unknown key makes its whole section unreliable: it may be a
    misspelling of any of its fields).
    """

    items: dict[str, set[int]] = field(default_factory=lambda: {p: set() for p in _PARTS})
    cuts: set[tuple[str, ...]] = field(default_factory=set)
    fields: set[str] = field(default_factory=set)

    def add(self, diags: list[Diagnostic]) -> bool:
        """Take in schema errors; False when one lies where nothing can be set aside."""
        for d in diags:
            path = d.path
            head = path[0] if path else None
            if head in _UNREAD:
                continue
            if head == "acknowledge":  # no check reads it: the list is left out, and unapplied
                self.cuts.add(("acknowledge",))
                continue
            if head in _WHOLE_LISTS:
                self.cuts.add((str(head),))
                self.fields.add(str(head))
            elif head in _PARTS and len(path) >= 2 and isinstance(path[1], int):
                self.items[str(head)].add(path[1])
            elif head in _SECTIONS and len(path) == 1:
                self.cuts.add((str(head),))
                self.fields.add(str(head))
            elif head in _SECTIONS:
                self.cuts.add((str(head), str(path[1])))
                whole = d.code == "schema.unknown-key" and len(path) == 2
                self.fields.add(str(head) if whole else f"{head}.{path[1]}")
            else:
                return False
        return True


def _cut(data: Mapping[str, Any], cuts: set[tuple[str, ...]]) -> dict[str, Any] | None:
    """Return ``data`` without the cut fields and sections; None when a cut leaves no stack."""
    rest = dict(data)
    for path in sorted(cuts):
        section = path[0]
        if len(path) == 1:
            if section in ("metadata", "provider"):
                return None
            rest.pop(section, None)
            continue
        if path == ("provider", "cloud"):
            return None  # every rule reads the cloud
        if not isinstance(rest.get(section), dict):
            continue
        rest[section] = {k: v for k, v in rest[section].items() if k != path[1]}
        if path in _STAND_INS:
            rest[section][path[1]] = _STAND_INS[path]
    return rest


def _prune(
    data: dict[str, Any], broken: dict[str, set[int]]
) -> tuple[dict[str, Any], dict[str, list[int]]] | None:
    """Drop the broken pools and tenants, and the tenants naming a broken pool.

    Return the rest and, for each list, the original index of each item kept.
    """
    items = {part: data.get(part) or [] for part in _PARTS}
    if not all(isinstance(v, list) for v in items.values()):
        return None
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
    return rest, kept


def _checks_of_valid_parts(
    data: Mapping[str, Any], diags: list[Diagnostic], filename: str
) -> list[Diagnostic]:
    """Run the checks without the parts schema errors lie in; keep what rests on valid parts.

    A broken pool or tenant is left out (a tenant naming a broken pool too: its quota cannot be
    judged without the pool); a broken field is removed, or a whole section where the error is
    on the section itself. Removing a field its section requires can uncover another schema
    error, which sets more aside. Each check family says what it reads (``checks._FAMILIES``):
    its findings are kept when none of that was set aside.
    """
    aside = _SetAside()
    errors = diags
    for _ in range(_ROUNDS):
        if not aside.add(errors):
            return []
        cut = _cut(data, aside.cuts)
        pruned = None if cut is None else _prune(cut, aside.items)
        if pruned is None:
            return []
        rest, kept = pruned
        errors = schema.validate(rest)
        if not errors:
            break
    else:
        return []
    broken = set(aside.fields) | {p for p in _PARTS if len(kept[p]) < len(data.get(p) or [])}
    out = []
    for d in checks.run(model.build(rest, filename), rest, frozenset(broken)):
        if _in_cut(d.path, aside.cuts):
            continue
        if len(d.path) >= 2 and d.path[0] in _PARTS:
            part, index = str(d.path[0]), d.path[1]
            if not isinstance(index, int) or not 0 <= index < len(kept[part]):
                continue
            d = replace(d, path=(part, kept[part][index], *d.path[2:]))
        out.append(d)
    return out


def _in_cut(path: tuple[str | int, ...], cuts: set[tuple[str, ...]]) -> bool:
    """Return whether ``path`` lies in a removed field or section (a finding on its default)."""
    return any(path[: len(c)] == c for c in cuts)


def _names(tenant: Any) -> list[str]:
    """Return the pool names a (schema-valid) tenant mapping lists."""
    pools = tenant.get("pools") if isinstance(tenant, dict) else None
    return [p for p in pools if isinstance(p, str)] if isinstance(pools, list) else []


def validate_document(
    doc: load.Document,
) -> tuple[list[Diagnostic], model.Stack | None, tuple[Acknowledged, ...]]:
    """Validate a parsed document.

    Return its placed diagnostics, the stack when it is valid, and the acknowledged warnings.
    """
    schema_errors = schema.validate(doc.data)
    diags = list(schema_errors)
    stack = None
    if not diagnostics.has_errors(diags):
        stack = model.build(doc.data, doc.filename)
        diags += checks.run(stack, doc.data)
    elif isinstance(doc.data, dict):
        diags += _checks_of_valid_parts(doc.data, diags, doc.filename)
    data = doc.data if isinstance(doc.data, dict) else {}
    shown, acknowledged = acknowledge.apply(
        data, acknowledge.entries(doc.data, schema_errors), _place(doc, diags),
        complete=not schema_errors,
    )
    placed = diagnostics.sort(_place(doc, shown))
    acked = sorted(acknowledged, key=lambda a: diagnostics.sort_key(a.diagnostic))
    return placed, (None if diagnostics.has_errors(placed) else stack), tuple(acked)


def validate_text(text: str, filename: str) -> ValidateResult:
    """Validate stack YAML given as text."""
    doc, diags = load.parse(text, filename)
    if doc is None:
        return ValidateResult(filename, tuple(diagnostics.sort(diags)), None, None)
    more, stack, acknowledged = validate_document(doc)
    all_diags = diagnostics.sort([*diags, *more])
    if diagnostics.has_errors(all_diags):
        stack = None
    return ValidateResult(filename, tuple(all_diags), stack, doc, acknowledged)


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
