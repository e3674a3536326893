"""The ``gpupool`` command line: parse flags, call one use case, map the result to an exit code.

This module owns argument parsing, where output goes (results on stdout; diagnostics, progress and
errors on stderr), the terminal prompts of ``up`` and ``destroy`` and the exit codes
(docs/commands.md, Exit codes). Each command calls its use case (``gpupool.usecases``) and hands
the result to its view (``gpupool.views``); nothing else happens here. Each command's machinery
is imported only when that command runs, so ``gpupool --help`` stays fast.

Exit codes: 0 ok / no changes, 1 error, 2 changes or drift, 64 usage, 130 interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TextIO

from gpupool import __version__
from gpupool.catalog import INSTANCE_CLOUDS

if TYPE_CHECKING:
    from gpupool.engine.results import ProgressEvent
    from gpupool.model import Stack

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_CHANGES = 2
EXIT_USAGE = 64
EXIT_INTERRUPTED = 130

Handler = Callable[[argparse.Namespace], int]


class _UsageError(Exception):
    """Bad flags or arguments."""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that reports usage errors with exit code 64 instead of 2."""

    def error(self, message: str) -> NoReturn:
        raise _UsageError(f"{self.prog}: {message}")


def _formats(p: argparse.ArgumentParser, *extra: str) -> None:
    p.add_argument(
        "--format",
        choices=("text", "json", *extra),
        default="text",
        help="output format (default: text)",
    )


def _cmd_validate(args: argparse.Namespace) -> int:
    from gpupool.usecases.validate import validate
    from gpupool.views import validate as view

    results = validate(args.files)
    out = view.render(results, args.format)
    if args.format == "text":
        sys.stderr.write(out.notes)
    sys.stdout.write(out.result)
    return EXIT_OK if all(r.valid for r in results) else EXIT_ERROR


def _cmd_schema(args: argparse.Namespace) -> int:
    from gpupool.usecases.schema import schema_text

    sys.stdout.write(schema_text())
    return EXIT_OK


def _cmd_catalog(args: argparse.Namespace) -> int:
    from gpupool.usecases import catalog
    from gpupool.views import catalog as view

    if args.what == "gpus":
        sys.stdout.write(view.format_gpus(catalog.gpus(args.gpu), args.format))
    elif args.what == "regions":
        sys.stdout.write(view.format_regions(catalog.regions(args.cloud), args.format))
    elif args.what == "refresh":
        sys.stdout.write(view.format_refreshed(catalog.refresh(args.cloud, args.region)))
    else:
        found = catalog.instances(args.cloud, args.gpu)
        sys.stdout.write(view.format_instances(found, args.format))
    return EXIT_OK


def _cmd_node_inspect(args: argparse.Namespace) -> int:
    from gpupool.usecases import node
    from gpupool.views import node as view

    sys.stdout.write(view.render(node.inspect(), args.format))
    return EXIT_OK


def _stack(file: str) -> Stack | None:
    """Read and validate one stack file; print its diagnostics on stderr; return it when valid."""
    from gpupool.usecases.validate import load_stack
    from gpupool.views.validate import stack_diagnostics

    checked = load_stack(file)
    sys.stderr.write(stack_diagnostics(checked))
    return checked.stack


def _cmd_plan(args: argparse.Namespace) -> int:
    from gpupool.usecases import plan
    from gpupool.usecases.base import InvalidBaseError
    from gpupool.views import plan as view
    from gpupool.views import validate as validate_view

    stack = _stack(args.file)
    if stack is None:
        return EXIT_ERROR
    try:
        result = plan.plan(Path(args.file), stack, args.base)
    except InvalidBaseError as exc:
        sys.stderr.write(validate_view.render([exc.result], "text").notes)
        raise
    out = view.render(result, args.format)
    sys.stderr.write(out.notes)
    sys.stdout.write(out.result)
    return EXIT_CHANGES if args.detailed_exitcode and result.has_changes else EXIT_OK


def _cmd_render(args: argparse.Namespace) -> int:
    from gpupool.usecases import render
    from gpupool.views import render as view

    stack = _stack(args.file)
    if stack is None:
        return EXIT_ERROR
    result = render.render(Path(args.file), stack, args.out)
    sys.stdout.write(view.summary(result, args.format))
    return EXIT_OK


def _progress() -> Callable[[ProgressEvent], None]:
    """Return the engine's progress printer: one line on stderr per event worth showing."""
    from gpupool.views.engine import progress_line

    def show(event: ProgressEvent) -> None:
        line = progress_line(event)
        if line is not None:
            sys.stderr.write(line)

    return show


