"""``gpupool schema``: the stack JSON Schema as published, and its field reference (markdown)."""

from __future__ import annotations

import json

from gpupool.resources import schema_path
from gpupool.views import schema as view


def schema_text() -> str:
    """Return the stack JSON Schema file's text, unchanged."""
    return schema_path().read_text(encoding="utf-8")


def schema_reference() -> str:
    """Return the stack file's field reference (markdown) generated from the schema."""
    return view.reference(json.loads(schema_text()))
