"""Reading the catalog's JSON files and answering lookups.

This module owns the data files in ``gpupool/catalog/data/``: it reads each one lazily on first
use (once per process), checks every row's shape and cross-references (an instance's GPU must
exist, a MIG placement must fit the GPU), builds the frozen types of ``gpupool.catalog.models``,
and serves the lookups that ``gpupool.catalog`` re-exports. A malformed file raises
``CatalogDataError`` naming the file and the entry; that is a packaging bug, not a user error.
It also reads the local overlay ``gpupool catalog refresh`` writes (``overlay_dir()``): price
rows that replace bundled prices, and instance rows of the bundled files' shape whose types the
bundled file lacks become instances of the cloud (``bundled_instances`` reads past it).

Names: GPU lookups ignore case and treat spaces, underscores and dashes alike, and accept a
model's canonical name, aliases, GPU Feature Discovery product label and GKE accelerator type.
Instance names are exact, as the clouds' APIs are.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
from collections.abc import Iterable, Mapping
from datetime import date
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from gpupool.catalog.models import (
    CloudFacts,
    Dataset,
    GpuModel,
    InstanceType,
    Interconnect,
    MigGeometry,
    MigProfile,
    Price,
)
from gpupool.catalog.overlay_file import CURRENCIES, INSTANCE_ROWS, OverlayError, parse, read

INSTANCE_CLOUDS: tuple[str, ...] = ("aws", "gcp", "azure", "volcengine")
"""Clouds with an ``instances-<cloud>.json`` file, in report order."""

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,79}")
"""An instance type or machine type name (``g6.xlarge``, ``Standard_NC24ads_A100_v4``)."""
_CURRENCY = re.compile(r"[A-Z]{3}")
_REGION = re.compile(r"[a-z]{2}(-[a-z0-9]+){1,4}")
"""A region name where the catalog has no list of the cloud's regions (``cn-beijing``)."""
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")

MAX_HOURLY = 1_000_000.0
"""The highest hourly price a row may carry, in any currency (a stack's declared price has the
same bound per GPU): a bigger one is a corrupt figure, and would overflow a month's cost."""
MAX_GPUS = 16
"""The most GPUs one instance type has (GCP's a2-megagpu-16g)."""
MAX_VCPUS = 4096
MAX_MEMORY_GIB = 65536.0

_FILES: tuple[str, ...] = ("gpus", *(f"instances-{c}" for c in INSTANCE_CLOUDS), "clouds")


class CatalogDataError(Exception):
    """A catalog data file is malformed or inconsistent (a bug in the shipped data)."""


@cache
def _load(name: str) -> tuple[Dataset, Mapping[str, Any]]:
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


def _keys(row: Mapping[str, Any], required: Iterable[str], where: str, *optional: str) -> None:
    """Raise CatalogDataError when ``row`` is no object, lacks a required key or has another."""
    if not isinstance(row, Mapping):
        raise CatalogDataError(f"{where}: expected an object, got {_shown(row)}")
    required = tuple(required)
    missing = [k for k in required if k not in row]
    extra = sorted(set(row) - {*required, *optional})
    if missing or extra:
        raise CatalogDataError(f"{where}: missing {missing}, unexpected {extra}")


def _names(kind: type) -> tuple[str, ...]:
    """Field names of a catalog dataclass: the keys its JSON rows carry."""
    return tuple(f.name for f in dataclasses.fields(kind))


def _shown(value: Any) -> str:
    """Return a value for a message: its repr, cut short (a hostile file may hold megabytes)."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def _positive(value: Any, where: str, most: float = math.inf) -> float:
    """Check that ``value`` is a finite positive number, at most ``most``."""
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or not 0 < value <= most
    ):
        bound = "" if math.isinf(most) else f" up to {most:g}"
        raise CatalogDataError(f"{where}: expected a positive number{bound}, got {_shown(value)}")
    return float(value)


def _optional_positive(value: Any, where: str, most: float = math.inf) -> float | None:
    """Check that ``value`` is a finite positive number (at most ``most``) or null."""
    return None if value is None else _positive(value, where, most)


def _count(value: Any, where: str, most: int) -> int:
    """Check that ``value`` is an integer from 1 to ``most``."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
        wanted = f"expected an integer from 1 to {most}"
        raise CatalogDataError(f"{where}: {wanted}, got {_shown(value)}")
    return value


