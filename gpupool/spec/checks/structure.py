"""Structural rules that need no GPU facts.

Unique names, references, node ranges, and fields that only apply to one cloud, one sharing mode or
spot pools.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from gpupool import clouds, didyoumean, modes
from gpupool.model import Pool, Stack
from gpupool.modes import SharingMode
from gpupool.spec.diagnostics import Diagnostic, Path, error


def _duplicates(items: Iterable[tuple[str, Path]], what: str, code: str) -> list[Diagnostic]:
    seen: dict[str, Path] = {}
    out = []
    for value, path in items:
        if value in seen:
            first = seen[value]
            out.append(
                error(
                    code,
                    f"Duplicate {what} '{value}'",
                    f"{what.capitalize()} names must be unique; '{value}' is already used at "
                    f"{'.'.join(str(p) for p in first)}. Rename one.",
                    path,
                )
            )
        else:
            seen[value] = path
    return out


def _clouds_where(trait: str, wanted: bool = True) -> str:
    """Name the clouds whose ``trait`` is ``wanted``: clouds of existing nodes first."""
    hits = [c for c in clouds.all_clouds() if bool(getattr(c, trait)) == wanted]
    return " and ".join(c.name for c in sorted(hits, key=lambda c: c.provisions))


def _pool_fields(stack: Stack, pool: Pool) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    p = pool.path
    cloud = stack.cloud
    if not cloud.provisions:
        if pool.instance_type is not None:
            out.append(
                error(
                    "pool.field-not-for-cloud",
                    f"instanceType does not apply to cloud {cloud.name}",
                    f"With provider.cloud {cloud.name} gpupool provisions no machines: name the "
                    "existing nodes in nodeNames and declare their GPUs in gpu.",
                    (*p, "instanceType"),
                    anchor="key",
                )
            )
        if not pool.node_names:
            out.append(
                error(
                    "pool.missing-node-names",
                    "Pool needs nodeNames",
                    f"With provider.cloud {cloud.name} each pool names its existing nodes "
                    "(nodeNames) and their GPUs (gpu: {model, count}).",
                    p,
                    anchor="parent",
                )
            )
        if pool.gpu_model is None:
            out.append(
                error(
                    "pool.missing-gpu",
                    "Pool needs gpu",
                    "Declare the GPUs of the named nodes: gpu: {model: A100-SXM4-80GB, count: 8}.",
                    p,
                    anchor="parent",
                )
            )
        if pool.capacity.spot:
            out.append(
                error(
                    "spot.not-for-existing-nodes",
                    "Spot does not apply to existing nodes",
                    f"cloud {cloud.name} pools are existing machines; capacity.type spot is for "
                    "cloud node pools.",
                    (*p, "capacity", "type"),
                )
            )
    else:
        # Clouds with no static instance catalog let their pools declare their GPUs.
        explicit_gpus = cloud.declares_gpus
        declaring = _clouds_where("declares_gpus")
        for key, present, where in (
            ("nodeNames", bool(pool.node_names), _clouds_where("provisions", wanted=False)),
            ("gpu", pool.gpu_model is not None and not explicit_gpus, declaring),
            ("host", pool.host_memory_gib is not None and not explicit_gpus, declaring),
        ):
            if present:
                out.append(
                    error(
                        "pool.field-not-for-cloud",
                        f"{key} only applies to cloud {where}",
                        f"On {cloud.name} the instance type decides the GPUs and host "
                        f"memory; remove {key}.",
                        (*p, key),
                        anchor="key",
                    )
                )
        if pool.instance_type is None:
            out.append(
                error(
                    "pool.missing-instance-type",
                    "Pool needs instanceType",
                    f"Name a {cloud.name} GPU instance type "
                    f"(see: gpupool catalog instances --cloud {cloud.name}).",
                    p,
                    anchor="parent",
                )
            )
    return out


def _node_range(pool: Pool, has_nodes_key: bool) -> list[Diagnostic]:
    n = pool.nodes
    out = []
    if n.min > n.max:
        out.append(
            error(
                "pool.nodes-range",
                "nodes.min is greater than nodes.max",
                f"min {n.min} > max {n.max}; raise max or lower min.",
                (*pool.path, "nodes", "min"),
            )
        )
    elif has_nodes_key and not n.min <= n.desired <= n.max:
        out.append(
            error(
                "pool.nodes-desired",
                "nodes.desired is outside min..max",
                f"desired {n.desired} must lie within {n.min}..{n.max}.",
                (*pool.path, "nodes", "desired"),
            )
        )
    return out


def _mode_names(modes_: tuple[SharingMode, ...]) -> str:
    return " or ".join(m.name for m in modes_)


def _sharing_fields(pool: Pool) -> list[Diagnostic]:
    s = pool.sharing
    kind = s.kind
    p = (*pool.path, "sharing")
    out = []
    replicated = modes.with_trait("replicated")
    (mig,) = modes.with_trait("partitioned")
    (frac,) = modes.with_trait("scheduler_slots")
    mig_key, frac_key = mig.section or "", frac.section or ""
    # key -> (wanted by this mode, present, the modes that read it, how to give it)
    fields = {
        "replicas": (
            kind.replicated,
            s.replicas is not None,
            _mode_names(replicated),
            "Say how many pods share each GPU, e.g. replicas: 4.",
        ),
        mig_key: (
            kind.partitioned,
            bool(s.mig_layout),
            mig.name,
            f"Give the MIG layout, e.g. {mig_key}: {{layout: {{3g.40gb: 2}}}}.",
        ),
        frac_key: (
            kind.scheduler_slots,
            s.fractional is not None,
            frac.name,
            f"Give the slots, e.g. {frac_key}: {{slotsPerGpu: 4}}.",
        ),
    }
    for key, (want, present, readers, how) in fields.items():
        if present and not want:
            out.append(
                error(
                    "sharing.field-not-for-mode",
                    f"{key} does not apply to mode {s.mode}",
                    f"sharing.{key} is read only by mode {readers}; remove it or change the mode.",
                    (*p, key),
                    anchor="key",
                )
            )
        if want and not present:
            out.append(
                error(
                    "sharing.missing-field",
                    f"Mode {s.mode} needs {key}",
                    how,
                    p,
                    anchor="parent",
                )
            )
    f = s.fractional
    if f is not None and f.memory_gib is not None and f.memory_percent is not None:
        out.append(
            error(
                "fractional.memory-twice",
                "Give memoryGiB or memoryPercent, not both",
                "Each slot's memory is set once: in GiB or as a percentage of the GPU.",
                (*p, frac_key, "memoryPercent"),
                anchor="key",
            )
        )
    return out


def _spot_fields(
    pool: Pool, raw_capacity_keys: set[str], has_interruption: bool
) -> list[Diagnostic]:
    if pool.capacity.spot:
        out = []
        if pool.capacity.on_demand_base > pool.nodes.max:
            out.append(
                error(
                    "spot.base-above-max",
                    "onDemandBase is greater than nodes.max",
                    f"{pool.capacity.on_demand_base} on-demand nodes cannot fit in a pool of at "
                    f"most {pool.nodes.max}.",
                    (*pool.path, "capacity", "onDemandBase"),
                )
            )
        return out
    out = []
    for key in sorted(
        raw_capacity_keys & {"onDemandBase", "maxPricePerHour", "fallbackToOnDemand"}
    ):
        out.append(
            error(
                "spot.field-not-for-on-demand",
                f"{key} only applies to spot pools",
                "Set capacity.type: spot, or remove it.",
                (*pool.path, "capacity", key),
                anchor="key",
            )
        )
    if has_interruption:
        out.append(
            error(
                "spot.field-not-for-on-demand",
                "interruption only applies to spot pools",
                "On-demand nodes are not interrupted; set capacity.type: spot, or remove it.",
                (*pool.path, "interruption"),
                anchor="key",
            )
        )
    return out


def _price_fields(stack: Stack, pool: Pool) -> list[Diagnostic]:
    """Check that a declared price states a spot figure exactly where the pool has spot nodes."""
    price = pool.price
    if price is None:
        return []
    if price.spot_per_gpu_hour is not None and not pool.capacity.spot:
        return [
            error(
                "spot.field-not-for-on-demand",
                "price.spotPerGpuHour only applies to spot pools",
                "This pool's nodes are all priced at price.perGpuHour; set capacity.type: spot, "
                "or remove spotPerGpuHour.",
                (*pool.path, "price", "spotPerGpuHour"),
                anchor="key",
            )
        ]
    if price.spot_per_gpu_hour is None and pool.capacity.spot and stack.cloud.provisions:
        return [
            error(
                "spot.declared-price-without-spot",
                "A spot pool's declared price needs spotPerGpuHour",
                "A declared price replaces the catalog's for the whole pool, so its spot nodes "
                "need their own figure: add price.spotPerGpuHour (perGpuHour prices its "
                "on-demand nodes).",
                (*pool.path, "price"),
                anchor="key",
            )
        ]
    return []


def _tenants(stack: Stack) -> list[Diagnostic]:
    names = [p.name for p in stack.pools]
    known = set(names)
    out = []
    for t in stack.tenants:
        for j, ref in enumerate(t.pools):
            if ref not in known:
                hit = didyoumean.closest(ref, names, 1, cutoff=0.6)
                hint = f" Did you mean '{hit[0]}'?" if hit else ""
                out.append(
                    error(
                        "tenant.unknown-pool",
                        f"Unknown pool '{ref}'",
                        f"Tenant {t.name} names a pool the stack does not declare.{hint} "
                        f"Pools: {', '.join(names)}.",
                        (*t.path, "pools", j),
                    )
                )
        if t.quota_gpus is not None and t.limit_gpus is not None and t.limit_gpus < t.quota_gpus:
            out.append(
                error(
                    "tenant.limit-below-quota",
                    "limit is below quota",
                    f"Tenant {t.name} is guaranteed {t.quota_gpus:g} GPUs but capped at "
                    f"{t.limit_gpus:g}; the limit must be at least the quota.",
                    (*t.path, "limit", "gpus"),
                )
            )
    return out


def run(stack: Stack, raw: Mapping[str, Any] | None = None) -> list[Diagnostic]:
    """Check names, references, node ranges and fields that do not apply where they are used."""
    out = _duplicates(((p.name, (*p.path, "name")) for p in stack.pools), "pool", "pool.duplicate")
    out += _duplicates(
        ((t.name, (*t.path, "name")) for t in stack.tenants), "tenant", "tenant.duplicate"
    )
    out += _duplicates(
        (
            (t.namespace, (*t.path, "namespace" if t.namespace != t.name else "name"))
            for t in stack.tenants
        ),
        "namespace",
        "tenant.duplicate-namespace",
    )
    out += _duplicates(
        ((n, (*p.path, "nodeNames", j)) for p in stack.pools for j, n in enumerate(p.node_names)),
        "node",
        "pool.duplicate-node",
    )
    raw_pools = (raw or {}).get("pools", [])
    for pool in stack.pools:
        rp = raw_pools[pool.path[1]] if len(raw_pools) > pool.path[1] else {}
        out += _pool_fields(stack, pool)
        if stack.cloud.provisions:
            if "nodes" not in rp:
                out.append(
                    error(
                        "pool.missing-nodes",
                        "Pool needs nodes",
                        "Say how many nodes the pool may have, e.g. nodes: {min: 0, max: 4}.",
                        pool.path,
                        anchor="parent",
                    )
                )
            out += _node_range(pool, "desired" in rp.get("nodes", {}))
        elif "nodes" in rp:
            out.append(
                error(
                    "pool.field-not-for-cloud",
                    f"nodes does not apply to cloud {stack.cloud.name}",
                    "The node list (nodeNames) is the pool's size; remove nodes.",
                    (*pool.path, "nodes"),
                    anchor="key",
                )
            )
        if not stack.cloud.provisions and "disk" in rp:
            out.append(
                error(
                    "pool.field-not-for-cloud",
                    f"disk does not apply to cloud {stack.cloud.name}",
                    "gpupool provisions no machines here, so it sizes no disk; the named nodes "
                    "keep theirs. Remove disk.",
                    (*pool.path, "disk"),
                    anchor="key",
                )
            )
        out += _sharing_fields(pool)
        out += _spot_fields(pool, set(rp.get("capacity", {})), "interruption" in rp)
        out += _price_fields(stack, pool)
    out += _tenants(stack)
    return out
