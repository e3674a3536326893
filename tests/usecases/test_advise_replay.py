"""Where advise meets simulate (gpupool/usecases/advise_replay.py) and the check's tolerances."""

from __future__ import annotations

import pytest

from gpupool.advise.workload import Fidelity, ObservedPod, Replayed, fidelity, regressions
from gpupool.simulate.engine import simulate
from gpupool.simulate.report import report
from gpupool.usecases.advise_replay import replay
from tests.simulate.simstacks import job, lab, workload

ONE_NODE = "  - {name: a, nodeNames: [n1], gpu: {model: L4, count: 2}}\n"


def test_waits_per_tenant_and_gpu_hours_per_pool() -> None:
    """Two 1-GPU pods fill the node for an hour; the third waits that hour (3600 s). Pods of no
    tenant are keyed ""; GPU-hours are the pool's allocated ones (3 pods x 1 h)."""
    stack = lab(ONE_NODE, tenants="  - {name: t, pools: [a]}\n")
    jobs = workload(
        job("j1", 0, 3600, tenant="t", gpus=1),
        job("j2", 0, 3600, gpus=1),
        job("j3", 0, 3600, tenant="t", gpus=1),
    )
    out = replay(stack, jobs)
    # t's waits are 0 and 3600 s: the nearest-rank p95 of two waits is the longer, a wait a pod
    # had (an interpolated one would be 3420 s, which no pod waited)
    assert out.waits == {"": 0.0, "t": 3600.0}
    assert out.waits_counting_unstarted == out.waits  # every pod started
    assert out.gpu_hours == {"a": pytest.approx(3.0)}
    # the p95 advise replays is the one `gpupool simulate` prints for the same run
    printed = {t.tenant: t.wait.p95 for t in report(simulate(stack, jobs)).tenants}
    assert printed == {"t": out.waits["t"], "-": out.waits[""]}


def test_a_pod_that_never_starts_waits_to_the_end_of_the_span_in_the_check_only() -> None:
    """A 4-GPU pod on a 2-GPU node never starts. The check counts it as waiting from its
    submission (100 s) to the workload's span end (the other pod's 0 + 7200 s), not as no wait
    at all; the p95 shown is simulate's, over the pod that started (0 s)."""
    out = replay(lab(ONE_NODE), workload(job("big", 100, 60, gpus=4), job("w", 0, 7200, gpus=1)))
    assert out.waits_counting_unstarted[""] == pytest.approx(7100.0)
    assert out.waits[""] == 0.0


def test_fidelity_of_a_tenant_none_of_whose_pods_started_is_not_a_wait_of_zero() -> None:
    pod = ObservedPod(namespace="ns", pod="p", tenant="t", pool="a", created=0.0, started=60.0,
                      finished=120.0, gpus=1, mig=None, gpu_memory_gib=None, cpu=1.0,
                      memory_gib=1.0, priority=None)
    today = Replayed(waits={}, waits_counting_unstarted={"t": 7200.0}, gpu_hours={})
    f = fidelity([pod], 0.0, 7200.0, today)
    assert f.waits == {"t": (60.0, 7200.0)} and f.off == ["wait t"]


def test_the_regression_tolerance_is_ten_minutes_or_a_quarter() -> None:
    assert regressions({"t": 0.0}, {"t": 600.0}) == []
    assert regressions({"t": 0.0}, {"t": 601.0}) == ["t"]
    assert regressions({"t": 4000.0}, {"t": 5000.0}) == []  # 25% of 4000 s is 1000 s
    assert regressions({"": 4000.0}, {"": 5001.0}) == ["(no tenant)"]


def test_fidelity_score_is_the_share_of_figures_within_tolerance() -> None:
    f = Fidelity(waits={"t": (1200.0, 1300.0), "u": (0.0, 3600.0)},
                 gpu_hours={"a": (100.0, 109.0), "b": (100.0, 120.0)})
    assert f.off == ["wait u", "GPU-h b"]
    assert f.score == 0.5 and not f.within_tolerance
    assert Fidelity({}, {}).score is None
