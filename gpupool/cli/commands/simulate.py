"""``gpupool simulate``: replay a workload on the stack's pools and report who waits."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from gpupool.cli import options, steps, types
from gpupool.cli.console import Console
from gpupool.cli.exits import EXIT_OK, UsageError

if TYPE_CHECKING:
    from collections.abc import Mapping

    from gpupool.model import Stack
    from gpupool.simulate.requests import Trace
    from gpupool.usecases.simulate import PreparedWorkload
    from gpupool.views import Output

DESCRIPTION = """\
Who would wait, and how long, on these pools? Replays a workload of jobs on the stack's pools
on a simulated clock, under its scheduler, tenancy and autoscaling, and reports waits,
allocation and cost per tenant and pool (with --base, each figure's change)."""

EXAMPLES = """\
examples:
  gpupool simulate prod.yaml --workload jobs.csv
  gpupool simulate prod.yaml --generate         # 200 jobs made up for the stack
  gpupool simulate prod.yaml --base main        # the stack at git ref main, too
  gpupool simulate prod.yaml --jobs jobs.jsonl  # a record per job: where, when, why it waited
  gpupool simulate prod.yaml --explain train-7  # one job's story in words
  gpupool simulate prod.yaml --saturate 100     # capacity mode
  gpupool simulate prod.yaml --requests rates.csv  # the services on their traces
  gpupool simulate prod.yaml --workload jobs.csv --requests rates.csv --base main"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the stack file, the workload, the knobs, the base, capacity mode, the format."""
    options.stack_file(p)
    options.workload(p, "the jobs to replay: CSV or JSON Lines (docs/workload.md); default: the "
                     "stack's simulation.workload")
    p.add_argument("--generate", type=types.jobs, nargs="?", const=200, default=None,
                   metavar="JOBS", help="replay JOBS jobs (default 200) made up for the stack "
                   "instead of a file: its tenants on their pools, shapes its GPUs hold, a day "
                   "of arrivals; seeded by --seed")
    options.knob(p, "seed")
    options.base(p, "replay the workload on another stack file, or this file at a git ref, too, "
                 "and show each figure's change")
    options.knob(p, "spot_interruptions_per_hour")
    options.knob(p, "spot_shortage")
    p.add_argument("--saturate", type=types.percent, default=None, metavar="PERCENT",
                   help="capacity mode: draw pods from the workload until their GPU requests "
                   "reach PERCENT of the pools' GPUs, none leaving, and show the allocated "
                   "share as they arrive (the FGD paper's method)")
    options.knob(p, "scale_up_seconds")
    options.requests(p, "run the services on their request traces beside the workload (or "
                     "alone), on the same pools")
    records = p.add_argument_group("per-job records")
    records.add_argument("--jobs", metavar="FILE", default=None,
                         help="write a record per job (per pod where a gang's pods ran on "
                         "different nodes) to FILE as JSON Lines: tenant, pool, node, "
                         "submitted, started, finished, the wait and its reasons in seconds "
                         "(docs/commands.md, simulate); with --format json, the document "
                         "gains a jobs summary per reason")
    records.add_argument("--explain", metavar="JOB", default=None,
                         help="tell the story of the job named JOB in words instead of the "
                         "report: when it was submitted, what it waited for and who held "
                         "it, where it started, what evicted it, when it finished")
    options.fmt(p, "markdown")


def run(args: argparse.Namespace, console: Console) -> int:
    """Replay the workload (or fill the pools, ``--saturate``) and write the report."""
    from gpupool.usecases import simulate as usecase
    from gpupool.usecases.base import InvalidBaseError
    from gpupool.views import simulate as view
    from gpupool.views import validate as validate_view

    stack = steps.stack(args, console)
    traces = steps.traces(args, console, stack)
    if traces is not None and args.saturate is not None:
        raise UsageError("gpupool simulate: --saturate fills the pools with pods that never "
                         "leave; it runs no services (drop --requests)")
    if traces is not None and args.workload is None and args.generate is None and (
            stack.simulation is None):
        prepared = usecase.services_only(stack, flags=options.simulation_flags(args))
    else:
        prepared = _workload(args, console, stack)
    if args.saturate is not None and (args.jobs or args.explain):
        raise UsageError("gpupool simulate: --jobs and --explain follow a replay; not with "
                         "--saturate")
    if args.explain is not None:
        return _explain(args, console, stack, prepared, traces)

    def progress(name: str, done: int, total: int) -> None:
        console.err(f"simulating {name}: {done} of {total} jobs submitted\n")

    clock = _SimulatedClock(console)

    try:
        if args.saturate is not None:
            cap = usecase.capacity(Path(args.file), stack, prepared.workload, base=args.base,
                                   percent=args.saturate, seed=prepared.settings.seed)
            out = view.render_capacity(cap.stack, cap.workload, cap.seed, cap.head, args.format,
                                       cap.base, cap.base_stack)
        elif args.jobs is not None:
            out = _with_records(args, stack, prepared, progress, clock, traces)
        else:
            result = usecase.simulate(Path(args.file), stack, prepared.workload, base=args.base,
                                      settings=prepared.settings, progress=progress,
                                      clock=clock, traces=traces)
            capacities = {s.name: s.capacity_per_replica for s in stack.services}
            out = view.render(result.head, args.format, result.base, result.services,
                              result.base_services, capacities)
    except InvalidBaseError as exc:
        console.err(validate_view.render([steps.visible(args, exc.result)], "text").notes)
        raise
    console.err(out.notes)
    console.out(out.result)
    return EXIT_OK


def _with_records(args: argparse.Namespace, stack: Stack, prepared: PreparedWorkload,
                  progress: Callable[[str, int, int], None],
                  clock: Callable[[str, float], None],
                  traces: Mapping[str, Trace] | None) -> Output:
    """Replay with a record per job streamed to ``--jobs`` FILE; the report as without it.

    Raises:
        InputError: FILE is a link, a folder or cannot be written (before the run).

    """
    from gpupool.simulate.records import JobRecords
    from gpupool.usecases import simulate as usecase
    from gpupool.usecases.job_records import RecordsFile
    from gpupool.views import simulate as view

    with RecordsFile(Path(args.jobs)) as sink:
        records = JobRecords(sink.write)
        result = usecase.simulate(Path(args.file), stack, prepared.workload, base=args.base,
                                  settings=prepared.settings, progress=progress, clock=clock,
                                  traces=traces, observers=[records])
    jobs = {"file": args.jobs, "records": sink.count, "reasons": records.summary()}
    capacities = {s.name: s.capacity_per_replica for s in stack.services}
    return view.render(result.head, args.format, result.base, result.services,
                       result.base_services, capacities, jobs=jobs)


def _explain(args: argparse.Namespace, console: Console, stack: Stack,
             prepared: PreparedWorkload, traces: Mapping[str, Trace] | None) -> int:
    """Replay the workload and tell one job's story (``--explain JOB``; with --jobs, its file).

    The services run beside the jobs on their traces, as in the report's run.

    Raises:
        InputError: no job of the workload has that name (with a "did you mean").
        UsageError: --format markdown.

    """
    from gpupool.usecases.job_records import explain
    from gpupool.views import job_story

    if args.format == "markdown":
        raise UsageError("gpupool simulate: --explain writes text or json, not markdown")
    story = explain(stack, prepared.workload, prepared.settings, args.explain,
                    Path(args.jobs) if args.jobs is not None else None, traces)
    console.out(job_story.render(story, args.format).result)
    return EXIT_OK


def _workload(args: argparse.Namespace, console: Console, stack: Stack) -> PreparedWorkload:
    """Return the workload to replay: ``--generate``'s, else the file's (``steps.workload``).

    Raises:
        UsageError: both ``--workload`` and ``--generate``, or no workload named at all.

    """
    from gpupool.usecases import simulate as usecase

    if args.generate is not None:
        if args.workload is not None:
            raise UsageError("gpupool simulate: give --workload FILE or --generate, not both")
        return usecase.generated(stack, jobs=args.generate, flags=options.simulation_flags(args))
    prepared = steps.workload(args, console, stack, replay=args.saturate is None,
                              instead=", or give --workload FILE")
    if prepared is None:
        raise UsageError(f"gpupool simulate: {args.file} names no workload; give --workload "
                         "FILE, --generate, or a simulation block in the stack "
                         "(docs/stack-file.md, simulation)")
    return prepared


class _SimulatedClock:
    """Prints how far a long run has come in simulated time, at most every ``EVERY`` seconds.

    Nothing is printed in a run's first ``EVERY`` wall seconds, so short runs (and every test's
    output) stay as they were.
    """

    EVERY = 5.0

    def __init__(self, console: Console) -> None:
        self.console = console
        self.last = time.monotonic()

    def __call__(self, name: str, seconds: float) -> None:
        now = time.monotonic()
        if now - self.last < self.EVERY:
            return
        self.last = now
        self.console.err(f"simulating {name}: {seconds / 3600:,.1f} simulated hours so far\n")
