"""``gpupool catalog``: known GPU models, instance types and regions; refreshing prices.

``refresh`` reads the current prices of a cloud's catalog instance types from the vendor's own
API (``gpupool.refresh``) and writes them to the catalog's local overlay
(``gpupool.catalog.overlay_dir``), which every later lookup, validate and plan uses. Where the
vendor module also describes instance types (Volcengine, which publishes no static catalog),
the GPU types the bundled catalog lacks become full instance rows of the overlay, and the facts
of bundled types are compared with the API's (a contradiction is reported; the bundled facts
stay). The vendor's answer is input too: the region is checked before any call, every row by the
rules the overlay's reader applies (``catalog.overlay_problem``) before anything is written, and
a refresh that would write no price writes nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

from gpupool import catalog, didyoumean
from gpupool.catalog import CloudFacts, GpuModel, InstanceType
from gpupool.errors import GpupoolError, InputError
from gpupool.files import UnsafePathError, write_atomic
from gpupool.refresh import VENDORS, RefreshedPrice, RefreshedType, Vendor, vendor

REFRESHABLE = VENDORS
"""Clouds ``gpupool catalog refresh`` reads prices for (from the vendor's own API)."""


def _unknown(gpu: str) -> InputError:
    close = ", ".join(didyoumean.closest(gpu, [g.name for g in catalog.gpus()]))
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
        added: Instance types the API describes that the bundled catalog lacks, written as
            instance rows (with a price where the API gave one).
        skipped: GPU types the API describes that cannot be rows, ``"<type>: <why>"`` (their
            GPU product is no catalog GPU).
        disputed: Bundled types whose facts the API contradicts, ``"<type>: <what>"`` (the
            bundled facts stay).
        refused: What the API answered that is no catalog row, ``"<type>: <why>"`` (a price
            that is not a positive finite figure, a type with -4 vCPUs): left out, the bundled
            row (if any) stays.

    """

    path: Path
    region: str
    as_of: str
    priced: tuple[str, ...]
    missing: tuple[str, ...]
    added: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()
    disputed: tuple[str, ...] = ()
    refused: tuple[str, ...] = ()


def _disputes(base: InstanceType, described: RefreshedType) -> str:
    """Say what the API says of a bundled type that its row does not ("" when they agree)."""
    if described.gpu is None:
        return f"{described.skip}; catalog {base.gpu_count} x {base.gpu}"
    facts = (
        ("GPUs", f"{base.gpu_count} x {base.gpu}", f"{described.gpu_count} x {described.gpu}"),
        ("vCPUs", f"{base.vcpus}", f"{described.vcpus}"),
        ("GiB host memory", f"{base.memory_gib:g}", f"{described.memory_gib:g}"),
        ("RDMA", "yes" if base.interconnect.high_speed_network else "no",
         "yes" if described.rdma else "no"),
    )  # fmt: skip
    return "; ".join(
        f"{what}: API {api}, catalog {bundled}" for what, bundled, api in facts if bundled != api
    )


def _row(
    cloud: str, described: RefreshedType, price: dict[str, Any], source: str
) -> dict[str, Any]:
    """Return the overlay's row of a type the API describes (the bundled files' shape)."""
    return {
        "cloud": cloud,
        "name": described.instance_type,
        "machine_type": described.instance_type,
        "gpu": described.gpu,
        "gpu_count": described.gpu_count,
        "vcpus": described.vcpus,
        "memory_gib": described.memory_gib,
        "interconnect": {
            "nvlink": False, "nvswitch": False, "efa": False, "infiniband": described.rdma,
        },
        "price": price,
        "confidence": "A",
        "source": source,
    }  # fmt: skip


def _price(
    region: str,
    currency: str,
    on_demand: float | None,
    spot: float | None,
    source: str,
    as_of: str,
) -> dict[str, Any]:
    """Return one overlay price, in the catalog's ``price`` shape."""
    return {"region": region, "currency": currency, "on_demand_hourly": on_demand,
            "spot_hourly": spot, "source": source, "as_of": as_of}  # fmt: skip


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _printable(text: str, most: int = 300) -> str:
    """Return an API's words on one line, control characters as ``?``, cut at ``most``."""
    flat = _CONTROL.sub("?", text)
    return flat if len(flat) <= most else f"{flat[: most - 3]}..."


def _row_problem(cloud: str, document: dict[str, Any]) -> str:
    """Say why ``document`` (one row) is no overlay a later read takes ("" when it is one)."""
    try:
        data = json.dumps(document, allow_nan=False).encode("utf-8")
    except ValueError:
        return "a figure that is not a finite number (NaN or an infinity)"
    return catalog.overlay_problem(cloud, data)


