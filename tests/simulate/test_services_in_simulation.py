"""Services in the full simulation (gpupool/simulate/services/actor.py): hand-worked cases.

The autoscalers' rules are those of tests/simulate/test_autoscalers.py and
tests/simulate/test_service_replay.py (kubernetes ``pkg/controller/podautoscaler/horizontal.go``
and ``replica_calculator.go``; kedacore/keda ``pkg/scaling/executor/scale_scaledobjects.go``,
v2.20); here the same cases run with each replica a pod of the run, beside batch jobs on the
same pool, under the same scheduler. What the loop adds, each with its source:

* a replica waits for a slot like any pod and preempts lower priorities (the default
  scheduler's preemption, ``gpupool/simulate/preempt.py``);
* on a node a scale-up added, it serves after the node's provisioning (cluster-autoscaler FAQ,
  5 minutes) plus the device plugin's 90 s (NVIDIA/k8s-device-plugin#291), then
  ``startupSeconds``;
* a scale-down deletes in the ReplicaSet's order (kubernetes ``pkg/controller/controller_utils.go``
  ``ActivePodsWithRanks.Less``: unassigned, then not ready, then ready the shortest time).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpupool.model import Stack
from gpupool.simulate.engine import Outcome, Settings, Simulation
from gpupool.simulate.gang import Gang
from gpupool.simulate.jobs import Job, Workload
from gpupool.simulate.report import report as report_of
from gpupool.simulate.requests import RateSeries, read_log
from gpupool.simulate.services.actor import NODES_MAX, TENANT_LIMIT, ServiceActor
from gpupool.views.simulate import render
from tests import bench_scripts
from tests.paths import FIXTURES, shared_upstream
from tests.stacks import load_stack, load_stack_text

STACK = FIXTURES / "simulate" / "services" / "stack.yaml"  # recommend: 40 rps a replica, 2-8


def _stack(text_edits: tuple[tuple[str, str], ...] = ()) -> Stack:
    text = STACK.read_text(encoding="utf-8")
    for old, new in text_edits:
        assert old in text, old
        text = text.replace(old, new)
    return load_stack_text(text, str(STACK))


def _rates(*rows: tuple[float, float]) -> RateSeries:
    return RateSeries("recommend", "test", 1, tuple(t for t, _ in rows), tuple(r for _, r in rows))


def _batch(n: int, duration: float = 20000.0, priority: str = "low",
           tenant: str | None = None) -> tuple[Job, ...]:
    # training pods on the service's pool from the start (tenant-less, priority low: default)
    return tuple(Job(f"train-{i}", i + 2, 0.0, duration, tenant=tenant, gpus=1, cpu=4,
                     memory_gib=16, priority=priority, pool="l4") for i in range(n))


class _Running:
    """Counts the service's replicas holding a slot, and the most at once."""

    def __init__(self) -> None:
        self.now = 0
        self.most = 0

    def on_start(self, gang: Gang, now: float) -> None:
        if gang.job.name.endswith("-replica"):
            self.now += 1
            self.most = max(self.most, self.now)

    def on_stop(self, gang: Gang, now: float, requeued: bool) -> None:
        if gang.job.name.endswith("-replica"):
            self.now -= 1


def _run(stack: Stack, trace: RateSeries, jobs: tuple[Job, ...] = (),
         until: float | None = None) -> tuple[dict[str, object], _Running, Outcome]:
    actor = ServiceActor(stack, {"recommend": trace}, until=until)
    running = _Running()
    sim = Simulation(stack, Workload("test", jobs), Settings(), observers=[actor, running])
    outcome = sim.run()
    return actor.reports()[0], running, outcome


def _rps_only(stack: Stack, **changes: object) -> Stack:
    service = stack.services[0]
    service = replace(service, triggers=(service.triggers[1],), **changes)  # type: ignore
    return replace(stack, services=(service, *stack.services[1:]))


def test_a_cold_start_beside_batch_jobs_preempts_and_waits_startup_seconds() -> None:
    # test_service_replay's cold start: min 0, 50 rps from 100 s; KEDA activates at 120, the
    # HPA asks a second replica at 165. Both initial nodes are busy with low-priority training
    # pods: each replica preempts one at once, so they serve from 120 + 180 = 300 and
    # 165 + 180 = 345, as with unlimited capacity
    stack = _rps_only(_stack(), replicas_min=0, cooldown_seconds=300)
    report, _, outcome = _run(stack, _rates((0, 0), (100, 50), (900, 50)), _batch(2))
    assert report["cold_starts"] == 1
    assert report["cold_start_delay_seconds"] == {"mean": 180.0, "max": 180.0}
    timeline = report["timeline"]
    assert timeline[5] == {"seconds": 300.0, "demand_rps": 50.0, "ready_replicas": 1,
                           "desired_replicas": 2}
    assert timeline[6]["ready_replicas"] == 2
    assert sum(1 for g in outcome.gangs if g.preemptions) == 2  # the batch jobs evicted
    assert len(outcome.gangs) == 2  # the replicas are not among the jobs


