"""The ``share-gpus`` rule: MIG or time-slicing for an exclusive pool whose GPUs are used lightly.

An exclusive pool whose GPUs' p99 memory is at most ``LOW_SHARE`` of a GPU and whose p95
activity is at most ``LOW_SHARE`` too gets the MIG profile (on MIG-capable GPUs) or the
time-slicing replicas that hold the p99 memory with ``HEADROOM``; its saving is the mean busy
GPUs' cost times the share the packing frees.
"""

from __future__ import annotations

import statistics
from typing import Any, ClassVar

from gpupool import modes
from gpupool.advise.evidence import PoolUse
from gpupool.advise.recommendation import Recommendation, pool_evidence
from gpupool.advise.rule import NOTHING, Case, Findings, Rule, Scope
from gpupool.catalog import HOURS_PER_MONTH
from gpupool.catalog.mig import fit_layout
from gpupool.catalog.models import GpuModel
from gpupool.facts import pool_facts

HEADROOM = 1.25  # p99 memory times this must fit a slot
LOW_SHARE = 0.5  # at most this share of a GPU's memory and compute: worth sharing
MAX_REPLICAS = 8  # time-slicing replicas gpupool proposes at most


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


class ShareGpus(Rule):
    """MIG or time-slicing for an exclusive pool whose GPUs are used lightly."""

    id: ClassVar[str] = "share-gpus"
    kind: ClassVar[str] = "share-gpus"
    scope: ClassVar[Scope] = Scope.POOL_USE
    summary: ClassVar[str] = (
        "an exclusive pool whose GPUs' p99 memory and p95 activity are at most half a GPU: the "
        "smallest MIG profile holding p99 memory x 1.25, as many as fit a GPU; time-slicing "
        "replicas (at most 8) on GPUs without MIG"
    )
    edits: ClassVar[str] = "pools[i].sharing"
    saving: ClassVar[str] = "the mean busy GPUs' cost times the share packing frees"

    def judge(self, case: Case) -> Findings:
        """Propose MIG or time-slicing where the pool's GPUs are used lightly."""
        return _share(self.kind, case)


def _share(kind: str, case: Case) -> Findings:
    stack, pool, i, use = case.stack, case.pool, case.at, case.seen
    gpu_hourly = case.gpu_price
    facts = pool_facts(stack, pool)
    gpu = facts.gpu
    if not pool.sharing.kind.whole or gpu is None:
        return NOTHING
    whole = [g for g in use.gpus if g.profile is None]
    if not whole:
        return NOTHING
    if any(g.activity_p95 is None for g in whole):
        return Findings.gap(
            f"pool {pool.name}: its GPUs report neither {'DCGM_FI_PROF_GR_ENGINE_ACTIVE'} nor "
            "DCGM_FI_DEV_GPU_UTIL, so their compute use cannot be judged"
        )
    totals = [g.memory_total_mib for g in whole if g.memory_total_mib]
    memory_gib = gpu.memory_gib if not totals else round(min(totals) / 1024, 2)
    p99 = max(g.memory_p99_mib for g in whole) / 1024
    active = max(g.activity_p95 or 0.0 for g in whole)
    metrics = sorted({g.activity_metric or "" for g in whole})
    if p99 > LOW_SHARE * memory_gib or active > LOW_SHARE:
        return NOTHING
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
            return NOTHING
        # the replicated mode without isolation: time-slicing (MPS would cap clients)
        sliced = next(m for m in modes.with_trait("replicated") if not m.isolates)
        value = {"mode": sliced.name, "replicas": per_gpu}
        what = f"{sliced.name}, {per_gpu} replicas a GPU"
    busy = _mean_busy_gpus(use, float(facts.gpus_per_node))
    saving = None if gpu_hourly is None else busy * (1 - 1 / per_gpu) * gpu_hourly * HOURS_PER_MONTH
    return Findings.of(Recommendation(
        kind=kind,
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
            case.window,
            memory_p99_gib=round(p99, 2),
            activity_p95=round(active, 3),
            activity_metric=",".join(metrics),
            mean_busy_gpus=round(busy, 2),
            gpu_memory_gib=memory_gib,
            gpu_memory_from="DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE" if totals else "catalog",
        ),
    ))
