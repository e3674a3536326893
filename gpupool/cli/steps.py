"""Steps several commands take: read the stack, show a plan, read the workload and traces to replay.

``visible`` is where ``--quiet`` leaves a stack file's warnings and advice out; ``noted`` gives
the engine's plan the stack file's warnings and advice, as ``plan`` has them.

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
    from collections.abc import Mapping

    from gpupool.model import Stack
    from gpupool.plan import PlanResult
    from gpupool.simulate.requests import Trace
    from gpupool.spec.diagnostics import Diagnostic
    from gpupool.spec.validate import ValidateResult
    from gpupool.usecases.simulate import PreparedWorkload


def visible(args: argparse.Namespace, result: ValidateResult) -> ValidateResult:
    """Return what is shown of a stack file's validation: its errors alone under ``--quiet``.

    The one place ``--quiet`` acts, before any view renders the diagnostics; it changes no exit
    code.
    """
    return result.quieted() if args.quiet else result


def checked(args: argparse.Namespace, console: Console) -> ValidateResult:
    """Read and validate the stack file; print its diagnostics on stderr; return the result.

    Raises:
        InvalidStackError: the file has errors (their diagnostics ride on it for JSON).

    """
    from gpupool.usecases.validate import load_stack
    from gpupool.views.validate import stack_diagnostics

    result = visible(args, load_stack(args.file))
    console.err(stack_diagnostics(result))
    if result.stack is None:
        errors = sum(1 for d in result.diagnostics if d.is_error)
        raise InvalidStackError(
            f"{args.file} is invalid ({errors} error{'s' * (errors != 1)}); "
            f"`gpupool validate {args.file}` lists them",
            [d.to_json() for d in result.diagnostics],
        )
    return result


def checked_stack(args: argparse.Namespace,
                  console: Console) -> tuple[Stack, tuple[Diagnostic, ...]]:
    """Return ``checked``'s valid stack with the file's diagnostics (its warnings and advice)."""
    result = checked(args, console)
    assert result.stack is not None  # checked raises for an invalid file
    return result.stack, tuple(result.diagnostics)


def stack(args: argparse.Namespace, console: Console) -> Stack:
    """Return ``checked``'s valid stack."""
    return checked_stack(args, console)[0]


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
    return reported(prepared, console)


def reported(prepared: PreparedWorkload, console: Console) -> PreparedWorkload:
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


def traces(args: argparse.Namespace, console: Console, stack: Stack
           ) -> Mapping[str, Trace] | None:
    """Return the services' traces (``--requests``, else the stack's); None: no trace.

    Raises:
        InvalidWorkloadError: a trace names a service the stack does not declare.

    """
    from gpupool.spec import diagnostics
    from gpupool.usecases.simulate_services import traces as read

    found = read(Path(args.file), stack, args.requests)
    if found is None:
        return None
    if found.problems:
        console.err("".join(diagnostics.format_text(d) + "\n" for d in found.problems))
        raise InvalidWorkloadError(
            f"the request traces name services the stack does not declare "
            f"({len(found.problems)}); nothing was simulated",
            [d.to_json() for d in found.problems])
    return found.traces
