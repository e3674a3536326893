"""``gpupool catalog``: list the catalog's GPUs, instance types or regions; refresh its prices."""

from __future__ import annotations

import argparse

from gpupool.cli import options
from gpupool.cli.console import Console
from gpupool.cli.exits import EXIT_OK

DESCRIPTION = """\
Which GPUs and instance types are there, where, and at what price? Lists the catalog's GPU
models, instance types with their prices, or regions; refresh reads a cloud's current prices
into the local overlay."""

EXAMPLES = """\
examples:
  gpupool catalog instances --cloud aws --gpu L4
  gpupool catalog gpus --format json
  gpupool catalog refresh --cloud aws --region us-east-1"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add what to list, the cloud, the GPU, the region to price, the format."""
    from gpupool.catalog import INSTANCE_CLOUDS  # the clouds that provision instances

    p.add_argument("what", choices=("gpus", "instances", "regions", "refresh"))
    p.add_argument("--cloud", choices=INSTANCE_CLOUDS, help="one cloud")
    p.add_argument("--gpu", metavar="MODEL", help="only this GPU model (aliases accepted)")
    p.add_argument(
        "--region", metavar="R", help="refresh: the region to price (default: the catalog's)"
    )
    options.fmt(p)


def run(args: argparse.Namespace, console: Console) -> int:
    """List what was asked for, or refresh the prices and say what was written."""
    from gpupool.usecases import catalog
    from gpupool.views import catalog as view

    if args.what == "gpus":
        console.out(view.format_gpus(catalog.gpus(args.gpu), args.format))
    elif args.what == "regions":
        console.out(view.format_regions(catalog.regions(args.cloud), args.format))
    elif args.what == "refresh":
        console.out(view.format_refreshed(catalog.refresh(args.cloud, args.region),
                                          args.format))
    else:
        found = catalog.instances(args.cloud, args.gpu)
        console.out(view.format_instances(found, args.format))
    return EXIT_OK
