"""``gpupool catalog``: known GPU models, instance types and regions; refreshing prices.

``refresh`` reads the current prices of a cloud's catalog instance types from the vendor's own
API (``gpupool.refresh``) and writes them to the catalog's local overlay
(``gpupool.catalog.overlay_dir``), which every later lookup, validate and plan uses.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

from gpupool import catalog
from gpupool.catalog import CloudFacts, GpuModel, InstanceType
from gpupool.errors import InputError
from gpupool.files import write_atomic
from gpupool.refresh import VENDORS, vendor

REFRESHABLE = VENDORS
"""Clouds ``gpupool catalog refresh`` reads prices for (from the vendor's own API)."""


def _unknown(gpu: str) -> InputError:
    close = ", ".join(catalog.closest(gpu, [g.name for g in catalog.gpus()]))
    return InputError(f"unknown GPU model '{gpu}'; closest: {close}")


def gpus(gpu: str | None) -> tuple[GpuModel, ...]:
    """Return every GPU model, or only ``gpu`` (aliases accepted).

    Raises:
        InputError: ``gpu`` is not a known model; the message names the closest ones.

    """
    if not gpu:
        return tuple(catalog.gpus())
    hit = catalog.gpu(gpu)
    if hit is None:
        raise _unknown(gpu)
    return (hit,)


def instances(cloud: str | None, gpu: str | None) -> tuple[InstanceType, ...]:
    """Return the instance types of ``cloud`` (all clouds when None) with ``gpu`` (any when None).

    Raises:
        InputError: ``gpu`` is not a known model; the message names the closest ones.

    """
    if gpu and catalog.gpu(gpu) is None:
        raise _unknown(gpu)
    return tuple(catalog.instances(cloud, gpu))


def regions(cloud: str | None) -> tuple[CloudFacts, ...]:
    """Return the facts (with region lists) of ``cloud``, or of every cloud that provisions."""
    return tuple(
        c
        for c in catalog.clouds()
        if c.name == cloud or (cloud is None and c.name in catalog.INSTANCE_CLOUDS)
    )


@dataclass(frozen=True)
class Refreshed:
    """What ``gpupool catalog refresh`` wrote.

    Attributes:
        path: The overlay file.
        region: The region the prices are for.
        as_of: The overlay's date.
        priced: Instance types with a price from the API (on-demand or spot).
        missing: Instance types the API gave no price for (the bundled prices stay).

    """

    path: Path
    region: str
    as_of: str
    priced: tuple[str, ...]
    missing: tuple[str, ...]


def refresh(
    cloud: str | None,
    region: str | None = None,
    clients: Any = None,
    today: date | None = None,
) -> Refreshed:
    """Read current prices of the cloud's catalog instance types into the local overlay.

    Args:
        cloud: The cloud, one of ``REFRESHABLE`` (None: the command left it out).
        region: The region to price (default: the cloud's reference region).
        clients: Ready clients of the vendor's SDK, the shape its ``gpupool.refresh`` module's
            ``clients`` returns (tests pass stubbed ones); default: clients from the
            environment's credentials.
        today: The overlay's as-of date (default: today, UTC).

    Returns:
        Where the overlay went and what it holds.

    Raises:
        InputError: the cloud cannot be refreshed, its SDK is missing, or the vendor refused
            the calls.

    """
    if cloud is None:
        raise InputError(f"gpupool catalog refresh needs --cloud ({', '.join(REFRESHABLE)})")
    if cloud not in REFRESHABLE:
        raise InputError(
            f"gpupool catalog refresh reads {', '.join(REFRESHABLE)} only; {cloud} prices come "
            "with gpupool's catalog"
        )
    api = vendor(cloud)
    where = region or catalog.cloud(cloud).reference_region or ""
    names = [e.name for e in catalog.instances(cloud)]
    try:
        found = api.fetch(names, where, clients if clients is not None else api.clients(where))
    except ModuleNotFoundError as exc:
        hint = f"pip install 'gpupool[{api.EXTRA}]'"
        raise InputError(f"{exc.name} is not installed: {hint}") from exc
    except InputError:
        raise
    except Exception as exc:  # the SDKs' own errors: no credentials, access denied, throttling
        raise InputError(f"{api.VENDOR} refused the price lookup: {exc}") from exc
    as_of = (today or datetime.now(timezone.utc).date()).isoformat()
    source = f"gpupool catalog refresh {as_of}: {api.source(where)}"
    rows: list[dict[str, Any]] = []
    missing: list[str] = []
    for price in found:
        base = catalog.instance(cloud, price.instance_type)
        if base is None or (price.on_demand_hourly is None and price.spot_hourly is None):
            missing.append(price.instance_type)
            continue
        # in the bundled price's own region (and currency) a figure the API lacks keeps the
        # bundled one; prices of two currencies never share a row
        same = base.price.region == where and base.price.currency == price.currency
        kept = base.price if same else None
        on_demand = price.on_demand_hourly
        spot = price.spot_hourly
        note = []
        if on_demand is None and kept is not None:
            on_demand, note = kept.on_demand_hourly, [*note, "on-demand"]
        if spot is None and kept is not None:
            spot, note = kept.spot_hourly, [*note, "spot"]
        suffix = f"; {' and '.join(note)} from the bundled catalog" if note else ""
        rows.append(
            {
                "name": price.instance_type,
                "price": {
                    "region": where,
                    "currency": price.currency,
                    "on_demand_hourly": on_demand,
                    "spot_hourly": spot,
                    "source": source + suffix,
                    "as_of": as_of,
                },
            }
        )
    document = {
        "source": [source],
        "as_of": as_of,
        "notes": [
            "Written by gpupool catalog refresh; validate and plan take these prices in place of "
            "the bundled catalog's for the instance types listed. Run it again to refresh, or "
            "delete this file to go back to the bundled prices.",
        ],
        "cloud": cloud,
        "prices": rows,
    }
    path = catalog.overlay_dir() / f"instances-{cloud}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, (json.dumps(document, indent=2) + "\n").encode("utf-8"))
    return Refreshed(path, where, as_of, tuple(r["name"] for r in rows), tuple(missing))
