"""One service's request queue: arrivals from its trace, served by its ready replicas, FIFO.

This module owns the queue model of ``gpupool simulate``'s services (docs/services-simulation.md):
requests arrive as the trace says; each ready replica serves ``capacityPerReplica`` requests a
second; one first-in first-out queue holds the rest. Time moves in steps (1 s by default): the
requests of a step arrive at its start, and a step's capacity serves the oldest first. A request
is served in time when it waits at most ``slo.queueSeconds`` (1 s when unset), in whole steps;
one waiting more than ``TIMEOUT_SECONDS`` (60 s) is given up by its client and leaves unserved.
Requests are fluid (a rate series gives fractions of one).

From the last minute of steps it gives what the service's triggers read
(``trigger_value``): the offered requests per second, the requests waiting, Triton's queue
time over compute time, the GPU utilisation (load served over ready capacity, percent) and the
GPU memory of pre-allocating servers (always full: 100 per ready replica).

A request served in its arrival step waits 0 s in the fluid queue, but Triton's
``nv_inference_queue_duration_us`` adds each request's time from enqueue to dequeue in
microseconds (triton-inference-server/server ``docs/user_guide/metrics.md``, r24.04, the
per-request latencies), never exactly 0 once a request went through. The queue-time ratio
counts each served request as waiting at least ``MIN_QUEUE_SECONDS`` (1 µs), so while requests
are served it reads above KEDA's activation threshold of 0, as Triton's counter does, and only
the pending-requests gauge (``vllm:num_requests_waiting``) reads 0 under steady traffic.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from gpupool.service_model import (
    GPU_MEMORY,
    GPU_UTILIZATION,
    PENDING_REQUESTS,
    QUEUE_TIME_RATIO,
    REQUESTS_PER_SECOND,
)

DEFAULT_SLO_SECONDS = 1.0
#: How long a client waits before it gives up: requests waiting longer leave the queue unserved.
TIMEOUT_SECONDS = 60.0
#: How far back the triggers look, as ``rate(...[1m])`` does.
WINDOW_SECONDS = 60.0
#: The least time a served request spends in Triton's queue, as its counter records it (1 µs).
MIN_QUEUE_SECONDS = 1e-6


@dataclass(frozen=True)
class Served:
    """What one step did: requests offered, served in time, served late, given up, waiting."""

    arrived: float
    in_slo: float
    late: float
    dropped: float
    pending: float


class RequestQueue:
    """One service's FIFO queue of fluid requests, stepped by the caller.

    ``waiting`` holds the requests by arrival step, oldest first. A request waiting more than
    ``slo`` is late (still served, never counted in time); one waiting more than ``timeout`` has
    been given up by its client and leaves unserved, so a backlog cannot grow without bound.
    """

    def __init__(self, capacity_per_replica: float, slo_seconds: float = DEFAULT_SLO_SECONDS,
                 step_seconds: float = 1.0, timeout_seconds: float = TIMEOUT_SECONDS) -> None:
        self.capacity = capacity_per_replica
        self.slo = slo_seconds
        self.timeout = max(timeout_seconds, slo_seconds)
        self.dt = step_seconds
        self.waiting: deque[list[float]] = deque()  # [arrival time, requests]
        window = max(1, round(WINDOW_SECONDS / step_seconds))
        self.recent: deque[tuple[float, float, float, float]] = deque(maxlen=window)
        self.ready = 0

    @property
    def pending(self) -> float:
        """The requests waiting."""
        return sum(c for _, c in self.waiting)

    def step(self, t: float, arrived: float, ready: int) -> Served:
        """Advance over ``[t, t + dt)``: ``arrived`` requests come, ``ready`` replicas serve."""
        self.ready = ready
        dropped = 0.0
        while self.waiting and t - self.waiting[0][0] > self.timeout:
            dropped += self.waiting.popleft()[1]
        if arrived > 0:
            self.waiting.append([t, arrived])
        capacity = ready * self.capacity * self.dt
        room = capacity
        waited = in_slo = late = 0.0
        while self.waiting and room > 0:
            cohort = self.waiting[0]
            take = min(cohort[1], room)
            wait = t - cohort[0]
            waited += take * max(wait, MIN_QUEUE_SECONDS)
            if wait <= self.slo:
                in_slo += take
            else:
                late += take
            room -= take
            cohort[1] -= take
            if cohort[1] <= 1e-12:
                self.waiting.popleft()
        self.recent.append((arrived, in_slo + late, waited, capacity))
        return Served(arrived, in_slo, late, dropped, self.pending)

    def trigger_value(self, metric: str) -> float:
        """Return the total over the service's pods a trigger of ``metric`` reads now."""
        span = len(self.recent) * self.dt
        if metric == REQUESTS_PER_SECOND:
            return sum(r[0] for r in self.recent) / span if span else 0.0
        if metric == PENDING_REQUESTS:
            return self.pending
        served = sum(r[1] for r in self.recent)
        if metric == QUEUE_TIME_RATIO:
            compute = served / self.capacity if self.capacity else 0.0
            if compute <= 0:  # nothing served, or so little that the quotient underflows
                return 0.0
            # per pod: time in queue over compute time (1 / capacity a request); every ready pod
            # shares the queue, so each shows the same ratio and the sum is it times the pods
            return sum(r[2] for r in self.recent) / compute * self.ready
        if metric == GPU_UTILIZATION:
            capacity = sum(r[3] for r in self.recent)
            return 100.0 * served / capacity * self.ready if capacity else 0.0
        if metric == GPU_MEMORY:
            return 100.0 * self.ready
        raise ValueError(f"unknown metric {metric!r}")
