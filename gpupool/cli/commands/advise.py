"""``gpupool advise``: right-size the stack from what its GPUs did, read from Prometheus."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from gpupool.cli import options, steps
from gpupool.cli.console import Console
from gpupool.cli.exits import EXIT_OK, UsageError

if TYPE_CHECKING:
    from gpupool.advise.report import AdviseResult

DESCRIPTION = """\
What should the stack's pools be, given what their GPUs did? Reads the stack's GPU metrics from
a Prometheus-compatible server over a window and recommends edits to the stack, each with its
evidence and saving; --demo tries it offline."""

EXAMPLES = """\
examples:
  gpupool advise --demo
  gpupool advise --list-rules
  gpupool advise prod.yaml --prometheus http://prometheus:9090 --since 7d
  gpupool advise prod.yaml --prometheus http://prometheus:9090 --write proposed.yaml"""

_PROG = "gpupool advise"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the stack file, the server and its credentials, the window, the outputs, the format."""
    from gpupool.advise import overflow, window  # bounds and converters (nothing heavy)

    p.add_argument("file", metavar="FILE", nargs="?", help="stack file (not with --demo)")
    options.quiet(p)
    p.add_argument("--prometheus", metavar="URL",
                   help="the Prometheus-compatible query API (Prometheus, Thanos, Mimir, "
                   "VictoriaMetrics); required without --demo")
    p.add_argument("--demo", action="store_true",
                   help="try advise offline: serve 14 generated days of a bundled example "
                   "stack's metrics on 127.0.0.1 and advise that stack")
    p.add_argument("--list-rules", action="store_true",
                   help="print the rules advise runs (id and summary) and exit")
    p.add_argument("--since", metavar="DURATION", default="14d", type=window.since,
                   help=f"how far back to read, at most {window.MAX_SINCE_DAYS}d (default: 14d)")
    p.add_argument("--bearer-token-file", metavar="FILE",
                   help="a file holding the bearer token (else GPUPOOL_PROMETHEUS_TOKEN)")
    p.add_argument("--basic-auth-file", metavar="FILE",
                   help="a file holding user:password (else GPUPOOL_PROMETHEUS_USER and "
                   "GPUPOOL_PROMETHEUS_PASSWORD)")
    p.add_argument("--ca-file", metavar="FILE", help="CA certificates for the server's TLS")
    p.add_argument("--write", metavar="FILE",
                   help="write the stack with every recommendation to FILE (comments kept)")
    p.add_argument("--in-place", action="store_true",
                   help="write the recommendations into the stack file itself")
    p.add_argument("--until", metavar="TIME", type=window.until,
                   help="end the window at TIME (unix seconds or RFC 3339, 1970 to 9999) "
                   "instead of now")
    p.add_argument("--export-workload", metavar="FILE",
                   help="write the GPU pods seen in the window as a `gpupool simulate` "
                   "workload CSV; without --workload, the edits are replayed with it")
    p.add_argument("--overflow-share", metavar="PERCENT", type=overflow.share,
                   default=overflow.DEFAULT_SHARE,
                   help="the share of 5-minute windows in which the memory-overcommit advice "
                   "lets the pods' summed GPU memory exceed the GPU's, in percent (default: 0.1)")
    p.add_argument("--export-requests", metavar="FILE",
                   help="write each service's demand in the window as a `gpupool simulate "
                   "--requests` rate series (service,time,rps)")
    options.workload(p, "replay this workload (gpupool simulate) before and after each edit; "
                     "an edit that lengthens a tenant's queue wait is dropped")
    options.fmt(p, "markdown")


def run(args: argparse.Namespace, console: Console) -> int:
    """Read the window's metrics, judge the stack, write the recommendations (and the stack)."""
    from gpupool.advise.prometheus import auth_from, environment
    from gpupool.usecases import advise
    from gpupool.views import advise as view

    if args.list_rules:
        return _rules(args, console)
    if args.demo:
        return _demo(args, console)
    if args.file is None or args.prometheus is None:
        raise UsageError(f"{_PROG}: give a stack FILE and --prometheus URL (or --demo to "
                         "try it offline on a bundled example)")
    if args.write and args.in_place:
        raise UsageError(f"{_PROG}: give --write FILE or --in-place, not both")
    stack = steps.stack(args, console)
    auth = auth_from(
        environment(),
        token_file=Path(args.bearer_token_file) if args.bearer_token_file else None,
        basic_auth_file=Path(args.basic_auth_file) if args.basic_auth_file else None,
        ca_file=Path(args.ca_file) if args.ca_file else None,
    )
    console.hide(auth.secrets())  # a secret read from a file, kept out as the environment's
    target = Path(args.file) if args.in_place else Path(args.write) if args.write else None
    # advise reads no simulation block: it replays only the workload --workload names
    prepared = steps.workload(args, console, stack) if args.workload else None
    result = advise.advise(
        Path(args.file), stack, url=args.prometheus, since_seconds=args.since, auth=auth,
        write=target, end=args.until,
        export_workload=Path(args.export_workload) if args.export_workload else None,
        export_requests=Path(args.export_requests) if args.export_requests else None,
        replay=prepared.workload if prepared is not None else None,
        progress=lambda line: console.err(f"{line}...\n"), overflow_share=args.overflow_share,
    )
    _wrote(result, console)
    console.out(view.render(result, args.format))
    return EXIT_OK


def _wrote(result: AdviseResult, console: Console) -> None:
    """Say on stderr where ``--export-requests`` wrote the services' demand."""
    from gpupool.advise.words import counted

    if result.requests_file is not None:
        console.err(f"wrote the demand of {counted(len(result.evidence.services), 'service')} "
                    f"to {result.requests_file}\n")


def _given(args: argparse.Namespace) -> list[str]:
    """Return the flags of a real server's run given: --demo and --list-rules take none."""
    from gpupool.advise import overflow

    return [flag for flag, value in (
        ("FILE", args.file), ("--prometheus", args.prometheus), ("--write", args.write),
        ("--in-place", args.in_place), ("--until", args.until is not None),
        ("--workload", args.workload),
        ("--export-workload", args.export_workload),
        ("--export-requests", args.export_requests), ("--ca-file", args.ca_file),
        ("--bearer-token-file", args.bearer_token_file),
        ("--basic-auth-file", args.basic_auth_file),
        ("--overflow-share", args.overflow_share != overflow.DEFAULT_SHARE)) if value]


def _rules(args: argparse.Namespace, console: Console) -> int:
    """Print the registry's rules (``--list-rules``)."""
    from gpupool.advise.rules import RULES
    from gpupool.views import advise_rules as view

    given = _given(args) + (["--demo"] if args.demo else [])
    if given:
        raise UsageError(f"{_PROG} --list-rules prints the rules and reads nothing: "
                         f"drop {', '.join(given)}")
    console.out(view.render(RULES, args.format))
    return EXIT_OK


def _demo(args: argparse.Namespace, console: Console) -> int:
    """Advise the bundled example stack from its generated metrics, served on loopback."""
    from gpupool.usecases import advise_demo
    from gpupool.views import advise as view

    given = [flag for flag in _given(args) if flag != "--export-requests"]
    if given:
        raise UsageError(f"{_PROG} --demo advises its own bundled stack and server: "
                         f"drop {', '.join(given)}")
    result = advise_demo.demo(args.since, progress=lambda line: console.err(f"{line}...\n"),
                              export_requests=Path(args.export_requests)
                              if args.export_requests else None)
    _wrote(result, console)
    console.out(view.render(result, args.format))
    return EXIT_OK
