"""``gpupool validate``: check stack files against the schema and the GPU facts."""

from __future__ import annotations

import argparse

from gpupool.cli import options, steps
from gpupool.cli.console import Console
from gpupool.cli.exits import EXIT_ERROR, EXIT_OK

DESCRIPTION = """\
Is this stack file right? Checks each file against the schema and the GPU facts and lists every
problem at once, with its line; exits 1 when any file has an error."""

EXAMPLES = """\
examples:
  gpupool validate prod.yaml
  gpupool validate --quiet stacks/*.yaml       # errors only
  gpupool validate --format json stacks/*.yaml"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the stack files, and ``--format``."""
    p.add_argument("files", nargs="+", metavar="FILE", help="stack files")
    options.quiet(p)
    options.fmt(p)


def run(args: argparse.Namespace, console: Console) -> int:
    """Validate each file; their results on stdout, the notes on stderr."""
    from gpupool.usecases.validate import validate
    from gpupool.views import validate as view

    results = [steps.visible(args, r) for r in validate(args.files)]
    out = view.render(results, args.format)
    if args.format == "text":
        console.err(out.notes)
    console.out(out.result)
    return EXIT_OK if all(r.valid for r in results) else EXIT_ERROR
