"""The compiled schema check agrees with jsonschema: it never calls valid what jsonschema rejects.

``spec.schema.validate`` skips ``jsonschema`` when the compiled check says a document is valid,
so the diagnostics of every file depend on this agreement. The tests compare both on every stack
the repository ships and on many seeded mutations of them (values of every YAML type, missing
and unknown keys, duplicates, numbers at and past their bounds).
"""

from __future__ import annotations

import copy
import datetime
import math
import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpupool.spec import schema
from gpupool.spec.compiled import _equal, _unique, compile_schema
from tests.paths import EXAMPLES, FIXTURES

STACKS = sorted(
    [
        *EXAMPLES.glob("*.yaml"),
        *(FIXTURES / "valid").glob("*.yaml"),
        *(FIXTURES / "invalid").glob("*.yaml"),
        *(FIXTURES / "plan").glob("**/*.yaml"),
    ]
)
CHECK = compile_schema(schema.schema())
#: gpupool's jsonschema validator: Draft 7 with the compiled check's one stricter type rule
#: (NaN and infinities are not numbers, ``spec.compiled.is_number``).
JSONSCHEMA = schema._validator()

VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    -1,
    2,
    7,
    8,
    48,
    49,
    100,
    101,
    10**30,
    0.0,
    0.5,
    1.0,
    -0.5,
    2.5,
    99.9,
    math.inf,
    -math.inf,
    math.nan,
    "",
    "x",
    "aws",
    "gcp",
    "mig",
    "mps",
    "fair",
    "spot",
    "kai",
    "hami",
    "exclusive",
    "time-slicing",
    "fractional",
    "gpupool.io/v1",
    "GpuPoolStack",
    "Bad Name",
    "-bad",
    "a" * 300,
    "1g.10gb",
    "3g.40gb",
    "g6.2xlarge",
    [],
    [1],
    ["a", "a"],
    ["a", "b"],
    [True, 1],
    [1, 1.0],
    {},
    {"a": 1},
    {"name": "x"},
    datetime.date(2024, 1, 1),
    b"bytes",
]


def _load(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, ValueError):  # ValueError: a date that does not exist
        return None


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


def _get(node: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        node = node[part]
    return node


def _mutate(doc: Any, rng: random.Random) -> Any:
    doc = copy.deepcopy(doc)
    for _ in range(rng.randint(1, 3)):
        paths = _paths(doc)
        path = rng.choice(paths)
        if not path:
            continue
        parent, last = _get(doc, path[:-1]), path[-1]
        action = rng.random()
        if action < 0.45:
            parent[last] = copy.deepcopy(rng.choice(VALUES))
        elif action < 0.6 and isinstance(parent, dict):
            del parent[last]
        elif action < 0.7 and isinstance(parent, dict):
            parent[rng.choice(["extra", "mode", "name", "nodes", "x-y"])] = rng.choice(VALUES)
        elif action < 0.8 and isinstance(parent, list):
            parent.append(copy.deepcopy(parent[last]))
        elif isinstance(parent[last], (int, float)) and not isinstance(parent[last], bool):
            parent[last] = parent[last] + rng.choice([-1, 1, 0.5, -0.5, 100])
        elif isinstance(parent[last], str):
            parent[last] = parent[last] + rng.choice(["", "-", "X", " ", "0"])
    return doc


def _valid_by_jsonschema(data: Any) -> bool:
    return not any(True for _ in JSONSCHEMA.iter_errors(data))


def test_the_schema_compiles() -> None:
    assert CHECK is not None


@pytest.mark.parametrize("path", STACKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_agrees_on_shipped_stacks(path: Path) -> None:
    data = _load(path)
    assert CHECK is not None
    assert CHECK(data) == _valid_by_jsonschema(data)


def test_agrees_on_mutations() -> None:
    assert CHECK is not None
    rng = random.Random(20261129)
    # the loader-level fixtures (yaml-*) hold alias bombs and the like, which the loader refuses
    # before the schema runs; PyYAML expands them, and mutating one would fill the memory
    shipped = [p for p in STACKS if not p.name.startswith("yaml-")]
    docs = [d for d in (_load(p) for p in shipped) if isinstance(d, dict)]
    disagreements = []
    for _ in range(3000):
        doc = _mutate(rng.choice(docs), rng)
        fast, slow = CHECK(doc), _valid_by_jsonschema(doc)
        if fast != slow:
            disagreements.append((fast, slow, doc))
    # never "valid" where jsonschema reports an error; and in practice never the other way either
    assert not disagreements, disagreements[:1]


def test_validate_falls_back_to_jsonschema_for_invalid_documents() -> None:
    data = _load(EXAMPLES / "aws-inference-l4.yaml")
    assert schema.validate(data) == []
    data["pools"][0]["sharing"] = {"mode": "mig", "extra": 1}
    diags = schema.validate(data)
    assert diags and all(d.code.startswith("schema.") for d in diags)


def test_unknown_keywords_disable_the_compiled_check() -> None:
    assert compile_schema({"type": "object", "oneOf": [{"type": "object"}]}) is None
    assert compile_schema({"$ref": "#/definitions/x"}) is None
    assert compile_schema({"type": "decimal"}) is None
    assert compile_schema({"format": "date"}) is None


def test_equality_follows_jsonschema() -> None:
    from jsonschema._utils import equal

    samples = [True, False, 1, 0, 1.0, 0.0, "1", [1], [True], {"a": 1}, {"a": True}, None]
    for a in samples:
        for b in samples:
            assert _equal(a, b) == equal(a, b), (a, b)


def test_uniqueness_is_at_least_as_strict_as_jsonschema() -> None:
    from jsonschema._utils import uniq

    cases = [["a", "b"], ["a", "a"], [1, True], [1, 1.0], [[1], [True], [1]], [{"a": 1}, {"a": 1}]]
    for items in cases:
        if not uniq(items):
            assert not _unique(items), items
