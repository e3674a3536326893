"""Rules that need GPU facts.

Catalog names, MIG geometry and placement, host memory below its workload's band
(``gpupool.spec.checks.advice`` owns the bands and the same-GPU suggestion) and interconnect for
compact placement.
"""

from __future__ import annotations

from gpupool import catalog
from gpupool.catalog.mig import fit_layout
from gpupool.model import Pool, Stack
from gpupool.spec.checks.advice import BANDS, better_instance
from gpupool.spec.diagnostics import Diagnostic, error, warning


def _names(pool: Pool, stack: Stack) -> list[Diagnostic]:
    plugin = stack.cloud
    cloud = plugin.name
    # a provisioning cloud without a static catalog: its instance types say nothing of GPUs
    uncatalogued = plugin.provisions and not plugin.has_instance_catalog
    if uncatalogued and pool.instance is None and pool.gpu_model is None:
        return [
            error(
                "catalog.volcengine-needs-gpu",
                f"Declare the GPUs of '{pool.instance_type}'",
                f"gpupool's catalog lists no {plugin.display} instance types ({plugin.display} "
                "publishes no static catalog), so say what each node carries: gpu: {model: A10, "
                "count: 1} and optionally host: {memoryGiB: 120}.",
                pool.path,
                anchor="parent",
            )
        ]
    if plugin.has_instance_catalog and pool.instance_type is not None and pool.instance is None:
        known = [i.name for i in catalog.instances(cloud)]
        close = catalog.closest(pool.instance_type, known)
        return [
            error(
                "catalog.unknown-instance-type",
                f"Unknown instance type '{pool.instance_type}'",
                f"The {cloud} catalog has no '{pool.instance_type}'. Closest: "
                f"{', '.join(close)}. See: gpupool catalog instances --cloud {cloud}.",
                (*pool.path, "instanceType"),
            )
        ]
    if pool.gpu_model is not None and catalog.gpu(pool.gpu_model) is None:
        known = [g.name for g in catalog.gpus()]
        close = catalog.closest(pool.gpu_model, known)
        return [
            error(
                "catalog.unknown-gpu",
                f"Unknown GPU model '{pool.gpu_model}'",
                f"Closest: {', '.join(close)}. See: gpupool catalog gpus.",
                (*pool.path, "gpu", "model"),
            )
        ]
    return []


def _mig(pool: Pool) -> list[Diagnostic]:
    gpu = pool.gpu
    kind = pool.sharing.kind
    if not kind.partitioned or not pool.sharing.mig_layout or gpu is None:
        return []
    layout_path = (*pool.path, "sharing", kind.section or "", "layout")
    if gpu.mig is None:
        capable = [g.name for g in catalog.gpus() if g.mig is not None]
        return [
            error(
                "mig.not-capable",
                f"{gpu.name} does not support MIG",
                f"MIG needs one of: {', '.join(capable)}. Use time-slicing, mps or fractional "
                "on this GPU, or pick a MIG-capable instance type.",
                (*pool.path, "sharing", "mode"),
            )
        ]
    out = []
    geo = gpu.mig
    for name, count in pool.sharing.mig_layout:
        prof = geo.profile(name)
        if prof is None:
            close = catalog.closest(name, [p.name for p in geo.profiles])
            out.append(
                error(
                    "mig.unknown-profile",
                    f"Unknown MIG profile '{name}' for {gpu.name}",
                    f"{gpu.name} offers: {', '.join(p.name for p in geo.profiles)}. Closest: "
                    f"{', '.join(close)}.",
                    (*layout_path, name),
                    anchor="key",
                )
            )
        elif count > prof.max_count:
            out.append(
                error(
                    "mig.too-many",
                    f"Too many {name} instances",
                    f"{gpu.name} holds at most {prof.max_count} x {name}; the layout asks for "
                    f"{count}.",
                    (*layout_path, name),
                )
            )
    if out:
        return out
    slices = sum(geo.profile(n).compute_slices * c for n, c in pool.sharing.mig_layout)  # type: ignore[union-attr]
    if slices > geo.compute_slices:
        return [
            error(
                "mig.too-many-slices",
                f"MIG layout needs {slices} compute slices",
                f"{gpu.name} has {geo.compute_slices} compute slices; the layout uses {slices}. "
                "Remove or shrink an instance.",
                layout_path,
            )
        ]
    fit = fit_layout(gpu, dict(pool.sharing.mig_layout))
    if not fit.ok:
        return [
            error(
                "mig.layout-does-not-fit",
                f"MIG layout does not fit on {gpu.name}",
                fit.detail,
                layout_path,
            )
        ]
    return []


def _memory_ratio(pool: Pool, stack: Stack) -> list[Diagnostic]:
    # Below the band is a warning for training and inference; ``mixed`` (the default workload)
    # gets advice instead (``advice.host-memory-low``): it states no need to hold it to.
    band = BANDS.get(pool.workload)
    gpu = pool.gpu
    if band is None or gpu is None or pool.gpus_per_node == 0 or pool.workload == "mixed":
        return []
    need = band[0]
    inst = pool.instance
    host = inst.memory_gib if inst is not None else pool.host_memory_gib
    if host is None:
        return []
    gpu_mem = gpu.memory_gib * pool.gpus_per_node * (inst.gpu_fraction if inst else 1.0)
    ratio = host / gpu_mem
    if ratio >= need:
        return []
    better = better_instance(stack, pool) if inst is not None else None
    hint = ""
    if better is not None:
        hint = (f" {better.name} has the same {better.gpu_count} x {better.gpu} with "
                f"{better.memory_gib:g} GiB host RAM.")
    path = (*pool.path, "instanceType") if inst is not None else (*pool.path, "host", "memoryGiB")
    return [
        warning(
            "gpu.memory-ratio",
            f"Host memory is low for {pool.workload}",
            f"{host:g} GiB host RAM for {gpu_mem:g} GiB of GPU memory is a ratio of {ratio:.2f}; "
            f"{pool.workload} wants at least {need:g} (data loading, pinned buffers, "
            f"checkpoints).{hint}",
            path,
        )
    ]


def _compact(pool: Pool) -> list[Diagnostic]:
    inst = pool.instance
    if pool.topology != "compact" or inst is None:
        return []
    ic = inst.interconnect
    if ic.nvlink or ic.nvswitch or ic.efa or ic.infiniband:
        return []
    return [
        warning(
            "placement.compact-without-interconnect",
            "Compact placement gains little here",
            f"{inst.name} has no NVLink, NVSwitch, EFA or InfiniBand, so packing nodes together "
            "does not speed up multi-node work and makes capacity harder to find.",
            (*pool.path, "placement", "topology"),
        )
    ]


def run(stack: Stack) -> list[Diagnostic]:
    """Check catalog names, MIG layouts, memory ratios and compact placement."""
    out: list[Diagnostic] = []
    for pool in stack.pools:
        names = _names(pool, stack)
        out += names
        if names:
            continue
        out += _mig(pool)
        out += _memory_ratio(pool, stack)
        out += _compact(pool)
    return out
