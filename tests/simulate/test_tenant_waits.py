"""Queues held by their tenant's ceiling (``simulate/held.py``) change no decision.

Where failed queues are not parked (tenants, or several priority levels), the original rule
retries every waiting queue's first job after every release. A try stopped by the tenant's
ceiling that preemption cannot lift (the ResourceQuota, Kubernetes docs "Resource Quotas"; a
KAI queue's limit or, for a non-preemptible job, its quota, KAI v0.17.0
``pkg/scheduler/plugins/proportion/capacity_policy/quota_check.go``) leaves no trace and
depends on the tenant's usage alone, so the queue is held, grouped with its tenant's others,
until that usage moves. Each case runs twice, holding on and off (``Queues.hold_ceilings``),
and compares the report, every job's fate, the per-job records with their wait reasons, and
one job's story (``--explain``). Hand-worked cases check the waits themselves, released by the
same tenant or another, and count the tries: one tenant's N distinct shapes at once cost about
2N judgements, not N^2/4.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpupool.model import Stack
from gpupool.simulate.engine import Gang, Outcome, Settings, Simulation
from gpupool.simulate.generate import generate
from gpupool.simulate.jobs import Job, Workload
from gpupool.simulate.records import JobRecords
from gpupool.simulate.report import document, report
from gpupool.simulate.tenancy import LIMIT
from tests.simulate.simstacks import job, lab, workload
from tests.simulate.test_run_costs import FROM_ZERO
from tests.stacks import load_stack, load_stack_text

TWO_POOLS = (
    "  - {name: a, nodeNames: [n1, n2], gpu: {model: L4, count: 4},"
    " host: {memoryGiB: 256, vcpus: 32}}\n"
    "  - {name: b, nodeNames: [n3], gpu: {model: L4, count: 4},"
    " host: {memoryGiB: 256, vcpus: 32}}\n"
)
# kube-scheduler with ResourceQuota ceilings; rows may name priorities (admission off), so pods
# of one tenant preempt each other and the ceilings move during passes
DEFAULT_TENANTS = (
    "  - {name: t1, pools: [a, b], limit: {gpus: 3}}\n"
    "  - {name: t2, pools: [a], limit: {gpus: 2}}\n"
    "  - {name: t3, pools: [a, b]}\n"
)
# KAI: queue limits, quotas for non-preemptible jobs, reclaim between queues
KAI_TENANTS = (
    "  - {name: t1, pools: [a, b], priority: low, limit: {gpus: 5}, minRuntime: {reclaim: 10m}}\n"
    "  - {name: t2, pools: [a], priority: normal, quota: {gpus: 2}, limit: {gpus: 3}}\n"
    "  - {name: t3, pools: [a, b], priority: high, quota: {gpus: 1}}\n"
)
STACKS = {
    "default": lab(TWO_POOLS, tenants=DEFAULT_TENANTS, admission="off"),
    "kai": lab(TWO_POOLS, scheduler="kai", tenants=KAI_TENANTS, admission="off"),
    "autoscaled": load_stack_text(FROM_ZERO.replace("max: 2", "max: 4") + (
        "tenants:\n  - {name: t1, pools: [l4], limit: {gpus: 2}}\n"
        "  - {name: t2, pools: [l4], limit: {gpus: 1}}\n")),
}


class _Tries:
    """Counts the failed tries the observers are told of."""

    def __init__(self) -> None:
        self.told = 0

    def on_wait(self, gang: Gang, now: float, reason: str) -> None:
        self.told += 1


def _run(stack: Stack, wl: Workload, *, hold: bool, explain: str | None = None,
         options: Settings | None = None) -> tuple[Simulation, Outcome, str, int]:
    """Run with holding on or off; return the run, its outcome, its bytes and the tries told."""
    records: list[dict[str, Any]] = []
    jobs = JobRecords(records.append, explain)
    tries = _Tries()
    sim = Simulation(stack, wl, options, observers=[jobs, tries])
    sim.hold_ceilings = hold
    out = sim.run()
    fates = [(g.id, g.state, g.reason, g.first_start, g.started_at, g.last_nodes,
              sorted(g.pools_used), g.preemptions, g.queued_at) for g in out.gangs]
    story = jobs.story.events if jobs.story is not None else None
    text = json.dumps([document(report(out)), fates, records, jobs.summary(), story],
                      sort_keys=True, default=str)
    return sim, out, text, tries.told


def _same(stack: Stack, wl: Workload, explain: str | None = None,
          options: Settings | None = None) -> tuple[int, int]:
    """Assert both rules give the same bytes; return the tries told with holding on and off."""
    _, _, held, told_held = _run(stack, wl, hold=True, explain=explain, options=options)
    _, _, plain, told_plain = _run(stack, wl, hold=False, explain=explain, options=options)
    assert held == plain
    return told_held, told_plain


@st.composite
def tenanted(draw: st.DrawFn, stack: Stack) -> Workload:
    """Bursts of the tenants' jobs of many distinct shapes, several priorities, some gangs."""
    tenants = [t.name for t in stack.tenants]
    jobs = []
    for i in range(draw(st.integers(5, 60))):
        jobs.append(Job(
            name=f"j{i}", line=i + 2,
            submit=float(draw(st.sampled_from([0, 0, 0, 300, 600, 1800, 3600]))),
            duration=float(draw(st.sampled_from([60, 300, 600, 900, 3600]))),
            tenant=draw(st.sampled_from(tenants)),
            gpus=draw(st.sampled_from([0, 1, 1, 1, 2, 3])),
            cpu=float(draw(st.sampled_from([0.5, 1, 1.5, 2, 3, 4]))),
            memory_gib=float(draw(st.integers(0, 3))),
            priority=draw(st.sampled_from([None, None, "low", "high", "preemptible"])),
            pods=draw(st.sampled_from([1, 1, 1, 2])),
        ))
    return Workload("generated", tuple(sorted(jobs, key=lambda j: j.submit)))


