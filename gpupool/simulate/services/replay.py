"""The standalone replay of services: each service's trace through its autoscaler, on its own.

This module owns ``replay``: every service given a trace runs as a ``ServiceRun`` on one clock,
with unlimited capacity (a replica is ready ``startupSeconds`` after it is asked for: no slot,
node or device plugin waits), until its trace ends. It is the services' model without the
cluster (docs/services-simulation.md, What the model does not capture); the simulator's loop
drives the same ``ServiceRun`` objects (``actor``), answering when each pod is ready.

A replica's GPUs are its request's (``gpus``, ``fraction``, or a MIG profile's share of its GPU);
their price is the pool's first node's hourly price over its GPUs (the figures the plan and the
simulator's cost read, ``gpupool.simulate.cluster``).
"""

from __future__ import annotations

import math
from typing import Any

from gpupool.model import Stack
from gpupool.service_model import Service
from gpupool.simulate.cluster import pool_model
from gpupool.simulate.requests import Trace
from gpupool.simulate.services.run import ServiceRun


def gpus_per_replica(stack: Stack, service: Service) -> float:
    """Whole-GPU equivalents one replica of ``service`` holds (1 where the pool is unknown)."""
    r = service.request
    if r.gpus is not None:
        return float(r.gpus)
    if r.fraction is not None:
        return float(r.fraction)
    pool = stack.pool(service.pool)
    if r.mig is not None and pool is not None:
        shares = pool_model(stack, pool).unit_share
        for resource, share in sorted(shares.items()):
            if resource.endswith(r.mig):
                return share
    return 1.0


def gpu_hourly(stack: Stack, service: Service) -> float | None:
    """Return the price of one GPU an hour on the service's pool (None: no price known)."""
    pool = stack.pool(service.pool)
    if pool is None:
        return None
    model = pool_model(stack, pool)
    if not model.groups or not model.gpu_equivalents_per_node:
        return None
    price = model.groups[0].node_price(0)
    return None if price is None else price / model.gpu_equivalents_per_node


def currency(stack: Stack, service: Service) -> str | None:
    """Return the currency of the service's pool's prices (None: the pool is unknown)."""
    pool = stack.pool(service.pool)
    return None if pool is None else pool_model(stack, pool).currency


def replay(stack: Stack, traces: dict[str, Trace], *, step_seconds: float = 1.0,
           until: float | None = None) -> list[dict[str, Any]]:
    """Replay each traced service of ``stack`` alone; return their reports in the stack's order.

    Args:
        stack: the validated stack.
        traces: service name -> its trace (names the stack does not declare are left out:
            ``requests.check_requests`` reports them).
        step_seconds: the clock's step.
        until: the end of the replay in seconds (default: the latest trace's end, a step on).

    Raises:
        ValueError: a traced service has no ``capacityPerReplica``.

    """
    runs = [
        ServiceRun(s, traces[s.name], gpus_per_replica=gpus_per_replica(stack, s),
                   gpu_hourly=gpu_hourly(stack, s), step_seconds=step_seconds)
        for s in stack.services if s.name in traces
    ]
    if until is None:
        last = max((r.trace.end for r in runs), default=0.0)
        until = (math.floor(last / step_seconds) + 1) * step_seconds
    out = []
    for run in runs:
        run.advance(until)
        out.append({**run.report(), "currency": currency(stack, run.service)})
    return out
