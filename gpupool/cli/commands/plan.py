"""``gpupool plan``: the offline plan (changes, capacity, cost), with the simulated section."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from gpupool.cli import options, steps
from gpupool.cli.console import Console
from gpupool.cli.exits import EXIT_CHANGES, EXIT_OK

if TYPE_CHECKING:
    from collections.abc import Mapping

    from gpupool.model import Stack
    from gpupool.plan import PlanResult
    from gpupool.simulate.requests import Trace
    from gpupool.usecases.simulate import PreparedWorkload

DESCRIPTION = """\
What would this stack change, and what would its pools hold and cost? Compares the stack with
its last applied state (or --base) offline, without the engine or the cloud; with a simulation
block, --workload or --requests it also shows who waits and how the services are served."""

EXAMPLES = """\
examples:
  gpupool plan prod.yaml
  gpupool plan prod.yaml --base main --format markdown   # the pull-request comment
  gpupool plan prod.yaml --summary
  gpupool plan prod.yaml --detailed-exitcode             # exit 2 when anything changes"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the stack file, its base, the workload to replay, the exit code and the format."""
    options.stack_file(p)
    options.base(p, "compare with another stack file, or this file at a git ref "
                 "(default: the last applied graph, else empty)")
    p.add_argument(
        "--force-base",
        action="store_true",
        help="accept a --base whose metadata.name is another stack's",
    )
    options.workload(p, "also replay this workload on the stack (and on a --base file or git "
                     "ref) and add the simulated section (gpupool simulate); default: the "
                     "stack's simulation.workload")
    options.requests(p, "also run the services on their request traces, beside the workload "
                     "(or alone), in the simulated section")
    p.add_argument("--no-simulation", action="store_true",
                   help="leave out the simulated section the stack's simulation block asks for")
    p.add_argument("--summary", action="store_true",
                   help="print only the summary: counts of changes, cost and its change, "
                   "warnings (no simulation is run)")
    options.detailed_exitcode(p)
    options.fmt(p, "markdown")


def run(args: argparse.Namespace, console: Console) -> int:
    """Plan the stack against its base; add the simulated section where a workload is named."""
    from gpupool.usecases import plan
    from gpupool.usecases.base import InvalidBaseError
    from gpupool.views import validate as validate_view

    checked = steps.checked(args, console)
    stack = checked.stack
    assert stack is not None  # checked raises for an invalid file
    try:
        result = plan.plan(Path(args.file), stack, args.base, force_base=args.force_base,
                           diagnostics=tuple(checked.diagnostics), shown_as=args.file,
                           acknowledged=checked.acknowledged)
    except InvalidBaseError as exc:
        console.err(validate_view.render([steps.visible(args, exc.result)], "text").notes)
        raise
    prepared, traces = None, None
    if not (args.no_simulation or args.summary):
        traces = steps.traces(args, console, stack)
        prepared = _workload(args, console, stack, traces)
    if prepared is None:
        steps.show_plan(args.format, console, result, summary=args.summary)
    else:
        _show_with_simulation(args, console, stack, result, prepared, traces)
    return EXIT_CHANGES if args.detailed_exitcode and result.has_changes else EXIT_OK


def _workload(args: argparse.Namespace, console: Console, stack: Stack,
              traces: Mapping[str, Trace] | None) -> PreparedWorkload | None:
    """Return the workload the simulated section replays; no jobs where only traces are named.

    None: neither a workload nor a trace is named, and the plan has no simulated section.
    """
    from gpupool.usecases import simulate as usecase

    prepared = steps.workload(args, console, stack,
                              instead=", or leave the section out with --no-simulation")
    if prepared is None and traces is not None:
        return usecase.services_only(stack, flags=options.simulation_flags(args))
    return prepared


def _show_with_simulation(args: argparse.Namespace, console: Console, stack: Stack,
                          result: PlanResult, prepared: PreparedWorkload,
                          traces: Mapping[str, Trace] | None) -> None:
    """Write the plan, then the simulated section (``--workload``, ``--requests``, ``simulation``).

    Base and head where the plan's base is a stack file or a git ref; the head alone against
    the applied record. The base replays the head's workload and traces (its own
    ``simulation`` block is not read), so the two columns differ only by the stacks; the
    services run beside the jobs as ``gpupool simulate`` runs them.
    """
    from gpupool.usecases import plan as plan_usecase
    from gpupool.usecases import simulate as usecase
    from gpupool.views import plan as plan_view
    from gpupool.views import simulate as view

    sim = usecase.simulate(Path(args.file), stack, prepared.workload, base=args.base,
                           settings=prepared.settings, traces=traces)
    result = plan_usecase.with_simulated_downtime(stack, result, sim.head)
    planned = plan_view.render(result, args.format)
    capacities = {s.name: s.capacity_per_replica for s in stack.services}
    out = view.with_plan(planned.result, args.format, sim.head, sim.base,
                         services=sim.services, base_services=sim.base_services,
                         capacities=capacities)
    console.err(planned.notes)
    console.out(out, plan=args.format == "text")
    sys.stdout.flush()
