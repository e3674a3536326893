"""Per-job records (``gpupool/simulate/records.py``): hand-worked runs, one per wait reason.

Each run is small enough to work out by hand; the docstring of each test says how. Stacks of
existing nodes come from ``simstacks.lab`` (one node of 4 L4 GPUs unless it says otherwise).
"""

from __future__ import annotations

from typing import Any

import pytest

from gpupool.model import Stack
from gpupool.simulate.engine import Settings, Simulation
from gpupool.simulate.jobs import Workload
from gpupool.simulate.records import REASONS, JobRecords, Story
from tests.simulate.simstacks import job, lab, workload
from tests.stacks import load_stack_text

ONE_NODE = "  - {name: a, nodeNames: [n1], gpu: {model: L4, count: 4}}\n"
TWO_NODES = "  - {name: a, nodeNames: [n1, n2], gpu: {model: L4, count: 4}}\n"
BIG_HOST = ", host: {memoryGiB: 256, vcpus: 32}}\n"


def records(stack: Stack, wl: Workload, settings: Settings | None = None,
            explain: str | None = None) -> tuple[dict[str, dict[str, Any]], JobRecords]:
    out: list[dict[str, Any]] = []
    rec = JobRecords(out.append, explain=explain)
    Simulation(stack, wl, settings, observers=[rec]).run()
    by_name = {r["job"] + (f"#{r['pod']}" if "pod" in r else ""): r for r in out}
    return by_name, rec


def test_capacity_no_gpu_free_and_no_node_to_add() -> None:
    """``a`` holds all 4 GPUs from 0 to 100; ``b`` (2 GPUs, at 10) finds none free on a pool
    that cannot grow, so it waits 90 s for capacity and runs 100 to 150 on node a/0."""
    by, rec = records(lab(ONE_NODE), workload(job("a", 0, 100, gpus=4), job("b", 10, 50, gpus=2)))
    b = by["b"]
    assert (b["submitted"], b["started"], b["finished"], b["wait"]) == (10, 100, 150, 90)
    assert b["reasons"] == {"capacity": 90} and (b["pool"], b["node"]) == ("a", "a/0")
    assert by["a"]["reasons"] == {} and by["a"]["gpu_hours"] == 4 * 100 / 3600
    assert rec.summary()["capacity"] == {"jobs": 1, "pods": 1, "seconds": 90.0}


def test_fragmentation_free_in_total_on_no_node() -> None:
    """3 GPUs taken on each of two 4-GPU nodes until 100: ``c`` (2 GPUs, at 10) sees 2 free in
    total but 1 per node, so it waits 90 s for fragmentation."""
    by, _ = records(lab(TWO_NODES), workload(
        job("a", 0, 100, gpus=3), job("b", 0, 100, gpus=3), job("c", 10, 50, gpus=2)))
    assert by["c"]["reasons"] == {"fragmentation": 90} and by["c"]["started"] == 100


def test_gang_one_pod_fits_but_not_the_gang() -> None:
    """``a`` holds node a/0's 4 GPUs until 100; the gang ``g`` (2 pods of 4 GPUs, at 10) could
    put one pod on the empty a/1 but not both, so it waits 90 s for its gang, then its pods run
    on two nodes: one record per pod."""
    by, _ = records(lab(TWO_NODES), workload(
        job("a", 0, 100, gpus=4), job("g", 10, 50, gpus=4, pods=2)))
    assert by["g#0"]["reasons"] == by["g#1"]["reasons"] == {"gang": 90}
    assert {by["g#0"]["node"], by["g#1"]["node"]} == {"a/0", "a/1"}
    assert by["g#0"]["pods"] == 1