def _flag(value: Any, where: str) -> bool:
    """Check that ``value`` is true or false (``"no"`` is not false)."""
    if not isinstance(value, bool):
        raise CatalogDataError(f"{where}: expected true or false, got {_shown(value)}")
    return value


def _line(value: Any, where: str, most: int = 500) -> str:
    """Check that ``value`` is one line of text, not empty, without control characters."""
    fits = isinstance(value, str) and bool(value.strip()) and len(value) <= most
    if not fits or _CONTROL.search(value):
        raise CatalogDataError(
            f"{where}: expected one line of text (at most {most} characters, no control "
            f"characters), got {_shown(value)}"
        )
    return value


def _name(value: Any, where: str) -> str:
    """Check that ``value`` is an instance or machine type name."""
    if not isinstance(value, str) or not _NAME.fullmatch(value):
        raise CatalogDataError(f"{where}: {_shown(value)} is not an instance type name")
    return value


def _date(value: Any, where: str) -> str:
    """Check that ``value`` is a real calendar date written YYYY-MM-DD."""
    if isinstance(value, str) and _DATE.fullmatch(value):
        try:
            if date.fromisoformat(value).year >= 2000:
                return value
        except ValueError:
            pass
    raise CatalogDataError(f"{where}: {_shown(value)} is not a date (YYYY-MM-DD)")


def _strings(value: Any, where: str, most: int = 500) -> tuple[str, ...]:
    """Check that ``value`` is a list of lines of text."""
    if not isinstance(value, list):
        raise CatalogDataError(f"{where}: expected a list, got {_shown(value)}")
    return tuple(_line(v, where, most) for v in value)


def _integer(value: Any, where: str) -> int:
    """Check that ``value`` is a non-negative integer."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise CatalogDataError(f"{where}: expected a non-negative integer, got {value!r}")
    return value


def _mig(raw: Mapping[str, Any] | None, where: str) -> MigGeometry | None:
    """Build a model's MIG geometry, checking every placement fits the memory axis."""
    if raw is None:
        return None
    _keys(raw, _names(MigGeometry), where, "note")
    compute = _integer(raw["compute_slices"], f"{where}.compute_slices")
    slots = _integer(raw["memory_slots"], f"{where}.memory_slots")
    profiles: list[MigProfile] = []
    for row in raw["profiles"] or ():
        at = f"{where} profile {row.get('name')}"
        _keys(row, _names(MigProfile), at)
        profile = MigProfile(
            name=str(row["name"]),
            compute_slices=_integer(row["compute_slices"], at),
            memory_slots=_integer(row["memory_slots"], at),
            memory_gib=_positive(row["memory_gib"], at),
            max_count=_integer(row["max_count"], at),
            placements=tuple(_integer(p, at) for p in row["placements"]),
        )
        if (
            profile.compute_slices > compute
            or not profile.placements
            or any(start + profile.memory_slots > slots for start in profile.placements)
        ):
            raise CatalogDataError(f"{at}: does not fit {compute} slices / {slots} memory slots")
        profiles.append(profile)
    return MigGeometry(compute_slices=compute, memory_slots=slots, profiles=tuple(profiles))


