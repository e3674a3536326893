"""``gpupool init``: write a commented starter stack for a cloud and its GPUs."""

from __future__ import annotations

import argparse
from pathlib import Path

from gpupool.cli import options
from gpupool.cli.console import Console
from gpupool.cli.exits import EXIT_OK

DESCRIPTION = """\
How do I start? Writes a commented starter stack for a cloud, with a pool for each GPU asked
for, priced from the catalog; it never overwrites a file."""

EXAMPLES = """\
examples:
  gpupool init --cloud aws --gpu L4 prod.yaml
  gpupool init --cloud gcp --gpu L4 --gpu H100 ml.yaml"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the cloud, the GPUs, the file to write, the format."""
    from gpupool import clouds  # the cloud names come from the plug-ins

    p.add_argument(
        "--cloud", choices=clouds.names(), default=clouds.names()[0], help="default: %(default)s"
    )
    p.add_argument(
        "--gpu",
        metavar="MODEL",
        action="append",
        help="GPU model from the catalog; repeat it for a pool of each (default: L4 where the "
        "cloud offers it, else the GPU of its cheapest instance type)",
    )
    p.add_argument("file", metavar="FILE", help="the stack file to write (must not exist)")
    options.fmt(p)


def run(args: argparse.Namespace, console: Console) -> int:
    """Write the starter stack; say what was written."""
    from gpupool.usecases import init
    from gpupool.views import init as view

    starter = init.init(Path(args.file), args.cloud, args.gpu)
    if args.format == "json":
        console.out(view.written_json(starter, args.file))
    else:
        console.out(view.written(starter, args.file))
    return EXIT_OK
