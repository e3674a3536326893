"""``gpupool node inspect``: the local GPUs' inventory, read through NVML, for ``drift``."""

from __future__ import annotations

import argparse

from gpupool.cli import options
from gpupool.cli.console import Console
from gpupool.cli.exits import EXIT_OK

DESCRIPTION = """\
What GPUs does this node have? Actions run on a GPU node itself."""

EXAMPLES = """\
examples:
  gpupool node inspect
  gpupool node inspect --format json > reports/$(hostname).json"""

_INSPECT = """\
What GPUs does this node have, and how are they set up? Inventories the local GPUs through NVML,
read only; its JSON is what `gpupool drift --node-reports` reads."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the action (``inspect``) and its format."""
    actions = p.add_subparsers(dest="node_command", metavar="ACTION",
                               parser_class=options.Parser)
    actions.required = True  # "gpupool node" alone is a usage error naming the actions
    q = actions.add_parser(
        "inspect",
        help="inventory of the local GPUs through NVML (read only; JSON for drift)",
        parents=[options.common()], description=_INSPECT, epilog=EXAMPLES,
        formatter_class=options.HelpPage,
    )
    options.fmt(q)
    q.set_defaults(handler=run)


def run(args: argparse.Namespace, console: Console) -> int:
    """Inventory the local GPUs."""
    from gpupool.usecases import node
    from gpupool.views import node as view

    console.out(view.render(node.inspect(), args.format))
    return EXIT_OK