@pytest.mark.parametrize("name", sorted(STACKS))
def test_holding_changes_no_decision(name: str) -> None:
    stack = STACKS[name]

    @settings(max_examples=60, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(wl=tenanted(stack), explain=st.integers(0, 59))
    def check(wl: Workload, explain: int) -> None:
        _same(stack, wl, explain=f"j{explain}")

    check()


@pytest.mark.parametrize("name", ["azure-kai-fair", "aws-inference-l4", "onprem-hami"])
def test_holding_changes_no_decision_on_example_bursts(name: str) -> None:
    """A generated day of each example's tenants squeezed into an hour and a bit."""
    stack = load_stack(name)
    wl = generate(stack, 3, jobs=300)
    burst = Workload("burst", tuple(dataclasses.replace(j, submit=float(int(j.submit / 20)))
                                    for j in wl.jobs))
    held, plain = _same(stack, burst, explain=burst.jobs[150].name,
                        options=Settings(seed=3, spot_interruptions_per_hour=0.5))
    assert held <= plain


def _starts(out: Outcome) -> dict[str, float | None]:
    return {g.job.name: g.first_start for g in out.gangs}


def test_a_release_of_the_same_tenant_lets_its_next_queue_in() -> None:
    """limit.gpus 1: three one-GPU jobs of distinct shapes at 0 run one after the other, in
    submit order; each finish frees the ceiling for the next, and the others stay held."""
    stack = lab(TWO_POOLS, tenants="  - {name: t, pools: [a]}\n  - {name: u, pools: [b],"
                " limit: {gpus: 1}}\n")
    wl = workload(*(job(f"j{i}", 0, 100, tenant="u", gpus=1, cpu=1 + i / 10) for i in range(3)))
    sim, out, _, told = _run(stack, wl, hold=True)
    assert _starts(out) == {"j0": 0, "j1": 100, "j2": 200}
    # at 0: j1 and j2 fail their first try; at 100 j1 is tried (and starts), j2 is not: the
    # usage is back at what held it; at 200 j2 starts
    assert told == 2
    _, _, _, told_plain = _run(stack, wl, hold=False)
    assert told_plain == 3  # the original rule also retried j2 at 100
    assert len(sim.holds) == 0 and not sim.holds.groups


def test_a_release_of_another_tenant_tries_no_held_queue() -> None:
    """u's two jobs beyond its 1-GPU limit stay held while t's jobs end and start: t's
    releases move t's usage, not u's, so u's queues are not tried until u's own job ends."""
    stack = lab(TWO_POOLS, tenants="  - {name: t, pools: [a]}\n  - {name: u, pools: [b],"
                " limit: {gpus: 1}}\n")
    wl = workload(
        job("u0", 0, 1000, tenant="u", gpus=1),
        job("u1", 0, 100, tenant="u", gpus=1, cpu=2),
        job("u2", 0, 100, tenant="u", gpus=1, cpu=3),
        *(job(f"t{i}", 0, 100 * (i + 1), tenant="t", gpus=1) for i in range(4)),
    )
    _, out, _, told = _run(stack, wl, hold=True)
    assert _starts(out)["u1"] == 1000 and _starts(out)["u2"] == 1100
    assert {g.job.name: g.reason for g in out.gangs if g.job.tenant == "u"} == {
        "u0": "", "u1": "", "u2": ""}
    # u1 and u2 fail at 0 (two tries told); t's four finishes (100..400) try nothing of u; at
    # 1000 u1 is tried and starts, and u2, held at the usage that is back, is not tried
    assert told == 2
    _, _, _, told_plain = _run(stack, wl, hold=False)
    assert told_plain == 2 + 2 * 4 + 1  # every release retried both of u's queues


def test_a_job_joining_a_held_queue_lets_it_go() -> None:
    """A job of the same shape joining a held queue makes it loose again (its observers see one
    more waiting job), with the version its last try left: nothing is retried before a release."""
    stack = lab(TWO_POOLS, tenants="  - {name: u, pools: [b], limit: {gpus: 1}}\n")
    wl = workload(job("a", 0, 500, tenant="u", gpus=1), job("b", 0, 100, tenant="u", gpus=1,
                                                             cpu=2),
                  job("c", 50, 100, tenant="u", gpus=1, cpu=2))
    sim = Simulation(stack, wl)
    sim.start_full()
    sim._submit(0)
    sim._submit(1)
    sim._schedule()
    key = sim.gangs[1].key
    assert key in sim.holds and key not in sim.loose
    assert sim.queue_failed[key] == (sim.version, LIMIT)
    sim._submit(2)  # joins b's queue
    assert key not in sim.holds and key in sim.loose
    assert sim.queue_failed[key] == (sim.version, LIMIT)
    assert sim._ungated_heads() == []  # same version: the original rule retries nothing either


@pytest.mark.parametrize("kai", [False, True])
def test_static_order_is_the_tail_of_the_order(kai: bool) -> None:
    stack = STACKS["kai" if kai else "default"]
    sim = Simulation(stack, workload(job("x", 5, 10, tenant="t2", gpus=1, priority="high")))
    sim._submit(0)
    gang = sim.gangs[0]
    gang.queued_at = 7.0
    assert sim._order(gang)[-3:] == sim._static(gang)
    assert sim._static(gang) == (-125, 5.0 if kai else 7.0, 0)


def test_one_tenants_distinct_shapes_cost_linear_tries() -> None:
    """issue 34 item 2: 400 one-GPU jobs of distinct CPU requests at once under a 2-GPU ceiling
    (the pool at its most nodes): each release tries the one queue that starts and at most one
    more, so about 2 x 400 tries are told, where the original rule told about 400^2 / 4."""
    stack = load_stack_text(FROM_ZERO + "tenants:\n  - {name: t, pools: [l4]}\n")
    n = 400
    wl = workload(*(job(f"j{i}", 0, 600, gpus=1, cpu=1 + i / n, tenant="t") for i in range(n)))
    _, out, held, told = _run(stack, wl, hold=True)
    assert all(g.first_start is not None for g in out.gangs)
    assert told <= 2 * n
    _, _, plain, told_plain = _run(stack, wl, hold=False)
    assert held == plain
    assert told_plain > n * n // 5


def test_a_victim_joining_a_held_queue_mid_pass_is_tried_in_its_place() -> None:
    """kube-scheduler's DefaultPreemption: h (high) evicts v (low) of tenant t at 50, in the
    pass a release at 50 opened; v goes back to its queue, which t's ceiling holds behind w0's,
    so that queue is let go in the middle of the pass and tried at its place, as before."""
    stack = lab("  - {name: b, nodeNames: [n3], gpu: {model: L4, count: 4}}\n",
                tenants="  - {name: t, pools: [b], limit: {gpus: 2}}\n  - {name: x, pools: [b]}\n",
                admission="off")
    wl = workload(
        job("w1", 0, 1000, tenant="t", gpus=1, priority="normal"),
        job("v", 0, 1000, tenant="t", gpus=1, priority="low"),
        job("w0", 0, 100, tenant="t", gpus=1, cpu=0.5, priority="low"),
        job("w", 0, 100, tenant="t", gpus=1, priority="low"),  # v's queue
        job("f", 0, 50, tenant="x", gpus=2, priority="low"),
        job("h", 50, 100, tenant="x", gpus=3, priority="high"),
    )
    sim = Simulation(stack, wl)
    released: list[int | None] = []
    release = sim.holds.release

    def spy(key: tuple[object, ...]) -> int | None:
        passing = sim.holds.heap is not None
        got = release(key)
        if passing:
            released.append(got)
        return got

    sim.holds.release = spy  # type: ignore[method-assign]
    out = sim.run()
    assert released == [None]  # let go in the pass, still ahead: tried there
    assert _starts(out) == {"w1": 0, "v": 0, "w0": 150, "w": 250, "f": 0, "h": 50}
    v = next(g for g in out.gangs if g.job.name == "v")
    assert v.preemptions == 1 and v.started_at == 350
    _same(stack, wl, explain="v")


def test_holds_file_each_queue_under_the_version_its_try_had() -> None:
    """A version that moves in the middle of a pass splits what was passed from what was not."""
    from gpupool.simulate.held import Holds
    from gpupool.simulate.tenancy import TenantState

    tenant = TenantState(None, hard={"nvidia.com/gpu": 2}, used={"nvidia.com/gpu": 2})
    holds = Holds()
    keys = [("q", i) for i in range(5)]
    for i in range(3):
        holds.hold(keys[i], tenant, None, (-100, 0.0, i), version=1)
    heap: list[tuple[tuple[float, ...], tuple[object, ...]]] = []
    holds.begin(heap, 2, lambda key: (0.0, 0.0, -100, 0.0, key[1]))  # type: ignore[index]
    assert heap == [((0.0, 0.0, -100, 0.0, 0), keys[0])]
    assert holds.pop(*heap.pop()) is None  # the usage is the failures': the group sleeps
    holds.bump(3)  # a victim stopped: queues tried from here on fail at version 3
    assert holds.release(keys[1]) is None  # still ahead: the pass tries it at its place
    assert heap == [((0.0, 0.0, -100, 0.0, 1), keys[1])]
    assert holds.release(keys[0]) == 2  # passed before the version moved
    holds.hold(keys[4], tenant, None, (-100, 0.0, 4), version=3)  # failed in this pass
    holds.end(3)
    assert [(g.version, [k for _, k in g.members]) for g in holds.groups.values()] == [
        (3, [keys[2], keys[4]])]
    assert set(holds.of) == {keys[2], keys[4]}