def test_a_cold_start_on_a_new_node_waits_for_provisioning_and_the_device_plugin() -> None:
    # no node at the start (nodes.min 0): the replica asked at 120 makes the autoscaler ask a
    # node at 120, ready at 420 (5 minutes), its GPU advertised at 510 (90 s), serving from
    # 510 + 180 = 690: a cold start of 570 s
    stack = _rps_only(_stack((("nodes: {min: 2, max: 10}", "nodes: {min: 0, max: 10}"),)),
                      replicas_min=0, cooldown_seconds=300)
    report, _, _ = _run(stack, _rates((0, 0), (100, 50), (1200, 50)))
    assert report["cold_start_delay_seconds"] == {"mean": 570.0, "max": 570.0}


def test_back_to_zero_after_the_cooldown_beside_batch_jobs() -> None:
    # test_service_replay's cooldown: demand stops at 60 s, last active poll at 90, zero at the
    # first poll after 90 + 300; the batch jobs on other nodes change nothing of it
    stack = _rps_only(_stack(), replicas_min=0, cooldown_seconds=300)
    report, _, _ = _run(stack, _rates((0, 50), (60, 0), (1200, 0)), _batch(1, 600.0))
    timeline = {p["seconds"]: p["desired_replicas"] for p in report["timeline"]}
    assert timeline[360.0] > 0
    assert timeline[420.0] == 0


def test_the_scale_up_policy_and_the_nodes_it_waits_for() -> None:
    # min 1, max 8, 400 rps from 0 (horizontal.go, the default scale-up rules: 4 Pods or 100%
    # per 15 s, the larger): the sync at 0 reads nothing yet (1 stays, the minimum); at 15,
    # ceil(400 / 40) = 10 is limited to max(1 + 4, 2 x 1) = 5; at 30, to max(5 + 4, 10) = 9,
    # clamped to 8. Two nodes at the start: the first replica serves at once, the second (asked
    # at 15) on the free node from 15 + 180 = 195; the other six wait for nodes asked at 15 and
    # 30, ready at 315 and 330, advertised at 405 and 420: serving from 585 and 600
    stack = _rps_only(_stack(), replicas_min=1)
    report, running, _ = _run(stack, _rates((0, 400), (900, 400)), until=900)
    timeline = {p["seconds"]: p for p in report["timeline"]}
    assert timeline[60.0]["desired_replicas"] == 8
    assert [timeline[t]["ready_replicas"] for t in (0.0, 180.0, 240.0, 540.0, 600.0)] == [
        1, 1, 2, 2, 8]
    assert running.most == 8


def test_the_tenants_limit_holds_replicas_back_and_says_so() -> None:
    # tenant recsys's limit of 10 GPUs, 7 held by its own training pods (its priority: no
    # preemption): 3 replicas run, the 5 more the HPA asks wait (limit), each counted once as
    # a scale-up the tenant's limit blocked
    stack = _rps_only(_stack(), replicas_min=1)
    jobs = _batch(7, priority="normal", tenant="recsys")
    report, running, outcome = _run(stack, _rates((0, 400), (1800, 400)), jobs, until=1800)
    assert running.most == 3
    assert report["blocked_scale_ups"] == {TENANT_LIMIT: 5}
    assert all(g.started_at is not None for g in outcome.gangs)


def test_the_pools_nodes_max_holds_replicas_back_and_says_so() -> None:
    # 7 tenant-less training pods at the replicas' priority hold 7 of the pool's 10 nodes: 3
    # replicas run, the rest wait with the pool at nodes.max
    stack = _rps_only(_stack(), replicas_min=1)
    report, running, _ = _run(stack, _rates((0, 400), (1800, 400)),
                              _batch(7, priority="normal"), until=1800)
    assert running.most == 3
    assert report["blocked_scale_ups"] == {NODES_MAX: 5}


