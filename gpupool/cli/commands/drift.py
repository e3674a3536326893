"""``gpupool drift``: compare the declared, the recorded and the observed state (for CI)."""

from __future__ import annotations

import argparse
from pathlib import Path

from gpupool.cli import options, steps, types
from gpupool.cli.console import Console
from gpupool.cli.exits import EXIT_CHANGES, EXIT_ERROR, EXIT_OK

DESCRIPTION = """\
Does what runs still match the stack? Compares the stack file with the state recorded at the
last apply and with what the cloud, the cluster and node reports show; exits 2 on drift and 1
when no source could be checked."""

EXAMPLES = """\
examples:
  gpupool drift prod.yaml
  gpupool drift prod.yaml --node-reports reports/ --require cloud,cluster"""

#: The sources ``--require`` names (docs/commands.md, gpupool drift).
SOURCES = ("cloud", "cluster", "node")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the stack file, the node reports, the sources required, the format."""
    options.stack_file(p)
    p.add_argument(
        "--node-reports", metavar="DIR", help="directory of 'gpupool node inspect' JSON reports"
    )
    p.add_argument(
        "--require",
        metavar="SOURCES",
        type=types.sources("gpupool drift", "--require", SOURCES),
        help="comma-separated sources that must be checked: cloud,cluster,node "
        "(default: skip a source that has no access, and say so)",
    )
    options.fmt(p, "markdown")


def run(args: argparse.Namespace, console: Console) -> int:
    """Compare every source that can be checked; exit 2 on drift, 1 when none could be."""
    from gpupool.usecases import drift
    from gpupool.views import drift as view

    stack = steps.stack(args, console)
    reports = Path(args.node_reports) if args.node_reports else None
    result = drift.drift(Path(args.file), stack, reports, args.require or frozenset(),
                         console.progress())
    console.out(view.render(result, args.format))
    if result.status == "drift":
        return EXIT_CHANGES
    if result.status == "unknown":
        console.err("error: no drift source could be checked, so drift is unknown\n")
        return EXIT_ERROR
    return EXIT_OK
