"""The local overlay's rows: prices and instance types ``gpupool catalog refresh`` wrote.

This module owns where the overlay lies (``overlay_dir``), reading one cloud's overlay once
(``read_overlay``: its file through ``gpupool.catalog.overlay_file``, its rows by the bundled
files' rules and more: the currency the cloud's refresh writes, the cloud's regions), the check
the refresh asks before it writes (``overlay_problem``), the overlay's provenance (``overlay``)
and the instance types it adds to the bundled catalog (``overlay_types``). A row it cannot use
raises ``OverlayError`` naming the file.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from gpupool.catalog.cloud_facts import is_region
from gpupool.catalog.instance_rows import bundled_by_name, instance_row, price_row
from gpupool.catalog.models import Dataset, InstanceType, Price
from gpupool.catalog.overlay_file import CURRENCIES, INSTANCE_ROWS, OverlayError, parse, read
from gpupool.catalog.rows import (
    INSTANCE_CLOUDS,
    CatalogDataError,
    iso_date,
    keys,
    line,
    shown,
    strings,
    type_name,
)

OVERLAY_ENV = "GPUPOOL_CATALOG_OVERLAY"
"""Environment variable naming the overlay directory (``gpupool catalog refresh`` writes it)."""


def overlay_dir() -> Path:
    """Return the directory of the local price overlay.

    ``$GPUPOOL_CATALOG_OVERLAY`` when set, else ``$XDG_CACHE_HOME/gpupool/catalog``, else
    ``~/.cache/gpupool/catalog``. ``gpupool catalog refresh`` writes ``instances-<cloud>.json``
    there; every lookup of that cloud's instance types then takes its prices from it, and the
    instance types it adds (rows the bundled catalog lacks) as the cloud's own.
    """
    if os.environ.get(OVERLAY_ENV):
        return Path(os.environ[OVERLAY_ENV])
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "gpupool" / "catalog"


@dataclasses.dataclass(frozen=True)
class OverlayRows:
    """One cloud's overlay file as read: its provenance, price rows and instance rows."""

    dataset: Dataset
    prices: dict[str, Price]
    instances: dict[str, InstanceType]


@cache
def read_overlay(cloud_name: str) -> OverlayRows | None:
    """Read one cloud's overlay, or None when there is none.

    Its ``prices`` rows are ``{name, price}``; its optional ``instances`` rows (only where the
    cloud's refresh writes them, ``INSTANCE_ROWS``) are full rows of the bundled files' shape,
    each with the ``source`` it was read from. Every row is held to the bundled files' rules,
    and more: its currency is the one the cloud's refresh writes, its regions are the cloud's.

    Raises:
        OverlayError: the file is not an overlay this gpupool reads, naming it and what to do.

    """
    path = overlay_dir() / f"instances-{cloud_name}.json"
    payload = read(path, cloud_name)
    if payload is None:
        return None
    try:
        return _overlay_rows(cloud_name, payload, path)
    except CatalogDataError as exc:
        raise OverlayError(path, cloud_name, f"cannot be used ({exc})") from None


def overlay_problem(cloud: str, data: bytes) -> str:
    """Say why ``data`` is no overlay of ``cloud`` this gpupool reads ("" when it is one).

    The checks are those of every later read (``instances``, ``overlay``): ``gpupool catalog
    refresh`` asks before it writes, so it never writes a file that it could not read back.
    """
    try:
        _overlay_rows(cloud, parse(data, Path("overlay"), cloud), Path("overlay"))
    except OverlayError as exc:
        return exc.problem
    except CatalogDataError as exc:
        return str(exc)
    return ""


def _overlay_price(cloud_name: str, raw: Any, where: str) -> Price:
    """Check an overlay price by the bundled rules, in the cloud's currency and regions."""
    price = price_row(raw, where)
    if price.currency != CURRENCIES[cloud_name]:
        raise CatalogDataError(
            f"{where}: currency {price.currency}, but the {cloud_name} refresh writes "
            f"{CURRENCIES[cloud_name]}"
        )
    _overlay_regions(cloud_name, (price.region,), where)
    return price


