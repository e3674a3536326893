"""The ``memory-overcommit`` rule: HAMi's memory overcommit sized from the pods' measured peaks.

**What the factor is.** HAMi's device plugin registers each GPU with its physical memory times
``deviceMemoryScaling`` (``pkg/device-plugin/nvidiadevice/nvinternal/plugin/register.go``,
HAMi v2.10.0), which gpupool renders from ``fractional.memoryOvercommit``; the scheduler places
slots on a GPU while their memory limits sum to at most that, so above 1 the slots of a GPU may
hold more memory than it has, and the plugin sets ``CUDA_OVERSUBSCRIBE=true`` in their
containers (``plugin/server.go``). Their summed *use* is what must fit the physical memory M.

**What is measured.** For each GPU, per 5-minute window w: S(w), the peak of its containers'
summed use (``gpupool.advise.peaks``), and P(w), the sum of the peaks (over the whole window
read) of the containers present in w. S(w) <= P(w); P(w) is what slots sized at each pod's peak
reserve. A GPU whose slots, sized so, sum to f x M (factor f) holds f x M / P(w) times the pods
of w (or pods like them, peaking together as they did), so its summed use S(w) x f x M / P(w)
exceeds M exactly when S(w) x f > P(w): the window **overflows at f**. The peaks not coinciding
is what makes P(w) / S(w), the sum of the peaks over the peak of the sum, exceed 1.

**The advice.** The largest f on a 0.05 grid, from 1 to 2 (the schema's bound), at which at most
the declared share of the pool's windows (``--overflow-share``, 0.1% by default) overflow; the
edit raises ``slotsPerGpu`` by the same factor (slots are what the overcommit frees), and the
saving is the GPUs the same slots no longer need. Limits at or above each pod's peak reserve at
least P(w), so the factor holds whatever the pods' slot sizes.

No factor is recommended where a container's memory is flat at its allocation (its 5th
percentile within 5% of its peak, and its peak within 15% of its slot's limit): pre-allocating
servers such as vLLM and TGI reserve their memory at start, so their use never falls and says
nothing of their need (Google, "Best practices for autoscaling LLM inference workloads with
GPUs on GKE": ``DCGM_FI_DEV_FB_USED`` stays up for such servers); nor where no two pods shared a
GPU for an hour of windows (whether peaks coincide cannot be told); nor beside ``grow-slots-hami``
(containers near their slot's cap need larger slots, not more).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from gpupool import schedulers
from gpupool.advise.overflow import percent
from gpupool.advise.peaks import GpuWindow, PodPeak, PoolPeaks
from gpupool.advise.recommendation import Recommendation
from gpupool.advise.rule import NOTHING, Case, Findings, Rule, Scope
from gpupool.advise.slots import NEAR_CAP
from gpupool.advise.words import counted, verb
from gpupool.catalog import HOURS_PER_MONTH
from gpupool.facts import pool_facts

MAX_FACTOR = 2.0  # fractional.memoryOvercommit's upper bound in the stack schema
GRAIN = 0.05  # factors are proposed on this grid, rounded down
FLAT_LOW = 0.95  # the 5th percentile at least this share of the peak: flat
# the peak at least this share of the slot's limit: at its allocation (vLLM takes 0.9 of what
# it sees by default, its --gpu-memory-utilization)
AT_ALLOCATION = 0.85
MIN_SHARED_WINDOWS = 12  # windows (an hour) in which two pods shared a GPU, at least


@dataclass(frozen=True)
class Verdict:
    """The largest factor the windows bear, and what overflows at it."""

    factor: float | None  # None: not even 1 + GRAIN holds
    overflowing: int  # windows that overflow at ``factor``
    windows: int  # windows judged (those with a pod present)
    allowed: int  # windows the declared share lets overflow

    @property
    def share(self) -> float:
        """The share of the windows that overflow at the factor."""
        return self.overflowing / self.windows if self.windows else 0.0


def overflows(windows: Iterable[tuple[float, float]], factor: float) -> int:
    """Return how many (summed peak S, sum of peaks P) windows overflow at ``factor``."""
    return sum(1 for summed, peaks in windows if summed * factor > peaks)


def largest_factor(windows: Sequence[tuple[float, float]], share: float,
                   ceiling: float = MAX_FACTOR, grain: float = GRAIN) -> Verdict:
    """Return the largest factor on the grid at which at most ``share`` of the windows overflow.

    Each window is (S, P): the peak of the GPU's summed use and the sum of its pods' peaks.
    A window of no pod (P <= 0) is left out.
    """
    judged = [(s, p) for s, p in windows if p > 0]
    allowed = math.floor(share * len(judged) + 1e-9)
    ratios = sorted(p / s for s, p in judged if s > 0)  # overflows at f iff f > P / S
    bound = ceiling if len(ratios) <= allowed else min(ceiling, ratios[allowed])
    steps = math.floor(round((bound - 1.0) / grain, 9))
    while steps >= 1:
        factor = round(1.0 + steps * grain, 4)
        over = overflows(judged, factor)
        if over <= allowed:  # the count itself decides, whatever the ratios' rounding
            return Verdict(factor, over, len(judged), allowed)
        steps -= 1
    return Verdict(None, overflows(judged, 1.0), len(judged), allowed)


def window_pairs(peaks: PoolPeaks) -> list[tuple[float, float]]:
    """Return each window's (S, P): the peak of the summed use, the sum of the pods' peaks."""
    peak = {(p.gpu, p.name): p.peak_gib for p in peaks.pods}
    return [(w.summed_peak_gib, sum(peak.get((w.gpu, name), 0.0) for name in w.pods))
            for w in peaks.windows]


def flat_at_allocation(pod: PodPeak) -> bool:
    """Whether a container held its memory flat at its slot's limit (a pre-allocating server)."""
    if pod.allocation_gib is None or pod.peak_gib <= 0:
        return False
    flat = pod.low_gib >= FLAT_LOW * pod.peak_gib
    return flat and pod.peak_gib >= AT_ALLOCATION * pod.allocation_gib