@cache
def _gpu_catalog() -> tuple[GpuModel, ...]:
    """All GPU models, in file order."""
    _, payload = _load("gpus")
    models: list[GpuModel] = []
    for row in payload["gpus"]:
        where = f"gpus.json {row.get('name')}"
        optional = ("pci_device_ids", "catalogued")
        required = [n for n in _names(GpuModel) if n not in optional]
        _keys(row, required, where, "note", "pci_device_ids")
        pci = tuple(str(d) for d in row.get("pci_device_ids", ()))
        if any(not re.fullmatch(r"0x[0-9A-F]{4}", d) for d in pci):
            raise CatalogDataError(f"{where}: PCI device ids are written 0x2330, got {pci}")
        models.append(
            GpuModel(
                name=str(row["name"]),
                aliases=tuple(str(a) for a in row["aliases"]),
                memory_gib=_positive(row["memory_gib"], where),
                compute_capability=str(row["compute_capability"]),
                nvlink=bool(row["nvlink"]),
                bf16_tflops=_optional_positive(row["bf16_tflops"], where),
                fp16_tflops=_optional_positive(row["fp16_tflops"], where),
                product_label=str(row["product_label"]),
                gke_accelerator=row["gke_accelerator"],
                mig=_mig(row["mig"], f"{where} mig"),
                pci_device_ids=pci,
            )
        )
    return tuple(models)


def _normalize(name: str) -> str:
    """Fold case and separators so ``nvidia a100_80gb`` matches ``NVIDIA-A100-80GB``."""
    return "-".join(name.strip().lower().replace("_", " ").replace("-", " ").split())


@cache
def _gpu_index() -> dict[str, GpuModel]:
    """Every accepted spelling of every GPU model, normalized, to its model."""
    return _unique(
        (_normalize(key), key, model)
        for model in _gpu_catalog()
        for key in (model.name, *model.aliases, model.product_label, model.gke_accelerator)
        if key
    )


def _unique(entries: Iterable[tuple[str, str, GpuModel]]) -> dict[str, GpuModel]:
    """Index ``(key, as written, model)`` entries, refusing a key that names two models."""
    index: dict[str, GpuModel] = {}
    for key, written, model in entries:
        other = index.setdefault(key, model)
        if other is not model:
            raise CatalogDataError(f"gpus.json: {written!r} names {other.name} and {model.name}")
    return index


def gpu(name: str) -> GpuModel | None:
    """Return the GPU model called ``name``, or None.

    Args:
        name: A canonical name, alias, product label or GKE accelerator type, in any case.

    Returns:
        The model, or None when no model goes by that name.

    """
    return _gpu_index().get(_normalize(name))


@cache
def _pci_index() -> dict[str, GpuModel]:
    """Every PCI device id the catalog lists, upper-cased, to its model."""
    return _unique((d, d, m) for m in _gpu_catalog() for d in m.pci_device_ids)


def gpu_by_pci_id(device_id: str) -> GpuModel | None:
    """Return the GPU model with PCI device id ``device_id``, or None.

    Args:
        device_id: The id as mig-parted's ``device-filter`` writes it, with or without the
            NVIDIA vendor suffix and in any case: ``0x233010DE``, ``0x2330``, ``2330``.

    Returns:
        The model, or None when the catalog lists no GPU with that id.

    """
    text = device_id.strip().upper().removeprefix("0X")
    if len(text) == 8 and text.endswith("10DE"):
        text = text[:4]
    return _pci_index().get(f"0x{text}")


_PROFILE_NAME = re.compile(r"(\d+)g\.(\d+)gb([+-][a-z.]+)?")