def _confirm(question: str) -> bool:
    """Ask a yes/no question on the terminal; refuse when there is none."""
    from gpupool.errors import InputError

    if not sys.stdin.isatty():
        raise InputError(f"{question} needs confirmation and there is no terminal; pass --yes")
    sys.stderr.write(f"{question} Only 'yes' will be accepted: ")
    sys.stderr.flush()
    return sys.stdin.readline().strip() == "yes"


def _cmd_preview(args: argparse.Namespace) -> int:
    from gpupool.usecases import engine
    from gpupool.views import plan as view

    stack = _stack(args.file)
    if stack is None:
        return EXIT_ERROR
    result = engine.preview(Path(args.file), stack, _progress())
    out = view.render(result, args.format)
    sys.stderr.write(out.notes)
    sys.stdout.write(out.result)
    return EXIT_CHANGES if args.detailed_exitcode and result.has_changes else EXIT_OK


def _cmd_up(args: argparse.Namespace) -> int:
    from gpupool.usecases import engine
    from gpupool.views import engine as engine_view
    from gpupool.views import plan as plan_view

    stack = _stack(args.file)
    if stack is None:
        return EXIT_ERROR
    path = Path(args.file)
    if not args.yes:
        shown = engine.preview(path, stack, _progress())
        sys.stdout.write(plan_view.render(shown, "text").result)
        sys.stdout.flush()
        if not shown.has_changes:
            return EXIT_OK
        if not _confirm(f"Apply these changes to stack {stack.name}?"):
            sys.stderr.write("Apply cancelled.\n")
            return EXIT_ERROR
    result = engine.up(path, stack, _progress())
    sys.stdout.write(engine_view.summary("Apply", result))
    return EXIT_OK


def _cmd_destroy(args: argparse.Namespace) -> int:
    from gpupool.usecases import engine
    from gpupool.views import engine as view

    stack = _stack(args.file)
    if stack is None:
        return EXIT_ERROR
    if not args.yes and not _confirm(
        f"Destroy every resource of stack {stack.name}? GPU nodes and their workloads go away."
    ):
        sys.stderr.write("Destroy cancelled.\n")
        return EXIT_ERROR
    result = engine.destroy(Path(args.file), stack, _progress())
    sys.stdout.write(view.summary("Destroy", result))
    return EXIT_OK


def _cmd_drift(args: argparse.Namespace) -> int:
    from gpupool.usecases import drift
    from gpupool.views import drift as view

    require = frozenset(x for x in (args.require or "").split(",") if x)
    unknown = require - {"cloud", "cluster", "node"}
    if unknown:
        raise _UsageError(
            f"gpupool drift: --require takes cloud, cluster, node; not {sorted(unknown)}"
        )
    stack = _stack(args.file)
    if stack is None:
        return EXIT_ERROR
    reports = Path(args.node_reports) if args.node_reports else None
    result = drift.drift(Path(args.file), stack, reports, require, _progress())
    sys.stdout.write(view.render(result, args.format))
    if result.drifted:
        return EXIT_CHANGES
    if not any(s.checked for s in result.sources):
        sys.stderr.write("error: no drift source could be checked, so drift is unknown\n")
        return EXIT_ERROR
    return EXIT_OK


def _stack_file(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="stack file")


