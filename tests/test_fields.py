"""docs/fields.md stays true: every schema field has a row, and every field that renders does.

The field table says, per leaf of the stack schema, whether gpupool renders something from it.
``test_every_schema_leaf_has_a_row`` walks the published schema. ``test_every_rendering_field_
changes_the_program`` takes each field marked ``renders``, changes it in the first bundled
example or valid fixture where a change still validates, and compares the resource graph and the
workload snippets (everything ``gpupool render`` writes is made from those two) before and after.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpupool import assemble
from gpupool.model import Stack
from gpupool.sharing import workload_snippets
from gpupool.spec.validate import validate_text
from tests.paths import EXAMPLES, FIXTURES, ROOT

TABLE = ROOT / "docs" / "fields.md"
SCHEMA = ROOT / "schemas" / "gpupool.schema.json"
ROW = re.compile(r"^\| `([^`]+)` \| ([a-z, ]+) \|", re.M)
CORPUS = [*sorted(EXAMPLES.glob("*.yaml")), *sorted((FIXTURES / "valid").glob("*.yaml"))]
#: Fields marked "renders" that this test does not change, and why.
NOT_MUTATED = {
    "provider.cloud": "another cloud needs other settings; each cloud's program has its own tests",
}


def table() -> dict[str, set[str]]:
    return {m.group(1): {e.strip() for e in m.group(2).split(",")}
            for m in ROW.finditer(TABLE.read_text(encoding="utf-8"))}


def schema_leaves() -> dict[str, dict[str, Any]]:
    """Return every leaf field of the stack schema, ``pools[].name`` style, with its schema."""
    found: dict[str, dict[str, Any]] = {}

    def walk(node: Any, path: str) -> None:
        if not isinstance(node, dict):
            return
        for branch in ("then", "else"):
            walk(node.get(branch), path)
        for key in ("allOf", "anyOf", "oneOf"):
            for sub in node.get(key, []):
                walk(sub, path)
        items = node.get("items")
        if node.get("type") == "array" and isinstance(items, dict) and items.get("properties"):
            walk(items, f"{path}[]")
            return
        if node.get("properties"):
            for key, sub in node["properties"].items():
                walk(sub, f"{path}.{key}" if path else key)
        elif path:
            found.setdefault(path, node)

    walk(json.loads(SCHEMA.read_text(encoding="utf-8")), "")
    inner = {p for p in found for q in found if q != p and q.startswith((p + ".", p + "[]"))}
    return {p: n for p, n in found.items() if p not in inner}


def occurrences(data: Any, parts: list[str]) -> Iterator[tuple[dict[str, Any], str]]:
    """Yield ``(container, key)`` for every place ``parts`` is set in ``data``."""
    if not parts or not isinstance(data, dict):
        return
    head, rest = parts[0], parts[1:]
    if head.endswith("[]"):
        for item in data.get(head[:-2]) or []:
            yield from occurrences(item, rest)
    elif head in data:
        if rest:
            yield from occurrences(data[head], rest)
        else:
            yield data, head


def variants(value: Any, node: dict[str, Any]) -> list[Any]:
    """Values to try instead of ``value``: other enum values, nearby numbers, edited strings."""
    if "enum" in node:
        return [v for v in node["enum"] if v != value]
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [value + 1, value - 1, value * 2]
    if isinstance(value, float):
        return [value + 0.25, value - 0.25, value * 2, value / 2]
    if isinstance(value, str):
        bumped = re.sub(r"[0-9]+(?=[^0-9]*$)", lambda m: str(int(m.group()) + 1), value)
        return [value + "x", "1" + value, value[:-1] + "z", "x" + value, bumped]
    if isinstance(value, list):
        out: list[Any] = [list(reversed(value))] if len(value) > 1 else []
        out += [value[:-1]] if len(value) > 1 else []
        if value and isinstance(value[0], str):
            out += [[*value, value[0] + "x"]]
        return out
    if isinstance(value, dict):
        return [{**value, "x-added": "v"}, {k: f"{v}x" for k, v in value.items()}]
    return []


def _set(path: list[str], value: Any, where: int = 0) -> Callable[[dict[str, Any]], None]:
    """A mutation that sets ``path`` (creating it) in the ``where``-th pool or tenant."""
    def apply(data: dict[str, Any]) -> None:
        node: Any = data
        for part in path[:-1]:
            node = node[part[:-2]][where] if part.endswith("[]") else node.setdefault(part, {})
        node[path[-1]] = value(node) if callable(value) else value
    return apply


def _service_moves(what: str) -> Callable[[dict[str, Any]], None]:
    """Move services-clean's ranker to pool frac (its tenant given it), or to tenant small."""
    def apply(data: dict[str, Any]) -> None:
        ranker = data["services"][0]
        if what == "pool":
            data["tenants"][0]["pools"].append("frac")
            ranker["pool"] = "frac"
            ranker["replicas"] = {"min": 2, "max": 4}  # whole GPUs: 4 nodes of 1 GPU
        else:
            data["tenants"][2]["pools"].append("whole")
            ranker["tenant"] = "small"
            data["tenants"][2]["limit"] = {"gpus": 16}
    return apply