def declared_gpu(name: str, memory_gib: float, mig_profiles: Iterable[str] = ()) -> GpuModel:
    """Build the model of a GPU the catalog lacks, from what a stack declares of it.

    Only the name, memory and MIG profile names are known: compute capability, TFLOPS and
    interconnect are unknown, and a declared MIG profile has no known maximum or placements
    (``max_count`` 0, no placements), so layouts on it can be checked only by profile name.

    Args:
        name: The model name the stack writes.
        memory_gib: Memory of one GPU in GiB.
        mig_profiles: MIG profile names (``1g.12gb``, ``3g.48gb+me``); none when the GPU has
            no MIG.

    Returns:
        A ``GpuModel`` with ``catalogued`` false.

    Raises:
        ValueError: A profile name is not ``<g>g.<m>gb`` with an optional attribute.

    """
    profiles: list[MigProfile] = []
    for profile in mig_profiles:
        match = _PROFILE_NAME.fullmatch(profile.strip().lower())
        if match is None:
            raise ValueError(f"{profile!r} is not a MIG profile name such as 1g.12gb")
        profiles.append(
            MigProfile(
                name=profile.strip(),
                compute_slices=int(match.group(1)),
                memory_slots=0,
                memory_gib=float(match.group(2)),
                max_count=0,
                placements=(),
            )
        )
    geometry = None
    if profiles:
        slices = max(p.compute_slices for p in profiles)
        geometry = MigGeometry(compute_slices=slices, memory_slots=0, profiles=tuple(profiles))
    return GpuModel(
        name=name,
        aliases=(),
        memory_gib=float(memory_gib),
        compute_capability="",
        nvlink=False,
        bf16_tflops=None,
        fp16_tflops=None,
        product_label=name,
        gke_accelerator=None,
        mig=geometry,
        catalogued=False,
    )


def gpus() -> tuple[GpuModel, ...]:
    """Return every GPU model in the catalog, in catalog order."""
    return _gpu_catalog()


def gpu_names() -> tuple[str, ...]:
    """Return every canonical GPU model name and alias (for "did you mean" suggestions)."""
    return tuple(name for m in _gpu_catalog() for name in (m.name, *m.aliases))


def _instance(
    cloud_name: str, row: Mapping[str, Any], where: str, *more: str
) -> InstanceType:
    """Build one instance type from its JSON row (``more``: further keys it may carry)."""
    optional = ("gpu_fraction", "accelerator", "regions", "confidence")
    required = [n for n in _names(InstanceType) if n not in (*optional, "gpu_memory_gib")]
    _keys(row, required, where, *optional, "note", *more)
    if row["cloud"] != cloud_name:
        raise CatalogDataError(f"{where}: cloud {_shown(row['cloud'])} in the {cloud_name} file")
    model = gpu(row["gpu"]) if isinstance(row["gpu"], str) else None
    if model is None or model.name != row["gpu"]:
        raise CatalogDataError(
            f"{where}: gpu {_shown(row['gpu'])} is not a canonical GPU model name"
        )
    link, price = row["interconnect"], row["price"]
    _keys(
        link,
        ("nvlink", "nvswitch", "efa"),
        f"{where} interconnect",
        "infiniband",
        "efa_interfaces",
        "gpudirect",
    )
    efa_interfaces = _integer(link.get("efa_interfaces", 0), f"{where} efa_interfaces")
    efa = _flag(link["efa"], f"{where} efa")
    if efa != (efa_interfaces > 0):
        raise CatalogDataError(f"{where}: efa and efa_interfaces disagree")
    direct = link.get("gpudirect") or {}
    if direct:
        _keys(direct, ("protocol", "nics"), f"{where} gpudirect")
    fraction = _positive(row.get("gpu_fraction", 1.0), where)
    if fraction > 1.0:
        raise CatalogDataError(f"{where}: gpu_fraction above 1")
    accelerator = row.get("accelerator")
    confidence = row.get("confidence", "")
    if confidence not in ("", "A", "B", "C"):
        raise CatalogDataError(f"{where}: confidence {_shown(confidence)} is not A, B or C")
    return InstanceType(
        cloud=cloud_name,
        name=_name(row["name"], f"{where} name"),
        machine_type=_name(row["machine_type"], f"{where} machine_type"),
        gpu=model.name,
        gpu_memory_gib=model.memory_gib,
        gpu_count=_count(row["gpu_count"], f"{where} gpu_count", MAX_GPUS),
        vcpus=_count(row["vcpus"], f"{where} vcpus", MAX_VCPUS),
        memory_gib=_positive(row["memory_gib"], f"{where} memory_gib", MAX_MEMORY_GIB),
        interconnect=Interconnect(
            nvlink=_flag(link["nvlink"], f"{where} nvlink"),
            nvswitch=_flag(link["nvswitch"], f"{where} nvswitch"),
            efa=efa,
            infiniband=_flag(link.get("infiniband", False), f"{where} infiniband"),
            efa_interfaces=efa_interfaces,
            gpudirect=_line(direct["protocol"], f"{where} gpudirect", 40) if direct else None,
            gpudirect_nics=_integer(direct["nics"], f"{where} gpudirect") if direct else 0,
        ),
        price=_price(price, f"{where} price"),
        regions=_strings(row.get("regions", []), f"{where} regions", 40),
        confidence=confidence,
        gpu_fraction=fraction,
        accelerator=None if accelerator is None else _name(accelerator, f"{where} accelerator"),
    )


