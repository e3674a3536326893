"""Slots pods outgrow: MIG instances and HAMi fractional slots whose p99 memory nears the cap.

Two rules whose recommendations are of kind ``grow-slots``, an out-of-memory risk worth money
too:

* ``grow-slots-mig``: MIG instances whose p99 memory (``DCGM_FI_DEV_FB_USED`` of the
  instance, its ``GPU_I_PROFILE`` label naming the profile) is within ``NEAR_CAP`` of the
  profile's: the next larger profile;
* ``grow-slots-hami``: on a ``fractional`` pool under ``scheduler: hami``, containers whose p99
  memory (HAMi's own per-container ``hami_vgpu_memory_used_bytes``, or the legacy
  ``vGPU_device_memory_usage_in_bytes``: ``gpupool.advise.hami``) is within ``NEAR_CAP`` of
  their slot's limit (``hami_vgpu_memory_limit_bytes``):
  fewer, larger slots a GPU (``sharing.fractional.slotsPerGpu``, and ``memoryGiB`` or
  ``memoryPercent`` to match), at the cost of the GPUs the larger slots take (a negative
  saving).

Under time-slicing and MPS the DCGM exporter's per-pod series copy the device's, so no pod's own
memory is judged there (a gap says so).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from gpupool.advise.recommendation import Recommendation, pool_evidence
from gpupool.advise.rule import NOTHING, Case, Findings, Rule, Scope
from gpupool.advise.words import counted, verb
from gpupool.catalog import HOURS_PER_MONTH
from gpupool.catalog.mig import fit_layout
from gpupool.catalog.models import GpuModel
from gpupool.facts import pool_facts

NEAR_CAP = 0.9  # p99 memory above this share of a slot: near its cap
HEADROOM = 1.25


def _next_mig(gpu: GpuModel, current: str) -> str | None:
    if gpu.mig is None:
        return None
    profiles = sorted(
        (p for p in gpu.mig.profiles if "+" not in p.name),
        key=lambda p: (p.memory_gib, p.compute_slices),
    )
    names = [p.name for p in profiles]
    if current not in names:
        return None
    i = names.index(current)
    return names[i + 1] if i + 1 < len(names) else None


class GrowMig(Rule):
    """The next larger MIG profile where instances run near their memory cap."""

    id: ClassVar[str] = "grow-slots-mig"
    kind: ClassVar[str] = "grow-slots"
    scope: ClassVar[Scope] = Scope.POOL_USE
    summary: ClassVar[str] = (
        "MIG instances whose p99 memory is over 90% of the profile's: the next larger profile"
    )
    edits: ClassVar[str] = "pools[i].sharing.mig.layout"
    saving: ClassVar[str] = "0 (an out-of-memory risk, not a saving)"

    def judge(self, case: Case) -> Findings:
        """Propose the next larger MIG profile for each profile whose instances near its cap."""
        return _grow_mig(self.kind, case)


def _grow_mig(kind: str, case: Case) -> Findings:
    stack, pool, i, use = case.stack, case.pool, case.at, case.seen
    gpu_hourly = case.gpu_price
    gpu = pool_facts(stack, pool).gpu
    if not pool.sharing.kind.partitioned or gpu is None or gpu.mig is None:
        if pool.sharing.kind.replicated:
            return Findings.gap(
                f"pool {pool.name}: under {pool.sharing.mode} the exporter's per-pod series "
                "copy the device's, so no pod's own memory is judged"
            )
        return NOTHING
    sizes = {p.name: p.memory_gib for p in gpu.mig.profiles}
    layout = dict(pool.sharing.mig_layout)
    out: list[Recommendation] = []
    for profile in sorted({g.profile for g in use.gpus if g.profile}):
        cap = sizes.get(profile)
        if cap is None:
            continue
        # the instance's own used + free where the exporter sends FB_FREE (the driver keeps a
        # little of a profile's memory), else the profile's size from the catalog
        totals = [g.memory_total_mib for g in use.gpus
                  if g.profile == profile and g.memory_total_mib]
        if totals:
            cap = min(totals) / 1024
        p99 = max(g.memory_p99_mib for g in use.gpus if g.profile == profile) / 1024
        if p99 < NEAR_CAP * cap:
            continue
        bigger = _next_mig(gpu, profile)
        if bigger is None:
            continue
        count = layout.get(profile, 1)
        new_layout = {k: v for k, v in layout.items() if k != profile}
        new_layout[bigger] = new_layout.get(bigger, 0) + count
        while count > 0 and not fit_layout(gpu, new_layout).ok:
            count -= 1
            new_layout[bigger] = new_layout.get(bigger, 0) - 1
            if new_layout[bigger] <= 0:
                del new_layout[bigger]
                break
        if not new_layout or not fit_layout(gpu, new_layout).ok:
            continue
        out.append(
            Recommendation(
                kind=kind,
                pool=pool.name,
                tenant=None,
                path=("pools", i, "sharing", pool.sharing.kind.section or "", "layout"),
                value=new_layout,
                summary=(
                    f"{pool.name}: {profile} instances use {p99:.1f} GiB of {cap:g} GiB (p99): "
                    f"near the cap, an out-of-memory risk; {bigger} gives them room"
                ),
                saving_per_month=None if gpu_hourly is None else 0.0,
                evidence=pool_evidence(use, case.window, profile=profile,
                                       memory_p99_gib=round(p99, 2), profile_memory_gib=cap),
            )
        )
    return Findings.of(*out)


class GrowHamiSlots(Rule):
    """Fewer, larger HAMi slots where containers' p99 memory nears their slot's limit."""

    id: ClassVar[str] = "grow-slots-hami"
    kind: ClassVar[str] = "grow-slots"
    scope: ClassVar[Scope] = Scope.POOL  # HAMi's own per-container series, not DCGM's
    summary: ClassVar[str] = (
        "HAMi containers whose p99 memory is over 90% of their slot's limit: the most slots a "
        "GPU (fewer than today) that hold that p99 x 1.25, with memoryGiB or memoryPercent to "
        "match"
    )
    edits: ClassVar[str] = "pools[i].sharing.fractional"
    saving: ClassVar[str] = "negative: the GPUs the larger slots take"

    def judge(self, case: Case) -> Findings:
        """Propose fewer, larger slots a GPU where the pool's containers near their limit."""
        return _grow_hami(self.kind, case)