def _checked_region(cloud: str, region: str, vendor_name: str) -> str:
    """Return ``region`` when it is one of ``cloud``'s, before any call is made."""
    if not region or catalog.is_region(cloud, region):
        return region  # no region: the vendor module says which option is missing
    known = catalog.cloud(cloud).regions
    close = ", ".join(didyoumean.closest(region, known))
    hint = f"closest: {close}" if known else "e.g. cn-beijing"
    raise InputError(
        f"'{_printable(region, 60)}' is not a region of {vendor_name} ({hint}); nothing was read "
        "or written"
    )


def _write(path: Path, data: bytes) -> None:
    """Write the overlay whole, or raise InputError saying why not (nothing is then changed)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise InputError(
            f"cannot make the price overlay's folder {path.parent} ({reason}); set "
            f"{catalog.OVERLAY_ENV} to a folder gpupool can write"
        ) from exc
    try:
        write_atomic(path, data)
    except UnsafePathError as exc:
        raise InputError(f"cannot write the price overlay: {exc.strerror}") from exc
    except OSError as exc:
        raise InputError(
            f"cannot write the price overlay {path} ({exc.strerror or exc}); the file there, "
            "if any, is left as it was"
        ) from exc


def _ask(
    api: Vendor, where: str, bundled: Mapping[str, InstanceType], clients: Any
) -> tuple[dict[str, RefreshedType], list[RefreshedPrice]]:
    """Ask the vendor for the types it describes (where it does) and the prices of all of them.

    Raises:
        InputError: the vendor's SDK is missing, or the vendor refused the calls.

    """
    describe = getattr(api, "instance_types", None)  # vendors without a static catalog
    try:
        ready = clients if clients is not None else api.clients(where)
        described = {t.instance_type: t for t in (describe(where, ready) if describe else ())}
        new = [n for n, t in described.items() if t.gpu and n not in bundled]
        found = api.fetch([*bundled, *new], where, ready)
    except ModuleNotFoundError as exc:
        hint = f"pip install 'gpupool[{api.EXTRA}]'"
        raise InputError(f"{exc.name} is not installed: {hint}") from exc
    except (GpupoolError, catalog.OverlayError, catalog.CatalogDataError):
        raise  # gpupool's own: never the vendor refusing
    except Exception as exc:  # the SDKs' own errors: no credentials, access denied, throttling
        raise InputError(f"{api.VENDOR} refused the price lookup: {exc}") from exc
    return described, found


@dataclass
class _Rows:
    """The API's answer sorted into the overlay's rows, what had no price and what was refused."""

    prices: list[dict[str, Any]] = field(default_factory=list)
    instances: list[dict[str, Any]] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


def _rows(
    cloud: str, api: Vendor, where: str, base: dict[str, Any],
    bundled: Mapping[str, InstanceType], described: Mapping[str, RefreshedType],
    found: list[RefreshedPrice],
) -> _Rows:
    """Turn each price the API gave into a price row, or an instance row of a described type."""
    as_of, source = base["as_of"], base["source"][0]
    out = _Rows()

    def usable(key: str, row: dict[str, Any]) -> bool:
        problem = _row_problem(cloud, {**base, key: [row]})
        if problem:
            out.refused.append(f"{_printable(str(row.get('name')), 80)}: {_printable(problem)}")
        return not problem

    for price in found:
        base_row = bundled.get(price.instance_type)
        if base_row is None and price.instance_type in described:
            has = price.on_demand_hourly is not None or price.spot_hourly is not None
            call = getattr(api, "TYPES_CALL", api.VENDOR)
            row_source = f"gpupool catalog refresh {as_of}: {call} {where}"
            figures = _price(where, price.currency, price.on_demand_hourly, price.spot_hourly,
                             source if has else f"{source}; no price from the API", as_of)
            row = _row(cloud, described[price.instance_type], figures, row_source)
            if usable("instances", row):
                out.instances.append(row)
            continue
        if base_row is None or (price.on_demand_hourly is None and price.spot_hourly is None):
            out.missing.append(price.instance_type)
            continue
        # in the bundled price's own region (and currency) a figure the API lacks keeps the
        # bundled one; prices of two currencies never share a row
        same = base_row.price.region == where and base_row.price.currency == price.currency
        kept = base_row.price if same else None
        on_demand = price.on_demand_hourly
        spot = price.spot_hourly
        note = []
        if on_demand is None and kept is not None:
            on_demand, note = kept.on_demand_hourly, [*note, "on-demand"]
        if spot is None and kept is not None:
            spot, note = kept.spot_hourly, [*note, "spot"]
        suffix = f"; {' and '.join(note)} from the bundled catalog" if note else ""
        row = {
            "name": price.instance_type,
            "price": _price(where, price.currency, on_demand, spot, source + suffix, as_of),
        }
        if usable("prices", row):
            out.prices.append(row)
    return out


def _unlike(
    bundled: Mapping[str, InstanceType], described: Mapping[str, RefreshedType]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Return the described types that cannot be rows, and the bundled ones the API contradicts."""
    skipped = tuple(
        _printable(f"{n}: {t.skip}") for n, t in described.items() if not t.gpu and n not in bundled
    )
    disputed = tuple(
        _printable(f"{n}: {what}")
        for n, t in described.items()
        if (base_row := bundled.get(n)) is not None
        if (what := _disputes(base_row, t))
    )
    return skipped, disputed


