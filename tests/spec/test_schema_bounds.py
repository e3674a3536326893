"""Every number in the stack schema is finite and bounded; every pattern matches whole values.

The schema is walked to find its numeric fields and its patterns, so a field added later is
covered without editing this file. Each numeric field gets NaN, +inf, -inf and 1e308 (from
YAML: ``.nan``, ``.inf``, ``-.inf``, ``1.0e+308``); each pattern gets a value it accepts with
one trailing newline. Both the compiled fast path (``gpupool.spec.compiled``) and ``jsonschema``
(``gpupool.spec.schema``) must refuse them, at the field's path.

JSON Schema patterns are ECMA-262 regular expressions (JSON Schema draft-07, "Validation",
section 4.3), where ``$`` matches only at the end of the input; Python's ``re.search``, which
``jsonschema`` uses, lets ``$`` match before one final newline as well. The schema's patterns end
in ``(?!\\n)$``, which means "the end of the value" in both. ``yaml-language-server`` (through
``vscode-json-languageservice``, ``new RegExp(pattern, "u")``) reads them as ECMA does; where
Node.js is installed, the test runs every pattern through it.
"""

from __future__ import annotations

import copy
import json
import math
import re
import shutil
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from gpupool.spec import schema as schema_mod
from gpupool.spec.compiled import compile_schema
from gpupool.spec.validate import validate_text
from tests.paths import EXAMPLES

SCHEMA = schema_mod.schema()
CHECK = compile_schema(SCHEMA)
BASE: dict[str, Any] = yaml.safe_load((EXAMPLES / "onprem-hami.yaml").read_text("utf-8"))
#: A key each map of numbers takes (``sharing.mig.layout``'s profiles).
SAMPLE_KEY = "1g.10gb"
#: Values some pattern of the schema accepts; each pattern must accept one of them.
SAMPLES = (
    "lab", "dgx-01", "gpupool.io/pool", "v25.10.1", "1g.10gb", "my-project-1",
    "arn:aws:iam::123456789012:role/nodes", "file://state", "release", "1h30m", "1.25", "USD",
    "http://prometheus.monitoring:9090",
)  # fmt: skip
BAD_NUMBERS = {"NaN": math.nan, "+inf": math.inf, "-inf": -math.inf, "1e308": 1e308}

Path = tuple[Any, ...]


def _walk(node: Any, path: Path, where: str) -> Iterator[tuple[str, Path, dict[str, Any]]]:
    """Yield (schema pointer, instance path, subschema) for every subschema of the schema."""
    if not isinstance(node, dict):
        return
    yield where, path, node
    for key, sub in node.get("properties", {}).items():
        yield from _walk(sub, (*path, key), f"{where}/properties/{key}")
    if isinstance(node.get("items"), dict):
        yield from _walk(node["items"], (*path, 0), f"{where}/items")
    if isinstance(node.get("additionalProperties"), dict):
        yield from _walk(node["additionalProperties"], (*path, SAMPLE_KEY),
                         f"{where}/additionalProperties")
    for i, part in enumerate(node.get("allOf", ())):
        if isinstance(part, dict) and isinstance(part.get("then"), dict):
            yield from _walk(part["then"], path, f"{where}/allOf/{i}/then")


def _is_numeric(sub: dict[str, Any]) -> bool:
    kinds = sub.get("type")
    kinds = [kinds] if isinstance(kinds, str) else kinds or []
    return bool({"number", "integer"} & set(kinds))


NUMERIC = [(pointer, path) for pointer, path, sub in _walk(SCHEMA, (), "#") if _is_numeric(sub)]
PATTERNS = sorted({sub["pattern"] for _, _, sub in _walk(SCHEMA, (), "#") if "pattern" in sub}
                  | {sub["propertyNames"]["pattern"] for _, _, sub in _walk(SCHEMA, (), "#")
                     if "pattern" in sub.get("propertyNames", {})})


def _put(data: Any, path: Path, value: Any) -> Any:
    """Return a copy of ``data`` with ``value`` at ``path``, creating the mappings on the way."""
    doc = copy.deepcopy(data)
    node = doc
    for key, nxt in zip(path, (*path[1:], None), strict=True):
        if nxt is None:
            node[key] = value
            break
        if isinstance(node, list):
            node = node[key]
            continue
        child = node.get(key)
        if not isinstance(child, (dict, list)):
            child = [] if isinstance(nxt, int) else {}
            node[key] = child
        if isinstance(child, list) and not child:
            child.append({})
        node = child
    return doc