def shared(windows: Iterable[GpuWindow]) -> int:
    """Return the windows in which at least two containers shared the GPU."""
    return sum(1 for w in windows if len(w.pods) >= 2)


class MemoryOvercommit(Rule):
    """HAMi's memory overcommit from the peaks of the pods that shared each GPU."""

    id: ClassVar[str] = "memory-overcommit"
    kind: ClassVar[str] = "memory-overcommit"
    scope: ClassVar[Scope] = Scope.POOL  # HAMi's own per-container series, not DCGM's
    summary: ClassVar[str] = (
        "a HAMi fractional pool whose pods' GPU memory peaks do not coincide: the largest "
        "memoryOvercommit (1 to 2, by 0.05) at which their summed use would have exceeded "
        "the GPU's memory in at most --overflow-share of 5-minute windows (0.1%), with "
        "slotsPerGpu raised to match; none where a pod's memory is flat at its allocation"
    )
    edits: ClassVar[str] = "pools[i].sharing.fractional"
    saving: ClassVar[str] = "the busy GPUs' cost times the share of GPUs the extra slots free"

    def judge(self, case: Case) -> Findings:
        """Propose the largest memoryOvercommit the pool's measured windows bear."""
        return _judge(self.kind, case)


def _slots(case: Case, factor: float) -> int:
    """Return the slots a GPU offers at ``factor``: today's scaled by it, within the memory."""
    frac = case.pool.sharing.fractional
    assert frac is not None
    slots = math.floor(frac.slots_per_gpu * factor / frac.memory_overcommit + 1e-9)
    gpu = pool_facts(case.stack, case.pool).gpu
    per_slot = None
    if gpu is not None and frac.memory_gib is not None:
        per_slot = frac.memory_gib
    elif gpu is not None and frac.memory_percent is not None:
        per_slot = gpu.memory_gib * frac.memory_percent / 100
    if gpu is not None and per_slot:
        slots = min(slots, math.floor(gpu.memory_gib * factor / per_slot + 1e-9))
    return max(1, slots)


def _busy_gpus(case: Case, peaks: PoolPeaks) -> float:
    """Return the pool's mean busy GPUs (DCGM, hour by hour), else the GPUs its pods used."""
    use = case.use
    hours = [p - idle for p, idle in use.hourly_nodes if p] if use is not None else []
    if hours:
        return sum(hours) / len(hours) * pool_facts(case.stack, case.pool).gpus_per_node
    return float(len({p.gpu for p in peaks.pods}))


def _judge(kind: str, case: Case) -> Findings:
    pool, share = case.pool, case.overflow_share
    frac = pool.sharing.fractional
    if not schedulers.of(case.stack).virtualises_memory:
        return NOTHING
    peaks = case.evidence.peaks.get(pool.name)
    if peaks is None or not peaks.pods:
        return NOTHING  # no HAMi series from the pool's pods: hami.read's gap says so
    if frac is None:
        return _exclusive(pool.name, peaks)
    near = [s for s in case.slots if s.used_p99_gib >= NEAR_CAP * s.limit_gib]
    if near:  # grow-slots-hami proposes fewer, larger slots: not more, smaller ones beside it
        return Findings.gap(
            f"pool {pool.name}: {counted(len(near), 'HAMi container')} "
            f"{verb(len(near), 'runs', 'run')} near {verb(len(near), 'its', 'their')} slot's "
            "memory, so no memoryOvercommit is recommended beside larger slots")
    flat = [p for p in peaks.pods if flat_at_allocation(p)]
    if flat:
        first = flat[0]
        return Findings.gap(
            f"pool {pool.name}: {counted(len(flat), 'container')} of {len(peaks.pods)} "
            f"{verb(len(flat), 'holds its', 'hold their')} GPU memory flat at the allocation "
            f"(e.g. {first.name}: {first.low_gib:.1f} to {first.peak_gib:.1f} GiB of "
            f"{first.allocation_gib or 0:.1f}), as pre-allocating servers such as vLLM and TGI "
            "do (GKE's best practices for LLM inference): their use says nothing of their "
            "need, so no memoryOvercommit is recommended")
    together = shared(peaks.windows)
    if together < MIN_SHARED_WINDOWS:
        return Findings.gap(
            f"pool {pool.name}: two pods shared a GPU in {counted(together, 'window')} of 5 "
            f"minutes (at least {MIN_SHARED_WINDOWS} are needed): whether their memory peaks "
            "coincide cannot be told, so no memoryOvercommit is recommended")
    pairs = window_pairs(peaks)
    verdict = largest_factor(pairs, share)
    factor = verdict.factor or 1.0
    current = frac.memory_overcommit
    if verdict.factor is None and current < 1.0 + GRAIN / 2:
        return Findings.gap(
            f"pool {pool.name}: its pods' GPU memory peaks coincide (memoryOvercommit "
            f"{1.0 + GRAIN:g} would overflow in more than {percent(share)} of "
            f"{verdict.windows} 5-minute windows): no memoryOvercommit is recommended")
    if abs(factor - current) < GRAIN / 2:
        return NOTHING
    slots = _slots(case, factor)
    if factor > current and slots <= frac.slots_per_gpu:
        return Findings.gap(
            f"pool {pool.name}: its pods' summed GPU memory bears memoryOvercommit {factor:g} "
            f"(overflowing in {percent(verdict.share)} of {verdict.windows} windows), which "
            f"adds no whole slot to {frac.slots_per_gpu} a GPU: none recommended")
    return Findings.of(_recommend(kind, case, peaks, verdict, factor, slots, pairs))


