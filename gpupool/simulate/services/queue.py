"""One service's request queue: arrivals from its trace, served by its ready replicas, FIFO.

This module owns the queue model of ``gpupool simulate``'s services (docs/services-simulation.md):
requests arrive as the trace says; each ready replica serves ``capacityPerReplica`` requests a
second; one first-in first-out queue holds the rest. Time moves in steps (1 s by default): the
requests of a step arrive at its start, and a step's capacity serves the oldest first. A request
is served in time when it waits at most ``slo.queueSeconds`` (1 s when unset), in whole steps.
Requests are fluid (a rate series gives fractions of one).

From the last minute of steps it gives what the service's triggers read
(``trigger_value``): the offered requests per second, the requests waiting, Triton's queue
time over compute time, the GPU utilisation (load served over ready capacity, percent) and the
GPU memory of pre-allocating servers (always full: 100 per ready replica).
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
#: How far back the triggers look, as ``rate(...[1m])`` does.
WINDOW_SECONDS = 60.0


@dataclass(frozen=True)
class Served:
    """What one step did: requests offered, served in time, served late, and waiting after."""

    arrived: float
    in_slo: float
    late: float
    pending: float


class RequestQueue:
    """One service's FIFO queue of fluid requests, stepped by the caller.

    ``fresh`` holds the requests still able to be served in time, by arrival step; ``late``
    those that have waited past the objective (served first, never counted in time).
    """

    def __init__(self, capacity_per_replica: float, slo_seconds: float = DEFAULT_SLO_SECONDS,
                 step_seconds: float = 1.0) -> None:
        self.capacity = capacity_per_replica
        self.slo = slo_seconds
        self.dt = step_seconds
        self.fresh: deque[list[float]] = deque()  # [arrival time, requests]
        self.late = 0.0
        self.late_arrival_sum = 0.0  # sum of arrival time x requests over ``late``
        window = max(1, round(WINDOW_SECONDS / step_seconds))
        self.recent: deque[tuple[float, float, float, float]] = deque(maxlen=window)
        self.ready = 0

    @property
    def pending(self) -> float:
        """The requests waiting."""
        return self.late + sum(c for _, c in self.fresh)

    def step(self, t: float, arrived: float, ready: int) -> Served:
        """Advance over ``[t, t + dt)``: ``arrived`` requests come, ``ready`` replicas serve."""
        self.ready = ready
        while self.fresh and t - self.fresh[0][0] > self.slo:
            a, c = self.fresh.popleft()
            self.late += c
            self.late_arrival_sum += a * c
        if arrived > 0:
            self.fresh.append([t, arrived])
        room = ready * self.capacity * self.dt
        capacity = room
        waited = 0.0
        late = min(self.late, room)
        if late > 0:
            mean_arrival = self.late_arrival_sum / self.late
            waited += late * (t - mean_arrival)
            self.late_arrival_sum -= mean_arrival * late
            self.late -= late
            if self.late <= 1e-12:
                self.late, self.late_arrival_sum = 0.0, 0.0
            room -= late
        in_slo = 0.0
        while self.fresh and room > 0:
            cohort = self.fresh[0]
            take = min(cohort[1], room)
            waited += take * (t - cohort[0])
            in_slo += take
            room -= take
            cohort[1] -= take
            if cohort[1] <= 1e-12:
                self.fresh.popleft()
        self.recent.append((arrived, in_slo + late, waited, capacity))
        return Served(arrived, in_slo, late, self.pending)

    def trigger_value(self, metric: str) -> float:
        """Return the total over the service's pods a trigger of ``metric`` reads now."""
        span = len(self.recent) * self.dt
        if metric == REQUESTS_PER_SECOND:
            return sum(r[0] for r in self.recent) / span if span else 0.0
        if metric == PENDING_REQUESTS:
            return self.pending
        served = sum(r[1] for r in self.recent)
        if metric == QUEUE_TIME_RATIO:
            if not served or not self.capacity:
                return 0.0
            # per pod: time in queue over compute time (1 / capacity a request); every ready pod
            # shares the queue, so each shows the same ratio and the sum is it times the pods
            ratio = sum(r[2] for r in self.recent) / (served / self.capacity)
            return ratio * self.ready
        if metric == GPU_UTILIZATION:
            capacity = sum(r[3] for r in self.recent)
            return 100.0 * served / capacity * self.ready if capacity else 0.0
        if metric == GPU_MEMORY:
            return 100.0 * self.ready
        raise ValueError(f"unknown metric {metric!r}")