def _notes(
    describes: bool, skipped: tuple[str, ...], disputed: tuple[str, ...], refused: list[str]
) -> list[str]:
    """Return the overlay's notes: what it is, and what the API said that is not a row."""
    notes = [
        "Written by gpupool catalog refresh; validate and plan take these prices in place of "
        "the bundled catalog's for the instance types listed. Run it again to refresh, or "
        "delete this file to go back to the bundled prices.",
    ]
    if describes:
        notes.append(
            "instances: the GPU types the API describes that the bundled catalog lacks; validate "
            "and plan use them like bundled rows (GPU bound to the type). The API lists no "
            "regions or NVLink for them."
        )
    notes += [f"Not a row: {s}" for s in skipped]
    notes += [f"The API contradicts the bundled row (kept): {d}" for d in disputed]
    notes += [f"Refused (not a catalog figure): {r}" for r in refused]
    return notes


def refresh(
    cloud: str | None,
    region: str | None = None,
    clients: Any = None,
    today: date | None = None,
) -> Refreshed:
    """Read current prices of the cloud's catalog instance types into the local overlay.

    Every row is checked by the rules a later read of the overlay applies before it is written
    (what fails them is ``refused``), and the whole file again: the refresh writes only what
    it can read back. A refresh that would write no price and no instance type writes nothing.

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
        InputError: the cloud cannot be refreshed, the region is not one of its regions, its
            SDK is missing, the vendor refused the calls, the API gave nothing usable, or the
            overlay cannot be written.

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
    where = _checked_region(cloud, where, api.VENDOR)
    bundled = {e.name: e for e in catalog.bundled_instances(cloud)}
    describes = getattr(api, "instance_types", None) is not None
    described, found = _ask(api, where, bundled, clients)
    as_of = (today or datetime.now(timezone.utc).date()).isoformat()
    source = f"gpupool catalog refresh {as_of}: {api.source(where)}"
    base: dict[str, Any] = {"format_version": catalog.OVERLAY_FORMAT_VERSION, "source": [source],
                            "as_of": as_of, "cloud": cloud, "prices": []}  # fmt: skip
    if describes:
        base["instances"] = []
    got = _rows(cloud, api, where, base, bundled, described, found)
    rows, instances = got.prices, got.instances
    skipped, disputed = _unlike(bundled, described)
    if not rows and not instances:
        raise InputError(
            f"{api.VENDOR} gave no usable price for any {cloud} catalog type in {where} "
            f"({len(got.missing)} without a price, {len(got.refused)} refused); nothing was "
            "written, the overlay (if any) is left as it was"
        )
    notes = _notes(describes, skipped, disputed, got.refused)
    document: dict[str, Any] = {**base, "notes": notes, "prices": rows}
    if describes:
        document["instances"] = instances
    data = (json.dumps(document, indent=2, allow_nan=False) + "\n").encode("utf-8")
    problem = catalog.overlay_problem(cloud, data)
    if problem:  # every row passed alone: what is left is the whole (a type listed twice)
        raise InputError(
            f"gpupool catalog refresh would write an overlay it cannot read back ({problem}); "
            "nothing was written"
        )
    path = catalog.overlay_dir() / f"instances-{cloud}.json"
    _write(path, data)
    priced = [r["name"] for r in rows] + [
        r["name"] for r in instances
        if r["price"]["on_demand_hourly"] is not None or r["price"]["spot_hourly"] is not None
    ]  # fmt: skip
    return Refreshed(path, where, as_of, tuple(priced), tuple(got.missing),
                     tuple(r["name"] for r in instances), skipped, disputed, tuple(got.refused))
