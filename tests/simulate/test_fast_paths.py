"""The simulator's fast paths give the runs the plain rules give, byte for byte.

``engine.Simulation`` places a KAI binpack GPU pod by walking its pool's busy nodes from the
fullest (``placement.choose_packed``) instead of scoring every node (``placement.choose``), and,
on stacks where a failed try leaves no trace (``Simulation._gated``), retries a waiting queue only
when a released node could fit its first job instead of after every release. Both are meant to
change the time a run takes and nothing else: each test runs the same workload with the fast
paths on and off and compares the report's JSON and every job's outcome.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpupool.model import Stack
from gpupool.simulate.engine import Outcome, Settings, Simulation
from gpupool.simulate.generate import generate
from gpupool.simulate.jobs import Job, Workload
from gpupool.simulate.report import document, report
from tests.simulate.simstacks import lab
from tests.stacks import load_stack, load_stack_text

# A small cluster of existing nodes under KAI, no tenants: both fast paths apply. Two fractional
# pools of different node sizes and a whole-GPU pool, so a pod may go to several pools.
KAI_LAB = (
    "  - {name: eight, nodeNames: [e1, e2, e3], gpu: {model: L4, count: 8},"
    " host: {vcpus: 32, memoryGiB: 128},"
    " sharing: {mode: fractional, fractional: {slotsPerGpu: 4}}}\n"
    "  - {name: two, nodeNames: [t1, t2, t3, t4], gpu: {model: L4, count: 2},"
    " host: {vcpus: 16, memoryGiB: 64},"
    " sharing: {mode: fractional, fractional: {slotsPerGpu: 4}}}\n"
    "  - {name: whole, nodeNames: [w1, w2], gpu: {model: L4, count: 4},"
    " host: {vcpus: 24, memoryGiB: 96}}\n"
)


# An autoscaled AWS stack without tenants: a pool from zero, a spot pool with an on-demand
# fallback, and a CPU-and-GPU pool of another size, so unpinned pods may go to several pools.
AWS_AUTOSCALED = (
    "apiVersion: gpupool.io/v1\nkind: GpuPoolStack\nmetadata: {name: t}\n"
    "provider: {cloud: aws, region: us-east-1, cluster: c, settings: {subnets: "
    "[{id: subnet-0a1b2c3d4e5f60718, zone: us-east-1a}], "
    "nodeRoleArn: 'arn:aws:iam::123456789012:role/gpu-nodes'}}\n"
    "cluster: {scheduler: default}\npools:\n"
    "  - {name: l4, instanceType: g6.2xlarge, workload: inference, nodes: {min: 0, max: 3}}\n"
    "  - {name: s, instanceType: g6.12xlarge, workload: inference, nodes: {min: 1, max: 2},"
    " capacity: {type: spot, fallbackToOnDemand: true}, interruption: {checkpoint: none}}\n"
)


def _run(stack: Stack, workload: Workload, *, fast: bool,
         options: Settings | None = None) -> Outcome:
    sim = Simulation(stack, workload, options)
    if not fast:
        sim.packed = False
        sim.gated = False
    return sim.run()


def _outcome_bytes(out: Outcome) -> str:
    """The report's JSON and, per job, what happened to it and where it last ran."""
    jobs = [(g.id, g.state, g.reason, g.first_start, g.started_at, g.last_nodes, g.last_devices,
             sorted(g.pools_used), g.preemptions) for g in out.gangs]
    return json.dumps([document(report(out)), jobs], sort_keys=True)


def _same(stack: Stack, workload: Workload, options: Settings | None = None) -> None:
    fast = _run(stack, workload, fast=True, options=options)
    plain = _run(stack, workload, fast=False, options=options)
    assert _outcome_bytes(fast) == _outcome_bytes(plain)


@st.composite
def busy_workloads(draw: st.DrawFn) -> Workload:
    """Tenant-less jobs of every KAI shape arriving faster than the lab cluster drains them."""
    jobs = []
    for i in range(draw(st.integers(20, 120))):
        kind = draw(st.sampled_from(["gpus", "gpus", "fraction", "cpu"]))
        kw: dict[str, object] = {}
        if kind == "gpus":
            kw["gpus"] = draw(st.sampled_from([1, 1, 2, 4, 8]))
        elif kind == "fraction":
            kw["fraction"] = draw(st.sampled_from([0.25, 0.5, 0.75, 0.3]))
        jobs.append(Job(
            name=f"j{i}", line=i + 2,
            submit=float(draw(st.integers(0, 4 * 3600))),
            duration=float(draw(st.integers(60, 6 * 3600))),
            cpu=float(draw(st.integers(0, 12))), memory_gib=float(draw(st.integers(0, 48))),
            pool=draw(st.sampled_from([None, None, None, "eight", "two"])),
            pods=draw(st.sampled_from([1, 1, 1, 1, 2])),
            **kw,  # type: ignore[arg-type]
        ))
    return Workload("generated", tuple(sorted(jobs, key=lambda j: j.submit)))


def test_the_lab_stack_takes_both_fast_paths() -> None:
    sim = Simulation(lab(KAI_LAB, scheduler="kai"), Workload("empty", ()))
    assert sim.packed and sim.gated


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workload=busy_workloads())
def test_fast_paths_give_the_plain_run_on_a_busy_kai_cluster(workload: Workload) -> None:
    _same(lab(KAI_LAB, scheduler="kai"), workload)


@pytest.mark.parametrize("name", ["azure-kai-fair", "gcp-training-h100-mig"])
@pytest.mark.parametrize("seed", [0, 1])
def test_the_packed_walk_gives_the_plain_run_on_kai_examples(name: str, seed: int) -> None:
    """Example stacks have tenants and autoscale: only the packed walk applies there."""
    stack = load_stack(name)
    sim = Simulation(stack, Workload("empty", ()))
    assert sim.packed and not sim.gated
    _same(stack, generate(stack, seed, jobs=300))


@st.composite
def distinct_shapes(draw: st.DrawFn) -> Workload:
    """Jobs of many distinct CPU and memory requests, some pinned, in bursts."""
    jobs = []
    for i in range(draw(st.integers(10, 80))):
        jobs.append(Job(
            name=f"j{i}", line=i + 2,
            submit=float(draw(st.sampled_from([0, 0, 0, 600, 3600, 7200]))),
            duration=float(draw(st.integers(60, 4 * 3600))),
            gpus=draw(st.sampled_from([0, 1, 1, 1, 2])),
            cpu=draw(st.floats(0.1, 7.5)), memory_gib=float(draw(st.integers(0, 30))),
            pool=draw(st.sampled_from([None, None, None, "l4", "s"])),
        ))
    return Workload("generated", tuple(sorted(jobs, key=lambda j: j.submit)))


def test_an_autoscaled_stack_without_tenants_takes_the_gated_rule() -> None:
    sim = Simulation(load_stack_text(AWS_AUTOSCALED), Workload("empty", ()))
    assert sim.cluster.autoscales and sim.gated


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workload=distinct_shapes(), rate=st.sampled_from([0.0, 0.0, 0.5, 4.0]),
       seed=st.integers(0, 3), up=st.sampled_from([None, 0.0, 60.0]))
def test_the_gated_rule_gives_the_plain_run_on_an_autoscaled_stack(
        workload: Workload, rate: float, seed: int, up: float | None) -> None:
    """Scale-ups, spot drains and idle nodes removed between passes change nothing."""
    options = Settings(seed=seed, spot_interruptions_per_hour=rate, scale_up_seconds=up,
                       scale_down_seconds=300.0)
    _same(load_stack_text(AWS_AUTOSCALED), workload, options)
