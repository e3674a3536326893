"""``gpupool simulate``: replay a workload on the stack (and on a base stack) and report it.

The workload is read by the command line (``gpupool.simulate.workload``) from ``--workload`` or
from the file the stack's ``simulation`` block names (``named_workload`` finds it, and refuses
one outside the stack file's folder), or ``generated`` makes one up for the stack
(``--generate``); this use case runs it on the stack and, with ``--base``,
on the base stack (``usecases.base.base_stack``: another stack file or this file at a git ref)
under the same settings, and returns both reports; with ``--saturate`` it runs capacity mode
instead (``simulate.saturate``) on both.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gpupool.errors import InputError
from gpupool.model import Stack
from gpupool.simulate.engine import Settings
from gpupool.simulate.generate import generate
from gpupool.simulate.jobs import Workload
from gpupool.simulate.metered import simulate_metered
from gpupool.simulate.report import Report, report
from gpupool.simulate.saturate import Saturation, saturate
from gpupool.usecases.base import base_stack


@dataclass(frozen=True)
class NamedWorkload:
    """The workload file to replay, its format (None: by its suffix), and the run's figures."""

    path: Path
    format: str | None
    seed: int
    spot_interruptions_per_hour: float = 0.0
    spot_shortage: float = 0.0

    def settings(self, scale_up_seconds: float | None = None) -> Settings:
        """Return the run's settings: these figures, and the autoscaler's timing."""
        return Settings(seed=self.seed,
                        spot_interruptions_per_hour=self.spot_interruptions_per_hour,
                        spot_shortage=self.spot_shortage, scale_up_seconds=scale_up_seconds)


def named_workload(stack_file: Path, stack: Stack, *, path: str | None, fmt: str | None,
                   seed: int | None, spot_interruptions_per_hour: float | None = None,
                   spot_shortage: float | None = None) -> NamedWorkload | None:
    """Return the workload to replay: the flags' where given, else the stack's ``simulation``.

    Each figure a flag gives wins; the others come from the stack's ``simulation`` block, else
    their defaults (seed 0, no spot interruptions, no spot shortage).

    A file the stack names is relative to the stack file's folder and must stay inside it once
    links are followed: a stack file can come from a pull request, and a workload's problems are
    printed with the cells they found, so a link to a file elsewhere on the CI machine is refused
    (the schema and ``simulation.workload-outside`` refuse the path as written).

    Returns:
        None when neither the flags nor the stack name a workload.

    Raises:
        InputError: the stack's workload leads outside the stack file's folder.

    """
    sim = stack.simulation
    run_seed, rate, shortage = _figures(stack, seed, spot_interruptions_per_hour, spot_shortage)
    if path is not None:
        return NamedWorkload(Path(path), fmt, run_seed, rate, shortage)
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
    return NamedWorkload(where, fmt or sim.format, run_seed, rate, shortage)


def _figures(stack: Stack, seed: int | None, rate: float | None,
             shortage: float | None) -> tuple[int, float, float]:
    """Return the run's seed and spot figures: each flag's, else the ``simulation`` block's."""
    sim = stack.simulation
    return (
        seed if seed is not None else sim.seed if sim is not None else 0,
        rate if rate is not None else sim.spot_interruptions_per_hour if sim is not None else 0.0,
        shortage if shortage is not None else sim.spot_shortage if sim is not None else 0.0,
    )


def generated(stack: Stack, *, jobs: int, seed: int | None,
              spot_interruptions_per_hour: float | None = None,
              spot_shortage: float | None = None) -> tuple[NamedWorkload, Workload]:
    """Return a workload made up for the stack (``simulate.generate``) and the run's figures.

    ``gpupool simulate --generate``: ``jobs`` jobs of the stack's tenants on their pools, the
    same for the same seed (the flag's, else the ``simulation`` block's, else 0).
    """
    run_seed, rate, shortage = _figures(stack, seed, spot_interruptions_per_hour, spot_shortage)
    source = f"--generate {jobs}"  # what the report names it by: how to make it again
    workload = generate(stack, run_seed, jobs=jobs, source=source)
    return NamedWorkload(Path(source), None, run_seed, rate, shortage), workload


@dataclass(frozen=True)
class SimulationResult:
    """The head stack's report, and the base stack's when ``--base`` was given."""

    head: Report
    base: Report | None


def simulate(stack_file: Path, stack: Stack, workload: Workload, *, base: str | None,
             settings: Settings,
             progress: Callable[[str, int, int], None] | None = None,
             clock: Callable[[str, float], None] | None = None) -> SimulationResult:
    """Replay ``workload`` on ``stack`` (and on the ``--base`` stack) and report both runs.

    Args:
        stack_file: the stack file (git refs are resolved from it).
        stack: the validated stack.
        workload: the jobs, already read and checked against the stack.
        base: ``--base`` as given, or None.
        settings: seed, spot interruption rate, autoscaler timings.
        progress: called with (stack name, jobs submitted, jobs in all) on long runs.
        clock: called with (stack name, simulated seconds) now and then as a run goes.

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

    head = report(*simulate_metered(stack, workload, settings, tell(stack.name), at(stack.name)))
    before = (report(*simulate_metered(other, workload, settings, tell(other.name),
                                       at(other.name)))
              if other else None)
    return SimulationResult(head, before)


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
