"""Per-job records agree with the per-tenant report, and every wait adds up to its reasons.

The report (``simulate/report.py``) counts pods per tenant, their queue waits (first start less
submission) and GPU-hours from the run's own state; the records (``simulate/records.py``) are
written by an observer from the hooks alone. Summed per tenant they must say the same: on every
example stack with a generated workload (the KAI stack ``azure-kai-fair`` among them) and, as a
hypothesis property, on workloads the property tests draw.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from gpupool.model import Stack
from gpupool.quantile import weighted_percentile
from gpupool.simulate.engine import Settings, Simulation
from gpupool.simulate.generate import generate
from gpupool.simulate.jobs import Workload
from gpupool.simulate.records import REASONS, JobRecords
from gpupool.simulate.report import Report, document, report
from tests.simulate.test_properties import STACKS, workloads

SPOTTY = Settings(seed=11, spot_interruptions_per_hour=0.5, spot_shortage=0.3)


def _run(stack: Stack, wl: Workload, run: Settings) -> tuple[Report, list[dict[str, Any]]]:
    out: list[dict[str, Any]] = []
    rec = JobRecords(out.append)
    outcome = Simulation(stack, wl, run, observers=[rec]).run()
    assert not rec.live and not rec.queues  # nothing held once every record is written
    assert rec.records == len(out)
    return report(outcome), out


def _reconcile(rep: Report, recs: list[dict[str, Any]]) -> None:
    for r in recs:  # every pod's reasons add up to its wait
        assert set(r["reasons"]) <= set(REASONS)
        assert all(s > 0 for s in r["reasons"].values())
        assert sum(r["reasons"].values()) == pytest.approx(r["wait"], abs=1e-6)
        if r["started"] is not None:
            assert r["wait"] >= r["started"] - r["submitted"] - 1e-6
    for t in rep.tenants:
        mine = [r for r in recs if (r["tenant"] or "-") == t.tenant]
        assert sum(r["pods"] for r in mine) == t.submitted
        started = [r for r in mine if r["started"] is not None]
        assert sum(r["pods"] for r in started) == t.started
        assert sum(r["pods"] for r in mine if r["state"] == "rejected") == t.rejected
        assert sum(r["pods"] for r in mine if r["started"] is None
                   and r["state"] != "rejected") == t.never_started
        waits = [(r["started"] - r["submitted"], r["pods"]) for r in started]
        assert weighted_percentile(waits, 50) == t.wait.p50
        assert weighted_percentile(waits, 95) == t.wait.p95
        assert max((w for w, _ in waits), default=None) == t.wait.max
        assert sum(r["gpu_hours"] for r in mine) == pytest.approx(t.gpu_hours, rel=1e-9,
                                                                   abs=1e-9)
        assert sum(r.get("interruptions", 0) * r["pods"] for r in mine) == t.interruptions
        assert sum(len(r.get("preempted_by", ())) * r["pods"] for r in mine) == t.preemptions


@pytest.mark.parametrize("name", sorted(STACKS))
def test_records_reconcile_with_the_report(name: str) -> None:
    stack = STACKS[name]
    wl = generate(stack, 5, jobs=300)
    rep, recs = _run(stack, wl, SPOTTY)
    _reconcile(rep, recs)


def test_the_kai_stack_waits_for_quota_and_is_reconciled() -> None:
    stack = STACKS["azure-kai-fair"]
    wl = generate(stack, 4, jobs=600)
    rep, recs = _run(stack, wl, Settings(seed=4))
    _reconcile(rep, recs)
    assert any(r["reasons"] for r in recs)


def test_attaching_records_changes_no_figure() -> None:
    stack = STACKS["azure-kai-fair"]
    wl = generate(stack, 4, jobs=300)
    plain = document(report(Simulation(stack, wl, SPOTTY).run()))
    watched, _ = _run(stack, wl, SPOTTY)
    assert document(watched) == plain


@pytest.mark.parametrize("name", sorted(STACKS))
def test_every_pods_reasons_add_up_to_its_wait(name: str) -> None:
    stack = STACKS[name]

    @settings(max_examples=10, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(workloads(stack))
    def check(wl: Workload) -> None:
        rep, recs = _run(stack, wl, SPOTTY)
        _reconcile(rep, recs)

    check()
