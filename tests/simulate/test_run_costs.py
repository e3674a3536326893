"""A run's cost is bounded by its input, and the figures it prints say what happened.

Each test is a reproducer from issue 34 (runaway runs) or 35 (simulate's figures): a two-row
workload that recorded 10^7 metered samples, a scale-up of 0 s that waited half an hour where
1 s waited a second, a spot rate at the documented top of its range that never ended, 20,000
jobs of distinct shapes that took half an hour, gangs of 100,000 pods that took gigabytes.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from gpupool.model import Stack
from gpupool.simulate.engine import (
    DONE,
    GAVE_UP,
    GAVE_UP_STATE,
    GIVE_UP_FACTOR,
    Settings,
    Simulation,
    simulate,
    simulate_metered,
)
from gpupool.simulate.jobs import Workload
from gpupool.simulate.metered import MAX_INSTANTS, FragmentationMeter
from gpupool.simulate.report import report
from gpupool.views.simulate import render
from tests.simulate.simstacks import job, workload
from tests.stacks import load_stack_text

AWS = (
    "apiVersion: gpupool.io/v1\nkind: GpuPoolStack\nmetadata: {name: t}\n"
    "provider: {cloud: aws, region: us-east-1, cluster: c, settings: {subnets: "
    "[{id: subnet-0a1b2c3d4e5f60718, zone: us-east-1a}], "
    "nodeRoleArn: 'arn:aws:iam::123456789012:role/gpu-nodes'}}\n"
    "cluster: {scheduler: default}\npools:\n"
)
FROM_ZERO = AWS + (
    "  - {name: l4, instanceType: g6.2xlarge, workload: inference, nodes: {min: 0, max: 2}}\n"
)
SPOT = AWS + (
    "  - {name: s, instanceType: g6.2xlarge, workload: inference, nodes: {min: 1, max: 3},"
    " capacity: {type: spot}, interruption: {checkpoint: none}}\n"
)


@contextmanager
def _within(seconds: int) -> Iterator[None]:
    """Fail instead of hanging: the old engine never ended some of these runs."""
    def stop(*_: object) -> None:
        raise TimeoutError(f"the run took over {seconds} s")

    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _metered(stack: Stack, wl: Workload, settings: Settings | None = None,
             ) -> tuple[Simulation, FragmentationMeter]:
    meter = FragmentationMeter(wl)
    return Simulation(stack, wl, settings, observers=[meter]), meter


def _instants(meter: FragmentationMeter) -> int:
    return meter.samples[-1][1] if meter.samples else 0


def test_a_workload_of_microseconds_waiting_for_a_node_keeps_few_samples() -> None:
    """Span 20 ms, so a step of 1/6 ms; the node takes 300 s: 1.8 million instants before."""
    stack = load_stack_text(FROM_ZERO)
    wl = workload(job("a1", 0, 0.01, gpus=1), job("b2", 0.01, 0.01, gpus=1))
    sim, meter = _metered(stack, wl)
    out = sim.run()
    assert out.end >= 300
    assert 0 < _instants(meter) <= MAX_INSTANTS
    assert len(meter.samples) <= MAX_INSTANTS


def test_a_long_scale_up_keeps_few_samples() -> None:
    """--scale-up-seconds 1000000 on an hour's workload: 33,000 steps of 30 s, halved."""
    stack = load_stack_text(FROM_ZERO)
    wl = workload(job("a1", 0, 3600, gpus=1))
    sim, meter = _metered(stack, wl, Settings(scale_up_seconds=1_000_000))
    sim.run()
    assert 0 < _instants(meter) <= MAX_INSTANTS


def test_a_short_run_keeps_its_samples_as_before() -> None:
    """Within the bound nothing is coarsened: one instant per step of span / 120."""
    stack = load_stack_text(FROM_ZERO)
    wl = workload(job("a1", 0, 1200, gpus=1))
    sim, meter = _metered(stack, wl)
    sim.run()
    assert meter.step == 1200 / 120
    # every step up to the last instant the clock reached (the empty node's removal)
    assert _instants(meter) == math.ceil(sim.last_t / meter.step)


def test_scale_up_seconds_zero_waits_no_longer_than_one() -> None:
    """A node ready at once is scheduled on at once (it waited for the next event before)."""
    stack = load_stack_text(FROM_ZERO)
    wl = workload(job("a1", 0, 1800, gpus=1), job("b2", 100, 1800, gpus=1))
    waits = {}
    for up in (0.0, 1.0):
        with _within(30):
            out = simulate(stack, wl, Settings(scale_up_seconds=up))
        waits[up] = max(g.first_start - g.job.submit for g in out.gangs)  # type: ignore[operator]
    assert waits[0.0] == 0.0
    assert waits[0.0] <= waits[1.0] == 1.0


