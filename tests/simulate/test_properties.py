"""Properties of every run, over workloads hypothesis generates for each example stack.

Every pod is accounted for once; no tenant is above its ResourceQuota or KAI queue limit at any
instant; no pod is preempted before its queue's minimum runtime; no GPU pod runs on a pool its
tenant is fenced from; the same seed gives the same bytes.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpupool.model import Stack
from gpupool.simulate.cluster import cluster_of
from gpupool.simulate.engine import DONE, NEVER, REJECTED, Settings, simulate
from gpupool.simulate.jobs import Job, Workload
from gpupool.simulate.report import document, report
from gpupool.simulate.tenancy import Tenancy
from tests.paths import EXAMPLES
from tests.stacks import load_stack

STACKS = {p.stem: load_stack(p.stem) for p in sorted(EXAMPLES.glob("*.yaml"))}


@st.composite
def workloads(draw: st.DrawFn, stack: Stack) -> Workload:
    """Jobs whose shapes come from what the stack's pools offer, with a few that do not fit."""
    model = cluster_of(stack)
    tenants = [t.name for t in stack.tenants] or [None]
    mig = sorted({p for pm in model.pools for p in pm.mig_profiles})
    most = max(pm.gpus_per_node for pm in model.pools)
    jobs = []
    for i in range(draw(st.integers(1, 40))):
        kind = draw(st.sampled_from(["gpus", "fraction", "cpu", *(["mig"] if mig else [])]))
        kw: dict[str, object] = {}
        if kind == "gpus":
            kw["gpus"] = draw(st.integers(1, most + 1))
        elif kind == "fraction":
            kw["fraction"] = draw(st.sampled_from([0.25, 0.5]))
        elif kind == "mig":
            kw["mig"] = draw(st.sampled_from(mig))
        pool = draw(st.one_of(st.none(), st.sampled_from([p.name for p in stack.pools])))
        jobs.append(Job(
            name=f"j{i}", line=i + 2,
            submit=float(draw(st.integers(0, 6 * 3600))),
            duration=float(draw(st.integers(60, 4 * 3600))),
            tenant=draw(st.sampled_from(tenants)),
            cpu=float(draw(st.integers(0, 4))), memory_gib=float(draw(st.integers(0, 16))),
            pool=pool if draw(st.booleans()) else None,
            pods=draw(st.integers(1, 3)),
            **kw,  # type: ignore[arg-type]
        ))
    return Workload("generated", tuple(sorted(jobs, key=lambda j: j.submit)))


@pytest.mark.parametrize("name", sorted(STACKS))
def test_run_properties(name: str) -> None:
    stack = STACKS[name]
    run_settings = Settings(seed=11, spot_interruptions_per_hour=0.5, spot_shortage=0.3)

    @settings(max_examples=12, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(workloads(stack))
    def check(wl: Workload) -> None:
        out = simulate(stack, wl, run_settings)
        # every pod accounted for once
        assert len(out.gangs) == len(wl.jobs)
        assert {g.state for g in out.gangs} <= {DONE, REJECTED, NEVER}
        r = report(out)
        pods = sum(j.pods for j in wl.jobs)
        assert r.pods["submitted"] == pods == (
            r.pods["started"] + r.pods["rejected"] + r.pods["never_started"])
        # no tenant above its limit at any instant (peaks are taken at every start)
        tenancy = Tenancy(stack)
        for t in stack.tenants:
            state = tenancy.states[t.name]
            peaks = out.tenants[t.name]
            for res, used in peaks.peak_units.items():
                assert used <= state.hard[res], (t.name, res)
            if state.kai_limit is not None:
                assert peaks.peak_kai <= state.kai_limit + 1e-9
        # no pod preempted before its minimum runtime
        for p in out.preemptions:
            assert p.ran_seconds >= p.min_seconds
        # no GPU pod on a pool its tenant is fenced from
        allowed = {t.name: set(t.pools) for t in stack.tenants}
        for g in out.gangs:
            uses_gpu = g.job.gpus or g.job.fraction or g.job.mig
            if g.job.tenant is not None and uses_gpu:
                assert g.pools_used <= allowed[g.job.tenant], (g.job, g.pools_used)
        # same seed, same bytes
        again = report(simulate(stack, wl, run_settings))
        assert json.dumps(document(again)) == json.dumps(document(r))

    check()
