"""``gpupool simulate``: find, read and check the workload, then replay it and report.

``prepare`` finds the workload (``--workload``, else the file the stack's ``simulation`` block
names, refused outside the stack file's folder), reads it (``gpupool.simulate.workload``),
checks it against the stack and settles the run's settings (``resolve``: each from its flag,
else the block, else its default); ``generated`` makes one up for the stack instead
(``--generate``). ``simulate`` runs it on the stack and, with ``--base``, on the base stack
(``usecases.base.base_stack``: another stack file or this file at a git ref) under the same
settings, and returns both reports; ``capacity`` runs capacity mode (``simulate.saturate``) on
both instead.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from gpupool.errors import InputError
from gpupool.model import Simulation, Stack
from gpupool.simulate.engine import Settings, simulate_metered
from gpupool.simulate.generate import generate
from gpupool.simulate.jobs import Workload
from gpupool.simulate.report import Report, report
from gpupool.simulate.requests import Trace
from gpupool.simulate.saturate import Saturation, saturate
from gpupool.simulate.services.actor import ServiceActor
from gpupool.simulate.workload import check_workload, read_workload
from gpupool.spec import diagnostics
from gpupool.spec.diagnostics import Diagnostic
from gpupool.usecases.base import base_stack


def resolve(block: Simulation | None, flags: Mapping[str, object]) -> Settings:
    """Return the run's settings: each field from its flag, else the block, else its default.

    Both are read by ``Settings``' field names: ``flags`` holds the ones the command's flags
    gave (None or absent: not given), ``block`` is the stack's ``simulation`` block, whose
    fields of the same name (``seed``, the spot figures) stand in for a flag not given.
    """
    stated = {f.name: getattr(block, f.name) for f in fields(block)} if block else {}
    chosen: dict[str, Any] = {}
    for f in fields(Settings):
        value = flags.get(f.name)
        if value is None:
            value = stated.get(f.name)
        if value is not None:
            chosen[f.name] = value
    return Settings(**chosen)


@dataclass(frozen=True)
class PreparedWorkload:
    """A workload read and checked against the stack, and the settings to replay it under.

    ``problems`` are the workload's diagnostics, sorted; with any error among them the workload
    is not to be replayed.
    """

    path: Path
    workload: Workload
    problems: list[Diagnostic]
    settings: Settings

    @property
    def errors(self) -> int:
        """How many of the problems are errors."""
        return sum(1 for d in self.problems if d.is_error)


def prepare(stack_file: Path, stack: Stack, *, path: str | None, fmt: str | None,
            flags: Mapping[str, object], replay: bool = True,
            instead: str = "") -> PreparedWorkload | None:
    """Find, read and check the workload to replay: ``path`` where given, else the block's.

    ``flags`` are the settings the command's flags gave (``resolve``); ``replay`` is False for
    capacity mode, which never lets a pod end (``check_workload``). A file the stack names
    must exist; ``instead`` ends that error with what the user may do instead of fixing the
    path (``", or give --workload FILE"``).

    Returns:
        None when neither ``path`` nor the stack names a workload.

    Raises:
        InputError: the stack's workload does not exist or leads outside the stack file's
            folder, or the file cannot be read.

    """
    found = _workload_file(stack_file, stack, path, fmt)
    if found is None:
        return None
    where, where_fmt = found
    if path is None and not where.exists():
        raise InputError(f"{stack_file}: simulation.workload names {where}, which does not "
                         f"exist; fix the path{instead}")
    workload = read_workload(where, where_fmt)
    problems = diagnostics.sort(check_workload(stack, workload, replay=replay))
    return PreparedWorkload(where, workload, problems, resolve(stack.simulation, flags))


def _workload_file(stack_file: Path, stack: Stack, path: str | None,
                   fmt: str | None) -> tuple[Path, str | None] | None:
    """Return the workload file and its format (None: by its suffix), or None when none is named.

    A file the stack names is relative to the stack file's folder and must stay inside it once
    links are followed: a stack file can come from a pull request, and a workload's problems are
    printed with the cells they found, so a link to a file elsewhere on the CI machine is refused
    (the schema and ``simulation.workload-outside`` refuse the path as written).

    Raises:
        InputError: the stack's workload leads outside the stack file's folder.

    """
    if path is not None:
        return Path(path), fmt
    sim = stack.simulation
    if sim is None:
        return None
    folder = stack_file.parent
    where = folder / sim.workload
    inside = folder.resolve()
    if not where.resolve().is_relative_to(inside):
        raise InputError(
            f"{stack_file}: simulation.workload {sim.workload!r} leads outside the stack file's "
            "folder (through a link); put the workload beside the stack file"
        )
    return where, fmt or sim.format


def generated(stack: Stack, *, jobs: int, flags: Mapping[str, object]) -> PreparedWorkload:
    """Return a workload made up for the stack (``simulate.generate``) and the run's settings.

    ``gpupool simulate --generate``: ``jobs`` jobs of the stack's tenants on their pools, the
    same for the same seed (the flag's, else the ``simulation`` block's, else 0: ``resolve``).
    """
    settings = resolve(stack.simulation, flags)
    source = f"--generate {jobs}"  # what the report names it by: how to make it again
    workload = generate(stack, settings.seed, jobs=jobs, source=source)
    return PreparedWorkload(Path(source), workload, [], settings)


def services_only(stack: Stack, *, flags: Mapping[str, object]) -> PreparedWorkload:
    """Return no jobs and the run's settings: the services run alone on the stack's pools."""
    source = "(no workload: the services alone)"
    return PreparedWorkload(Path(source), Workload(source, ()), [],
                            resolve(stack.simulation, flags))


@dataclass(frozen=True)
class SimulationResult:
    """The head stack's report, and the base stack's when ``--base`` was given.

    ``services``/``base_services``: each traced service's counters (``services.actor``), None
    when no trace was given.
    """

    head: Report
    base: Report | None
    services: list[dict[str, Any]] | None = None
    base_services: list[dict[str, Any]] | None = None


def simulate(stack_file: Path, stack: Stack, workload: Workload, *, base: str | None,
             settings: Settings,
             progress: Callable[[str, int, int], None] | None = None,
             clock: Callable[[str, float], None] | None = None,
             traces: Mapping[str, Trace] | None = None,
             observers: Sequence[object] = ()) -> SimulationResult:
    """Replay ``workload`` on ``stack`` (and on the ``--base`` stack) and report both runs.

    Args:
        stack_file: the stack file (git refs are resolved from it).
        stack: the validated stack.
        workload: the jobs, already read and checked against the stack.
        base: ``--base`` as given, or None.
        settings: seed, spot interruption rate, autoscaler timings.
        progress: called with (stack name, jobs submitted, jobs in all) on long runs.
        clock: called with (stack name, simulated seconds) now and then as a run goes.
        traces: the services' request traces (``usecases.simulate_services``): each traced
            service of each stack runs beside the workload on the same pools.
        observers: watch the head stack's run (``--jobs``, ``--explain``: per-job records).

    Raises:
        InvalidBaseError: the base stack file is invalid.
        InputError: the base cannot be found.

    """
    other = base_stack(stack_file, base) if base is not None else None

    def tell(name: str) -> Callable[[int, int], None] | None:
        if progress is None:
            return None
        return lambda done, total: progress(name, done, total)

    def at(name: str) -> Callable[[float], None] | None:
        if clock is None:
            return None
        return lambda seconds: clock(name, seconds)

    def one(s: Stack, watch: Sequence[object]) -> tuple[Report, list[dict[str, Any]] | None]:
        actor = ServiceActor(s, traces) if traces else None
        out = simulate_metered(s, workload, settings, tell(s.name), at(s.name),
                               observers=[*watch, actor] if actor else watch)
        return report(*out), actor.reports() if actor else None

    head, services = one(stack, observers)
    before, base_services = one(other, ()) if other else (None, None)
    return SimulationResult(head, before, services, base_services)


@dataclass(frozen=True)
class CapacityResult:
    """Capacity mode's curve for the stack, and for the base stack with ``--base``."""

    stack: str
    workload: str
    seed: int
    head: Saturation
    base: Saturation | None
    base_stack: str | None


def capacity(stack_file: Path, stack: Stack, workload: Workload, *, base: str | None,
             percent: float, seed: int) -> CapacityResult:
    """Fill the stack's pools (and the ``--base`` stack's) with the workload's pod shapes.

    Raises:
        InvalidBaseError: the base stack file is invalid.
        InputError: the base cannot be found.

    """
    other = base_stack(stack_file, base) if base is not None else None
    head = saturate(stack, workload, percent, seed)
    before = saturate(other, workload, percent, seed) if other else None
    return CapacityResult(stack.name, workload.source, seed, head, before,
                          other.name if other else None)
