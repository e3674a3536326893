"""Facts the tests take from upstream projects, in gpupool's own words and formats.

The repository holds no upstream file. What a test needs from one (a chart's value paths, types
and defaults, a CRD's field names and types, KAI's annotation names, GKE's installer images, the
mig-parted default layouts) is written here: JSON tables under ``charts/`` and ``crds/``, and
small modules beside this one, each naming the upstream repository, path and version it was
read from. ``tests/test_upstream_facts.py`` checks every table against its upstream file in
``../shared/reference/upstream/`` where that folder exists, and skips, naming the file, where it
does not. This module loads the tables (a helper, not collected as tests).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

#: JSON Schema's name for the type of a value read from YAML or JSON.
_TYPES: dict[type, str] = {
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
    type(None): "null",
}


def json_type(value: Any) -> str:
    """The JSON type name of ``value`` (``boolean`` for a bool, never ``integer``)."""
    return _TYPES[type(value)]


@dataclass(frozen=True)
class KeyFact:
    """One value key path of a chart: its type there and, for a leaf, its default."""

    type: str
    default: Any = None
    has_default: bool = False
    commented: bool = False  # values.yaml shows it only in a commented-out example


@dataclass(frozen=True)
class ChartFacts:
    """A chart's value keys that gpupool sets or its tests read (``charts/<chart>.json``)."""

    chart: str
    version: str
    upstream_file: str  # its name in ../shared/reference/upstream/
    subcharts: Mapping[str, str]  # subchart key -> its values file there
    keys: Mapping[str, KeyFact]  # dotted key path -> fact

    def default(self, path: str) -> Any:
        """The chart's default at ``path``; a KeyError names a path the table lacks."""
        fact = self.keys[path]
        if not fact.has_default:
            raise KeyError(f"{self.chart} table keeps no default for {path}")
        return fact.default

    def defaults(self) -> dict[str, Any]:
        """The chart's defaults as a values tree, from every leaf the table keeps one for."""
        tree: dict[str, Any] = {}
        for path, fact in self.keys.items():
            if fact.commented or not fact.has_default:
                continue
            *parents, last = path.split(".")
            node = tree
            for key in parents:
                node = node.setdefault(key, {})
            node[last] = fact.default
        return tree


@cache
def chart(name: str) -> ChartFacts:
    """The facts table of chart ``name`` (``charts/<name>.json``)."""
    raw = json.loads((HERE / "charts" / f"{name}.json").read_text(encoding="utf-8"))
    keys = {
        path: KeyFact(
            type=entry["type"],
            default=entry.get("default"),
            has_default="default" in entry,
            commented=entry.get("commented", False),
        )
        for path, entry in raw["keys"].items()
    }
    return ChartFacts(raw["chart"], raw["version"], raw["upstream_file"], raw["subcharts"], keys)


def charts() -> list[str]:
    """Every chart with a facts table."""
    return sorted(p.stem for p in (HERE / "charts").glob("*.json"))


def value_paths(values: Any, prefix: str = "") -> Iterator[str]:
    """Every dotted key path of a values tree, a mapping's own path included."""
    if isinstance(values, Mapping):
        for key, child in values.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            yield path
            yield from value_paths(child, path)


def lookup(values: Any, path: str) -> tuple[bool, Any]:
    """``(True, value)`` at dotted ``path`` of a values tree, or ``(False, None)``."""
    for key in path.split("."):
        if not isinstance(values, Mapping) or key not in values:
            return False, None
        values = values[key]
    return True, values


# --------------------------------------------------------------------------- CRDs


@cache
def crd(name: str) -> dict[str, Any]:
    """The facts table of a CRD (``crds/<name>.json``): group, kind, version, scope, fields."""
    return dict(json.loads((HERE / "crds" / f"{name}.json").read_text(encoding="utf-8")))


def crds() -> list[str]:
    """Every CRD with a facts table."""
    return sorted(p.stem for p in (HERE / "crds").glob("*.json"))


def schema_fields(schema: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    """A JSON schema's field paths and types, in the CRD tables' format.

    A path is dotted; ``[]`` stands for a list's items and ``{}`` for a map's values. The type
    is the schema's (``a|b`` for several); an object that lists properties but takes others
    too is ``object, open``. The root's ``apiVersion``, ``kind`` and ``metadata`` are left out
    (every object has them; a CRD leaves them loose, a committed schema pins them).
    """
    out: dict[str, str] = {}
    for name, child in schema.get("properties", {}).items():
        if not prefix and name in ("apiVersion", "kind", "metadata"):
            continue
        path = f"{prefix}.{name}" if prefix else name
        out[path] = _field_type(child)
        out.update(schema_fields(child, path))
    if isinstance(schema.get("items"), Mapping):
        out[f"{prefix}[]"] = _field_type(schema["items"])
        out.update(schema_fields(schema["items"], f"{prefix}[]"))
    if isinstance(schema.get("additionalProperties"), Mapping):
        out[f"{prefix}{{}}"] = _field_type(schema["additionalProperties"])
        out.update(schema_fields(schema["additionalProperties"], f"{prefix}{{}}"))
    return out


def _field_type(node: Mapping[str, Any]) -> str:
    kind = node.get("type")
    if kind is None and "anyOf" in node:
        kind = [n.get("type") for n in node["anyOf"]]
    text = "|".join(kind) if isinstance(kind, list) else str(kind)
    if "properties" in node and node.get("additionalProperties") is not False:
        text += ", open"
    return text


# --------------------------------------------------------------------------- mig-parted


@cache
def mig_parted_default() -> dict[str, Any]:
    """The mig-parted default configs table (``mig-parted-config-default.json``)."""
    return dict(json.loads((HERE / "mig-parted-config-default.json").read_text("utf-8")))


def mig_parted_config(table: Mapping[str, Any]) -> dict[str, Any]:
    """The table's rows as a mig-parted config file (``version: v1``, ``mig-configs``).

    A row is ``[config, PCI ids or null for every GPU, {profile: count} or null for MIG
    off]``; rows of one config are its entries in order, each for ``devices: all``.
    """
    configs: dict[str, list[dict[str, Any]]] = {}
    for name, ids, layout in table["rows"]:
        entry: dict[str, Any] = {"devices": "all", "mig-enabled": layout is not None}
        if ids is not None:
            entry["device-filter"] = ids
        if layout is not None:
            entry["mig-devices"] = layout
        configs.setdefault(name, []).append(entry)
    return {"version": table["version"], "mig-configs": configs}