def _exclusive(pool: str, peaks: PoolPeaks) -> Findings:
    """Say where an exclusive pool's pods pre-allocate: their GPUs are not worth overcommitting."""
    flat = [p for p in peaks.pods if flat_at_allocation(p)]
    if not flat:
        return NOTHING  # one pod a GPU: whether peaks would coincide cannot be measured
    first = flat[0]
    return Findings.gap(
        f"pool {pool}: {counted(len(flat), 'pod')} of {len(peaks.pods)} "
        f"{verb(len(flat), 'holds its', 'hold their')} GPU memory flat at the GPU's "
        f"(e.g. {first.name}: {first.low_gib:.1f} to {first.peak_gib:.1f} GiB of "
        f"{first.allocation_gib or 0:.1f}; {peaks.series}), as pre-allocating servers such as "
        "vLLM and TGI do (GKE's best practices for LLM inference): sharing their GPUs as "
        "fractional slots with a memoryOvercommit would not pay")


def _recommend(kind: str, case: Case, peaks: PoolPeaks, verdict: Verdict, factor: float,
               slots: int, pairs: list[tuple[float, float]]) -> Recommendation:
    pool, frac = case.pool, case.pool.sharing.fractional
    assert frac is not None
    value: dict[str, Any] = {"slotsPerGpu": slots}
    if frac.memory_gib is not None:
        value["memoryGiB"] = frac.memory_gib
    if frac.memory_percent is not None:
        value["memoryPercent"] = frac.memory_percent
    if frac.cores_percent is not None:
        value["coresPercent"] = frac.cores_percent
    value["memoryOvercommit"] = factor
    busy = _busy_gpus(case, peaks)
    freed = busy * (1 - frac.slots_per_gpu / slots)  # negative: GPUs a lower factor needs
    price = case.gpu_price
    saving = None if price is None else freed * price * HOURS_PER_MONTH
    worst = max((s / p for s, p in pairs if p > 0), default=0.0)
    gpus = len({p.gpu for p in peaks.pods})
    direction = "raise" if factor > frac.memory_overcommit else "lower"
    return Recommendation(
        kind=kind, pool=pool.name, tenant=None,
        path=("pools", case.at, "sharing", pool.sharing.kind.section or ""),
        value=value,
        summary=(
            f"{pool.name}: pods sharing a GPU used together at most {worst:.0%} of the sum of "
            f"their GPU memory peaks (the worst 5-minute window); at memoryOvercommit "
            f"{factor:g} their summed use would have exceeded the GPU's memory in "
            f"{verdict.overflowing} of {verdict.windows} windows ({percent(verdict.share)}, "
            f"declared {percent(case.overflow_share)}): {direction} it from "
            f"{frac.memory_overcommit:g} ({frac.slots_per_gpu} -> {slots} slots a GPU)"
        ),
        saving_per_month=saving,
        evidence={
            "window_hours": round(case.window / 3600, 1),
            "containers": len(peaks.pods),
            "gpus": gpus,
            "windows": verdict.windows,
            "shared_windows": shared(peaks.windows),
            "peak_of_sum_over_sum_of_peaks": round(worst, 3),
            "overflow_windows": verdict.overflowing,
            "overflow_share": round(verdict.share, 6),
            "declared_share": case.overflow_share,
            "slots_per_gpu": f"{frac.slots_per_gpu} -> {slots}",
            "slots_freed": round(busy * (slots - frac.slots_per_gpu), 2),
            "mean_busy_gpus": round(busy, 2),
            "series": peaks.series,
        },
    )
