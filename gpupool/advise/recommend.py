"""Recommendations as stack edits, each from the evidence, with its saving at the plan's prices.

A rule looks at one pool or tenant and either proposes an edit (a stack path and its new
value), states a gap (what it could not judge, and why), or says nothing. Guardrails come first:
no rule judges a pool from fewer than ``MIN_SAMPLES`` memory samples or ``MIN_HOURS`` hours, and
no per-pod size is inferred where the exporter's per-pod series are copies of the device's
(time-slicing, MPS).

The rules, and the thresholds they use:

* ``share-gpus``: an exclusive pool whose GPUs' p99 memory is at most half of a GPU and whose
  p95 activity is at most half too: the MIG profile (on MIG-capable GPUs) or time-slicing
  replicas that hold the p99 memory with ``HEADROOM``; saving: the mean busy GPUs' cost times
  the share the packing frees;
* ``grow-slots``: MIG instances whose p99 memory is within ``NEAR_CAP`` of the profile's: the
  next larger profile (an out-of-memory risk; it costs, and says so);
* ``lower-floor`` (``advise.floor``): ``nodes.min`` nodes idle (every GPU under 1 GiB) at the
  floor for longer than the scale-ups a lower floor brings would keep pods waiting;
* ``tenant-quota``: a tenant whose p95 requested GPUs is under half its quota (lower it to the
  p95 with headroom, rounded up) or above its quota (raise it to the p95); requests above what a
  quota can hold (``MAX_QUOTA_GPUS``) are a gap, not a quota.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping
from typing import Any

from gpupool import modes
from gpupool.advise import capacity, coverage, floor, slots
from gpupool.advise.coverage import MEDIUM, MIN_HOURS, MIN_SAMPLES, Coverage
from gpupool.advise.evidence import Evidence, PoolUse
from gpupool.advise.recommendation import Recommendation, pool_evidence
from gpupool.catalog import HOURS_PER_MONTH
from gpupool.catalog.mig import fit_layout
from gpupool.catalog.models import GpuModel
from gpupool.facts import pool_facts
from gpupool.model import Pool, Stack

HEADROOM = 1.25  # p99 memory times this must fit a slot
LOW_SHARE = 0.5  # at most this share of a GPU's memory and compute: worth sharing
MAX_REPLICAS = 8  # time-slicing replicas gpupool proposes at most
# the most GPUs a quota can hold (the schema's tenants[].quota.gpus maximum): requests beyond it
# are no use a stack could be sized for, so no quota is proposed from them
MAX_QUOTA_GPUS = 100_000


def _judgeable(use: PoolUse, cover: Coverage | None, gaps: list[str]) -> bool:
    if not use.gpus:
        return False
    if cover is not None and cover.gpus_seen and cover.share < MEDIUM:
        expected = "?" if cover.gpus_expected is None else cover.gpus_expected
        gaps.append(
            f"pool {use.pool}: low coverage ({cover.gpus_seen} of {expected} GPUs and "
            f"{cover.hours_seen} of {cover.window_hours:g} hours seen): not judged"
        )
        return False
    if use.samples < MIN_SAMPLES or use.hours < MIN_HOURS:
        gaps.append(
            f"pool {use.pool}: too little data to judge ({use.samples} memory samples over "
            f"{use.hours} h; at least {MIN_SAMPLES} samples and {MIN_HOURS} h are needed)"
        )
        return False
    return True


def _mean_busy_gpus(use: PoolUse, gpus_per_node: float) -> float:
    """Return the mean GPUs in use an hour: reporting nodes less idle ones, times GPUs a node."""
    hours = [present - idle for present, idle in use.hourly_nodes if present]
    return statistics.fmean(hours) * gpus_per_node if hours else 0.0


def _smallest_mig(gpu: GpuModel, need_gib: float) -> tuple[str, int] | None:
    """Return the smallest MIG profile that holds ``need_gib``, and how many fit one GPU."""
    if gpu.mig is None or not gpu.mig.profiles_known:
        return None
    for profile in sorted(gpu.mig.profiles, key=lambda p: (p.memory_gib, p.compute_slices)):
        if "+" in profile.name or profile.memory_gib < need_gib:
            continue
        for count in range(profile.max_count, 0, -1):
            if fit_layout(gpu, {profile.name: count}).ok:
                return profile.name, count
    return None


def share_gpus(
    stack: Stack, pool: Pool, i: int, use: PoolUse, ev: Evidence, gpu_hourly: float | None,
    gaps: list[str],
) -> Recommendation | None:
    """Propose MIG or time-slicing for an exclusive pool whose GPUs are used lightly."""
    facts = pool_facts(stack, pool)
    gpu = facts.gpu
    if not pool.sharing.kind.whole or gpu is None:
        return None
    whole = [g for g in use.gpus if g.profile is None]
    if not whole:
        return None
    if any(g.activity_p95 is None for g in whole):
        gaps.append(
            f"pool {pool.name}: its GPUs report neither {'DCGM_FI_PROF_GR_ENGINE_ACTIVE'} nor "
            "DCGM_FI_DEV_GPU_UTIL, so their compute use cannot be judged"
        )
        return None
    totals = [g.memory_total_mib for g in whole if g.memory_total_mib]
    memory_gib = gpu.memory_gib if not totals else round(min(totals) / 1024, 2)
    p99 = max(g.memory_p99_mib for g in whole) / 1024
    active = max(g.activity_p95 or 0.0 for g in whole)
    metrics = sorted({g.activity_metric or "" for g in whole})
    if p99 > LOW_SHARE * memory_gib or active > LOW_SHARE:
        return None
    need = max(p99 * HEADROOM, 1.0)
    mig = _smallest_mig(gpu, need)
    if mig is not None:
        profile, count = mig
        partitioned = modes.with_trait("partitioned")[0]
        value: dict[str, Any] = {"mode": partitioned.name,
                                 partitioned.section or "": {"layout": {profile: count}}}
        per_gpu, what = count, f"MIG {profile} x{count} a GPU"
    else:
        per_gpu = min(MAX_REPLICAS, int(memory_gib // need))
        if per_gpu < 2:
            return None
        # the replicated mode without isolation: time-slicing (MPS would cap clients)
        sliced = next(m for m in modes.with_trait("replicated") if not m.isolates)
        value = {"mode": sliced.name, "replicas": per_gpu}
        what = f"{sliced.name}, {per_gpu} replicas a GPU"
    busy = _mean_busy_gpus(use, float(facts.gpus_per_node))
    saving = None if gpu_hourly is None else busy * (1 - 1 / per_gpu) * gpu_hourly * HOURS_PER_MONTH
    return Recommendation(
        kind="share-gpus",
        pool=pool.name,
        tenant=None,
        path=("pools", i, "sharing"),
        value=value,
        summary=(
            f"{pool.name}: pods use at most {p99:.1f} GiB of {memory_gib:g} GiB (p99) and "
            f"{active:.0%} of the compute (p95): {what} holds them with "
            f"{HEADROOM - 1:.0%} headroom"
        ),
        saving_per_month=saving,
        evidence=pool_evidence(
            use,
            ev.window_seconds,
            memory_p99_gib=round(p99, 2),
            activity_p95=round(active, 3),
            activity_metric=",".join(metrics),
            mean_busy_gpus=round(busy, 2),
            gpu_memory_gib=memory_gib,
            gpu_memory_from="DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE" if totals else "catalog",
        ),
    )


def tenant_quota(stack: Stack, ev: Evidence, gaps: list[str]) -> list[Recommendation]:
    """Propose a tenant quota nearer its use, both ways (never from more than a quota holds)."""
    out: list[Recommendation] = []
    for i, tenant in enumerate(stack.tenants):
        use = ev.tenants.get(tenant.name)
        quota = tenant.quota_gpus
        if use is None or quota is None or quota <= 0:
            continue
        if use.gpus_max > MAX_QUOTA_GPUS:
            gaps.append(
                f"tenant {tenant.name}: its pods requested {use.gpus_max:.3g} GPUs at most, more "
                f"than a quota can hold ({MAX_QUOTA_GPUS:,}): the series is wrong, not judged"
            )
            continue
        target = math.ceil(use.gpus_p95 * HEADROOM) if use.gpus_p95 > 0 else 0
        if use.gpus_p95 < LOW_SHARE * quota and target < quota:
            new, why = target, "uses under half of it"
        elif use.gpus_p95 > quota:
            new, why = math.ceil(use.gpus_p95), "runs above it most of the time"
        else:
            continue
        if tenant.limit_gpus is not None and new > tenant.limit_gpus:
            continue
        out.append(
            Recommendation(
                kind="tenant-quota",
                pool=None,
                tenant=tenant.name,
                path=("tenants", i, "quota", "gpus"),
                value=new,
                summary=(
                    f"tenant {tenant.name}: quota {quota:g} GPUs, requests {use.gpus_p95:g} "
                    f"(p95, max {use.gpus_max:g}): it {why}; quota -> {new}"
                ),
                saving_per_month=None,
                evidence={
                    "window_hours": round(ev.window_seconds / 3600, 1),
                    "requested_gpus_p95": use.gpus_p95,
                    "requested_gpus_max": use.gpus_max,
                    "resolution": f"{use.resolution_seconds / 60:g}m",
                },
            )
        )
    return out


def recommend(
    stack: Stack,
    ev: Evidence,
    gpu_hourly: Mapping[str, float | None],
) -> tuple[list[Recommendation], list[str]]:
    """Return the recommendations the evidence supports, and the gaps the rules met."""
    gaps: list[str] = []
    out: list[Recommendation] = []
    covered = coverage.of(stack, ev)
    for i, pool in enumerate(stack.pools):
        use = ev.pools.get(pool.name)
        if use is None or not _judgeable(use, covered.get(pool.name), gaps):
            continue
        per_gpu = gpu_hourly.get(pool.name)
        per_node = None if per_gpu is None else per_gpu * pool.gpus_per_node
        shared = share_gpus(stack, pool, i, use, ev, per_gpu, gaps)
        if shared is not None:
            out.append(shared)
        out.extend(slots.grow_slots(stack, pool, i, use, ev, per_gpu, gaps))
        found = [
            floor.lower_floor(stack, pool, i, use, ev, per_node, gaps),
            capacity.spot(stack, pool, i, use, ev.pods.get(pool.name), ev.window_seconds, gaps),
            capacity.instance_type(stack, pool, i, use, ev.pods.get(pool.name),
                                   ev.window_seconds, gaps),
        ]
        out.extend(r for r in found if r is not None)
    for i, pool in enumerate(stack.pools):
        hami_slots = ev.slots.get(pool.name)
        if hami_slots:
            grown = slots.grow_fractional(stack, pool, i, ev.pools.get(pool.name), list(hami_slots),
                                          ev.window_seconds, gpu_hourly.get(pool.name), gaps)
            if grown is not None:
                out.append(grown)
    out.extend(tenant_quota(stack, ev, gaps))
    return out, gaps
