"""GPU models: the ``gpus.json`` rows, their lookups by any spelling, and declared GPUs.

This module owns the GPU catalog: each model's row and MIG geometry (every placement checked to
fit the memory axis), the index of every accepted spelling (canonical name, aliases, GPU Feature
Discovery product label and GKE accelerator type, ignoring case and treating spaces, underscores
and dashes alike), the PCI device ids mig-parted filters by, and ``declared_gpu``, the model of
a GPU a stack declares that the catalog lacks.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

from gpupool.catalog.models import GpuModel, MigGeometry, MigProfile
from gpupool.catalog.rows import (
    CatalogDataError,
    field_names,
    integer,
    keys,
    load,
    optional_positive,
    positive,
)


def _mig(raw: Mapping[str, Any] | None, where: str) -> MigGeometry | None:
    """Build a model's MIG geometry, checking every placement fits the memory axis."""
    if raw is None:
        return None
    keys(raw, field_names(MigGeometry), where, "note")
    compute = integer(raw["compute_slices"], f"{where}.compute_slices")
    slots = integer(raw["memory_slots"], f"{where}.memory_slots")
    profiles: list[MigProfile] = []
    for row in raw["profiles"] or ():
        at = f"{where} profile {row.get('name')}"
        keys(row, field_names(MigProfile), at)
        profile = MigProfile(
            name=str(row["name"]),
            compute_slices=integer(row["compute_slices"], at),
            memory_slots=integer(row["memory_slots"], at),
            memory_gib=positive(row["memory_gib"], at),
            max_count=integer(row["max_count"], at),
            placements=tuple(integer(p, at) for p in row["placements"]),
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
    _, payload = load("gpus")
    models: list[GpuModel] = []
    for row in payload["gpus"]:
        where = f"gpus.json {row.get('name')}"
        optional = ("pci_device_ids", "catalogued")
        required = [n for n in field_names(GpuModel) if n not in optional]
        keys(row, required, where, "note", "pci_device_ids")
        pci = tuple(str(d) for d in row.get("pci_device_ids", ()))
        if any(not re.fullmatch(r"0x[0-9A-F]{4}", d) for d in pci):
            raise CatalogDataError(f"{where}: PCI device ids are written 0x2330, got {pci}")
        models.append(
            GpuModel(
                name=str(row["name"]),
                aliases=tuple(str(a) for a in row["aliases"]),
                memory_gib=positive(row["memory_gib"], where),
                compute_capability=str(row["compute_capability"]),
                nvlink=bool(row["nvlink"]),
                bf16_tflops=optional_positive(row["bf16_tflops"], where),
                fp16_tflops=optional_positive(row["fp16_tflops"], where),
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