def test_a_scale_down_deletes_the_newest_ready_first() -> None:
    # 120 rps for 20 min, then 40: 3 replicas, then the HPA's 300 s window lets it go to 1;
    # the ReplicaSet deletes the two made last (ready the shortest time): the pod left is the
    # first one, still on its node since 0
    stack = _rps_only(_stack(), replicas_min=1)
    actor = ServiceActor(stack, {"recommend": _rates((0, 120), (1200, 40), (2400, 40))})
    sim = Simulation(stack, Workload("test", ()), Settings(), observers=[actor])
    kept: list[float] = []

    def look() -> None:
        kept.extend(r.created for r in actor.pods[0].live)

    sim.call_at(2300.0, look)
    sim.run()
    assert kept == [0.0]


def test_a_spot_interruption_evicts_a_replica_after_the_drain_and_it_starts_again() -> None:
    stack = _stack((("    workload: inference\n", "    workload: inference\n"
                     "    capacity: {type: spot}\n"),))
    stack = _rps_only(stack, replicas_min=2)
    actor = ServiceActor(stack, {"recommend": _rates((0, 60), (7200, 0))})
    sim = Simulation(stack, Workload("test", ()), Settings(seed=3, spot_interruptions_per_hour=2),
                     observers=[actor])
    sim.run()
    report = actor.reports()[0]
    # the replicas were evicted and ran again: fewer served in time than offered, all counted
    assert report["requests"] == 60 * 7200
    assert 0 < report["served_in_slo"] < report["requests"]
    total = (report["served_in_slo"] + report["served_late"] + report["given_up"]
             + report["waiting_at_end"])
    assert abs(total - report["requests"]) < 1e-3


def test_a_service_whose_priority_the_tenants_policy_refuses_never_starts() -> None:
    # recommend moved to priority low while tenant recsys is high: its admission policy
    # (gpupool/sharing/admission.py) denies other priorities. validate refuses such a stack
    # (service.priority-not-tenants); the simulator, given one anyway, refuses as the API would
    stack = load_stack("aws-inference-services")
    [recommend] = [s for s in stack.services if s.name == "recommend"]
    moved = replace(recommend, priority="low")
    stack = replace(stack, services=tuple(moved if s is recommend else s
                                          for s in stack.services))
    actor = ServiceActor(stack, {"recommend": _rates((0, 40), (600, 40))})
    Simulation(stack, Workload("test", ()), Settings(), observers=[actor]).run()
    [report] = actor.reports()
    assert report["served_in_slo"] == 0
    assert "must set priorityClassName gpupool-high" in str(report["refused"])


def test_every_public_trace_replays_through_the_simulation_and_reports() -> None:
    # the Azure LLM inference 2023 traces (../shared/reference/upstream/SOURCES-services.md),
    # read as published, each the demand of recommend beside a batch workload on its pool
    stack = _stack()
    for name in ("AzureLLMInferenceTrace_code.csv", "AzureLLMInferenceTrace_conv.csv"):
        path = shared_upstream(f"traces/azure-llm-2023/{name}")
        if not path.is_file():
            pytest.skip(f"{path} is absent (../shared/reference/upstream/SOURCES-services.md)")
        log = read_log(path, "recommend")
        report, running, outcome = _run(stack, log, _batch(4, 3600.0))  # type: ignore[arg-type]
        assert report["requests"] == len(log.times)
        total = (report["served_in_slo"] + report["served_late"] + report["given_up"]
                 + report["waiting_at_end"])
        assert total == pytest.approx(len(log.times), abs=1e-3)
        assert 0 < report["served_in_slo"] <= len(log.times)
        assert running.most <= 8 and report["gpu_hours"] > 0
        assert len(outcome.gangs) == 4
        text = render(report_of(outcome, {}), "text", None, [report], None,
                      {"recommend": 40.0}).result
        assert "recommend" in text.split("Services (", 1)[1]


def test_the_bench_stack_is_valid_and_its_service_runs() -> None:
    # bench/simulate_services.py's week, cut to an hour: the stack validates, the service runs
    bench = bench_scripts.load("simulate_services")
    stack = load_stack_text(bench.STACK, "bench-services.yaml")
    trace = RateSeries("chat", "bench", 1, (0.0, 3600.0), (1000.0, 0.0))
    actor = ServiceActor(stack, {"chat": trace})
    Simulation(stack, Workload("test", ()), Settings(), observers=[actor]).run()
    [report] = actor.reports()
    assert report["requests"] == 3_600_000
    assert report["replicas"]["max"] == 200  # ceil(1000 / 4) = 250, clamped to replicas.max
