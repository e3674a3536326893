"""``gpupool up``: apply the stack, after showing the engine's preview and asking."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from gpupool.cli import options, steps
from gpupool.cli.console import Console
from gpupool.cli.exits import EXIT_OK, CancelledError

if TYPE_CHECKING:
    from gpupool.plan import PlanResult

DESCRIPTION = """\
Apply the stack. Shows the engine's preview and asks before changing anything (not with --yes);
with --expect it applies only the plan that was reviewed."""

EXAMPLES = """\
examples:
  gpupool up prod.yaml
  gpupool plan prod.yaml --format json > plan.json   # reviewed in the pull request
  gpupool up prod.yaml --yes --expect plan.json"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the stack file, ``--yes``, ``--refresh``, ``--expect``, the format."""
    options.stack_file(p)
    p.add_argument("--yes", action="store_true", help="apply the preview shown without asking")
    options.refresh(p)
    p.add_argument(
        "--expect",
        metavar="PLAN.json",
        help="apply only if the engine's preview changes exactly the addresses, with the same "
        "actions, as this reviewed `gpupool plan --format json` document",
    )
    options.fmt(p)


def run(args: argparse.Namespace, console: Console) -> int:
    """Preview, hold the preview against ``--expect``, ask, apply; say what was applied."""
    from gpupool.usecases import engine, expect
    from gpupool.views import engine as engine_view

    stack, found = steps.checked_stack(args, console)
    reviewed = expect.load_reviewed(Path(args.expect), stack.name) if args.expect else None
    shown: list[PlanResult] = []

    def approve(preview: PlanResult) -> bool:
        """Show the plan about to be applied, hold it against the reviewed one, then ask."""
        preview = steps.noted(preview, found, args.file)
        shown.append(preview)
        asking = not args.yes and preview.has_changes
        if args.format == "text" or asking:  # a person about to answer reads it as text
            steps.show_plan(args.format, console, preview, stderr=args.format != "text")
        if reviewed is not None:
            try:
                expect.require_same(reviewed, preview)
            except expect.PlanMismatchError as exc:
                console.err(f"The engine's preview is not the reviewed plan {args.expect}:\n"
                            + "".join(f"  {line}\n" for line in exc.differences))
                raise
            console.err(f"note: the engine's preview is the reviewed plan {args.expect}\n")
        if not asking:
            return bool(args.yes)
        if not console.confirm(f"Apply these changes to stack {stack.name}?",
                               f"up of stack {stack.name}"):
            raise CancelledError("Apply cancelled.")
        return True

    result = engine.up(Path(args.file), stack, console.progress(), refresh=args.refresh,
                       approve=approve)
    if args.format == "json":  # result None: no changes, and nobody asked to apply anyway
        console.out(engine_view.format_json("up", stack.name, result, shown[0]))
    elif result is not None:
        console.out(engine_view.summary("Apply", result))
    return EXIT_OK
