"""One service on the simulated clock: its trace, queue, KEDA, HPA and replicas, and its counters.

This module owns ``ServiceRun``, one object per service that a driver advances with
``advance(t)``: every step (1 s) the trace's requests arrive and the ready replicas serve them
(``queue.RequestQueue``); every 30 s KEDA polls (``keda.Keda``: 0 <-> 1, cooldown), every 15 s
the HPA syncs (``hpa.Hpa``) on the service's triggers read from the queue. The replicas are a
``Replicas`` object: in the standalone replay (``replay``) ``Pods``, where a pod is ready its
creation plus ``startupSeconds`` (unlimited capacity, or the ``starts`` callable's answer); in
the simulator's loop ``actor.PodReplicas``, where each pod waits for a slot and a node beside
the batch jobs. A scale-down removes pods not yet ready first, then the newest, as a
ReplicaSet does.

The counters are what the report's ``services[]`` carries (docs/services-simulation.md): the
requests offered and served within the objective, minutes short of capacity, replicas over
time (and ready at the peak of demand), cold starts from zero and their delay, scale-ups the
cluster blocked, GPU-hours, cost and a timeline by the minute.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable
from typing import Any, Protocol

from gpupool.service_model import Service
from gpupool.simulate.requests import Trace
from gpupool.simulate.services.hpa import SYNC_SECONDS, Hpa, Metric, Rules
from gpupool.simulate.services.keda import Keda
from gpupool.simulate.services.queue import DEFAULT_SLO_SECONDS, RequestQueue

TIMELINE_SECONDS = 60.0


class Replicas(Protocol):
    """A service's pods as its controllers see them: how many exist, how many are ready."""

    def count(self) -> int:
        """Return the pods that exist (the Deployment's ``spec.replicas``, once acted on)."""

    def ready(self, now: float) -> int:
        """Return the pods ready at ``now`` (``now`` no later than the driver's clock)."""

    def scale(self, now: float, replicas: int) -> None:
        """Create or delete pods at ``now`` so that ``replicas`` exist."""

    def pod_seconds(self) -> float | None:
        """Seconds of pods holding a slot so far (None: every existing pod counts)."""

    def cost(self) -> float | None:
        """Return what the held slots cost at their nodes' prices (None: priced per GPU-hour)."""

    def blocked(self) -> dict[str, int]:
        """Scale-ups the cluster held back, by cause (none where capacity is unlimited)."""


class Pods:
    """The standalone replay's pods: each ready ``starts(now)`` after it is created."""

    def __init__(self, initial: int, starts: Callable[[float], float]) -> None:
        self.starts = starts
        self.times: list[float] = [0.0] * initial  # each pod's ready time, sorted

    def count(self) -> int:
        """Return the pods that exist."""
        return len(self.times)

    def ready(self, now: float) -> int:
        """Return the pods ready at ``now``."""
        return bisect.bisect_right(self.times, now)

    def scale(self, now: float, replicas: int) -> None:
        """Start new pods; remove the surplus, not ready first, then the latest ready."""
        for _ in range(replicas - len(self.times)):
            bisect.insort(self.times, self.starts(now))
        del self.times[max(replicas, 0):]

    def pod_seconds(self) -> float | None:
        """Every existing pod counts (no slot to wait for)."""
        return None

    def cost(self) -> float | None:
        """Return None: the replay prices GPU-hours at the pool's first node's price."""
        return None

    def blocked(self) -> dict[str, int]:
        """Return no cause: nothing blocks a pod here."""
        return {}


