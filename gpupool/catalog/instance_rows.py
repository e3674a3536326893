"""Instance types and prices as the catalog's rows: the bundled ``instances-<cloud>.json``.

This module owns what one instance row and one price row must be (a canonical GPU model, counts
and sizes within the largest real machines, an interconnect whose EFA fields agree, a price in
an ISO 4217 currency with its own source and as-of date) and each cloud's bundled file, read
once (``bundled_by_name``, ``bundled_instances``). The local overlay's rows are built by the
same rules (``gpupool.catalog.price_overlay``); the lookups over both are
``gpupool.catalog.instance_types``'s.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from gpupool.catalog import gpu_models
from gpupool.catalog.models import InstanceType, Interconnect, Price
from gpupool.catalog.rows import (
    CONTROL,
    INSTANCE_CLOUDS,
    CatalogDataError,
    count,
    field_names,
    flag,
    integer,
    iso_date,
    keys,
    line,
    load,
    optional_positive,
    positive,
    shown,
    strings,
    type_name,
)

_CURRENCY = re.compile(r"[A-Z]{3}")


MAX_HOURLY = 1_000_000.0
"""The highest hourly price a row may carry, in any currency (a stack's declared price has the
same bound per GPU): a bigger one is a corrupt figure, and would overflow a month's cost."""


MAX_GPUS = 16
"""The most GPUs one instance type has (GCP's a2-megagpu-16g)."""


MAX_VCPUS = 4096


MAX_MEMORY_GIB = 65536.0


def instance_row(
    cloud_name: str, row: Mapping[str, Any], where: str, *more: str
) -> InstanceType:
    """Build one instance type from its JSON row (``more``: further keys it may carry)."""
    optional = ("gpu_fraction", "accelerator", "regions", "confidence")
    required = [n for n in field_names(InstanceType) if n not in (*optional, "gpu_memory_gib")]
    keys(row, required, where, *optional, "note", *more)
    if row["cloud"] != cloud_name:
        raise CatalogDataError(f"{where}: cloud {shown(row['cloud'])} in the {cloud_name} file")
    model = gpu_models.gpu(row["gpu"]) if isinstance(row["gpu"], str) else None
    if model is None or model.name != row["gpu"]:
        raise CatalogDataError(
            f"{where}: gpu {shown(row['gpu'])} is not a canonical GPU model name"
        )
    link, price = row["interconnect"], row["price"]
    keys(
        link,
        ("nvlink", "nvswitch", "efa"),
        f"{where} interconnect",
        "infiniband",
        "efa_interfaces",
        "gpudirect",
    )
    efa_interfaces = integer(link.get("efa_interfaces", 0), f"{where} efa_interfaces")
    efa = flag(link["efa"], f"{where} efa")
    if efa != (efa_interfaces > 0):
        raise CatalogDataError(f"{where}: efa and efa_interfaces disagree")
    direct = link.get("gpudirect") or {}
    if direct:
        keys(direct, ("protocol", "nics"), f"{where} gpudirect")
    fraction = positive(row.get("gpu_fraction", 1.0), where)
    if fraction > 1.0:
        raise CatalogDataError(f"{where}: gpu_fraction above 1")
    accelerator = row.get("accelerator")
    confidence = row.get("confidence", "")
    if confidence not in ("", "A", "B", "C"):
        raise CatalogDataError(f"{where}: confidence {shown(confidence)} is not A, B or C")
    return InstanceType(
        cloud=cloud_name,
        name=type_name(row["name"], f"{where} name"),
        machine_type=type_name(row["machine_type"], f"{where} machine_type"),
        gpu=model.name,
        gpu_memory_gib=model.memory_gib,
        gpu_count=count(row["gpu_count"], f"{where} gpu_count", MAX_GPUS),
        vcpus=count(row["vcpus"], f"{where} vcpus", MAX_VCPUS),
        memory_gib=positive(row["memory_gib"], f"{where} memory_gib", MAX_MEMORY_GIB),
        interconnect=Interconnect(
            nvlink=flag(link["nvlink"], f"{where} nvlink"),
            nvswitch=flag(link["nvswitch"], f"{where} nvswitch"),
            efa=efa,
            infiniband=flag(link.get("infiniband", False), f"{where} infiniband"),
            efa_interfaces=efa_interfaces,
            gpudirect=line(direct["protocol"], f"{where} gpudirect", 40) if direct else None,
            gpudirect_nics=integer(direct["nics"], f"{where} gpudirect") if direct else 0,
        ),
        price=price_row(price, f"{where} price"),
        regions=strings(row.get("regions", []), f"{where} regions", 40),
        confidence=confidence,
        gpu_fraction=fraction,
        accelerator=None if accelerator is None else type_name(accelerator, f"{where} accelerator"),
    )


def price_row(raw: Mapping[str, Any], where: str) -> Price:
    """Build one price row, which names its own source and as-of date."""
    keys(raw, field_names(Price), where)
    if not isinstance(raw["currency"], str) or not _CURRENCY.fullmatch(raw["currency"]):
        raise CatalogDataError(
            f"{where}: currency {shown(raw['currency'])} is not an ISO 4217 code (USD, CNY)"
        )
    region = raw["region"]
    if not isinstance(region, str) or len(region) > 40 or CONTROL.search(region):
        raise CatalogDataError(f"{where}: region {shown(region)} is not a region name")
    return Price(
        region=region,
        currency=raw["currency"],
        on_demand_hourly=optional_positive(raw["on_demand_hourly"], where, MAX_HOURLY),
        spot_hourly=optional_positive(raw["spot_hourly"], where, MAX_HOURLY),
        source=line(raw["source"], f"{where} source"),
        as_of=iso_date(raw["as_of"], f"{where} as_of"),
    )


@cache
def bundled_by_name(cloud_name: str) -> dict[str, InstanceType]:
    """Return the instance types of one cloud's bundled file, by name, in file order."""
    if cloud_name not in INSTANCE_CLOUDS:
        return {}
    name = f"instances-{cloud_name}"
    _, payload = load(name)
    built: dict[str, InstanceType] = {}
    for row in payload["instances"]:
        entry = instance_row(cloud_name, row, f"{name}.json {row.get('name')}")
        if entry.name in built:
            raise CatalogDataError(f"{name}.json: {entry.name} listed twice")
        built[entry.name] = entry
    return built


def bundled_instances(cloud: str) -> tuple[InstanceType, ...]:
    """Return ``cloud``'s instance types as gpupool's bundled file has them, in file order.

    Unlike ``instances``, no local overlay is read: this is what a refresh prices and compares
    the vendor's API with (and a malformed overlay cannot stop the refresh that replaces it).
    """
    return tuple(bundled_by_name(cloud).values())
