"""Steps several commands take: read the stack, show a plan, read the workload to replay.

``noted`` gives the engine's plan the stack file's warnings and advice, as ``plan`` has them.

Each reads its inputs through a use case and prints what it found; a stack or workload with
errors ends the command (``InvalidStackError``, ``InvalidWorkloadError``: their diagnostics are
on stderr already, and ride on the error for ``--format json``).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from gpupool.cli.console import Console
from gpupool.cli.exits import InvalidStackError, InvalidWorkloadError
from gpupool.cli.options import simulation_flags

if TYPE_CHECKING:
    from gpupool.model import Stack
    from gpupool.plan import PlanResult
    from gpupool.spec.diagnostics import Diagnostic
    from gpupool.usecases.simulate import PreparedWorkload


def stack(file: str, console: Console) -> Stack:
    """Read and validate the stack file; print its diagnostics on stderr; return it when valid.

    Raises:
        InvalidStackError: the file has errors (their diagnostics ride on it for JSON).

    """
    return checked_stack(file, console)[0]


def checked_stack(file: str, console: Console) -> tuple[Stack, tuple[Diagnostic, ...]]:
    """Return ``stack``'s stack with the file's diagnostics (its warnings and advice)."""
    from gpupool.usecases.validate import load_stack
    from gpupool.views.validate import stack_diagnostics

    checked = load_stack(file)
    console.err(stack_diagnostics(checked))
    if checked.stack is None:
        errors = sum(1 for d in checked.diagnostics if d.is_error)
        raise InvalidStackError(
            f"{file} is invalid ({errors} error{'s' * (errors != 1)}); "
            f"`gpupool validate {file}` lists them",
            [d.to_json() for d in checked.diagnostics],
        )
    return checked.stack, tuple(checked.diagnostics)


def show_plan(fmt: str, console: Console, result: PlanResult, *, stderr: bool = False,
              summary: bool = False) -> None:
    """Write a plan in ``fmt`` (as text on stderr when stdout is kept for a document).

    With ``summary``, only its summary (``plan --summary``).
    """
    from gpupool.views import plan as view

    fmt = "text" if stderr else fmt
    out = view.render(result, fmt, summary=summary)
    console.err(out.notes)
    if stderr:
        console.err(out.result)
    else:
        console.out(out.result, plan=fmt == "text")
    sys.stdout.flush()


def noted(result: PlanResult, found: Sequence[Diagnostic], file: str) -> PlanResult:
    """Return the engine's plan with the stack file's warnings and advice, as ``plan`` has them."""
    kept = tuple(d for d in found if not d.is_error)
    return dataclasses.replace(result, diagnostics=kept, stack_file=file)


def workload(args: argparse.Namespace, console: Console, checked: Stack, *,
             replay: bool = True, instead: str = "") -> PreparedWorkload | None:
    """Read the workload ``--workload`` or the stack's ``simulation`` block names, and check it.

    Its problems go to stderr. ``replay`` is False for capacity mode (``prepare``); ``instead``
    is what the user may do instead of fixing a path the
    block names that does not exist (``", or give --workload FILE"``).

    Returns:
        None when neither ``--workload`` nor the stack names a workload.

    Raises:
        InvalidWorkloadError: the workload has rows the stack cannot run.

    """
    from gpupool.usecases.simulate import prepare

    prepared = prepare(Path(args.file), checked, path=args.workload, fmt=args.workload_format,
                       flags=simulation_flags(args), replay=replay, instead=instead)
    if prepared is None:
        return None
    return shown(prepared, console)


def shown(prepared: PreparedWorkload, console: Console) -> PreparedWorkload:
    """Print the workload's problems on stderr; return it when it has no error.

    Raises:
        InvalidWorkloadError: the workload has rows the stack cannot run.

    """
    from gpupool.spec import diagnostics

    console.err("".join(diagnostics.format_text(d) + "\n" for d in prepared.problems))
    if prepared.errors:
        raise InvalidWorkloadError(
            f"{prepared.path} does not fit the stack ({prepared.errors} "
            f"error{'s' * (prepared.errors != 1)}); nothing was simulated",
            [d.to_json() for d in prepared.problems],
        )
    return prepared