#: Changes the generic search cannot make (fields no stack in the corpus sets, or values only a
#: particular shape accepts): (stack file, mutation).
EXPLICIT: dict[str, list[tuple[Path, Callable[[dict[str, Any]], None]]]] = {
    "pools[].nodes.desired": [(EXAMPLES / "aws-inference-l4.yaml",
                               _set(["pools[]", "nodes", "desired"], lambda n: n["min"] + 1))],
    "pools[].disk.sizeGiB": [(EXAMPLES / "aws-inference-l4.yaml",
                              _set(["pools[]", "disk", "sizeGiB"], 500))],
    **{
        f"cluster.monitoring.alerts.{key}": [
            (EXAMPLES / "aws-inference-l4.yaml",
             _set(["cluster", "monitoring", "alerts", key], value))]
        for key, value in (("gpuMemoryMinutes", 7), ("gpuMemoryFullWithinMinutes", 20),
                           ("throttlePercent", 30), ("throttleMinutes", 12),
                           ("exporterDownMinutes", 9), ("idleHours", 6),
                           ("podPendingMinutes", 25))
    },
    "cluster.monitoring.dashboard.enabled": [
        (EXAMPLES / "aws-inference-l4.yaml",
         _set(["cluster", "monitoring", "dashboard", "enabled"], False))],
    "cluster.monitoring.dashboard.labels": [
        (EXAMPLES / "aws-inference-l4.yaml",
         _set(["cluster", "monitoring", "dashboard", "labels"], {"grafana_dashboard": "gpus"}))],
    # a currency is three capitals: the generic string edits never validate
    "pools[].price.currency": [(EXAMPLES / "onprem-hami.yaml",
                                _set(["pools[]", "price", "currency"], "EUR"))],
    "cluster.autoscaling.keda.install": [
        (FIXTURES / "valid" / "services-clean.yaml",
         _set(["cluster", "autoscaling", "keda", "install"], False))],
    # a service's profile, pool and tenant: to another the stack has (the tenant given the pool)
    "services[].mig": [(FIXTURES / "valid" / "services-clean.yaml",
                        _set(["services[]", "mig"], "2g.20gb", where=2))],
    "services[].pool": [(FIXTURES / "valid" / "services-clean.yaml", _service_moves("pool"))],
    "services[].tenant": [(FIXTURES / "valid" / "services-clean.yaml",
                           _service_moves("tenant"))],
    "pools[].sharing.mig.layout": [
        (EXAMPLES / "gcp-training-h100-mig.yaml",
         _set(["pools[]", "sharing", "mig", "layout"], {"2g.20gb": 3}, where=1)),
        (EXAMPLES / "aws-training-compact.yaml",
         _set(["pools[]", "sharing", "mig", "layout"], {"3g.40gb": 2}, where=1)),
    ],
}


