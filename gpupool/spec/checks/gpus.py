"""Rules that need GPU facts.

Catalog names (and GPUs an existing-cluster pool declares that the catalog lacks), MIG geometry
and placement, host memory below its workload's band (``gpupool.spec.checks.advice`` owns the
bands and the same-GPU suggestion) and interconnect for compact placement.
"""

from __future__ import annotations

from gpupool import catalog, didyoumean
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
                f"gpupool's catalog does not list '{pool.instance_type}' ({plugin.display} "
                "publishes no static catalog; the catalog lists only the types whose specs have "
                f"a source: gpupool catalog instances --cloud {cloud}), so say what each node "
                "carries: gpu: {model: A10, count: 1} and optionally host: {memoryGiB: 120}; "
                f"or read the {plugin.display} API's GPU types into the catalog's local overlay: "
                f"gpupool catalog refresh --cloud {cloud} --region R.",
                pool.path,
                anchor="parent",
            )
        ]
    if plugin.has_instance_catalog and pool.instance_type is not None and pool.instance is None:
        known = [i.name for i in catalog.instances(cloud)]
        close = didyoumean.closest(pool.instance_type, known)
        return [
            error(
                "catalog.unknown-instance-type",
                f"Unknown instance type '{pool.instance_type}'",
                f"The {cloud} catalog has no '{pool.instance_type}'. Closest: "
                f"{', '.join(close)}. See: gpupool catalog instances --cloud {cloud}.",
                (*pool.path, "instanceType"),
            )
        ]
    if pool.gpu_model is not None:
        return _declared(pool, stack) or _bound(pool)
    return []


def _bound(pool: Pool) -> list[Diagnostic]:
    """Check that GPUs declared on an instance type the catalog knows are the type's own."""
    inst, declared = pool.instance, catalog.gpu(str(pool.gpu_model))
    if inst is None or declared is None:
        return []
    if declared.name == inst.gpu and pool.declared_gpu_count in (None, inst.gpu_count):
        return []
    source = f" (confidence {inst.confidence})" if inst.confidence else ""
    return [
        error(
            "catalog.declared-gpu-differs",
            f"{inst.name} carries {inst.gpu_count} x {inst.gpu}",
            f"GPU memory and count are bound to the instance type: the catalog{source} gives "
            f"{inst.name} {inst.gpu_count} x {inst.gpu}, the pool declares "
            f"{pool.declared_gpu_count} x {declared.name}. Declare what the type carries, drop "
            "gpu (the catalog's is used), or pick another instance type.",
            (*pool.path, "gpu"),
        )
    ]


def _declared(pool: Pool, stack: Stack) -> list[Diagnostic]:
    """Check a declared GPU model: a catalog one, or (existing clusters) one with its memory."""
    model = str(pool.gpu_model)
    known = catalog.gpu(model)
    extras = [
        k
        for k, v in (
            ("memoryGiB", pool.declared_gpu_memory_gib),
            ("migProfiles", pool.declared_mig_profiles),
        )
        if v
    ]
    if known is not None:
        if not extras:
            return []
        return [
            error(
                "catalog.gpu-already-known",
                f"The catalog knows {known.name}",
                f"gpupool takes {known.name}'s memory ({known.memory_gib:g} GiB) and MIG "
                f"profiles from its catalog; remove gpu.{' and gpu.'.join(extras)}.",
                (*pool.path, "gpu", extras[0]),
                anchor="key",
            )
        ]
    close = ", ".join(didyoumean.closest(model, [g.name for g in catalog.gpus()]))
    existing = not stack.cloud.provisions
    if existing and pool.declared_gpu_memory_gib is not None:
        mig = (
            " MIG layouts are checked against the declared profiles by name only (no maxima "
            "or placements)."
            if pool.declared_mig_profiles
            else ""
        )
        return [
            warning(
                "catalog.uncatalogued-gpu",
                f"GPU '{model}' is not in the catalog, so gpupool checks only what is declared",
                f"gpupool takes {pool.declared_gpu_memory_gib:g} GiB per GPU as declared; its "
                "compute capability, TFLOPS and interconnect are unknown, so client limits and "
                f"the plan's TFLOPS go unchecked.{mig} If it is a catalog GPU under another "
                f"name, use that name (closest: {close}).",
                (*pool.path, "gpu", "model"),
            )
        ]
    how = (
        " To use a GPU the catalog lacks, declare its memory: gpu: {model, count, memoryGiB} "
        "(and migProfiles if it has MIG)."
        if existing
        else f" On {stack.cloud.display} the GPU must be a catalog GPU; declaring one the "
        "catalog lacks is for existing clusters (cloud kubernetes)."
    )
    return [
        error(
            "catalog.unknown-gpu",
            f"Unknown GPU model '{model}'",
            f"Closest: {close}. See: gpupool catalog gpus.{how}",
            (*pool.path, "gpu", "model"),
        )
    ]


def _mig(pool: Pool) -> list[Diagnostic]:
    gpu = pool.gpu
    kind = pool.sharing.kind
    if not kind.partitioned or not pool.sharing.mig_layout or gpu is None:
        return []
    layout_path = (*pool.path, "sharing", kind.section or "", "layout")
    if gpu.mig is None:
        capable = [g.name for g in catalog.gpus() if g.mig is not None]
        declare = (
            " If it has MIG, declare its profiles: gpu.migProfiles." if not gpu.catalogued else ""
        )
        return [
            error(
                "mig.not-capable",
                f"{gpu.name} does not support MIG",
                f"MIG needs one of: {', '.join(capable)}. Use time-slicing, mps or fractional "
                f"on this GPU, or pick a MIG-capable instance type.{declare}",
                (*pool.path, "sharing", "mode"),
            )
        ]
    out = []
    geo = gpu.mig
    for name, count in pool.sharing.mig_layout:
        prof = geo.profile(name)
        if prof is None:
            close = didyoumean.closest(name, [p.name for p in geo.profiles])
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
        elif count > prof.max_count and gpu.catalogued:
            out.append(
                error(
                    "mig.too-many",
                    f"Too many {name} instances",
                    f"{gpu.name} holds at most {prof.max_count} x {name}; the layout asks for "
                    f"{count}.",
                    (*layout_path, name),
                )
            )
    if out or not gpu.catalogued:
        return out  # a declared GPU's maxima and placements are unknown (its warning says so)
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
        if any(d.is_error for d in names):
            continue
        out += _mig(pool)
        out += _memory_ratio(pool, stack)
        out += _compact(pool)
    return out
