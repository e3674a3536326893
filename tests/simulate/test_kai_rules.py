"""KAI v0.17.0's queue rules as ``gpupool simulate`` follows them, on hand-worked runs.

Each test names the KAI file (tag v0.17.0, commit f218c69 of kai-scheduler/KAI-Scheduler) whose
rule it follows and, where one exists, the KAI test whose scenario it restates. The figures are
worked by hand; the rules themselves live in ``gpupool/schedulers/kai.py``,
``gpupool/schedulers/kai_division.py`` and ``gpupool/simulate/tenancy.py``.
"""

from __future__ import annotations

from gpupool.simulate.engine import Gang, Outcome, simulate
from gpupool.simulate.tenancy import Tenancy
from tests.simulate.simstacks import job, lab, workload

NODE4 = "  - {name: a, nodeNames: [n1], gpu: {model: L4, count: 4}}\n"
NODE3 = "  - {name: a, nodeNames: [n1], gpu: {model: L4, count: 3}}\n"
TWO_NODES = "  - {name: a, nodeNames: [n1, n2], gpu: {model: L4, count: 2}}\n"
LONG = 36000


def _gang(out: Outcome, name: str) -> Gang:
    return next(g for g in out.gangs if g.job.name == name)


def _evicted_at(out: Outcome, t: float) -> list[str]:
    return sorted(out.gangs[p.victim].job.name for p in out.preemptions if p.time == t)


def test_preemptible_pods_do_not_count_against_a_build_jobs_quota() -> None:
    """proportion/capacity_policy/quota_check.go: a non-preemptible job is over quota only when
    the queue's non-preemptible pods plus its request pass the quota. Here the queue (quota 2)
    runs 3 preemptible pods, beyond its quota; a non-preemptible (normal) 1-GPU job still fits
    the fourth GPU and starts at once: 0 + 1 <= 2. (Counting the preemptible pods, 3 + 1 > 2,
    it waited with reason quota.)"""
    stack = lab(NODE4, scheduler="kai", admission="off",
                tenants="  - {name: t, pools: [a], priority: normal, quota: {gpus: 2}}\n")
    out = simulate(stack, workload(
        *(job(f"p{i}", i, LONG, tenant="t", gpus=1, priority="preemptible") for i in range(3)),
        job("b1", 10, 100, tenant="t", gpus=1),
    ))
    assert _gang(out, "b1").first_start == 10
    assert not out.preemptions


def test_build_jobs_past_quota_wait_and_preempt_no_one() -> None:
    """quota_check.go, and actions/preempt/preempt.go (a non-preemptible job over quota does not
    preempt): quota 2, two non-preemptible 1-GPU jobs run; a third waits (2 + 1 > 2) with
    reason quota, though a preemptible pod of its queue holds a GPU it could take."""
    stack = lab(NODE3, scheduler="kai", admission="off",
                tenants="  - {name: t, pools: [a], priority: normal, quota: {gpus: 2}}\n")
    out = simulate(stack, workload(
        job("b0", 0, LONG, tenant="t", gpus=1), job("b1", 1, LONG, tenant="t", gpus=1),
        job("p0", 2, LONG, tenant="t", gpus=1, priority="preemptible"),
        job("b2", 10, 100, tenant="t", gpus=1),
    ))
    b2 = _gang(out, "b2")
    assert b2.first_start is not None and b2.first_start >= LONG
    assert not _evicted_at(out, 10)


FRACTIONAL = ("  - {name: a, nodeNames: [n1], gpu: {model: L4, count: 1},"
              " sharing: {mode: fractional, fractional: {slotsPerGpu: 4}}}\n")


