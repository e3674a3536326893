"""Properties of services in the full simulation (hypothesis), beside batch jobs on one pool.

The HPA's ``AverageValue`` over the pods (kubernetes
``pkg/controller/podautoscaler/replica_calculator.go``), KEDA activating above 0
(kedacore/keda ``pkg/scaling/executor/scale_scaledobjects.go``): more ``replicas.max`` never
lowers the requests served in time, for every set of triggers validate neither refuses nor
warns of (``service.cannot-wake``, ``service.zero-under-load``: the exception the standalone
replay found, a pending-requests trigger with ``replicas.min`` 0 going to zero under load once
its queue empties, kept in tests/simulate/test_service_replay.py and
docs/services-simulation.md), with a trigger that follows the offered load (the queue-only
case is kept below); more ``nodes.max`` never lowers it either (on requests per
second); the same inputs and seed give the same bytes; the replicas holding a slot never pass
``replicas.max``, and the tenant's pods never pass its GPU limit
(``gpupool/simulate/tenancy.py``); every offered request is counted once (in time, late, given
up, or waiting at the end).
"""

from __future__ import annotations

import json
from dataclasses import replace

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gpupool.model import Stack
from gpupool.service_model import PENDING_REQUESTS, REQUESTS_PER_SECOND, Trigger
from gpupool.simulate.engine import Settings, Simulation
from gpupool.simulate.gang import Gang
from gpupool.simulate.jobs import Job, Workload
from gpupool.simulate.report import document, report
from gpupool.simulate.requests import RateSeries
from gpupool.simulate.services.actor import ServiceActor
from gpupool.spec.checks.services import cannot_wake, zero_under_load
from tests.paths import FIXTURES
from tests.simulate.test_service_replay import _TRIGGERS, _trigger_sets, follows_load
from tests.stacks import load_stack

STACK = FIXTURES / "simulate" / "services" / "stack.yaml"
_steps = st.lists(st.tuples(st.integers(1, 10).map(lambda m: m * 60.0),
                            st.floats(0, 300, allow_nan=False)), min_size=1, max_size=4)
_jobs = st.lists(st.tuples(st.integers(0, 1200), st.integers(60, 3600),
                           st.sampled_from(["low", "normal"])), max_size=8)


def _trace(steps: list[tuple[float, float]]) -> RateSeries:
    times, rates, t = [], [], 0.0
    for length, rps in steps:
        times.append(t)
        rates.append(rps)
        t += length
    return RateSeries("recommend", "test", 1, (*times, t), (*rates, 0.0))


def _stack(lo: int, hi: int, nodes_max: int = 10,
           triggers: tuple[Trigger, ...] | None = None) -> Stack:
    stack = load_stack(STACK)
    service = stack.services[0]
    service = replace(service, replicas_min=lo, replicas_max=hi,
                      triggers=triggers or (service.triggers[1],), startup_seconds=60)
    pool = stack.pools[0]
    pool = replace(pool, nodes=replace(pool.nodes, max=nodes_max))
    return replace(stack, services=(service,), pools=(pool,))


def _workload(jobs: list[tuple[int, int, str]]) -> Workload:
    rows = sorted(jobs)
    return Workload("test", tuple(
        Job(f"j{i}", i + 2, float(at), float(length), tenant="recsys" if level == "normal"
            else None, gpus=1, cpu=4, memory_gib=16, priority=level, pool="l4")
        for i, (at, length, level) in enumerate(rows)))


class _Held:
    """The most replicas holding a slot at once, and the most GPUs tenant recsys held."""

    def __init__(self) -> None:
        self.replicas = self.most_replicas = 0
        self.tenant = self.most_tenant = 0

    def on_start(self, gang: Gang, now: float) -> None:
        if gang.job.name.endswith("-replica"):
            self.replicas += 1
            self.most_replicas = max(self.most_replicas, self.replicas)
        if gang.job.tenant == "recsys":
            self.tenant += gang.job.gpus
            self.most_tenant = max(self.most_tenant, self.tenant)

    def on_stop(self, gang: Gang, now: float, requeued: bool) -> None:
        if gang.job.name.endswith("-replica"):
            self.replicas -= 1
        if gang.job.tenant == "recsys":
            self.tenant -= gang.job.gpus


def _run(stack: Stack, trace: RateSeries, workload: Workload, seed: int = 0,
         spot: float = 0.0) -> tuple[dict[str, object], _Held, str]:
    actor = ServiceActor(stack, {"recommend": trace})
    held = _Held()
    outcome = Simulation(stack, workload, Settings(seed=seed, spot_interruptions_per_hour=spot),
                         observers=[actor, held]).run()
    [service] = actor.reports()
    return service, held, json.dumps(document(report(outcome, {})), sort_keys=True)


@settings(max_examples=20, deadline=None)
@given(steps=_steps, jobs=_jobs, lo=st.integers(0, 2), hi=st.integers(1, 5),
       more=st.integers(1, 4), triggers=_trigger_sets)