def _grow_hami(kind: str, case: Case) -> Findings:
    stack, pool, i, use, slots = case.stack, case.pool, case.at, case.use, case.slots
    window, gpu_hourly = case.window, case.gpu_price
    frac = pool.sharing.fractional
    gpu = pool_facts(stack, pool).gpu
    if frac is None or gpu is None or not slots:
        return NOTHING
    near = [s for s in slots if s.used_p99_gib >= NEAR_CAP * s.limit_gib]
    if not near:
        return NOTHING
    need = max(s.used_p99_gib for s in near) * HEADROOM
    room = gpu.memory_gib * frac.memory_overcommit
    new_slots = min(frac.slots_per_gpu - 1, int(room // need))
    if new_slots < 2:
        return Findings.gap(f"pool {pool.name}: {counted(len(near), 'HAMi container')} "
                            f"{verb(len(near), 'runs', 'run')} near their slot's "
                            f"memory ({need / HEADROOM:.1f} GiB p99) and fewer than 2 such "
                            "slots fit a GPU: consider whole GPUs")
    value: dict[str, Any] = {"slotsPerGpu": new_slots}
    if frac.memory_gib is not None:
        value["memoryGiB"] = round(math.floor(room / new_slots * 10) / 10, 1)
    if frac.memory_percent is not None:
        value["memoryPercent"] = 100 // new_slots
    if frac.cores_percent is not None:
        value["coresPercent"] = frac.cores_percent
    if frac.memory_overcommit != 1.0:
        value["memoryOvercommit"] = frac.memory_overcommit
    busy = 0.0
    if use is not None and use.hourly_nodes:
        hours = [p - idle for p, idle in use.hourly_nodes if p]
        busy = sum(hours) / len(hours) * pool_facts(stack, pool).gpus_per_node if hours else 0.0
    cost = None if gpu_hourly is None else -(
        busy * (frac.slots_per_gpu / new_slots - 1) * gpu_hourly * HOURS_PER_MONTH
    )
    worst = max(near, key=lambda s: s.used_p99_gib / s.limit_gib)
    figures = {
        "containers": len(slots),
        "containers_near_cap": len(near),
        "memory_p99_gib": round(worst.used_p99_gib, 2),
        "slot_limit_gib": round(worst.limit_gib, 2),
        "samples": sum(s.samples for s in slots),
        "series": slots[0].series,
    }
    evidence = pool_evidence(use, window, **figures) if use is not None and use.gpus else {
        "window_hours": round(window / 3600, 1), **figures}
    return Findings.of(Recommendation(
        kind=kind,
        pool=pool.name,
        tenant=None,
        path=("pools", i, "sharing", pool.sharing.kind.section or ""),
        value=value,
        summary=(
            f"{pool.name}: {len(near)} of {len(slots)} HAMi containers use up to "
            f"{worst.used_p99_gib:.1f} of their {worst.limit_gib:.1f} GiB slot (p99): near the "
            f"cap, an out-of-memory risk; {new_slots} slots a GPU instead of "
            f"{frac.slots_per_gpu} give them room"
        ),
        saving_per_month=cost,
        evidence=evidence,
    ))
