"""The memory-overcommit rule (issue 40, item 5): the factor from measured peaks, hand-worked.

The factor follows HAMi v2.10.0's deviceMemoryScaling (Project-HAMi/HAMi 4707fb02,
``pkg/device-plugin/nvidiadevice/nvinternal/plugin/register.go``: a GPU registers its physical
memory times the scaling, so the slots on it may sum to that): a 5-minute window whose pods'
summed use peaked at S, their peaks summing to P, overflows at factor f when S x f > P
(``gpupool.advise.overcommit``'s docstring works it out). Pre-allocating servers are left out
as Google's "Best practices for autoscaling LLM inference workloads with GPUs on GKE" says their
memory stays at the allocation.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpupool.advise import overflow
from gpupool.advise.evidence import Evidence
from gpupool.advise.overcommit import (
    GRAIN,
    MAX_FACTOR,
    MemoryOvercommit,
    flat_at_allocation,
    largest_factor,
    overflows,
    window_pairs,
)
from gpupool.advise.peaks import GpuWindow, PodPeak, PoolPeaks
from gpupool.advise.rule import Case, Findings
from gpupool.model import Stack
from gpupool.spec.validate import validate_text
from tests.advise.scenario import HAMI_STACK


def _stack(text: str = HAMI_STACK) -> Stack:
    checked = validate_text(text, "hami.yaml")
    assert checked.stack is not None
    return checked.stack


def test_the_factor_is_the_largest_grid_step_the_declared_share_bears() -> None:
    # 2,000 windows whose pods' peaks sum to 24 GiB: 1,996 peak together at 12 GiB (2.0 x),
    # 3 at 16 (1.5 x) and 1 at 20 (1.2 x). 0.1% lets floor(2) = 2 windows overflow: the third
    # smallest ratio, 1.5; at 1.5 only the 20 GiB window overflows (16 x 1.5 = 24 is not over),
    # at 1.55 four do.
    windows = [(12.0, 24.0)] * 1996 + [(16.0, 24.0)] * 3 + [(20.0, 24.0)]
    verdict = largest_factor(windows, 0.001)
    assert (verdict.factor, verdict.overflowing, verdict.windows, verdict.allowed) == (
        1.5, 1, 2000, 2)
    assert overflows(windows, 1.55) == 4
    # no overflow allowed: 1.2, the smallest ratio, where 20 x 1.2 = 24 is not over
    assert largest_factor(windows, 0.0).factor == 1.2
    # peaks that always coincide bear nothing above 1
    assert largest_factor([(24.0, 24.0)] * 50, 0.001).factor is None
    # the schema's bound caps it: pods that never peak together would bear 4 x
    assert largest_factor([(6.0, 24.0)] * 50, 0.001).factor == MAX_FACTOR
    # a window of no pod (P = 0) is no window; one of idle pods (S = 0) never overflows
    assert largest_factor([(0.0, 0.0), (0.0, 10.0), (8.0, 10.0)], 0.0).factor == 1.25


def test_odd_figures_give_no_factor_and_no_crash() -> None:
    # a server may send what no GPU does: use above the peaks (lookback quirks), negative bytes
    assert largest_factor([(30.0, 24.0)] * 10, 0.001).factor is None
    assert largest_factor([(-5.0, 24.0), (12.0, -3.0), (0.0, 0.0)], 0.001).factor == MAX_FACTOR
    assert largest_factor([], 0.001) == largest_factor([(0.0, 0.0)], 0.5)
    assert largest_factor([(-5.0, -1.0)], 0.0).windows == 0


def test_each_window_sets_its_summed_peak_against_the_peaks_of_the_pods_present() -> None:
    pods = (PodPeak("a", "p", "c", "GPU-1", 10.0, 2.0, 12.0, 100),
            PodPeak("a", "q", "c", "GPU-1", 6.0, 1.0, 12.0, 100),
            PodPeak("a", "r", "c", "GPU-2", 4.0, 1.0, 12.0, 100))
    windows = (GpuWindow("GPU-1", 300.0, 11.0, ("a/p/c", "a/q/c")),
               GpuWindow("GPU-1", 600.0, 9.0, ("a/p/c",)),  # q left: only p's peak counts
               GpuWindow("GPU-2", 300.0, 4.0, ("a/r/c",)))
    assert window_pairs(PoolPeaks("vgpu", "s", pods, windows)) == [
        (11.0, 16.0), (9.0, 10.0), (4.0, 4.0)]


def test_memory_flat_at_its_allocation_is_a_pre_allocating_server() -> None:
    def pod(low: float, peak: float, limit: float | None) -> PodPeak:
        return PodPeak("n", "p", "c", "GPU-1", peak, low, limit, 10)

    assert flat_at_allocation(pod(5.8, 5.9, 6.0))  # vLLM's 0.9 of its slot from the start
    assert not flat_at_allocation(pod(2.0, 5.9, 6.0))  # reaches its limit, but varies
    assert not flat_at_allocation(pod(3.0, 3.1, 6.0))  # flat, but at half its slot
    assert not flat_at_allocation(pod(5.8, 5.9, None))  # no limit read: cannot tell


def _peaks(pattern: list[float], *, low: float = 1.0, pods: int = 4) -> PoolPeaks:
    """One L4 of four 6 GiB slots whose pods peak at 6 GiB, summed per window as ``pattern``."""
    names = [f"search/infer-{k}/main" for k in range(pods)]
    found = tuple(PodPeak("search", f"infer-{k}", "main", "GPU-vgpu-a-0", 6.0, low, 6.0, 2000)
                  for k in range(pods))
    windows = tuple(GpuWindow("GPU-vgpu-a-0", 300.0 * (i + 1), s, tuple(names))
                    for i, s in enumerate(pattern))
    return PoolPeaks("vgpu", "hami_vgpu_memory_used_bytes, hami_vgpu_memory_limit_bytes",
                     found, windows)


def _judge(peaks: PoolPeaks, share: float = overflow.DEFAULT_SHARE,
           stack: Stack | None = None) -> Findings:
    stack = stack or _stack()
    evidence = Evidence(14 * 86400.0, 0.0, {}, {}, peaks={"vgpu": peaks})
    case = Case(stack, evidence, {"vgpu": 0.9776}, {}, 0, share)
    return MemoryOvercommit().judge(case)


def test_a_pool_whose_peaks_do_not_coincide_gets_the_factor_and_the_slots_it_frees() -> None:
    # four pods of 6 GiB peaks (P = 24 GiB) on one L4 of 24 GiB: the pattern of the first test
    found = _judge(_peaks([12.0] * 1996 + [16.0] * 3 + [20.0]))
    [rec] = found.recommendations
    assert rec.path_text == "pools[0].sharing.fractional"
    # 4 slots x 1.5 = 6 slots of 6 GiB, within 24 GiB x 1.5 = 36 GiB
    assert rec.value == {"slotsPerGpu": 6, "memoryGiB": 6, "memoryOvercommit": 1.5}
    # the one GPU its pods used now holds 6 slots where 4 were: 1 - 4/6 of it is freed, at
    # 0.9776 USD a GPU-hour, 730 hours a month: 237.89 USD
    assert rec.saving_per_month == pytest.approx((1 - 4 / 6) * 0.9776 * 730)
    assert rec.evidence["overflow_windows"] == 1
    assert rec.evidence["overflow_share"] == 0.0005
    assert rec.evidence["declared_share"] == 0.001
    assert rec.evidence["slots_freed"] == 2.0
    assert rec.evidence["peak_of_sum_over_sum_of_peaks"] == round(20 / 24, 3)
    # the edit validates: 6 x 6 GiB = 36 GiB = 24 GiB x 1.5
    edited = HAMI_STACK.replace("{slotsPerGpu: 4, memoryGiB: 6}",
                                "{slotsPerGpu: 6, memoryGiB: 6, memoryOvercommit: 1.5}")
    assert validate_text(edited, "hami.yaml").stack is not None


def test_a_stricter_share_bears_less_and_a_factor_that_frees_no_slot_is_not_proposed() -> None:
    # with no overflow allowed the factor is 1.2: 4 x 1.2 = 4.8 slots, no whole slot more
    found = _judge(_peaks([12.0] * 1996 + [16.0] * 3 + [20.0]), share=0.0)
    assert not found.recommendations
    [gap] = found.gaps
    assert "bears memoryOvercommit 1.2" in gap and "adds no whole slot to 4 a GPU" in gap


def test_an_overcommit_the_peaks_do_not_bear_is_lowered_at_a_cost() -> None:
    stack = _stack(HAMI_STACK.replace("{slotsPerGpu: 4, memoryGiB: 6}",
                                      "{slotsPerGpu: 6, memoryGiB: 6, memoryOvercommit: 1.5}"))
    # the pods peak together at 20 of 24 GiB in 5% of the windows: 1.2 is all they bear
    found = _judge(_peaks([12.0] * 95 + [20.0] * 5), stack=stack)
    [rec] = found.recommendations
    # 6 slots x 1.2 / 1.5 = 4.8 -> 4 slots; 4 x 6 GiB = 24 <= 24 x 1.2
    assert rec.value == {"slotsPerGpu": 4, "memoryGiB": 6, "memoryOvercommit": 1.2}
    assert "lower it from 1.5" in rec.summary
    assert rec.saving_per_month == pytest.approx((1 - 6 / 4) * 0.9776 * 730)  # a cost


def test_peaks_that_coincide_and_flat_memory_and_no_sharing_recommend_none_and_say_why() -> None:
    [gap] = _judge(_peaks([24.0] * 100)).gaps
    assert "peaks coincide" in gap
    [gap] = _judge(_peaks([12.0] * 100, low=5.9)).gaps
    assert "flat at the allocation" in gap and "vLLM and TGI" in gap
    assert "4 containers of 4 hold their GPU memory" in gap
    [gap] = _judge(_peaks([6.0] * 100, pods=1)).gaps
    assert "0 windows" in gap and "cannot be told" in gap


def test_a_pool_outside_hami_is_not_judged() -> None:
    kai = HAMI_STACK.replace("scheduler: hami", "scheduler: kai")
    assert _judge(_peaks([12.0] * 100), stack=_stack(kai)) == Findings()


@st.composite
def _gpus(draw: st.DrawFn) -> tuple[list[list[list[float | None]]], int]:
    """GPUs x pods x samples of GPU memory (None: the pod is not there), and samples a window."""
    per_window = draw(st.integers(1, 4))
    windows = draw(st.integers(1, 40))
    value = st.one_of(st.none(), st.floats(0, 80, allow_nan=False))
    gpus = draw(st.lists(st.lists(st.lists(value, min_size=windows * per_window,
                                           max_size=windows * per_window),
                                  min_size=1, max_size=4), min_size=1, max_size=3))
    return gpus, per_window


@settings(max_examples=300, deadline=None)
@given(_gpus(), st.sampled_from([0.0, 0.001, 0.01, 0.1, 0.5]))
def test_the_advice_never_bears_more_overflow_than_declared(
    drawn: tuple[list[list[list[float | None]]], int], share: float,
) -> None:
    gpus, per_window = drawn
    pods: list[PodPeak] = []
    windows: list[GpuWindow] = []
    scaled: list[list[float]] = []  # per window: the summed use at each sample over P
    for g, series in enumerate(gpus):
        peaks = [max((v for v in s if v is not None), default=None) for s in series]
        for k, peak in enumerate(peaks):
            if peak is not None:
                pods.append(PodPeak("n", f"p{k}", "c", f"GPU-{g}", peak, 0.0, 80.0, 1))
        for w in range(len(series[0]) // per_window):
            span = range(w * per_window, (w + 1) * per_window)
            present = [k for k, s in enumerate(series) if any(s[i] is not None for i in span)]
            sums = [sum(s[i] or 0.0 for s in series) for i in span]
            windows.append(GpuWindow(f"GPU-{g}", float(w), max(sums),
                                     tuple(f"n/p{k}/c" for k in present)))
            total = sum(peaks[k] or 0.0 for k in present)
            if total > 0:
                scaled.append([u / total for u in sums])
    peaks = PoolPeaks("vgpu", "s", tuple(pods), tuple(windows))
    verdict = largest_factor(window_pairs(peaks), share)
    allowed = math.floor(share * len(scaled) + 1e-9)

    def overflowing(f: float) -> int:
        # a GPU committed to f x M in pods like these holds f x M / P times them: their use
        # exceeds M where some sample's summed use x f / P is over 1
        return sum(1 for w in scaled if max(w) * f > 1)

    # and what the rule proposes for a pool of these GPUs holds too
    for rec in _judge(peaks, share).recommendations:
        assert overflowing(rec.value["memoryOvercommit"]) <= allowed
    if verdict.factor is not None:
        assert 1.0 < verdict.factor <= MAX_FACTOR
        assert overflowing(verdict.factor) <= allowed
        if verdict.factor + GRAIN <= MAX_FACTOR + 1e-9:  # and it is the largest on the grid
            assert overflowing(round(verdict.factor + GRAIN, 4)) > allowed
    else:
        assert overflowing(1.0 + GRAIN) > allowed