def rendered(stack: Stack) -> str:
    return assemble.build(stack).dumps() + json.dumps(workload_snippets(stack), sort_keys=True)


def _try(path: Path, data: dict[str, Any], base: str) -> bool:
    result = validate_text(yaml.safe_dump(data, sort_keys=False), str(path))
    return result.stack is not None and rendered(result.stack) != base


def _loaded(path: Path) -> tuple[dict[str, Any], str] | None:
    text = path.read_text(encoding="utf-8")
    result = validate_text(text, str(path))
    if result.stack is None:
        return None
    return yaml.safe_load(text), rendered(result.stack)


#: Fields whose change is valid only in a setting the corpus does not have: the setting is
#: made first (the base program is the stack with it), then the field changed.
UNDER: dict[str, list[tuple[Path, Callable[[dict[str, Any]], None],
                            Callable[[dict[str, Any]], None]]]] = {
    # a service's own priority is refused under admission deny unless it is its tenant's
    # (service.priority-not-tenants); where the tenants' policy only warns it renders
    "services[].priority": [(FIXTURES / "valid" / "services-clean.yaml",
                             _set(["cluster", "admission", "action"], "warn"),
                             _set(["services[]", "priority"], "high"))],
}


def _changes_under(field: str) -> str | None:
    for path, prepare, mutate in UNDER.get(field, []):
        loaded = _loaded(path)
        assert loaded is not None, path
        data = copy.deepcopy(loaded[0])
        prepare(data)
        result = validate_text(yaml.safe_dump(data, sort_keys=False), str(path))
        assert result.stack is not None, [d.summary for d in result.diagnostics]
        changed = copy.deepcopy(data)
        mutate(changed)
        if _try(path, changed, rendered(result.stack)):
            return path.name
    return None


def changes_the_program(field: str, node: dict[str, Any]) -> str | None:
    """Return the stack file in which changing ``field`` changed the program, or None."""
    if (found := _changes_under(field)) is not None:
        return found
    for path, mutate in EXPLICIT.get(field, []):
        loaded = _loaded(path)
        assert loaded is not None, path
        data = copy.deepcopy(loaded[0])
        mutate(data)
        if _try(path, data, loaded[1]):
            return path.name
    parts = field.split(".")
    for path in CORPUS:
        text = path.read_text(encoding="utf-8")
        if parts[-1].removesuffix("[]") not in text:
            continue  # the field is not set in this file
        loaded = _loaded(path)
        if loaded is None:
            continue
        data, base = loaded
        for index in range(len(list(occurrences(data, parts)))):
            for value in variants(list(occurrences(data, parts))[index][0][parts[-1]], node):
                changed = copy.deepcopy(data)
                container, key = list(occurrences(changed, parts))[index]
                container[key] = value
                if _try(path, changed, base):
                    return path.name
    return None


def test_every_schema_leaf_has_a_row() -> None:
    rows, leaves = table(), schema_leaves()
    assert sorted(set(leaves) - set(rows)) == [], "fields with no row in docs/fields.md"
    assert sorted(set(rows) - set(leaves)) == [], "rows for fields the schema does not have"


FIELDS = sorted(f for f, effects in table().items() if "renders" in effects)


@pytest.mark.parametrize("field", FIELDS)
def test_every_rendering_field_changes_the_program(field: str) -> None:
    if field in NOT_MUTATED:
        pytest.skip(NOT_MUTATED[field])
    node = schema_leaves()[field]
    assert changes_the_program(field, node) is not None, (
        f"{field} is marked 'renders' in docs/fields.md, but no valid change to it changed the "
        "rendered program"
    )


def test_a_field_that_renders_nothing_is_caught() -> None:
    """The search does fail: pools[].interruption.checkpoint changes validation only."""
    field = "pools[].interruption.checkpoint"
    assert "renders" not in table()[field]
    assert changes_the_program(field, schema_leaves()[field]) is None