def test_spot_rates_at_the_top_of_their_range_end_promptly() -> None:
    """3,600 interruptions an hour: a 2 h job never survives; it gives up at 10x its duration."""
    stack = load_stack_text(SPOT)
    wl = workload(*(job(f"j{i}", i * 60, 7200, gpus=1) for i in range(4)))
    for rate in (1000.0, 3600.0):
        with _within(60):
            out = Simulation(stack, wl, Settings(spot_interruptions_per_hour=rate)).run()
        assert {g.state for g in out.gangs} == {GAVE_UP_STATE}
        assert out.end <= 3 * 60 + (GIVE_UP_FACTOR + 1) * 7200 + 3600
        figures = report(out).tenants[0]
        assert figures.reasons == {GAVE_UP: 4}
        assert figures.interruptions > 4


def test_a_job_that_survives_is_not_given_up() -> None:
    """At a low rate the bound changes nothing: the job is resubmitted until it finishes."""
    stack = load_stack_text(SPOT)
    out = simulate(stack, workload(job("j", 0, 600, gpus=1)),
                   Settings(seed=1, spot_interruptions_per_hour=2.0))
    assert out.gangs[0].state == DONE


def test_the_text_report_shows_interruptions_beside_preemptions() -> None:
    """Issue 35: `preempted 0` beside the GPU-hours spot interruptions lost, and no column."""
    stack = load_stack_text(SPOT)
    out = simulate(stack, workload(job("j", 0, 7200, gpus=1)),
                   Settings(seed=3, spot_interruptions_per_hour=1.0))
    figures = report(out)
    count = figures.tenants[0].interruptions
    assert count > 0
    for fmt in ("text", "markdown"):
        text = render(figures, fmt).result
        header = next(line for line in text.splitlines() if "preempted" in line)
        row = text.splitlines()[text.splitlines().index(header) + (2 if fmt == "markdown" else 1)]
        cells = header.replace("|", " ").split("  ") if fmt == "text" else header.split(" | ")
        cells = [c.strip() for c in cells if c.strip()]
        values = [c.strip() for c in (row.split("  ") if fmt == "text" else row.split(" | "))
                  if c.strip()]
        assert cells[cells.index("preempted") + 1] == "interrupted"
        assert values[cells.index("interrupted")].strip("| ") == str(count)


def test_a_run_tells_its_clock() -> None:
    """The clock (the command line's progress) hears the simulated time, never going back."""
    stack = load_stack_text(FROM_ZERO)
    wl = workload(*(job(f"j{i}", i * 10, 600, gpus=1) for i in range(300)))
    seen: list[float] = []
    simulate(stack, wl, clock=seen.append)
    assert seen and seen == sorted(seen) and seen[-1] > 0


def test_thousands_of_distinct_shapes_submitted_at_once_take_seconds() -> None:
    """20,000 one-GPU jobs, each asking a different CPU, on a pool of 0-2 nodes.

    Every release retried every waiting queue (one per shape) and its scale-up request: about
    half an hour. Now a release wakes only queues a released node can fit, walked in order
    until no released node has room, and the scale-up request is kept per queue.
    """
    stack = load_stack_text(FROM_ZERO)
    n = 20_000
    wl = workload(*(job(f"j{i}", 0, 600, gpus=1, cpu=1 + i / n) for i in range(n)))
    sim = Simulation(stack, wl)
    assert sim.gated  # an autoscaled stack without tenants takes the gated rule
    with _within(90):
        out, fragmentation = simulate_metered(stack, wl)
        figures = report(out, fragmentation)
    assert {g.state for g in out.gangs} == {DONE}
    # two nodes at most, 600 s a job, in submit order: the last starts after 9,999 rounds
    assert out.end == 300 + n // 2 * 600
    assert out.gangs[-1].started_at == out.end - 600
    assert figures.tenants[0].started == n


_GANGS = """
import resource, sys
from gpupool.simulate.engine import simulate_metered
from gpupool.simulate.report import report
from tests.simulate.simstacks import job, workload
from tests.simulate.test_run_costs import FROM_ZERO
from tests.stacks import load_stack_text
stack = load_stack_text(FROM_ZERO)
wl = workload(*(job(f"g{i}", i * 10, 3600, pods=100_000) for i in range(200)))
out, fragmentation = simulate_metered(stack, wl)
figures = report(out, fragmentation)
assert {g.state for g in out.gangs} == {"done"}, {g.state for g in out.gangs}
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:  # Linux keeps ru_maxrss across exec: the forking test runner's own size shows there
    with open("/proc/self/status") as status:
        peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
except (OSError, StopIteration):
    pass
print(figures.tenants[0].started, peak)
"""