def _price(raw: Mapping[str, Any], where: str) -> Price:
    """Build one price row, which names its own source and as-of date."""
    _keys(raw, _names(Price), where)
    if not isinstance(raw["currency"], str) or not _CURRENCY.fullmatch(raw["currency"]):
        raise CatalogDataError(
            f"{where}: currency {_shown(raw['currency'])} is not an ISO 4217 code (USD, CNY)"
        )
    region = raw["region"]
    if not isinstance(region, str) or len(region) > 40 or _CONTROL.search(region):
        raise CatalogDataError(f"{where}: region {_shown(region)} is not a region name")
    return Price(
        region=region,
        currency=raw["currency"],
        on_demand_hourly=_optional_positive(raw["on_demand_hourly"], where, MAX_HOURLY),
        spot_hourly=_optional_positive(raw["spot_hourly"], where, MAX_HOURLY),
        source=_line(raw["source"], f"{where} source"),
        as_of=_date(raw["as_of"], f"{where} as_of"),
    )


@cache
def _bundled(cloud_name: str) -> dict[str, InstanceType]:
    """Return the instance types of one cloud's bundled file, by name, in file order."""
    if cloud_name not in INSTANCE_CLOUDS:
        return {}
    name = f"instances-{cloud_name}"
    _, payload = _load(name)
    built: dict[str, InstanceType] = {}
    for row in payload["instances"]:
        entry = _instance(cloud_name, row, f"{name}.json {row.get('name')}")
        if entry.name in built:
            raise CatalogDataError(f"{name}.json: {entry.name} listed twice")
        built[entry.name] = entry
    return built


@cache
def _instance_catalog(cloud_name: str) -> tuple[InstanceType, ...]:
    """All instance types of one cloud: the bundled file's, then the overlay's own types.

    An overlay's instance row of a type the bundled file lacks becomes an instance of the cloud;
    one of a bundled type gives it only its price and (where it lists them) regions, the
    bundled facts stay. An overlay's price row then replaces the price of the type it names.
    """
    built = dict(_bundled(cloud_name))
    loaded = _overlay(cloud_name)
    if loaded is not None:
        for entry in loaded.instances.values():
            known = built.get(entry.name)
            if known is None:
                built[entry.name] = entry
            else:
                regions = entry.regions or known.regions
                built[entry.name] = dataclasses.replace(
                    known, price=entry.price, regions=regions
                )
        for entry_name, price in loaded.prices.items():
            if entry_name in built:
                built[entry_name] = dataclasses.replace(built[entry_name], price=price)
    return tuple(built.values())


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
class _Overlay:
    """One cloud's overlay file as read: its provenance, price rows and instance rows."""

    dataset: Dataset
    prices: dict[str, Price]
    instances: dict[str, InstanceType]


@cache
def _overlay(cloud_name: str) -> _Overlay | None:
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


def is_region(cloud: str, name: str) -> bool:
    """Return whether ``name`` is a region of ``cloud``.

    One of its regions where the catalog lists them, else a name of a region's shape
    (``cn-beijing``).
    """
    known = _cloud_catalog()[cloud].regions if cloud in _cloud_catalog() else ()
    return name in known if known else bool(_REGION.fullmatch(name))


