"""``gpupool plan``: the stack against its base, offline (no engine, no cloud access)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from gpupool.assemble import build
from gpupool.model import Stack
from gpupool.plan import PlanResult, make_plan
from gpupool.plan.checkpoint import simulated
from gpupool.simulate.report import Report
from gpupool.spec.acknowledge import Acknowledged
from gpupool.spec.diagnostics import Diagnostic
from gpupool.usecases.base import load_base


def plan(stack_file: Path, stack: Stack, base: str | None, *, force_base: bool = False,
         diagnostics: Sequence[Diagnostic] = (), shown_as: str | None = None,
         acknowledged: Sequence[Acknowledged] = ()) -> PlanResult:
    """Plan ``stack`` (read from ``stack_file``) against the base ``--base`` names.

    Args:
        stack_file: the stack file (the applied record and git revisions are found from it).
        stack: the validated stack.
        base: ``--base`` as given; None for the applied record (see ``usecases.base``).
        force_base: accept a base that is another stack (``--force-base``).
        diagnostics: the stack file's diagnostics (its warnings and advice ride on the plan).
        shown_as: the stack file as the command was given it (default: ``stack_file``).
        acknowledged: the stack file's acknowledged warnings, which the plan's JSON lists.

    Raises:
        InvalidBaseError: the base stack file is invalid (its diagnostics ride on the error).
        InputError: the base cannot be found, or is another stack and not forced.
        StateError: the applied record is unreadable.

    """
    resolved = load_base(stack_file, stack.name, base, force=force_base)
    planned = make_plan(resolved, build(stack), stack, diagnostics=diagnostics,
                        stack_file=str(stack_file) if shown_as is None else shown_as)
    return replace(planned, acknowledged=tuple(acknowledged))


def with_simulated_downtime(stack: Stack, result: PlanResult, head: Report) -> PlanResult:
    """Return the plan with each downtime's scale-up at the share the head's simulation measured.

    The share is per pool: of the evicted jobs the run placed again, those that waited for a
    node not ready when they were evicted. A pool none came back on, and a plan without a
    simulation, keep the worst case (``validate``'s).
    """
    figures = head.checkpoints
    if figures is None or not result.checkpoints:
        return result
    returns = {p.pool: (p.scaled_up, p.returns) for p in figures.pools}
    return replace(result, checkpoints=simulated(stack, result.checkpoints, returns))
