"""The generated field reference in docs/stack-file.md: current, complete, and in the prose.

Refresh the committed table after a schema change with
``GPUPOOL_UPDATE_GOLDEN=1 python -m pytest tests/views/test_schema.py``, then review the diff.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from typing import Any

from gpupool.cli import run
from gpupool.resources import schema_path
from gpupool.views import schema as view
from tests.paths import ROOT

DOC = ROOT / "docs" / "stack-file.md"


def _schema() -> dict[str, Any]:
    return json.loads(schema_path().read_text(encoding="utf-8"))


def _committed(text: str) -> tuple[int, int]:
    start = text.index(view.BEGIN)
    end = text.index(view.END) + len(view.END) + 1
    return start, end


def test_committed_field_reference_is_what_the_schema_generates() -> None:
    """docs/stack-file.md's table is exactly `gpupool schema --markdown` (CI runs this)."""
    text = DOC.read_text(encoding="utf-8")
    start, end = _committed(text)
    generated = view.reference(_schema())
    if os.environ.get("GPUPOOL_UPDATE_GOLDEN") == "1":
        DOC.write_text(text[:start] + generated + text[end:], encoding="utf-8")
        return
    assert text[start:end] == generated, (
        "docs/stack-file.md's field reference is stale: refresh it with "
        "GPUPOOL_UPDATE_GOLDEN=1 python -m pytest tests/views/test_schema.py"
    )


def test_schema_markdown_prints_the_reference(capsys: Any) -> None:
    assert run(["schema", "--markdown"]) == 0
    assert capsys.readouterr().out == view.reference(_schema())


def _fields(node: Any, path: str = "") -> Iterator[str]:
    """Every property path in the schema, the per-cloud settings branches included."""
    if not isinstance(node, dict):
        return
    for key, sub in node.get("properties", {}).items():
        child = f"{path}.{key}" if path else key
        yield child
        yield from _fields(sub, child)
    if isinstance(node.get("items"), dict):
        yield from _fields(node["items"], f"{path}[]")
    if isinstance(node.get("additionalProperties"), dict):
        yield from _fields(node["additionalProperties"], f"{path}.<key>")
    for branch in node.get("allOf", ()):
        yield from _fields(branch.get("then", {}), path)


def test_every_schema_field_has_a_row() -> None:
    """No field of the schema is left out of the generated table."""
    rows = set(re.findall(r"^\| `([^`]+)`", view.reference(_schema()), re.M))
    assert set(_fields(_schema())) == rows


def test_every_field_is_named_in_the_hand_written_sections() -> None:
    """The prose above the table names each field (by its last part), so the two cannot drift
    apart silently: a new schema field needs its words in docs/stack-file.md too."""
    text = DOC.read_text(encoding="utf-8")
    start, end = _committed(text)
    prose = text[:start] + text[end:]
    tokens = re.findall(r"`([^`\n]+)`", prose)
    missing = []
    for field in set(_fields(_schema())):
        last = field.split(".")[-1].replace("[]", "")
        pattern = rf"(^|[.{{,\s]){re.escape(last)}($|[.:}},?\s=])"
        if not any(re.search(pattern, t) for t in tokens):
            missing.append(field)
    assert not missing, f"fields the prose of docs/stack-file.md does not name: {sorted(missing)}"