def _overlay_regions(cloud_name: str, regions: Iterable[str], where: str) -> None:
    """Refuse a region the cloud does not have (its list, or a region's shape without one)."""
    for region in regions:
        if not is_region(cloud_name, region):
            raise CatalogDataError(f"{where}: {shown(region)} is not a region of {cloud_name}")


def _overlay_rows(cloud_name: str, payload: Mapping[str, Any], path: Path) -> OverlayRows:
    """Build an overlay's rows from its document (CatalogDataError on the first bad one)."""
    if payload.get("cloud") != cloud_name:
        raise CatalogDataError(f"cloud {shown(payload.get('cloud'))}, not {cloud_name}")
    keys(payload, ("source", "as_of", "cloud", "prices"), "the document", "notes",
          "instances", "format_version")  # fmt: skip
    source = strings(payload["source"], "source")
    if not source:
        raise CatalogDataError("source: names no source")
    notes = strings(payload.get("notes", []), "notes", 2000)
    as_of = iso_date(payload["as_of"], "as_of")
    prices = _prices(cloud_name, payload["prices"])
    instances = _instances(cloud_name, payload.get("instances", []))
    dataset = Dataset(
        name=f"instances-{cloud_name} overlay",
        source=source,
        as_of=as_of,
        notes=(f"local overlay {path}", *notes),
    )
    return OverlayRows(dataset, prices, instances)


def _prices(cloud_name: str, rows: Any) -> dict[str, Price]:
    """Build the overlay's ``prices`` rows, by instance type name."""
    if not isinstance(rows, list):
        raise CatalogDataError(f"prices: expected a list, got {shown(rows)}")
    prices: dict[str, Price] = {}
    for row in rows:
        keys(row, ("name", "price"), "a prices row")
        at = f"prices row {type_name(row['name'], 'a prices row')}"
        if row["name"] in prices:
            raise CatalogDataError(f"{at}: listed twice")
        prices[row["name"]] = _overlay_price(cloud_name, row["price"], f"{at} price")
    return prices


def _instances(cloud_name: str, rows: Any) -> dict[str, InstanceType]:
    """Build the overlay's ``instances`` rows (only where the cloud's refresh writes them)."""
    if not isinstance(rows, list):
        raise CatalogDataError(f"instances: expected a list, got {shown(rows)}")
    if rows and cloud_name not in INSTANCE_ROWS:
        raise CatalogDataError(
            f"instances: the {cloud_name} refresh writes no instance rows (only prices of the "
            "bundled types)"
        )
    instances: dict[str, InstanceType] = {}
    for row in rows:
        if not isinstance(row, Mapping):
            raise CatalogDataError(f"an instances row: expected an object, got {shown(row)}")
        at = f"instances row {type_name(row.get('name'), 'an instances row')}"
        entry = instance_row(cloud_name, row, at, "source")
        line(row.get("source"), f"{at}: an overlay's instance row names its source")
        _overlay_price(cloud_name, row["price"], f"{at} price")
        _overlay_regions(cloud_name, entry.regions, f"{at} regions")
        if entry.name in instances:
            raise CatalogDataError(f"{at}: listed twice")
        instances[entry.name] = entry
    return instances


def overlay(cloud: str) -> Dataset | None:
    """Return the provenance of ``cloud``'s local price overlay, or None when there is none."""
    loaded = read_overlay(cloud) if cloud in INSTANCE_CLOUDS else None
    return loaded.dataset if loaded is not None else None


def overlay_types(cloud: str) -> tuple[str, ...]:
    """Return the instance types ``cloud``'s local overlay adds to the bundled catalog.

    Those are the overlay's instance rows of types the bundled file lacks (``gpupool catalog
    refresh --cloud volcengine`` writes them from ECS ``DescribeInstanceTypes``), in file order;
    empty without an overlay.
    """
    loaded = read_overlay(cloud) if cloud in INSTANCE_CLOUDS else None
    if loaded is None:
        return ()
    return tuple(n for n in loaded.instances if n not in bundled_by_name(cloud))
