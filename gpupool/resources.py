"""Where gpupool's shipped data lives: the JSON Schema and the jinja2 templates.

In a wheel they are inside the package (``gpupool/_data``); in a source checkout or an editable
install they are the top-level ``schemas/`` and ``templates/`` folders. This module is the only
place that knows both.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


@cache
def data_dir(name: str) -> Path:
    """Return the folder holding the shipped ``name`` ("schemas" or "templates")."""
    inside = _PACKAGE / "_data" / name
    if inside.is_dir():
        return inside
    return _PACKAGE.parent / name


def schema_path() -> Path:
    """Return the path of the published stack JSON Schema."""
    return data_dir("schemas") / "gpupool.schema.json"


def templates_dir() -> Path:
    """Return the folder of jinja2 templates for rendered programs."""
    return data_dir("templates")
