"""What each check family says it reads (``checks._FAMILIES``) covers what it really reads.

Validation sets a broken field aside by removing it and keeps a family's findings when the family
does not read that field; so removing any field a family does not declare must leave that family's
findings as they were. This is tried on every schema-valid stack in the examples and fixtures,
field by field, section by section, and pool by pool.
"""

from __future__ import annotations

import copy
import pkgutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gpupool import model
from gpupool.spec import checks, load, schema
from gpupool.spec.checks import _CODE_READS, _FAMILIES, _overlap, structure
from tests import paths
from tests.paths import FIXTURES

_SECTIONS = ("metadata", "provider", "state", "cluster", "simulation")
STACKS = sorted([*paths.EXAMPLES.glob("*.yaml"), *(FIXTURES / "valid").glob("*.yaml"),
                 *(FIXTURES / "invalid").glob("*.yaml")])


def _data(path: Path) -> Any:
    doc, _ = load.parse(path.read_text(encoding="utf-8"), str(path))
    if doc is None or schema.validate(doc.data):
        return None
    return doc.data


def _without(data: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield (what was removed, the schema-valid data without it)."""
    for section in _SECTIONS:
        if not isinstance(data.get(section), dict):
            continue
        if section not in ("metadata", "provider"):
            rest = copy.deepcopy(data)
            del rest[section]
            yield section, rest
        for key in data[section]:
            rest = copy.deepcopy(data)
            del rest[section][key]
            if not schema.validate(rest):
                yield f"{section}.{key}", rest
    for i, pool in enumerate(data["pools"][1:], 1):
        rest = copy.deepcopy(data)
        del rest["pools"][i]
        rest["tenants"] = [t for t in rest.get("tenants", []) if pool["name"] not in t["pools"]]
        yield "pools", rest
    for i in range(len(data.get("tenants", []))):
        rest = copy.deepcopy(data)
        del rest["tenants"][i]
        yield "tenants", rest
    if data.get("services"):
        rest = copy.deepcopy(data)
        del rest["services"]
        yield "services", rest


def _findings(family: Any, data: dict[str, Any], removed: str) -> list[tuple[str, Any]]:
    stack = model.build(data, "s.yaml")
    found = structure.run(stack, data) if family is structure else family.run(stack)
    out = []
    for d in found:
        reads = (*dict(_FAMILIES)[family], *_CODE_READS.get(d.code, ()))
        if any(_overlap(r, removed) for r in reads):
            continue  # declared: validation would not judge it
        if removed in ("pools", "tenants") and d.path[:1] in (("pools",), ("tenants",)):
            continue  # findings on the items themselves are kept by index, not compared here
        out.append((d.code, d.path))
    return sorted(out, key=repr)


def test_the_corpus_is_large_enough_to_mean_something() -> None:
    assert sum(_data(p) is not None for p in STACKS) >= 40


@pytest.mark.parametrize("path", STACKS, ids=lambda p: p.stem)
def test_removing_a_field_a_family_does_not_declare_leaves_its_findings(path: Path) -> None:
    data = _data(path)
    if data is None:
        pytest.skip("not schema-valid")
    for removed, rest in _without(data):
        for family, _ in _FAMILIES:
            before = _findings(family, data, removed)
            after = _findings(family, rest, removed)
            assert before == after, (family.__name__, removed)


def test_every_family_is_declared() -> None:
    """A family added to the checks without saying what it reads would be trusted blindly."""
    assert len({f for f, _ in _FAMILIES}) == len(_FAMILIES)
    declared = {f.__name__.rsplit(".", 1)[1] for f, _ in _FAMILIES}
    assert declared == {m.name for m in pkgutil.iter_modules(checks.__path__)}