def test_the_walk_finds_the_numeric_fields() -> None:
    """The walk reaches pools, sharing, tenants and alerts (it would pass vacuously if not)."""
    found = {pointer.rsplit("/", 1)[-1] for pointer, _ in NUMERIC}
    assert {"memoryGiB", "maxPricePerHour", "replicas", "memoryOvercommit", "weight", "gpus",
            "gpuMemoryPercent", "slotsPerGpu"} <= found
    assert len(NUMERIC) >= 20


@pytest.mark.parametrize(("pointer", "path"), NUMERIC, ids=[p for p, _ in NUMERIC])
def test_every_number_has_a_finite_upper_and_lower_bound(pointer: str, path: Path) -> None:
    sub = next(s for p, _, s in _walk(SCHEMA, (), "#") if p == pointer)
    high = sub.get("maximum", sub.get("exclusiveMaximum"))
    low = sub.get("minimum", sub.get("exclusiveMinimum"))
    assert high is not None and math.isfinite(high), f"{pointer} has no finite maximum"
    assert low is not None and math.isfinite(low), f"{pointer} has no finite minimum"


@pytest.mark.parametrize(("pointer", "path"), NUMERIC, ids=[p for p, _ in NUMERIC])
@pytest.mark.parametrize("bad", list(BAD_NUMBERS), ids=list(BAD_NUMBERS))
def test_nan_infinities_and_1e308_are_refused_by_both_checks(
    pointer: str, path: Path, bad: str
) -> None:
    """The compiled check and jsonschema both refuse the value, and say so at its path."""
    data = _put(BASE, path, BAD_NUMBERS[bad])
    assert CHECK is not None and CHECK(data) is False
    diags = schema_mod.validate(data)
    assert path in [d.path for d in diags], f"no diagnostic at {path}: {diags}"


@pytest.mark.parametrize(("pointer", "path"), NUMERIC, ids=[p for p, _ in NUMERIC])
@pytest.mark.parametrize("text", [".nan", ".inf", "-.inf", "1.0e+308"])
def test_a_stack_file_with_a_bad_number_is_invalid_and_says_where(
    pointer: str, path: Path, text: str
) -> None:
    """From YAML, NaN and infinities stop at the loader; 1e308 at the schema's maximum."""
    marker = "__NUMBER__"
    doc = yaml.safe_dump(_put(BASE, path, marker), sort_keys=False)
    result = validate_text(doc.replace(f"'{marker}'", text).replace(marker, text), "f.yaml")
    assert not result.valid
    expected = "yaml.not-finite" if text != "1.0e+308" else None
    codes = [d.code for d in result.diagnostics if d.path == path]
    assert codes, f"nothing reported at {path}: {[d.code for d in result.diagnostics]}"
    if expected:
        assert expected in [d.code for d in result.diagnostics]


def _sample(pattern: str) -> str:
    for value in SAMPLES:
        if re.search(pattern, value):
            return value
    raise AssertionError(f"no sample value matches {pattern!r}: add one to SAMPLES")


@pytest.mark.parametrize("pattern", PATTERNS)
def test_every_pattern_refuses_a_trailing_newline(pattern: str) -> None:
    """``re.search`` (jsonschema) and the compiled check refuse ``value + "\\n"``."""
    value = _sample(pattern)
    assert re.search(pattern, value + "\n") is None
    check = compile_schema({"type": "string", "pattern": pattern})
    assert check is not None and check(value) and not check(value + "\n")


def test_patterns_mean_the_same_to_an_ecma_reader() -> None:
    """yaml-language-server reads the patterns as ECMA-262 (``new RegExp(p, "u")``)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed")
    cases = [[p, _sample(p)] for p in PATTERNS]
    script = ("const cases = JSON.parse(process.argv[1]);"
              "console.log(JSON.stringify(cases.map(([p, v]) => {"
              " const r = new RegExp(p, 'u'); return [r.test(v), r.test(v + '\\n')]; })));")
    out = subprocess.run([node, "-e", script, json.dumps(cases)], capture_output=True,
                         text=True, check=True).stdout
    assert json.loads(out) == [[True, False]] * len(cases)


@pytest.mark.parametrize(
    "path",
    [("metadata", "name"), ("pools", 0, "name"), ("pools", 0, "nodeNames", 0),
     ("tenants", 0, "name"), ("cluster", "gpuOperator", "version")],
)
def test_a_name_with_a_trailing_newline_is_invalid(path: Path) -> None:
    """``"lab\\n"`` is not ``lab``: it would name a folder and a second pool otherwise."""
    original: Any = BASE
    for key in path:
        original = original[key]
    text = yaml.safe_dump(_put(BASE, path, f"{original}\n"), sort_keys=False)
    result = validate_text(text, "f.yaml")
    assert [d.code for d in result.diagnostics if d.path == path] == ["schema.pattern"]