def test_a_queue_at_its_limit_preempts_its_own_pods() -> None:
    """actions/preempt/preempt.go with proportion/capacity_policy/max_allowed_check.go: the
    preempt action refuses only a non-preemptible job over quota; the limit is checked as the
    job is placed, once its victims are gone (integration_tests/allocate/allocate_test.go,
    "try to allocate interactive after train when over-quota - train should be preempted for
    interactive", restated with a limit). Quota 0.5 and limit 0.5 of a GPU, shared by
    fraction (KAI counts fractions; a ResourceQuota does not see them): a preemptible quarter
    runs twice; a non-preemptible quarter evicts the newer and starts at once (0.5 - 0.25 +
    0.25 <= 0.5). Checked before preempting, with its victims still counted, it waited."""
    stack = lab(FRACTIONAL, scheduler="kai", admission="off",
                tenants="  - {name: t, pools: [a], priority: normal, quota: {gpus: 0.5},"
                        " limit: {gpus: 0.5}}\n")
    out = simulate(stack, workload(
        job("p0", 0, LONG, tenant="t", fraction=0.25, priority="preemptible"),
        job("p1", 1, LONG, tenant="t", fraction=0.25, priority="preemptible"),
        job("b1", 10, 100, tenant="t", fraction=0.25),
    ))
    assert _gang(out, "b1").first_start == 10
    assert _evicted_at(out, 10) == ["p1"]  # the newer of the two


def test_under_kai_a_queue_limit_on_whole_gpus_is_lifted_by_in_queue_preemption() -> None:
    """Under KAI the tenant's GPU ceiling is its queue's limit, not a ResourceQuota (which would
    refuse the pod before KAI sees it, ``facts.tenancy.quota_lines``): KAI checks the limit when
    it places the pod, after its planned evictions gave their GPUs back (framework/statement.go
    ``Evict``, capacity_policy/max_allowed_check.go). Whole GPUs, limit 2, two preemptible pods
    run; the non-preemptible one evicts the newer of them at once."""
    stack = lab(NODE4, scheduler="kai", admission="off",
                tenants="  - {name: t, pools: [a], priority: normal, quota: {gpus: 2},"
                        " limit: {gpus: 2}}\n")
    out = simulate(stack, workload(
        job("p0", 0, LONG, tenant="t", gpus=1, priority="preemptible"),
        job("p1", 1, LONG, tenant="t", gpus=1, priority="preemptible"),
        job("b1", 10, 100, tenant="t", gpus=1),
    ))
    assert _gang(out, "b1").first_start == 10
    assert _evicted_at(out, 10) == ["p1"]


def test_a_queue_with_nothing_to_run_takes_no_share() -> None:
    """proportion/resource_division/resource_division.go: over-quota GPUs go only to queues that
    ask for them. Queues a and b (quota 0, weight 1) and c (quota 0, weight 4, nothing to run)
    on 4 GPUs, all held by b. a asks for 2: the shares are a 2, b 2, c 0 (offers 2 and 2; c
    asks nothing), so a may reclaim two of b's pods and starts at once. (Dividing by weight
    among all three, a's share was 4/6 of a GPU, too little to reclaim for.)"""
    stack = lab(NODE4, scheduler="kai", admission="off", tenants=(
        "  - {name: a, pools: [a], priority: low, fairShare: {weight: 1}}\n"
        "  - {name: b, pools: [a], priority: low, fairShare: {weight: 1}}\n"
        "  - {name: c, pools: [a], priority: low, fairShare: {weight: 4}}\n"))
    out = simulate(stack, workload(
        *(job(f"b{i}", i, LONG, tenant="b", gpus=1, priority="preemptible") for i in range(4)),
        job("a1", 10, 100, tenant="a", gpus=1, pods=2, priority="preemptible"),
    ))
    assert _gang(out, "a1").first_start == 10
    assert _evicted_at(out, 10) == ["b2", "b3"]