def _overlay_price(cloud_name: str, raw: Any, where: str) -> Price:
    """Check an overlay price by the bundled rules, in the cloud's currency and regions."""
    price = _price(raw, where)
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
            raise CatalogDataError(f"{where}: {_shown(region)} is not a region of {cloud_name}")


def _overlay_rows(cloud_name: str, payload: Mapping[str, Any], path: Path) -> _Overlay:
    """Build an overlay's rows from its document (CatalogDataError on the first bad one)."""
    if payload.get("cloud") != cloud_name:
        raise CatalogDataError(f"cloud {_shown(payload.get('cloud'))}, not {cloud_name}")
    _keys(payload, ("source", "as_of", "cloud", "prices"), "the document", "notes",
          "instances", "format_version")  # fmt: skip
    source = _strings(payload["source"], "source")
    if not source:
        raise CatalogDataError("source: names no source")
    notes = _strings(payload.get("notes", []), "notes", 2000)
    as_of = _date(payload["as_of"], "as_of")
    if not isinstance(payload["prices"], list):
        raise CatalogDataError(f"prices: expected a list, got {_shown(payload['prices'])}")
    prices: dict[str, Price] = {}
    for row in payload["prices"]:
        _keys(row, ("name", "price"), "a prices row")
        at = f"prices row {_name(row['name'], 'a prices row')}"
        if row["name"] in prices:
            raise CatalogDataError(f"{at}: listed twice")
        prices[row["name"]] = _overlay_price(cloud_name, row["price"], f"{at} price")
    rows = payload.get("instances", [])
    if not isinstance(rows, list):
        raise CatalogDataError(f"instances: expected a list, got {_shown(rows)}")
    if rows and cloud_name not in INSTANCE_ROWS:
        raise CatalogDataError(
            f"instances: the {cloud_name} refresh writes no instance rows (only prices of the "
            "bundled types)"
        )
    instances: dict[str, InstanceType] = {}
    for row in rows:
        if not isinstance(row, Mapping):
            raise CatalogDataError(f"an instances row: expected an object, got {_shown(row)}")
        at = f"instances row {_name(row.get('name'), 'an instances row')}"
        entry = _instance(cloud_name, row, at, "source")
        _line(row.get("source"), f"{at}: an overlay's instance row names its source")
        _overlay_price(cloud_name, row["price"], f"{at} price")
        _overlay_regions(cloud_name, entry.regions, f"{at} regions")
        if entry.name in instances:
            raise CatalogDataError(f"{at}: listed twice")
        instances[entry.name] = entry
    dataset = Dataset(
        name=f"instances-{cloud_name} overlay",
        source=source,
        as_of=as_of,
        notes=(f"local overlay {path}", *notes),
    )
    return _Overlay(dataset, prices, instances)


def overlay(cloud: str) -> Dataset | None:
    """Return the provenance of ``cloud``'s local price overlay, or None when there is none."""
    loaded = _overlay(cloud) if cloud in INSTANCE_CLOUDS else None
    return loaded.dataset if loaded is not None else None


def overlay_types(cloud: str) -> tuple[str, ...]:
    """Return the instance types ``cloud``'s local overlay adds to the bundled catalog.

    Those are the overlay's instance rows of types the bundled file lacks (``gpupool catalog
    refresh --cloud volcengine`` writes them from ECS ``DescribeInstanceTypes``), in file order;
    empty without an overlay.
    """
    loaded = _overlay(cloud) if cloud in INSTANCE_CLOUDS else None
    if loaded is None:
        return ()
    return tuple(n for n in loaded.instances if n not in _bundled(cloud))


def bundled_instances(cloud: str) -> tuple[InstanceType, ...]:
    """Return ``cloud``'s instance types as gpupool's bundled file has them, in file order.

    Unlike ``instances``, no local overlay is read: this is what a refresh prices and compares
    the vendor's API with (and a malformed overlay cannot stop the refresh that replaces it).
    """
    return tuple(_bundled(cloud).values())


