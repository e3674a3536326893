"""The ``gpupool`` command line: parse flags, call one use case, map the result to an exit code.

This module owns argument parsing, where output goes (results on stdout; diagnostics, progress and
errors on stderr) and the exit codes of SPEC section 5. It holds no logic of its own and imports
each command's machinery only when that command runs, so ``gpupool --help`` stays fast.

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

if TYPE_CHECKING:
    from gpupool.engine.results import EngineResult, ProgressEvent
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
    from gpupool import report_validate
    from gpupool.spec.validate import validate_file

    results = [validate_file(Path(f), f) for f in args.files]
    out = report_validate.render(results, args.format)
    if args.format == "text":
        sys.stderr.write(out.diagnostics)
    sys.stdout.write(out.result)
    return EXIT_OK if all(r.valid for r in results) else EXIT_ERROR


def _cmd_schema(args: argparse.Namespace) -> int:
    from gpupool.resources import schema_path

    sys.stdout.write(schema_path().read_text(encoding="utf-8"))
    return EXIT_OK


def _cmd_catalog(args: argparse.Namespace) -> int:
    from gpupool import catalog
    from gpupool.catalog import report
    from gpupool.errors import InputError

    if args.what == "gpus":
        gpus = catalog.gpus()
        if args.gpu:
            hit = catalog.gpu(args.gpu)
            if hit is None:
                close = ", ".join(catalog.closest(args.gpu, [g.name for g in gpus]))
                raise InputError(f"unknown GPU model '{args.gpu}'; closest: {close}")
            gpus = (hit,)
        sys.stdout.write(report.format_gpus(gpus, args.format))
        return EXIT_OK
    if args.gpu and catalog.gpu(args.gpu) is None:
        close = ", ".join(catalog.closest(args.gpu, [g.name for g in catalog.gpus()]))
        raise InputError(f"unknown GPU model '{args.gpu}'; closest: {close}")
    sys.stdout.write(report.format_instances(catalog.instances(args.cloud, args.gpu), args.format))
    return EXIT_OK


def _cmd_node_inspect(args: argparse.Namespace) -> int:
    import json

    from gpupool import node

    report = node.inspect()
    if args.format == "json":
        sys.stdout.write(json.dumps(report.to_json(), indent=2, sort_keys=True) + "\n")
    else:
        sys.stdout.write(node.format_text(report))
    return EXIT_OK


def _valid_stack(file: str) -> tuple[Path, Stack] | None:
    """Validate a stack file; print its diagnostics on stderr; return it when valid."""
    from gpupool import report_validate
    from gpupool.spec.validate import validate_file

    path = Path(file)
    checked = validate_file(path, file)
    out = report_validate.render([checked], "text")
    sys.stderr.write(out.diagnostics + ("" if checked.stack else out.result))
    return (path, checked.stack) if checked.stack is not None else None


def _cmd_plan(args: argparse.Namespace) -> int:
    from gpupool import plan, record, report_validate
    from gpupool.graph import build
    from gpupool.report import plan_text

    valid = _valid_stack(args.file)
    if valid is None:
        return EXIT_ERROR
    path, stack = valid
    try:
        base = record.load_base(path, stack.name, args.base)
    except record.InvalidBaseError as exc:
        sys.stderr.write(report_validate.render([exc.result], "text").diagnostics)
        raise
    result = plan.make_plan(base, build(stack), stack)
    out = plan_text.render(result, args.format)
    sys.stderr.write(out.notes)
    sys.stdout.write(out.result)
    return EXIT_CHANGES if args.detailed_exitcode and result.has_changes else EXIT_OK


def _cmd_render(args: argparse.Namespace) -> int:
    from gpupool import render
    from gpupool.graph import build

    valid = _valid_stack(args.file)
    if valid is None:
        return EXIT_ERROR
    path, stack = valid
    out_dir = Path(args.out) if args.out else render.default_out_dir(path, stack)
    result = render.render(stack, build(stack), out_dir)
    sys.stdout.write(render.report(result, args.format))
    return EXIT_OK


def _progress(event: ProgressEvent) -> None:
    """Print one engine progress event on stderr (resource by resource, with elapsed time)."""
    if event.kind == "summary":
        return
    name = event.urn.rsplit("::", 1)[-1] if event.urn else ""
    if event.kind == "resource-start":
        line = f"  {event.op:<10} {event.type} {name} ..."
    elif event.kind == "resource-done":
        line = f"  {event.op:<10} {event.type} {name} done"
    elif event.kind == "resource-failed":
        line = f"  failed     {event.type} {name}: {event.message}"
    elif event.severity in ("error", "warning"):
        line = f"  {event.severity}: {event.message.strip()}"
    else:
        return
    sys.stderr.write(f"[{event.elapsed_s:7.1f}s]{line}\n")


def _confirm(question: str) -> bool:
    """Ask a yes/no question on the terminal; refuse when there is none."""
    from gpupool.errors import InputError

    if not sys.stdin.isatty():
        raise InputError(f"{question} needs confirmation and there is no terminal; pass --yes")
    sys.stderr.write(f"{question} Only 'yes' will be accepted: ")
    sys.stderr.flush()
    return sys.stdin.readline().strip() == "yes"


def _cmd_preview(args: argparse.Namespace) -> int:
    from gpupool import ops
    from gpupool.report import plan_text

    valid = _valid_stack(args.file)
    if valid is None:
        return EXIT_ERROR
    result = ops.preview(*valid, _progress)
    out = plan_text.render(result, args.format)
    sys.stderr.write(out.notes)
    sys.stdout.write(out.result)
    return EXIT_CHANGES if args.detailed_exitcode and result.has_changes else EXIT_OK


def _engine_summary(verb: str, result: EngineResult) -> str:
    counts = ", ".join(f"{n} {op}" for op, n in sorted(result.summary.items()) if n)
    return f"{verb} complete: {counts or 'nothing to do'}.\n"


def _cmd_up(args: argparse.Namespace) -> int:
    from gpupool import ops
    from gpupool.report import plan_text

    valid = _valid_stack(args.file)
    if valid is None:
        return EXIT_ERROR
    path, stack = valid
    if not args.yes:
        shown = ops.preview(path, stack, _progress)
        sys.stdout.write(plan_text.render(shown, "text").result)
        sys.stdout.flush()
        if not shown.has_changes:
            return EXIT_OK
        if not _confirm(f"Apply these changes to stack {stack.name}?"):
            sys.stderr.write("Apply cancelled.\n")
            return EXIT_ERROR
    result = ops.up(path, stack, _progress)
    sys.stdout.write(_engine_summary("Apply", result))
    return EXIT_OK


def _cmd_destroy(args: argparse.Namespace) -> int:
    from gpupool import ops

    valid = _valid_stack(args.file)
    if valid is None:
        return EXIT_ERROR
    path, stack = valid
    if not args.yes and not _confirm(
        f"Destroy every resource of stack {stack.name}? GPU nodes and their workloads go away."
    ):
        sys.stderr.write("Destroy cancelled.\n")
        return EXIT_ERROR
    result = ops.destroy(path, stack, _progress)
    sys.stdout.write(_engine_summary("Destroy", result))
    return EXIT_OK


def _cmd_drift(args: argparse.Namespace) -> int:
    from gpupool import ops
    from gpupool.drift import report

    require = frozenset(x for x in (args.require or "").split(",") if x)
    unknown = require - {"cloud", "cluster", "node"}
    if unknown:
        raise _UsageError(
            f"gpupool drift: --require takes cloud, cluster, node; not {sorted(unknown)}"
        )
    valid = _valid_stack(args.file)
    if valid is None:
        return EXIT_ERROR
    reports = Path(args.node_reports) if args.node_reports else None
    result = ops.drift(*valid, reports, require, _progress)
    sys.stdout.write(report.render(result, args.format))
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

    p = sub.add_parser("catalog", help="list known GPUs or instance types with prices")
    p.add_argument("what", choices=("gpus", "instances"))
    p.add_argument("--cloud", choices=("aws", "gcp", "azure", "volcengine"), help="one cloud")
    p.add_argument("--gpu", metavar="MODEL", help="only this GPU model (aliases accepted)")
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
