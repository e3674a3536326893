"""``gpupool render``: write the stack's Pulumi program and manifests into a folder."""

from __future__ import annotations

import argparse
from pathlib import Path

from gpupool.cli import options, steps
from gpupool.cli.console import Console
from gpupool.cli.exits import EXIT_OK

DESCRIPTION = """\
What program would apply this stack? Writes the stack's Pulumi program and Kubernetes manifests
into a folder, to read, or to run with Pulumi yourself."""

EXAMPLES = """\
examples:
  gpupool render prod.yaml
  gpupool render prod.yaml --out build/prod"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the stack file, the output folder, the format."""
    options.stack_file(p)
    p.add_argument(
        "--out",
        metavar="DIR",
        help="output directory (default: .gpupool/build/<stack>/ next to the stack file)",
    )
    options.fmt(p)


def run(args: argparse.Namespace, console: Console) -> int:
    """Render the program; say what was written."""
    from gpupool.usecases import render
    from gpupool.views import render as view

    stack = steps.stack(args, console)
    result = render.render(Path(args.file), stack, args.out)
    console.out(view.summary(result, args.format))
    return EXIT_OK