def instance(cloud: str, name: str) -> InstanceType | None:
    """Return the instance type ``name`` of ``cloud``, or None.

    Args:
        cloud: ``aws``, ``gcp``, ``azure`` or ``volcengine``.
        name: The exact name (case-sensitive, as the clouds' APIs are).

    Returns:
        The instance type, or None when the cloud has no such entry in the catalog.

    """
    entries = _instance_catalog(cloud)
    seen = _INSTANCE_INDEX.get(cloud)
    if seen is None or seen[0] is not entries:
        index: dict[str, InstanceType] = {}
        for entry in entries:
            index.setdefault(entry.name, entry)
        _INSTANCE_INDEX[cloud] = seen = (entries, index)
    return seen[1].get(name)


#: per cloud, its instance catalog (the very tuple ``_instance_catalog`` returned) and its entries
#: by name, the first of a name as a scan would find it: a 1,000-pool plan asks ``instance``
#: 36,000 times. Rebuilt whenever ``_instance_catalog`` gives another tuple (its cache cleared).
_INSTANCE_INDEX: dict[str, tuple[tuple[InstanceType, ...], dict[str, InstanceType]]] = {}


def instances(cloud: str | None = None, gpu: str | None = None) -> tuple[InstanceType, ...]:
    """Return instance types, optionally only one cloud's or only those with one GPU model.

    Args:
        cloud: Keep only this cloud's instances; an unknown cloud gives an empty result.
        gpu: Keep only instances carrying this GPU model (any accepted spelling); an unknown
            model gives an empty result.

    Returns:
        Matching instance types, clouds in ``INSTANCE_CLOUDS`` order, then catalog order.

    """
    clouds_wanted = INSTANCE_CLOUDS if cloud is None else (cloud,)
    found = [entry for c in clouds_wanted for entry in _instance_catalog(c)]
    if gpu is not None:
        model = _gpu_index().get(_normalize(gpu))
        found = [e for e in found if model is not None and e.gpu == model.name]
    return tuple(found)


@cache
def _cloud_catalog() -> dict[str, CloudFacts]:
    """Cloud facts by cloud name."""
    _, payload = _load("clouds")
    facts: dict[str, CloudFacts] = {}
    for row in payload["clouds"]:
        where = f"clouds.json {row.get('name')}"
        optional = ("display_name", "regions")
        required = [n for n in _names(CloudFacts) if n not in optional]
        _keys(row, required, where, *optional)
        notice = row["spot_notice_seconds"]
        facts[str(row["name"])] = CloudFacts(
            name=str(row["name"]),
            spot_node_pools=bool(row["spot_node_pools"]),
            spot_bid=bool(row["spot_bid"]),
            spot_notice_seconds=None if notice is None else _integer(notice, where),
            reference_region=row["reference_region"],
            display_name=str(row.get("display_name", row["name"])),
            regions=tuple(str(r) for r in row.get("regions", ())),
        )
    return facts


def cloud(name: str) -> CloudFacts:
    """Return the spot and pricing facts of cloud ``name``.

    Args:
        name: ``aws``, ``gcp``, ``azure``, ``volcengine`` or ``kubernetes``.

    Returns:
        The cloud's facts.

    Raises:
        LookupError: ``name`` is not a cloud gpupool knows.

    """
    facts = _cloud_catalog()
    if name not in facts:
        raise LookupError(f"unknown cloud {name!r}; known clouds: {', '.join(facts)}")
    return facts[name]


def clouds() -> tuple[CloudFacts, ...]:
    """Return the facts of every cloud gpupool knows."""
    return tuple(_cloud_catalog().values())


def datasets() -> tuple[Dataset, ...]:
    """Return the provenance (sources, as-of date, notes) of every catalog data file."""
    return tuple(_load(name)[0] for name in _FILES)


def dataset(name: str) -> Dataset:
    """Return the provenance of one data file, e.g. ``gpus`` or ``instances-aws``.

    Raises:
        LookupError: There is no data file called ``name``.

    """
    if name not in _FILES:
        raise LookupError(f"unknown catalog dataset {name!r}")
    return _load(name)[0]
