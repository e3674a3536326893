"""The catalog's data files, and the checks every row of them is held to.

This module owns reading ``gpupool/catalog/data/<name>.json`` (``load``: lazily, once per
process, with the file's provenance as a ``Dataset``), which files there are (``FILES``; one
instance file per cloud of ``INSTANCE_CLOUDS``), and the field checks the other catalog modules
build their rows with: keys, positive numbers, counts, flags, one-line texts, type names, dates,
lists of lines and non-negative integers. A value that fails one raises ``CatalogDataError``
naming the file and the entry: in a bundled file that is a packaging bug, not a user error (the
overlay turns it into ``OverlayError``).
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Iterable, Mapping
from datetime import date
from functools import cache
from importlib import resources
from typing import Any

from gpupool.catalog.models import Dataset

INSTANCE_CLOUDS: tuple[str, ...] = ("aws", "gcp", "azure", "volcengine")
"""Clouds with an ``instances-<cloud>.json`` file, in report order."""


_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,79}")
"""An instance type or machine type name (``g6.xlarge``, ``Standard_NC24ads_A100_v4``)."""


CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")

FILES: tuple[str, ...] = ("gpus", *(f"instances-{c}" for c in INSTANCE_CLOUDS), "clouds")


class CatalogDataError(Exception):
    """A catalog data file is malformed or inconsistent (a bug in the shipped data)."""


@cache
def load(name: str) -> tuple[Dataset, Mapping[str, Any]]:
    """Read ``data/<name>.json`` once and return its provenance and payload."""
    text = (resources.files("gpupool.catalog") / "data" / f"{name}.json").read_text("utf-8")
    payload = json.loads(text)
    where = f"{name}.json"
    if "source" not in payload or "as_of" not in payload:
        raise CatalogDataError(f"{where}: missing source or as_of")
    dataset = Dataset(
        name=name,
        source=tuple(str(s) for s in payload["source"]),
        as_of=str(payload["as_of"]),
        notes=tuple(str(n) for n in payload.get("notes", ())),
    )
    return dataset, payload


def keys(row: Mapping[str, Any], required: Iterable[str], where: str, *optional: str) -> None:
    """Raise CatalogDataError when ``row`` is no object, lacks a required key or has another."""
    if not isinstance(row, Mapping):
        raise CatalogDataError(f"{where}: expected an object, got {shown(row)}")
    required = tuple(required)
    missing = [k for k in required if k not in row]
    extra = sorted(set(row) - {*required, *optional})
    if missing or extra:
        raise CatalogDataError(f"{where}: missing {missing}, unexpected {extra}")


def field_names(kind: type) -> tuple[str, ...]:
    """Field names of a catalog dataclass: the keys its JSON rows carry."""
    return tuple(f.name for f in dataclasses.fields(kind))


def shown(value: Any) -> str:
    """Return a value for a message: its repr, cut short (a hostile file may hold megabytes)."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def positive(value: Any, where: str, most: float = math.inf) -> float:
    """Check that ``value`` is a finite positive number, at most ``most``."""
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or not 0 < value <= most
    ):
        bound = "" if math.isinf(most) else f" up to {most:g}"
        raise CatalogDataError(f"{where}: expected a positive number{bound}, got {shown(value)}")
    return float(value)


def optional_positive(value: Any, where: str, most: float = math.inf) -> float | None:
    """Check that ``value`` is a finite positive number (at most ``most``) or null."""
    return None if value is None else positive(value, where, most)


def count(value: Any, where: str, most: int) -> int:
    """Check that ``value`` is an integer from 1 to ``most``."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
        wanted = f"expected an integer from 1 to {most}"
        raise CatalogDataError(f"{where}: {wanted}, got {shown(value)}")
    return value


def flag(value: Any, where: str) -> bool:
    """Check that ``value`` is true or false (``"no"`` is not false)."""
    if not isinstance(value, bool):
        raise CatalogDataError(f"{where}: expected true or false, got {shown(value)}")
    return value


def line(value: Any, where: str, most: int = 500) -> str:
    """Check that ``value`` is one line of text, not empty, without control characters.

    An HTML comment's opening is refused too: a catalog text reaches the plan's pull-request
    comment, whose own marker is an HTML comment (``<!-- gpupool-plan ... -->``).
    """
    fits = isinstance(value, str) and bool(value.strip()) and len(value) <= most
    if not fits or CONTROL.search(value) or "<!--" in value:
        raise CatalogDataError(
            f"{where}: expected one line of text (at most {most} characters, no control "
            f"characters, no '<!--'), got {shown(value)}"
        )
    return value


def type_name(value: Any, where: str) -> str:
    """Check that ``value`` is an instance or machine type name."""
    if not isinstance(value, str) or not _NAME.fullmatch(value):
        raise CatalogDataError(f"{where}: {shown(value)} is not an instance type name")
    return value


def iso_date(value: Any, where: str) -> str:
    """Check that ``value`` is a real calendar date written YYYY-MM-DD."""
    if isinstance(value, str) and _DATE.fullmatch(value):
        try:
            if date.fromisoformat(value).year >= 2000:
                return value
        except ValueError:
            pass
    raise CatalogDataError(f"{where}: {shown(value)} is not a date (YYYY-MM-DD)")


def strings(value: Any, where: str, most: int = 500) -> tuple[str, ...]:
    """Check that ``value`` is a list of lines of text."""
    if not isinstance(value, list):
        raise CatalogDataError(f"{where}: expected a list, got {shown(value)}")
    return tuple(line(v, where, most) for v in value)


def integer(value: Any, where: str) -> int:
    """Check that ``value`` is a non-negative integer."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise CatalogDataError(f"{where}: expected a non-negative integer, got {value!r}")
    return value


def datasets() -> tuple[Dataset, ...]:
    """Return the provenance (sources, as-of date, notes) of every catalog data file."""
    return tuple(load(name)[0] for name in FILES)


def dataset(name: str) -> Dataset:
    """Return the provenance of one data file, e.g. ``gpus`` or ``instances-aws``.

    Raises:
        LookupError: There is no data file called ``name``.

    """
    if name not in FILES:
        raise LookupError(f"unknown catalog dataset {name!r}")
    return load(name)[0]