def test_resource_quota_and_who_holds_it() -> None:
    """limit.gpus 2 under kube-scheduler is a ResourceQuota of 2 GPUs: ``t2`` (at 10) waits
    for ``t1`` (0 to 100) although 3 GPUs are free: 90 s of resource-quota, held by t1."""
    stack = lab(ONE_NODE, tenants="  - {name: t, pools: [a], limit: {gpus: 2}}\n")
    by, rec = records(stack, workload(
        job("t1", 0, 100, tenant="t", gpus=1), job("t0", 0, 100, tenant="t", gpus=1),
        job("t2", 10, 50, tenant="t", gpus=1)), explain="t2")
    assert by["t2"]["reasons"] == {"resource-quota": 90} and by["t2"]["tenant"] == "t"
    story = rec.story
    assert story is not None
    waits = [e for e in story.events if e[1] == "waits"]
    assert waits == [(10, "waits", {"reason": "resource-quota", "holders": ["t0", "t1"]})]


def test_kai_quota() -> None:
    """KAI: a non-preemptible (normal) job only within its queue's quota of 1 GPU: ``b`` (at
    10) waits for ``a`` (0 to 100): 90 s of quota (KAI v0.17.0 docs/priority/README.md)."""
    stack = lab(ONE_NODE, scheduler="kai",
                tenants="  - {name: t, pools: [a], priority: normal, quota: {gpus: 1}}\n")
    by, _ = records(stack, workload(job("a", 0, 100, tenant="t", gpus=1),
                                    job("b", 10, 50, tenant="t", gpus=1)))
    assert by["b"]["reasons"] == {"quota": 90}


def test_kai_queue_limit_on_fractions() -> None:
    """KAI counts a half-GPU fraction as 0.5 of its queue's limit of 1 GPU, which no
    ResourceQuota counts (a fraction asks no nvidia.com/gpu): ``c`` (at 10) waits for ``a``
    and ``b`` (0 to 100), 90 s of limit."""
    stack = lab("  - {name: a, nodeNames: [n1], gpu: {model: L4, count: 4},"
                " sharing: {mode: fractional, fractional: {slotsPerGpu: 4}}}\n", scheduler="kai",
                tenants="  - {name: t, pools: [a], priority: low, limit: {gpus: 1}}\n")
    by, _ = records(stack, workload(
        job("a", 0, 100, tenant="t", fraction=0.5), job("b", 0, 100, tenant="t", fraction=0.5),
        job("c", 10, 50, tenant="t", fraction=0.5)))
    assert by["c"]["reasons"] == {"limit": 90}


def test_preempted_by_a_higher_priority_job() -> None:
    """kube-scheduler: ``crit`` (4 GPUs, at 60) evicts ``low`` (0 to 9000) at once; ``low``
    waits until crit ends at 160: 100 s preempted, by crit, then runs again to 9160."""
    by, rec = records(lab(ONE_NODE, admission="off"), workload(
        job("low", 0, 9000, gpus=4, priority="low"),
        job("crit", 60, 100, gpus=4, priority="critical")), explain="low")
    low = by["low"]
    assert low["reasons"] == {"preempted": 100} and low["preempted_by"] == ["crit"]
    assert (low["started"], low["finished"], low["wait"]) == (0, 9160, 100)
    # GPU-hours: 60 s lost plus the 9000 s run, on 4 GPUs
    assert low["gpu_hours"] == (4 * 60 + 4 * 9000) / 3600
    assert rec.story is not None
    assert [e[1] for e in rec.story.events] == [
        "submitted", "started", "preempted", "started", "finished"]


def test_min_runtime_then_reclaimed() -> None:
    """KAI reclaim after reclaimMinRuntime (30m; docs/plugins/minruntime.md): ``p1`` (at 60)
    waits until the batch pods ran 1800 s, 1740 s of min-runtime; the evicted ``b0`` waits
    for the room p1 leaves at 2400: 600 s preempted by p1."""
    stack = lab(
        "  - {name: a, nodeNames: [n1], gpu: {model: L4, count: 4}" + BIG_HOST,
        scheduler="kai",
        tenants=(
            "  - {name: batch, pools: [a], priority: low, minRuntime: {reclaim: 30m}}\n"
            "  - {name: prod, pools: [a], priority: normal, quota: {gpus: 4}}\n"
        ),
    )
    by, _ = records(stack, workload(
        *(job(f"b{i}", 0, 36000, tenant="batch", gpus=1) for i in range(4)),
        job("p1", 60, 600, tenant="prod", gpus=1)))
    assert by["p1"]["reasons"] == {"min-runtime": 1740} and by["p1"]["started"] == 1800
    victims = [r for r in by.values() if "preempted_by" in r]
    assert len(victims) == 1 and victims[0]["preempted_by"] == ["p1"]
    assert victims[0]["reasons"] == {"preempted": 600}


