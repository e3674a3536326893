"""Text and JSON views of the catalog, behind ``gpupool catalog gpus|instances|regions|refresh``.

This module owns the catalog's two output formats. ``text`` is an aligned table for people,
ending with the as-of date and sources of the data shown, so a price is never read without
its date. ``json`` is stable for scripts: ``{"format_version": ..., "gpus": [...]}`` or
``{"format_version": ..., "instances": [...]}`` (``gpupool.formats.FORMAT_VERSION``) with every
catalog field, plus a ``datasets`` list carrying the same provenance; a refresh's document names
the overlay it wrote and what it priced, added, skipped and disputed. Filtering (by cloud or
GPU) is the caller's job (``gpupool.usecases.catalog``); these functions format whatever they are
given.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from gpupool.catalog import dataset, overlay, overlay_types
from gpupool.catalog.models import CloudFacts, Dataset, GpuModel, InstanceType
from gpupool.formats import FORMAT_VERSION

if TYPE_CHECKING:
    from gpupool.usecases.catalog import Refreshed

FORMATS = ("text", "json")


def _check_format(fmt: str) -> None:
    """Raise ValueError for an output format this module does not write."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; use one of: {', '.join(FORMATS)}")


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: set[int]) -> list[str]:
    """Lay out rows under headers, right-aligning the columns in ``right``."""
    widths = [len(h) for h in headers]
    for row in rows:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=True)]

    def line(cells: Sequence[str]) -> str:
        parts = [
            cell.rjust(width) if i in right else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(parts).rstrip()

    return [line(headers), *(line(row) for row in rows)]


def _number(value: float | None, digits: int = 4) -> str:
    """Format a number without trailing zeros, or ``-`` when unknown."""
    if value is None:
        return "-"
    return f"{value:.{digits}f}".rstrip("0").rstrip(".")


def _money(value: float | None, currency: str = "USD") -> str:
    """Format a price with 2 to 4 decimals (``3.20``, ``0.8048``), or ``-`` when unknown.

    A price in another currency than USD names it (``2.35 CNY``): the columns are USD.
    """
    if value is None:
        return "-"
    text = f"{value:.4f}"
    while text.endswith("0") and len(text.partition(".")[2]) > 2:
        text = text[:-1]
    return text if currency == "USD" else f"{text} {currency}"


def _provenance(names: Iterable[str]) -> list[Dataset]:
    """Return the datasets behind what is shown, each once, in first-seen order."""
    return [dataset(name) for name in dict.fromkeys(names)]


def _provenance_lines(sets: Sequence[Dataset]) -> list[str]:
    """Footer lines naming each dataset's as-of date and sources."""
    lines: list[str] = []
    for data in sets:
        lines.append(f"Data: {data.name} as of {data.as_of}; sources:")
        lines.extend(f"  - {source}" for source in data.source)
    return lines


def _dataset_dict(data: Dataset) -> dict[str, Any]:
    """Return a dataset as JSON-ready data."""
    return {
        "name": data.name,
        "as_of": data.as_of,
        "source": list(data.source),
        "notes": list(data.notes),
    }


def gpu_to_dict(model: GpuModel) -> dict[str, Any]:
    """Return every field of a GPU model as JSON-ready data (tuples become lists)."""
    raw = dataclasses.asdict(model)
    raw["mig_capable"] = model.mig_capable
    if model.mig is not None:
        raw["mig"]["profiles_known"] = model.mig.profiles_known
    return json.loads(json.dumps(raw))


def instance_to_dict(entry: InstanceType) -> dict[str, Any]:
    """Return every field of an instance type as JSON-ready data, plus derived totals."""
    raw = dataclasses.asdict(entry)
    raw["gpus"] = entry.gpus
    raw["total_gpu_memory_gib"] = entry.total_gpu_memory_gib
    return json.loads(json.dumps(raw))


def _mig_cell(model: GpuModel) -> str:
    """Summarize MIG support for the GPU table."""
    if model.mig is None:
        return "-"
    if not model.mig.profiles_known:
        return "unknown profiles"
    return f"{len(model.mig.profiles)} profiles ({model.mig.compute_slices} slices)"


def _json(key: str, items: list[dict[str, Any]], sets: Sequence[Dataset]) -> str:
    """Return the JSON document of one listing, with the datasets it came from."""
    doc = {
        "format_version": FORMAT_VERSION,
        key: items,
        "datasets": [_dataset_dict(d) for d in sets],
    }
    return json.dumps(doc, indent=2) + "\n"


def format_gpus(gpus: Iterable[GpuModel], fmt: str) -> str:
    """Format GPU models as a text table or JSON.

    Args:
        gpus: The models to show, in the order to show them.
        fmt: ``"text"`` or ``"json"``.

    Returns:
        The formatted output, ending with a newline.

    Raises:
        ValueError: ``fmt`` is not a known format.

    """
    _check_format(fmt)
    models = list(gpus)
    sets = _provenance(["gpus"])
    if fmt == "json":
        return _json("gpus", [gpu_to_dict(m) for m in models], sets)
    if not models:
        return "No GPU models match.\n"
    headers = ("GPU", "MEMORY GiB", "CC", "NVLINK", "BF16 TFLOPS", "FP16 TFLOPS", "MIG", "GKE")
    rows = [
        (
            m.name,
            _number(m.memory_gib, 1),
            m.compute_capability,
            "yes" if m.nvlink else "no",
            _number(m.bf16_tflops, 1),
            _number(m.fp16_tflops, 1),
            _mig_cell(m),
            m.gke_accelerator or "-",
        )
        for m in models
    ]
    lines = _table(headers, rows, right={1, 2, 4, 5})
    lines.append("")
    lines.append(
        f"{len(models)} GPU model(s). TFLOPS are dense tensor-core figures; '-' = unknown."
    )
    lines.extend(_provenance_lines(sets))
    return "\n".join(lines) + "\n"


def _gpus_cell(entry: InstanceType) -> str:
    """GPU count, as a fraction for vGPU slices (``1/6``)."""
    if entry.gpu_fraction >= 1.0:
        return str(entry.gpu_count)
    share = Fraction(entry.gpu_fraction).limit_denominator(64) * entry.gpu_count
    return f"{share.numerator}/{share.denominator}"


def _interconnect_cell(entry: InstanceType) -> str:
    """NVLink / NVSwitch / EFA / InfiniBand, the strongest GPU link first."""
    link = entry.interconnect
    parts = ["nvswitch" if link.nvswitch else "nvlink" if link.nvlink else ""]
    parts += ["efa" if link.efa else "", "infiniband" if link.infiniband else ""]
    return ", ".join(p for p in parts if p) or "-"


def _per_gpu(entry: InstanceType) -> float | None:
    """On-demand price per whole-GPU hour."""
    price = entry.price.on_demand_hourly
    return None if price is None or entry.gpus == 0 else price / entry.gpus


def format_instances(instances: Iterable[InstanceType], fmt: str) -> str:
    """Format instance types as a text table (with prices) or JSON.

    Args:
        instances: The instance types to show, in the order to show them.
        fmt: ``"text"`` or ``"json"``.

    Returns:
        The formatted output, ending with a newline.

    Raises:
        ValueError: ``fmt`` is not a known format.

    """
    _check_format(fmt)
    entries = list(instances)
    sets = _provenance(["gpus", *(f"instances-{e.cloud}" for e in entries)])
    if fmt == "json":
        return _json("instances", [instance_to_dict(e) for e in entries], sets)
    if not entries:
        return "No instance types match.\n"
    headers = (
        "CLOUD", "INSTANCE", "GPU", "GPUS", "GPU MEM GiB", "VCPU", "RAM GiB", "INTERCONNECT",
        "REGION", "ON-DEMAND $/H", "SPOT $/H", "$/GPU-H", "PRICES AS OF",
    )  # fmt: skip
    rows = [
        (
            e.cloud,
            e.name,
            e.gpu,
            _gpus_cell(e),
            _number(e.total_gpu_memory_gib, 1),
            str(e.vcpus),
            _number(e.memory_gib, 1),
            _interconnect_cell(e),
            e.price.region or "-",
            _money(e.price.on_demand_hourly, e.price.currency),
            _money(e.price.spot_hourly, e.price.currency),
            _money(_per_gpu(e), e.price.currency),
            e.price.as_of,
        )
        for e in entries
    ]
    lines = _table(headers, rows, right={3, 4, 5, 6, 9, 10, 11})
    lines.append("")
    others = sorted({e.price.currency for e in entries} - {"USD"})
    money = "USD" if not others else f"USD (a price in {', '.join(others)} says so)"
    lines.append(
        f"{len(entries)} instance type(s). Prices are {money} per hour in the row's region; "
        "spot is a sampled price, not a quote; '-' = unknown. Each row's price source is in "
        "--format json (price.source)."
    )
    lines.extend(_provenance_lines(sets[1:]))
    for cloud in dict.fromkeys(e.cloud for e in entries):
        local = overlay(cloud)
        if local is not None:
            refreshed = f"gpupool catalog refresh, {local.as_of}"
            lines.append(f"Prices from the {local.notes[0]} ({refreshed}).")
            shown = {e.name for e in entries if e.cloud == cloud}
            added = [name for name in overlay_types(cloud) if name in shown]
            if added:
                lines.append(
                    f"Instance types from the same overlay, read from the {cloud} API "
                    f"(confidence A): {', '.join(added)}."
                )
    return "\n".join(lines) + "\n"


def format_regions(clouds: Iterable[CloudFacts], fmt: str) -> str:
    """Format each cloud's region list as text (one line per cloud) or JSON.

    Args:
        clouds: The clouds to show.
        fmt: ``"text"`` or ``"json"``.

    Returns:
        The formatted output, ending with a newline.

    Raises:
        ValueError: ``fmt`` is not a known format.

    """
    _check_format(fmt)
    entries = list(clouds)
    sets = _provenance(["clouds"])
    if fmt == "json":
        items = [
            {"cloud": c.name, "regions": list(c.regions), "reference_region": c.reference_region}
            for c in entries
        ]
        return _json("clouds", items, sets)
    lines = []
    for c in entries:
        known = ", ".join(c.regions) if c.regions else "no confirmed list: regions are not checked"
        lines.append(f"{c.name} ({len(c.regions)}): {known}")
    lines.append("")
    lines.extend(_provenance_lines(sets))
    return "\n".join(lines) + "\n"


def format_refreshed(result: Refreshed, fmt: str = "text") -> str:
    """Say what ``gpupool catalog refresh`` wrote, as text or as its JSON document."""
    if fmt == "json":
        doc = {
            "format_version": FORMAT_VERSION,
            "overlay": str(result.path),
            "region": result.region,
            "as_of": result.as_of,
            "priced": list(result.priced),
            "missing": list(result.missing),
            "added": list(result.added),
            "skipped": list(result.skipped),
            "disputed": list(result.disputed),
            "refused": list(result.refused),
        }
        return json.dumps(doc, indent=2) + "\n"
    lines = [
        f"Wrote {len(result.priced)} price(s) for {result.region} as of {result.as_of} to "
        f"{result.path}; validate and plan now use them."
    ]
    if result.missing:
        lines.append(
            f"No price from the API for {len(result.missing)}: {', '.join(result.missing)} "
            "(the bundled prices stay)."
        )
    if result.added:
        lines.append(
            f"Added {len(result.added)} GPU instance type(s) the bundled catalog lacks: "
            f"{', '.join(result.added)}; validate and plan now know their GPUs."
        )
    for skipped in result.skipped:
        lines.append(f"Not added: {skipped}; a pool on it declares gpu: {{model, count}}.")
    for disputed in result.disputed:
        lines.append(f"The API contradicts the bundled catalog for {disputed} (kept).")
    for refused in result.refused:
        lines.append(f"Left out, not a catalog figure: {refused}.")
    return "\n".join(lines) + "\n"
