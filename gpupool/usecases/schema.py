"""``gpupool schema``: the stack JSON Schema gpupool validates against, as published."""

from __future__ import annotations

from gpupool.resources import schema_path


def schema_text() -> str:
    """Return the stack JSON Schema file's text, unchanged."""
    return schema_path().read_text(encoding="utf-8")