def test_more_replicas_max_never_lowers_the_requests_served_in_time(
        steps: list[tuple[float, float]], jobs: list[tuple[int, int, str]], lo: int, hi: int,
        more: int, triggers: tuple[Trigger, ...]) -> None:
    # every service validate neither refuses (service.cannot-wake) nor warns of going to zero
    # under load (service.zero-under-load), with a trigger that follows the offered load
    # (follows_load: on queue triggers alone, the case kept below)
    hi = max(hi, lo, 1)
    small_stack = _stack(lo, hi, triggers=triggers)
    assume(not cannot_wake(small_stack.services[0]))
    assume(not zero_under_load(small_stack.services[0]))
    assume(follows_load(triggers))
    trace, workload = _trace(steps), _workload(jobs)
    small, _, _ = _run(small_stack, trace, workload)
    large, _, _ = _run(_stack(lo, hi + more, triggers=triggers), trace, workload)
    assert large["served_in_slo"] >= small["served_in_slo"] - 1e-6


@settings(max_examples=20, deadline=None)
@given(steps=_steps, jobs=_jobs, nodes=st.integers(2, 6), more=st.integers(1, 4))
def test_more_nodes_max_never_lowers_the_requests_served_in_time(
        steps: list[tuple[float, float]], jobs: list[tuple[int, int, str]], nodes: int,
        more: int) -> None:
    trace, workload = _trace(steps), _workload(jobs)
    small, _, _ = _run(_stack(1, 8, nodes), trace, workload)
    large, _, _ = _run(_stack(1, 8, nodes + more), trace, workload)
    assert large["served_in_slo"] >= small["served_in_slo"] - 1e-6


def test_pending_requests_alone_drop_to_min_under_load_in_the_simulation() -> None:
    # hypothesis's counterexample to the property above, kept: on pending-requests alone at
    # replicas.min 1, replicas.max 4 empties the queue where 3 does not, so the HPA asks for
    # ceil(0 / 20) = 0 replicas, kept at minReplicas (kubernetes
    # pkg/controller/podautoscaler/replica_calculator.go GetExternalPerPodMetricReplicas,
    # horizontal.go normalizeDesiredReplicas) and drops to 1 under 45 rps, more than one
    # replica's 40; the queue builds again and 35 requests still wait when the trace ends.
    # That is the HPA holding a queue near its target, not the model's error; a rate trigger
    # beside it serves no fewer with the larger max.
    trigger = (_TRIGGERS[PENDING_REQUESTS],)
    trace, workload = _trace([(420.0, 82.0), (60.0, 27.0), (600.0, 45.0)]), _workload([])
    small, _, _ = _run(_stack(1, 3, triggers=trigger), trace, workload)
    large, _, _ = _run(_stack(1, 4, triggers=trigger), trace, workload)
    assert large["served_in_slo"] < small["served_in_slo"]
    late = [p for p in large["timeline"] if 900 <= p["seconds"] < 1080]
    assert max(p["ready_replicas"] for p in late) == 4
    assert late[-1]["ready_replicas"] < 4 or large["waiting_at_end"] > 0
    both = (*trigger, _TRIGGERS[REQUESTS_PER_SECOND])
    small, _, _ = _run(_stack(1, 3, triggers=both), trace, workload)
    large, _, _ = _run(_stack(1, 4, triggers=both), trace, workload)
    assert large["served_in_slo"] >= small["served_in_slo"]


def test_a_replica_takes_a_freed_gpu_before_a_node_whose_gpus_are_not_advertised() -> None:
    # hypothesis's counterexample to the property above, kept: with nodes.max 4 the third
    # replica bound to a node a scale-up added before the device plugin advertised its GPUs
    # and served 90 s late, while with 3 it took the GPU the training job freed at 121 s.
    # kube-scheduler binds no pod asking nvidia.com/gpu to a node without it allocatable
    # (kubernetes/autoscaler #1949, #3464; NVIDIA/k8s-device-plugin #291), so the larger
    # nodes.max must serve at least as many requests in time.
    trace = _trace([(60.0, 44.0), (60.0, 88.0), (600.0, 77.0)])
    workload = _workload([(16, 105, "normal")])
    small, _, _ = _run(_stack(1, 8, 3), trace, workload)
    large, _, _ = _run(_stack(1, 8, 4), trace, workload)
    assert large["served_in_slo"] >= small["served_in_slo"] - 1e-6


@settings(max_examples=20, deadline=None)
@given(steps=_steps, jobs=_jobs, lo=st.integers(0, 2), hi=st.integers(1, 6),
       seed=st.integers(0, 3))
def test_within_the_limits_counted_once_and_the_same_bytes(
        steps: list[tuple[float, float]], jobs: list[tuple[int, int, str]], lo: int, hi: int,
        seed: int) -> None:
    hi = max(hi, lo, 1)
    stack, trace, workload = _stack(lo, hi), _trace(steps), _workload(jobs)
    service, held, batch = _run(stack, trace, workload, seed, spot=1.0)
    assert held.most_replicas <= hi
    assert held.most_tenant <= 10  # tenant recsys's limit: {gpus: 10}
    offered = trace.arrivals(0, trace.end)
    counted = (service["served_in_slo"] + service["served_late"] + service["given_up"]
               + service["waiting_at_end"])
    assert abs(service["requests"] - offered) < 1e-3
    assert abs(counted - offered) < 1e-2
    again, _, batch_again = _run(stack, trace, workload, seed, spot=1.0)
    assert json.dumps(again, sort_keys=True) == json.dumps(service, sort_keys=True)
    assert batch_again == batch
