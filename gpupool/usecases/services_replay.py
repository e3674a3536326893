"""``gpupool simulate --requests``: read the services' request traces and replay them alone.

This module owns the standalone replay's use case (docs/services-simulation.md): the traces
``--requests`` names are read (``gpupool.simulate.requests``), checked against the stack's
services (a name it does not declare is an error, placed on the trace's line), and each traced
service is replayed through KEDA, the HPA and its queue with unlimited capacity
(``gpupool.simulate.services.replay``). The simulator's loop, where replicas wait for slots and
nodes beside the batch jobs, is not used here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpupool.errors import InputError
from gpupool.model import Stack
from gpupool.simulate.requests import check_requests, read_requests
from gpupool.simulate.services.replay import replay
from gpupool.spec.diagnostics import Diagnostic


@dataclass(frozen=True)
class ServicesReplay:
    """The traces' problems against the stack and, when none is an error, each report."""

    problems: list[Diagnostic]
    services: list[dict[str, Any]]


def replay_services(stack: Stack, values: list[str]) -> ServicesReplay:
    """Read the ``--requests`` values, check them against ``stack``, and replay the services.

    Raises:
        WorkloadError: a trace has bad rows (all of them, each at its line).
        InputError: a trace cannot be read, a service has two, or a traced service has no
            ``capacityPerReplica``.

    """
    traces = read_requests(values)
    problems = check_requests([s.name for s in stack.services], traces)
    if problems:
        return ServicesReplay(problems, [])
    for s in stack.services:
        if s.name in traces and s.capacity_per_replica is None:
            raise InputError(f"service {s.name!r} has no capacityPerReplica: the replay needs "
                             "the requests per second one replica serves (docs/stack-file.md, "
                             "services)")
    return ServicesReplay([], replay(stack, traces))