def test_gangs_of_100000_cpu_only_pods_take_little_memory() -> None:
    """200 rows of 100,000-pod gangs asking no GPU, CPU or memory: 4.8 GiB and many minutes.

    Each pod was an entry on its node, in its gang's placement and in the owner map, and a
    wait in the report; now a gang's pods taken one after another on one node are one
    counted entry, and the report counts waits by gang. Peak RSS of a process of its own.
    """
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run([sys.executable, "-c", _GANGS], capture_output=True, text=True,
                          cwd=root, env=env, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    started, peak_kib = (int(x) for x in done.stdout.split())
    assert started == 200 * 100_000
    assert peak_kib < 120 * 1024  # 35 MiB now; the interpreter and gpupool take about 30


FALLBACK = AWS + (
    "  - {name: s, instanceType: g6.2xlarge, workload: inference, nodes: {min: 1, max: 1},"
    " capacity: {type: spot, fallbackToOnDemand: true},"
    " interruption: {checkpoint: none, drainSeconds: 10}}\n"
)


def test_a_run_says_what_ran_on_the_on_demand_fallback_and_why() -> None:
    """Issue 35: more interruptions an hour gave shorter runs, and nothing said why.

    The one spot node is interrupted; its pods stop 10 s into AWS's 2-minute notice, and until
    the notice ends the node still counts in its group's target size, which is at its max,
    so cluster-autoscaler leaves the spot group out of the scale-up (kubernetes/autoscaler
    ``cluster-autoscaler/core/scaleup/orchestrator/orchestrator.go``,
    ``filterValidScaleUpNodeGroups``: "max size reached") and grows the
    on-demand group, where the job then runs to its end uninterrupted.
    """
    stack = load_stack_text(FALLBACK)
    wl = workload(job("j", 0, 7200, gpus=1))
    calm = report(simulate(stack, wl)).pools[0]
    assert (calm.fallback_nodes, calm.fallback_gpu_hours) == (0, 0.0)
    assert "On-demand fallback" not in render(report(simulate(stack, wl)), "text").result
    out = simulate(stack, wl, Settings(spot_interruptions_per_hour=3600.0))
    assert out.gangs[0].state == DONE
    figures = report(out)
    pool = figures.pools[0]
    assert pool.fallback_nodes == pool.fallback_at_max == 1
    assert pool.fallback_backed_off == 0
    assert pool.fallback_gpu_hours == 2.0  # the whole 2 h job, once it moved there
    text = render(figures, "text").result
    assert ("s: 1 on-demand node grown because the spot group could not grow (1 at its "
            "nodes.max, counting draining and provisioning spot nodes); 2.0 of") in text
    assert "**On-demand fallback**" in render(figures, "markdown").result
    doc = json.loads(render(figures, "json").result)
    assert doc["pools"][0]["on_demand_fallback"] == {
        "nodes": 1, "spot_at_max": 1, "spot_backed_off": 0, "gpu_hours": 2.0}


def test_a_fraction_on_an_unshared_pool_says_what_it_was_billed() -> None:
    """Issue 35: a fraction ran silently on an exclusive or time-slicing pool.

    The device plugin hands such a pod one nvidia.com/gpu unit: a whole GPU, or one replica
    (docs/workload.md: fractions are for fractional pools); the run allocates and bills that.
    """
    sliced = FROM_ZERO.replace("nodes: {min: 0, max: 2}}",
                               "nodes: {min: 0, max: 2}, sharing: {mode: time-slicing, "
                               "replicas: 4}}")
    wl = workload(job("f1", 0, 3600, fraction=0.25), job("f2", 0, 3600, fraction=0.5, pods=2),
                  job("w3", 0, 3600, gpus=1))
    for text, given, gpu_hours in ((FROM_ZERO, "a whole GPU", 4.0),
                                   (sliced, "one replica, 1/4 of a GPU", 1.0)):
        figures = report(simulate(load_stack_text(text), wl))
        pool = figures.pools[0]
        assert (pool.fraction_unshared_pods, pool.fraction_given) == (3, given)
        assert pool.gpu_hours == gpu_hours  # what each pod was given, for its hour
        assert (f"l4 shares no GPU by fraction, yet 3 pods of fraction rows ran on it: each "
                f"was given and billed {given}") in render(figures, "text").result
        assert json.loads(render(figures, "json").result)["pools"][0][
            "fraction_unshared_pods"] == 3
    whole = report(simulate(load_stack_text(FROM_ZERO), workload(job("w", 0, 60, gpus=1))))
    assert whole.pools[0].fraction_unshared_pods == 0
    assert "Fractions on unshared pools" not in render(whole, "text").result