class ServiceRun:
    """One service's state on the clock; ``advance`` moves it, ``report`` reads its counters."""

    def __init__(self, service: Service, trace: Trace, *, gpus_per_replica: float,
                 gpu_hourly: float | None, starts: Callable[[float], float] | None = None,
                 step_seconds: float = 1.0, replicas: Replicas | None = None) -> None:
        if service.capacity_per_replica is None:
            raise ValueError(f"service {service.name} has no capacityPerReplica")
        self.service = service
        self.trace = trace
        self.dt = step_seconds
        slo = service.slo.queue_seconds if service.slo and service.slo.queue_seconds else None
        self.queue = RequestQueue(float(service.capacity_per_replica),
                                  DEFAULT_SLO_SECONDS if slo is None else slo, step_seconds)
        self.keda = Keda(service.replicas_min, service.replicas_max, service.cooldown_seconds)
        self.hpa = Hpa(self.keda.hpa_min, service.replicas_max, Rules.of(service.scale_up),
                       Rules.of(service.scale_down))
        self.pods: Replicas = replicas or Pods(
            service.replicas_min, starts or (lambda now: now + service.startup_seconds))
        self.gpus_per_replica = gpus_per_replica
        self.gpu_hourly = gpu_hourly
        self.t = 0.0
        self.next_poll = 0.0
        self.next_sync = 0.0
        self.next_sample = 0.0
        self.requests = self.in_slo = self.late = self.dropped = 0.0
        self.short_seconds = self.pod_seconds = 0.0
        self.replicas_low = self.replicas_high = service.replicas_min
        self.cold_starts: list[float] = []  # when each start from zero was asked
        self.cold_delays: list[float] = []
        self.timeline: list[dict[str, Any]] = []
        self.peak_arrived = -1.0
        self.ready_at_peak = 0

    # -- the replicas -------------------------------------------------------------------------

    def ready(self, now: float) -> int:
        """Return the pods ready at ``now``."""
        return self.pods.ready(now)

    def set_replicas(self, now: float, replicas: int) -> None:
        """Ask for ``replicas`` pods at ``now``: new ones start, the surplus is removed."""
        replicas = max(0, min(replicas, self.service.replicas_max))
        if replicas > self.pods.count() and not self.pods.count():
            self.cold_starts.append(now)
        self.pods.scale(now, replicas)
        self.replicas_low = min(self.replicas_low, replicas)
        self.replicas_high = max(self.replicas_high, replicas)

    def _control(self, now: float) -> None:
        values: list[float] | None = None  # what the triggers read now, for KEDA and the HPA
        if now >= self.next_poll:
            values = [self.queue.trigger_value(t.metric) for t in self.service.triggers]
            poll = self.keda.poll(now, self.pods.count(), values)
            if poll.replicas is not None:
                self.set_replicas(now, poll.replicas)
            self.next_poll = now + self.keda.polling_seconds
        if now >= self.next_sync:
            if values is None:
                values = [self.queue.trigger_value(t.metric) for t in self.service.triggers]
            metrics = [Metric(v, t.target) for v, t in zip(values, self.service.triggers,
                                                            strict=True)]
            spec = self.pods.count()
            decision = self.hpa.sync(now, spec, spec, self.ready(now), metrics)
            if decision.desired != spec:
                self.set_replicas(now, decision.desired)
            self.next_sync = now + SYNC_SECONDS

    # -- the clock ----------------------------------------------------------------------------

    def advance(self, until: float) -> None:
        """Step the service from its time to ``until`` (a whole number of steps)."""
        while self.t + self.dt <= until + 1e-9:
            self.step()

    def control(self, now: float) -> None:
        """Run the controllers due at ``now`` (a driver that steps to ``now`` first)."""
        self._control(now)

    @property
    def next_control(self) -> float:
        """The next instant a controller acts (KEDA's poll or the HPA's sync)."""
        return min(self.next_poll, self.next_sync)

    def step(self) -> None:
        """One step: the controllers at its start, then the step's arrivals and service."""
        now = self.t
        self._control(now)
        ready = self.ready(now)
        if self.cold_starts and len(self.cold_delays) < len(self.cold_starts) and ready:
            self.cold_delays.append(now - self.cold_starts[-1])
        arrived = self.trace.arrivals(now, now + self.dt)
        served = self.queue.step(now, arrived, ready)
        self.requests += arrived
        self.in_slo += served.in_slo
        self.late += served.late
        self.dropped += served.dropped
        capacity = ready * self.queue.capacity
        if arrived / self.dt > capacity + 1e-9:
            self.short_seconds += self.dt
        if arrived > self.peak_arrived:
            self.peak_arrived, self.ready_at_peak = arrived, ready
        self.pod_seconds += self.pods.count() * self.dt
        if now >= self.next_sample:
            span = TIMELINE_SECONDS
            self.timeline.append({
                "seconds": round(now, 3),
                "demand_rps": round(self.trace.arrivals(now, now + span) / span, 3),
                "ready_replicas": ready,
                "desired_replicas": self.pods.count(),
            })
            self.next_sample = now + TIMELINE_SECONDS
        self.t = now + self.dt

    # -- the counters -------------------------------------------------------------------------

    def report(self) -> dict[str, Any]:
        """Return the service's counters (the report's ``services[]`` entry)."""
        s = self.service
        pending = self.queue.pending
        held = self.pods.pod_seconds()
        gpu_hours = (self.pod_seconds if held is None else held) * self.gpus_per_replica / 3600
        cost = self.pods.cost() if held is not None else (
            None if self.gpu_hourly is None else gpu_hours * self.gpu_hourly)
        per_million = (None if cost is None or self.in_slo <= 0
                       else cost / self.in_slo * 1_000_000)
        return {
            "service": s.name,
            "requests": _r(self.requests),
            "served_in_slo": _r(self.in_slo),
            "served_late": _r(self.late),
            "given_up": _r(self.dropped),
            "waiting_at_end": _r(pending),
            "not_served_share": _r(1 - self.in_slo / self.requests) if self.requests else 0.0,
            "minutes_short": _r(self.short_seconds / 60),
            "replicas": {
                "min": self.replicas_low,
                "mean": _r(self.pod_seconds / self.t) if self.t else float(self.pods.count()),
                "max": self.replicas_high,
                "at_peak": self.ready_at_peak,
            },
            "blocked_scale_ups": self.pods.blocked(),
            "cold_starts": len(self.cold_starts),
            "cold_start_delay_seconds": {
                "mean": _r(sum(self.cold_delays) / len(self.cold_delays))
                if self.cold_delays else None,
                "max": _r(max(self.cold_delays)) if self.cold_delays else None,
            },
            "gpu_hours": _r(gpu_hours),
            "cost": None if cost is None else _r(cost),
            "cost_per_million": None if per_million is None else _r(per_million),
            "timeline": self.timeline,
        }


def _r(value: float) -> float:
    """Round a counter as the report shows it (3 decimals; -0.0 as 0.0)."""
    out = round(value, 3)
    return 0.0 if out == 0 or not math.isfinite(out) else out