def _detailed_exitcode(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--detailed-exitcode",
        action="store_true",
        help="exit 2 when there are changes, 0 when none, 1 on error",
    )


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser for every command."""
    parser = _Parser(
        prog="gpupool",
        description="GPU pools as code: validate, plan, render and apply GPU node pools and "
        "GPU sharing from one YAML file.",
    )
    parser.add_argument("--version", action="version", version=f"gpupool {__version__}")
    parser.add_argument(
        "--debug", action="store_true", help="show tracebacks (also GPUPOOL_DEBUG=1)"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser("validate", help="check stack files against the schema and GPU facts")
    p.add_argument("files", nargs="+", metavar="FILE", help="stack files")
    _formats(p)
    p.set_defaults(handler=_cmd_validate)

    p = sub.add_parser("plan", help="offline plan: changes, capacity and cost (no engine)")
    _stack_file(p)
    p.add_argument(
        "--base",
        metavar="FILE|GIT-REF",
        help="compare with another stack file, or this file at a git ref "
        "(default: the last applied graph, else empty)",
    )
    _detailed_exitcode(p)
    _formats(p, "markdown")
    p.set_defaults(handler=_cmd_plan)

    p = sub.add_parser("render", help="write the stack's Pulumi program and manifests")
    _stack_file(p)
    p.add_argument(
        "--out",
        metavar="DIR",
        help="output directory (default: .gpupool/build/<stack>/ next to the stack file)",
    )
    _formats(p)
    p.set_defaults(handler=_cmd_render)

    p = sub.add_parser("preview", help="the engine's preview (Pulumi Automation API)")
    _stack_file(p)
    _detailed_exitcode(p)
    _formats(p, "markdown")
    p.set_defaults(handler=_cmd_preview)

    p = sub.add_parser("up", help="apply the stack (shows the preview and asks first)")
    _stack_file(p)
    p.add_argument("--yes", action="store_true", help="apply without showing a preview or asking")
    p.set_defaults(handler=_cmd_up)

    p = sub.add_parser("destroy", help="remove every resource of the stack")
    _stack_file(p)
    p.add_argument("--yes", action="store_true", help="destroy without asking")
    p.set_defaults(handler=_cmd_destroy)

    p = sub.add_parser("drift", help="compare declared, recorded and observed state (CI)")
    _stack_file(p)
    p.add_argument(
        "--node-reports", metavar="DIR", help="directory of 'gpupool node inspect' JSON reports"
    )
    p.add_argument(
        "--require",
        metavar="SOURCES",
        help="comma-separated sources that must be checked: cloud,cluster,node "
        "(default: skip a source that has no access, and say so)",
    )
    _formats(p, "markdown")
    p.set_defaults(handler=_cmd_drift)

    p = sub.add_parser("schema", help="print the stack JSON Schema")
    p.set_defaults(handler=_cmd_schema)

    p = sub.add_parser(
        "catalog", help="list known GPUs, instance types with prices, or regions; refresh prices"
    )
    p.add_argument("what", choices=("gpus", "instances", "regions", "refresh"))
    p.add_argument("--cloud", choices=INSTANCE_CLOUDS, help="one cloud")
    p.add_argument("--gpu", metavar="MODEL", help="only this GPU model (aliases accepted)")
    p.add_argument(
        "--region", metavar="R", help="refresh: the region to price (default: the catalog's)"
    )
    _formats(p)
    p.set_defaults(handler=_cmd_catalog)

    p = sub.add_parser("node", help="this node's GPUs")
    node_sub = p.add_subparsers(dest="node_command", metavar="ACTION", parser_class=_Parser)
    node_sub.required = True  # "gpupool node" alone is a usage error naming the actions
    q = node_sub.add_parser(
        "inspect", help="inventory of the local GPUs through NVML (read only; JSON for drift)"
    )
    _formats(q)
    q.set_defaults(handler=_cmd_node_inspect)
    return parser


def run(argv: Sequence[str] | None = None, stderr: TextIO | None = None) -> int:
    """Run the command line and return its exit code (never raises, never exits)."""
    err = stderr or sys.stderr
    debug = os.environ.get("GPUPOOL_DEBUG") == "1"
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        debug = debug or args.debug
        handler: Handler | None = getattr(args, "handler", None)
        if handler is None:
            parser.print_help(err)
            return EXIT_USAGE
        return handler(args)
    except SystemExit as exc:  # --help and --version end this way
        return exc.code if isinstance(exc.code, int) else EXIT_OK
    except _UsageError as exc:
        err.write(f"{exc}\nRun 'gpupool --help' for usage.\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        err.write("gpupool: interrupted\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:
        from gpupool.errors import GpupoolError

        if debug:
            import traceback

            # the chain holds the engine's raw output, which may echo a credential
            err.write(_redacted("".join(traceback.format_exception(exc))))
        if isinstance(exc, GpupoolError):
            err.write(_redacted(f"error: {exc}\n"))
            return exc.exit_code
        err.write(
            _redacted(f"error: internal error: {type(exc).__name__}: {exc}\n")
            + "This is a bug in gpupool; rerun with --debug and report the traceback.\n"
        )
        return EXIT_ERROR


def _redacted(text: str) -> str:
    """Return ``text`` without credentials (secret-looking variables, kubeconfig tokens)."""
    from gpupool.engine.failures import scrub
    from gpupool.engine.pulumi import secret_values

    return scrub(text, secret_values())


def main() -> None:
    """Console-script entry point."""
    code = run()
    with contextlib.suppress(BrokenPipeError):
        sys.stdout.flush()
    sys.exit(code)