AWS = (
    "apiVersion: gpupool.io/v1\nkind: GpuPoolStack\nmetadata: {name: cloud}\n"
    "provider: {cloud: aws, region: us-east-1, cluster: ml, settings: {subnetIds: "
    '[subnet-0a1b2c3d4e5f60718], nodeRoleArn: "arn:aws:iam::123456789012:role/gpu"}}\n'
    "pools:\n"
    "  - {name: l4, instanceType: g6.xlarge, workload: inference, nodes: {min: 0, max: 1}}\n"
)


def test_scale_up_then_capacity_at_the_most_nodes() -> None:
    """From zero nodes (g6.xlarge: one L4): ``j`` waits the 300 s scale-up for a node; ``k``
    (at 10) too until the node is ready at 300, then, the pool at its one node, for capacity
    until j ends at 1300 (990 s)."""
    stack = load_stack_text(AWS)
    by, _ = records(stack, workload(job("j", 0, 1000, gpus=1, cpu=1, memory_gib=4),
                                    job("k", 10, 100, gpus=1, cpu=1, memory_gib=4)))
    assert by["j"]["reasons"] == {"scale-up": 300}
    assert by["k"]["reasons"] == {"scale-up": 290, "capacity": 1000}
    assert by["k"]["wait"] == 1290


def test_interrupted_spot_wait_is_its_own_reason() -> None:
    """A spot node interrupted under a running job: the job's wait after the eviction is
    ``interrupted``; its seconds are the time from the eviction to its next start."""
    stack = load_stack_text(AWS.replace(
        "nodes: {min: 0, max: 1}", "nodes: {min: 1, max: 3}, capacity: {type: spot},"
        " interruption: {drainSeconds: 60}"))
    out: list[dict[str, Any]] = []
    rec = JobRecords(out.append, explain="j")
    sim = Simulation(stack, workload(job("j", 0, 7200, gpus=1, cpu=1, memory_gib=4)),
                     Settings(seed=3, spot_interruptions_per_hour=1.0), observers=[rec])
    outcome = sim.run()
    (r,) = out
    g = outcome.gangs[0]
    assert g.interruptions >= 1 and r["interruptions"] == g.interruptions
    assert set(r["reasons"]) == {"interrupted"}  # it started at once; a new node is one more
    # each eviction to the next start, as the story tells them
    assert rec.story is not None
    events = rec.story.events
    gaps = [events[i + 1][0] - t for i, (t, what, details) in enumerate(events)
            if what == "interrupted" and not details.get("gave_up")]
    assert len(gaps) == g.interruptions
    assert r["reasons"]["interrupted"] == pytest.approx(sum(gaps)) == r["wait"]


def test_rejected_and_never_started_jobs_are_written_at_the_end() -> None:
    """A job too big for the pool never starts (reason kept), written after the others."""
    out: list[dict[str, Any]] = []
    Simulation(lab(ONE_NODE), workload(job("big", 0, 10, gpus=1, pods=5),
                                       job("a", 5, 10, gpus=1)),
               observers=[JobRecords(out.append)]).run()
    assert [r["job"] for r in out] == ["a", "big"]
    assert out[1]["state"] == "never" and out[1]["started"] is None and out[1]["wait"] == 0


def test_reasons_are_the_documented_ones() -> None:
    assert len(REASONS) == 10 and isinstance(Story("x").events, list)
