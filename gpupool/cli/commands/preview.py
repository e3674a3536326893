"""``gpupool preview``: the engine's preview of the stack, shown as a plan."""

from __future__ import annotations

import argparse
from pathlib import Path

from gpupool.cli import options, steps
from gpupool.cli.console import Console
from gpupool.cli.exits import EXIT_CHANGES, EXIT_OK

DESCRIPTION = """\
What would the engine change in the cloud? Runs Pulumi's preview of the stack (Automation API)
against its recorded state, or with --refresh against what is there, and shows it as a plan;
nothing is applied."""

EXAMPLES = """\
examples:
  gpupool preview prod.yaml
  gpupool preview prod.yaml --refresh --detailed-exitcode"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the stack file, ``--refresh``, the exit code, the format."""
    options.stack_file(p)
    options.refresh(p)
    options.detailed_exitcode(p)
    options.fmt(p, "markdown")


def run(args: argparse.Namespace, console: Console) -> int:
    """Preview the stack through the engine; show the plan it found."""
    from gpupool.usecases import engine

    stack, found = steps.checked_stack(args, console)
    result = engine.preview(Path(args.file), stack, console.progress(), refresh=args.refresh)
    steps.show_plan(args.format, console, steps.noted(result, found, args.file))
    return EXIT_CHANGES if args.detailed_exitcode and result.has_changes else EXIT_OK