def test_reclaim_takes_from_a_queue_only_down_to_its_share() -> None:
    """proportion/reclaimable/reclaimable.go (reclaimResourcesFromReclaimees) with
    strategies/strategies.go: victim by victim, the victims' queue must still hold more than
    its allocatable share before each one is taken, its holding falling by each victim chosen
    before. b (quota 1, fair share 2) holds 4 one-GPU pods and c (quota 1, share 1) one; the
    reclaimer is over its quota, so only "maintain fair share" applies: b's first two go
    (4 > 2, 3 > 2), its third not (2 > 2 fails); c's none (1 > 1 fails). Judged once against
    b's share before any eviction, all four of b's were candidates."""
    tenancy = Tenancy(lab(NODE4 + NODE4.replace("name: a", "name: b").replace("n1", "n2"),
                          scheduler="kai", tenants=(
        "  - {name: a, pools: [a, b], priority: low}\n"
        "  - {name: b, pools: [a, b], priority: low, quota: {gpus: 1}}\n"
        "  - {name: c, pools: [a, b], priority: low, quota: {gpus: 1}}\n")))
    a, b, c = (tenancy.states[n] for n in "abc")
    assert a is not None and b is not None and c is not None
    b.kai_used, c.kai_used = 4.0, 1.0
    share = {"a": 2.0, "b": 2.0, "c": 1.0}
    held = [(b, 1.0, True), (c, 1.0, True), (b, 1.0, True), (b, 1.0, True), (b, 1.0, True)]
    assert tenancy.reclaim_walk(a, 2.0, held, share) == [True, False, True, False, False]
    # within its quota, the reclaimer may take on while the victim's queue is above its quota
    # ("guarantee deserved quota"): a's quota 3 makes b's third pod go too (2 > 1), not the
    # fourth (1 > 1 fails)
    a.kai_quota = 3.0
    assert tenancy.reclaim_walk(a, 2.0, held, share) == [True, False, True, True, False]


def test_the_queue_with_the_smaller_share_goes_first() -> None:
    """proportion/queue_order/queue_order.go: among queues both within quota with their next
    job, of one priority, the one whose allocation plus the job is the smaller part of its
    allocatable share goes first (integration_tests/allocate/allocate_test.go, "1 build job
    pending for each queue with different share - allocate the second"). a and b (quota 2
    each) on 4 GPUs; a runs one pod, two pods of no tenant run till 500 s, and one GPU is free
    when a's job and then b's arrive at once (each runs 100 s):
    a would be at 2/2, b at 1/2, so b's job takes it although a's came first."""
    stack = lab(NODE4, scheduler="kai", admission="off", tenants=(
        "  - {name: a, pools: [a], priority: normal, quota: {gpus: 2}}\n"
        "  - {name: b, pools: [a], priority: normal, quota: {gpus: 2}}\n"))
    out = simulate(stack, workload(
        job("a0", 0, LONG, tenant="a", gpus=1),
        job("z0", 0, 500, gpus=1), job("z1", 0, 500, gpus=1),  # of no tenant
        job("a1", 10, 100, tenant="a", gpus=1), job("b1", 10, 100, tenant="b", gpus=1),
    ))
    assert _gang(out, "b1").first_start == 10
    assert _gang(out, "a1").first_start == 110  # when b1 ends


def test_an_evicted_job_keeps_its_place_in_its_queue() -> None:
    """plugins/priority/priority.go and framework/session_plugins.go (JobOrderFn): within a
    queue, jobs go by priority, then by their PodGroup's creation, which an evicted job keeps.
    b (quota 0) runs b1 and b2 on the node's 2 GPUs, b3 waits; a's job a1 (quota 2) reclaims
    the newer, b2, at 10 s. When a1 ends at 110 s, b2, created before b3, starts again first.
    (Queued anew at its eviction, it went behind b3.)"""
    stack = lab("  - {name: a, nodeNames: [n1], gpu: {model: L4, count: 2}}\n",
                scheduler="kai", admission="off", tenants=(
                    "  - {name: a, pools: [a], priority: low, quota: {gpus: 2}}\n"
                    "  - {name: b, pools: [a], priority: low}\n"))
    out = simulate(stack, workload(
        job("b1", 0, LONG, tenant="b", gpus=1, priority="preemptible"),
        job("b2", 1, LONG, tenant="b", gpus=1, priority="preemptible"),
        job("b3", 5, LONG, tenant="b", gpus=1, priority="preemptible"),
        job("a1", 10, 100, tenant="a", gpus=1, priority="preemptible"),
    ))
    assert _evicted_at(out, 10) == ["b2"]
    assert _gang(out, "b2").started_at == 110
    assert _gang(out, "b3").first_start == LONG
