"""``gpupool simulate``'s services: find and read their request traces, check them on the stack.

This module owns where the services' demand comes from: ``--requests`` (each ``FILE`` a rate
series, each ``SERVICE=FILE`` a request log; docs/workload.md, Request traces), else the stack
file's ``simulation.requests`` entries, which are relative to the stack file's folder and must
stay inside it once links are followed (as ``simulation.workload``: a stack file can come from a
pull request, and a trace's problems are printed with the cells they found). Reading refuses
what is no regular file (a FIFO, a device) and what is too big (``gpupool.files``' bounded
reads, the workload's limits). Each trace must name a service the stack declares (an error at
its line), and a traced service must state ``capacityPerReplica``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gpupool.errors import InputError
from gpupool.model import Stack
from gpupool.simulate.requests import Trace, check_requests, read_requests, split_option
from gpupool.spec.diagnostics import Diagnostic


@dataclass(frozen=True)
class Traces:
    """The services' traces, and their problems against the stack (errors: nothing runs)."""

    traces: dict[str, Trace]
    problems: list[Diagnostic]


def stated(stack_file: Path, stack: Stack) -> list[str]:
    """Return the stack's ``simulation.requests`` entries as paths beside the stack file.

    Raises:
        InputError: an entry leads outside the stack file's folder (through a link).

    """
    sim = stack.simulation
    if sim is None or not sim.requests:
        return []
    folder = stack_file.parent
    inside = folder.resolve()
    out = []
    for value in sim.requests:
        service, path = split_option(value)
        where = folder / path
        if not where.resolve().is_relative_to(inside):
            raise InputError(f"{stack_file}: simulation.requests {value!r} leads outside the "
                             "stack file's folder (through a link); put the trace beside the "
                             "stack file")
        if not where.exists():
            raise InputError(f"{stack_file}: simulation.requests names {where}, which does "
                             "not exist; fix the path, or give --requests FILE")
        out.append(f"{service}={where}" if service else str(where))
    return out


def traces(stack_file: Path, stack: Stack, given: list[str] | None) -> Traces | None:
    """Read the traces ``--requests`` gives, else those the stack names; None: neither does.

    Raises:
        WorkloadError: a trace has bad rows (all of them, each at its line).
        InputError: a trace cannot be read or leads outside the folder, a service has two, or
            a traced service has no ``capacityPerReplica``.

    """
    values = given if given else stated(stack_file, stack)
    if not values:
        return None
    found = read_requests(values)
    problems = check_requests([s.name for s in stack.services], found)
    if not problems:
        for s in stack.services:
            if s.name in found and s.capacity_per_replica is None:
                raise InputError(
                    f"service {s.name!r} has no capacityPerReplica: the simulation needs the "
                    "requests per second one replica serves (docs/stack-file.md, services)")
    return Traces(found, problems)
