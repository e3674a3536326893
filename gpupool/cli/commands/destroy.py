"""``gpupool destroy``: remove every resource of the stack, after asking."""

from __future__ import annotations

import argparse
from pathlib import Path

from gpupool.cli import options, steps
from gpupool.cli.console import Console
from gpupool.cli.exits import EXIT_OK, CancelledError

DESCRIPTION = """\
Remove every resource of the stack: its node pools, and the GPU workloads on them, go away.
Asks first unless --yes."""

EXAMPLES = """\
examples:
  gpupool destroy staging.yaml
  gpupool destroy staging.yaml --yes --format json"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the stack file, ``--yes``, the format."""
    options.stack_file(p)
    p.add_argument("--yes", action="store_true", help="destroy without asking")
    options.fmt(p)


def run(args: argparse.Namespace, console: Console) -> int:
    """Ask (once the engine can run), destroy, say what went."""
    from gpupool.usecases import engine
    from gpupool.views import engine as view

    stack = steps.stack(args, console)

    def approve() -> bool:
        """Ask, once the engine is known to be able to run (the use case checked)."""
        question = (f"Destroy every resource of stack {stack.name}? GPU nodes and their "
                    "workloads go away.")
        if not console.confirm(question, f"destroy of stack {stack.name}"):
            raise CancelledError("Destroy cancelled.")
        return True

    result = engine.destroy(Path(args.file), stack, console.progress(),
                            approve=None if args.yes else approve)
    if result is None:  # approve says yes or raises, so this cannot be
        raise CancelledError("Destroy cancelled.")
    if args.format == "json":
        console.out(view.format_json("destroy", stack.name, result))
    else:
        console.out(view.summary("Destroy", result))
    return EXIT_OK
