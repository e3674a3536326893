"""The ``gpupool`` command line: parse flags, call one use case, map the result to an exit code.

This module owns argument parsing, where output goes (results on stdout; diagnostics, progress and
errors on stderr; with ``--format json`` exactly one JSON document on stdout, the error document
when the command fails), the one filter everything written passes first (``_safe``: secrets
scrubbed, control characters and workflow commands escaped), whether a stream gets colour (a
terminal, no ``NO_COLOR``, no ``--no-color``), the terminal prompts of ``up`` and ``destroy``,
shell completion scripts and the exit codes (docs/commands.md, Exit codes). Each command calls
its use case (``gpupool.usecases``) and hands the result to its view (``gpupool.views``); nothing
else happens here. Each command's
machinery, and the completion library, is imported only when that command runs, so
``gpupool --help`` stays fast.

Exit codes: 0 ok / no changes, 1 error, 2 changes or drift, 64 usage, 130 interrupted.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import errno
import gc
import os
import re
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TextIO

from gpupool import __version__

if TYPE_CHECKING:
    from gpupool.engine.results import ProgressEvent
    from gpupool.model import Stack
    from gpupool.plan import PlanResult
    from gpupool.simulate.jobs import Workload
    from gpupool.spec.diagnostics import Diagnostic
    from gpupool.spec.validate import ValidateResult
    from gpupool.usecases.simulate import NamedWorkload

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_CHANGES = 2
EXIT_USAGE = 64
EXIT_INTERRUPTED = 130

Handler = Callable[[argparse.Namespace], int]


class _UsageError(Exception):
    """Bad flags or arguments."""


class _InvalidWorkloadError(Exception):
    """The workload file has errors, printed on stderr; ``diagnostics`` holds them as JSON."""

    def __init__(self, message: str, diagnostics: list[dict[str, object]]) -> None:
        super().__init__(message)
        self.diagnostics = diagnostics


class _CancelledError(Exception):
    """The user did not confirm (``Apply cancelled.``)."""


class _InvalidStackError(Exception):
    """The stack file has errors, printed on stderr; ``diagnostics`` holds them as JSON."""

    def __init__(self, message: str, diagnostics: list[dict[str, object]]) -> None:
        super().__init__(message)
        self.diagnostics = diagnostics


@dataclass(frozen=True)
class _Console:
    """Where text goes, and whether each stream gets colour."""

    colour_out: bool = False
    colour_err: bool = False

    def out(self, text: str, *, plan: bool = False) -> None:
        """Write a result on stdout (a plan's symbols coloured when ``plan`` and wanted)."""
        if self.colour_out and plan:
            from gpupool.views import colour

            text = colour.plan(_safe(text))
        else:
            text = _safe(text, _Run.fmt)
        sys.stdout.write(text)

    def err(self, text: str) -> None:
        """Write diagnostics, notes or progress on stderr."""
        text = _safe(text)
        if self.colour_err and text:
            from gpupool.views import colour

            text = colour.messages(text)
        sys.stderr.write(text)


def _wants_colour(stream: TextIO, disabled: bool) -> bool:
    """Colour only a terminal, and never with ``--no-color`` or a non-empty ``NO_COLOR``.

    https://no-color.org: "when present and not an empty string, [NO_COLOR] prevents the
    addition of ANSI color"; ``TERM=dumb`` terminals cannot show it either.
    """
    if disabled or os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty is not None and isatty())
    except ValueError:  # a closed stream
        return False


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


def _console(args: argparse.Namespace) -> _Console:
    console: _Console = args.console
    return console


def _cmd_validate(args: argparse.Namespace) -> int:
    from gpupool.usecases.validate import validate
    from gpupool.views import validate as view

    results = [_shown(args, r) for r in validate(args.files)]
    out = view.render(results, args.format)
    if args.format == "text":
        _console(args).err(out.notes)
    _out(out.result)
    return EXIT_OK if all(r.valid for r in results) else EXIT_ERROR


def _cmd_init(args: argparse.Namespace) -> int:
    from gpupool.usecases import init
    from gpupool.views import init as view

    starter = init.init(Path(args.file), args.cloud, args.gpu)
    if args.format == "json":
        _out(view.written_json(starter, args.file))
    else:
        _out(view.written(starter, args.file))
    return EXIT_OK


def _cmd_schema(args: argparse.Namespace) -> int:
    from gpupool.usecases.schema import schema_reference, schema_text

    if args.markdown:
        _out(schema_reference(), "markdown")
    else:
        _out(schema_text(), "json")
    return EXIT_OK


def _cmd_catalog(args: argparse.Namespace) -> int:
    from gpupool.usecases import catalog
    from gpupool.views import catalog as view

    if args.what == "gpus":
        _out(view.format_gpus(catalog.gpus(args.gpu), args.format))
    elif args.what == "regions":
        _out(view.format_regions(catalog.regions(args.cloud), args.format))
    elif args.what == "refresh":
        _out(view.format_refreshed(catalog.refresh(args.cloud, args.region), args.format))
    else:
        found = catalog.instances(args.cloud, args.gpu)
        _out(view.format_instances(found, args.format))
    return EXIT_OK


def _cmd_node_inspect(args: argparse.Namespace) -> int:
    from gpupool.usecases import node
    from gpupool.views import node as view

    _out(view.render(node.inspect(), args.format))
    return EXIT_OK


def _cmd_completion(args: argparse.Namespace) -> int:
    import shtab  # only here: the completion library never slows the other commands

    parser = build_parser()
    _complete_paths(parser, shtab.FILE, shtab.DIRECTORY)
    script = shtab.complete(parser, shell=args.shell)
    sys.stdout.write(script if script.endswith("\n") else script + "\n")
    return EXIT_OK


def _complete_paths(parser: argparse.ArgumentParser, files: object, dirs: object) -> None:
    """Mark the arguments that name files or directories, for the completion script."""
    for action in parser._actions:
        if action.metavar in ("FILE", "PLAN.json", "FILE|GIT-REF"):
            action.complete = files  # type: ignore[attr-defined]
        elif action.metavar == "DIR":
            action.complete = dirs  # type: ignore[attr-defined]
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                _complete_paths(sub, files, dirs)


def _shown(args: argparse.Namespace, result: ValidateResult) -> ValidateResult:
    """Return what is shown of a stack file's validation: its errors alone under ``--quiet``.

    The one place ``--quiet`` acts (``_quiet``), before any view renders the diagnostics; it
    changes no exit code.
    """
    return result.quieted() if getattr(args, "quiet", False) else result


def _stack(args: argparse.Namespace) -> Stack:
    """Read and validate the stack file; print its diagnostics on stderr; return it when valid.

    Raises:
        _InvalidStackError: the file has errors (their diagnostics ride on it for JSON).

    """
    stack, _ = _checked_stack(args)
    return stack


def _checked_stack(args: argparse.Namespace) -> tuple[Stack, tuple[Diagnostic, ...]]:
    """Return ``_stack``'s stack with the file's diagnostics (its warnings and advice)."""
    checked = _checked(args)
    assert checked.stack is not None  # _checked raises for an invalid file
    return checked.stack, tuple(checked.diagnostics)


def _checked(args: argparse.Namespace) -> ValidateResult:
    """``_stack``'s validation result: the valid stack, its diagnostics and acknowledged ones."""
    from gpupool.usecases.validate import load_stack
    from gpupool.views.validate import stack_diagnostics

    checked = _shown(args, load_stack(args.file))
    _console(args).err(stack_diagnostics(checked))
    if checked.stack is None:
        errors = sum(1 for d in checked.diagnostics if d.is_error)
        raise _InvalidStackError(
            f"{args.file} is invalid ({errors} error{'s' * (errors != 1)}); "
            f"`gpupool validate {args.file}` lists them",
            [d.to_json() for d in checked.diagnostics],
        )
    return checked


def _cmd_plan(args: argparse.Namespace) -> int:
    from gpupool.usecases import plan
    from gpupool.usecases.base import InvalidBaseError
    from gpupool.views import validate as validate_view

    checked = _checked(args)
    stack = checked.stack
    assert stack is not None
    try:
        result = plan.plan(Path(args.file), stack, args.base, force_base=args.force_base,
                           diagnostics=tuple(checked.diagnostics), shown_as=args.file,
                           acknowledged=checked.acknowledged)
    except InvalidBaseError as exc:
        _console(args).err(validate_view.render([_shown(args, exc.result)], "text").notes)
        raise
    named = None if args.no_simulation or args.summary else _named_workload(args, stack)
    if named is None:
        _show_plan(args, result)
    else:
        _show_plan_with_simulation(args, stack, result, named)
    return EXIT_CHANGES if args.detailed_exitcode and result.has_changes else EXIT_OK


def _named_workload(args: argparse.Namespace, stack: Stack) -> NamedWorkload | None:
    """Return where the workload is: ``--workload``, else the stack's ``simulation`` block."""
    from gpupool.usecases.simulate import named_workload

    return named_workload(
        Path(args.file), stack, path=args.workload, fmt=args.workload_format,
        seed=getattr(args, "seed", None),
        spot_interruptions_per_hour=getattr(args, "spot_interruptions_per_hour", None),
        spot_shortage=getattr(args, "spot_shortage", None),
    )


def _read_workload(args: argparse.Namespace, stack: Stack, named: NamedWorkload) -> Workload:
    """Read the workload ``named`` (``_named_workload``) and check it against the stack.

    Its problems go to stderr.

    Raises:
        _InvalidWorkloadError: the workload has rows the stack cannot run.

    """
    from gpupool.errors import InputError
    from gpupool.simulate import workload as reader
    from gpupool.spec import diagnostics

    path, fmt = named.path, named.format
    if args.workload is None and not path.exists():
        raise InputError(
            f"{args.file}: simulation.workload names {path}, which does not exist; fix the path"
            + (", or leave the section out with --no-simulation" if args.command == "plan"
               else ", or give --workload FILE")
        )
    workload = reader.read_workload(path, fmt)
    problems = diagnostics.sort(reader.check_workload(
        stack, workload, replay=getattr(args, "saturate", None) is None))
    _console(args).err("".join(diagnostics.format_text(d) + "\n" for d in problems))
    errors = sum(1 for d in problems if d.is_error)
    if errors:
        raise _InvalidWorkloadError(
            f"{path} does not fit the stack ({errors} error{'s' * (errors != 1)}); "
            "nothing was simulated",
            [d.to_json() for d in problems],
        )
    return workload


def _show_plan_with_simulation(args: argparse.Namespace, stack: Stack,
                               result: PlanResult, named: NamedWorkload) -> None:
    """Write the plan, then the simulated section (``plan --workload`` or ``simulation``).

    Base and head where the plan's base is a stack file or a git ref; the head alone against
    the applied record. The base replays the head's workload (its own ``simulation`` block is
    not read), so the two columns differ only by the stacks.
    """
    from gpupool.usecases import simulate as usecase
    from gpupool.views import plan as plan_view
    from gpupool.views import simulate as view

    workload = _read_workload(args, stack, named)
    sim = usecase.simulate(Path(args.file), stack, workload, base=args.base,
                           settings=named.settings())
    planned = plan_view.render(result, args.format)
    out = view.with_plan(planned.result, args.format, sim.head, sim.base)
    console = _console(args)
    console.err(planned.notes)
    console.out(out, plan=args.format == "text")
    sys.stdout.flush()


def _show_plan(args: argparse.Namespace, result: PlanResult, *, stderr: bool = False) -> None:
    """Write a plan in the command's format (on stderr when stdout is kept for a document)."""
    from gpupool.views import plan as view

    fmt = "text" if stderr else args.format
    out = view.render(result, fmt, summary=getattr(args, "summary", False))
    console = _console(args)
    console.err(out.notes)
    if stderr:
        console.err(out.result)
    else:
        console.out(out.result, plan=fmt == "text")
    sys.stdout.flush()


def _cmd_simulate(args: argparse.Namespace) -> int:
    from gpupool.usecases import simulate as usecase
    from gpupool.usecases.base import InvalidBaseError
    from gpupool.views import simulate as view
    from gpupool.views import validate as validate_view

    stack = _stack(args)
    console = _console(args)
    if args.generate is not None:
        if args.workload is not None:
            raise _UsageError("gpupool simulate: give --workload FILE or --generate, not both")
        named, workload = usecase.generated(
            stack, jobs=args.generate, seed=args.seed,
            spot_interruptions_per_hour=args.spot_interruptions_per_hour,
            spot_shortage=args.spot_shortage)
    else:
        named = _named_workload(args, stack)
        if named is None:
            raise _UsageError(f"gpupool simulate: {args.file} names no workload; give --workload "
                              "FILE, --generate, or a simulation block in the stack "
                              "(docs/stack-file.md, simulation)")
        workload = _read_workload(args, stack, named)
    settings = named.settings(args.scale_up_seconds)

    def progress(name: str, done: int, total: int) -> None:
        console.err(f"simulating {name}: {done} of {total} jobs submitted\n")

    clock = _SimulatedClock(console)

    try:
        if args.saturate is not None:
            cap = usecase.capacity(Path(args.file), stack, workload, base=args.base,
                                   percent=args.saturate, seed=named.seed)
            out = view.render_capacity(cap.stack, cap.workload, cap.seed, cap.head, args.format,
                                       cap.base, cap.base_stack)
        else:
            result = usecase.simulate(Path(args.file), stack, workload, base=args.base,
                                      settings=settings, progress=progress, clock=clock)
            out = view.render(result.head, args.format, result.base)
    except InvalidBaseError as exc:
        console.err(validate_view.render([_shown(args, exc.result)], "text").notes)
        raise
    console.err(out.notes)
    console.out(out.result)
    return EXIT_OK


class _SimulatedClock:
    """Prints how far a long run has come in simulated time, at most every ``EVERY`` seconds.

    Nothing is printed in a run's first ``EVERY`` wall seconds, so short runs (and every test's
    output) stay as they were.
    """

    EVERY = 5.0

    def __init__(self, console: _Console) -> None:
        self.console = console
        self.last = time.monotonic()

    def __call__(self, name: str, seconds: float) -> None:
        now = time.monotonic()
        if now - self.last < self.EVERY:
            return
        self.last = now
        self.console.err(f"simulating {name}: {seconds / 3600:,.1f} simulated hours so far\n")


def _chance(text: str) -> float:
    value = _non_negative(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"must be a chance from 0 to 1, not {text}")
    return value


def _at_most(most: float, what: str) -> Callable[[str], float]:
    """Return a flag type: a finite number from 0 to ``most`` (docs/workload.md, Bounds)."""

    def read(text: str) -> float:
        value = _non_negative(text)
        if value > most:
            raise argparse.ArgumentTypeError(f"must be {what} from 0 to {most:,g}, not {text}")
        return value

    return read


def _generate(text: str) -> int:
    """Read ``--generate``'s count of jobs, saying where the stack file goes when it is not one."""
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"takes a number of jobs, not {text[:40]!r}; name the "
                                         "stack file before it: gpupool simulate FILE --generate")
    return _whole(1, 100_000)(text)


def _whole(low: int, high: int) -> Callable[[str], int]:
    """Return a flag type: a whole number from ``low`` to ``high``."""

    def read(text: str) -> int:
        digits = text.strip()
        if not (digits.lstrip("-").isascii() and digits.lstrip("-").isdigit()) or len(digits) > 20:
            raise argparse.ArgumentTypeError(f"must be a whole number from {low:,} to {high:,}, "
                                             f"not {text[:40]!r}")
        value = int(digits)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low:,} to {high:,}, not {value}")
        return value

    return read


def _non_negative(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, not {text}")
    return value


def _percent(text: str) -> float:
    value = _non_negative(text)
    if not 1 <= value <= 1000:
        raise argparse.ArgumentTypeError(f"must be a percent from 1 to 1000, not {text}")
    return value


def _cmd_render(args: argparse.Namespace) -> int:
    from gpupool.usecases import render
    from gpupool.views import render as view

    stack = _stack(args)
    result = render.render(Path(args.file), stack, args.out)
    _out(view.summary(result, args.format))
    return EXIT_OK


def _progress(console: _Console) -> Callable[[ProgressEvent], None]:
    """Return the engine's progress printer: one line on stderr per event worth showing."""
    from gpupool.views.engine import progress_line

    def show(event: ProgressEvent) -> None:
        line = progress_line(event)
        if line is not None:
            console.err(line)

    return show


def _confirm(console: _Console, question: str, what: str) -> bool:
    """Ask a yes/no question on the terminal; refuse when there is none.

    Args:
        console: where the question goes.
        question: the question, asked as it is.
        what: what needs the answer, for the refusal: ``"up of stack prod"``.

    """
    from gpupool.errors import InputError

    if not sys.stdin.isatty():
        raise InputError(f"{what} needs confirmation and there is no terminal to ask on; "
                         "pass --yes")
    console.err(f"{question} Only 'yes' will be accepted: ")
    sys.stderr.flush()
    return sys.stdin.readline().strip() == "yes"


def _cmd_preview(args: argparse.Namespace) -> int:
    from gpupool.usecases import engine

    stack, found = _checked_stack(args)
    result = engine.preview(Path(args.file), stack, _progress(_console(args)),
                            refresh=args.refresh)
    _show_plan(args, _noted(result, found, args.file))
    return EXIT_CHANGES if args.detailed_exitcode and result.has_changes else EXIT_OK


def _noted(result: PlanResult, found: Sequence[Diagnostic], file: str) -> PlanResult:
    """Return the engine's plan with the stack file's warnings and advice, as ``plan`` has them."""
    import dataclasses

    kept = tuple(d for d in found if not d.is_error)
    return dataclasses.replace(result, diagnostics=kept, stack_file=file)


def _cmd_up(args: argparse.Namespace) -> int:
    from gpupool.usecases import engine, expect
    from gpupool.views import engine as engine_view

    stack, found = _checked_stack(args)
    console = _console(args)
    reviewed = expect.load_reviewed(Path(args.expect), stack.name) if args.expect else None
    shown: list[PlanResult] = []

    def approve(preview: PlanResult) -> bool:
        """Show the plan about to be applied, hold it against the reviewed one, then ask."""
        preview = _noted(preview, found, args.file)
        shown.append(preview)
        asking = not args.yes and preview.has_changes
        if args.format == "text" or asking:  # a person about to answer reads it as text
            _show_plan(args, preview, stderr=args.format != "text")
        if reviewed is not None:
            try:
                expect.require_same(reviewed, preview)
            except expect.PlanMismatchError as exc:
                console.err(f"The engine's preview is not the reviewed plan {args.expect}:\n"
                            + "".join(f"  {line}\n" for line in exc.differences))
                raise
            console.err(f"note: the engine's preview is the reviewed plan {args.expect}\n")
        if not asking:
            return args.yes
        if not _confirm(console, f"Apply these changes to stack {stack.name}?",
                        f"up of stack {stack.name}"):
            raise _CancelledError("Apply cancelled.")
        return True

    result = engine.up(Path(args.file), stack, _progress(console), refresh=args.refresh,
                       approve=approve)
    if args.format == "json":  # result None: no changes, and nobody asked to apply anyway
        _out(engine_view.format_json("up", stack.name, result, shown[0]))
    elif result is not None:
        _out(engine_view.summary("Apply", result))
    return EXIT_OK


def _cmd_destroy(args: argparse.Namespace) -> int:
    from gpupool.usecases import engine
    from gpupool.views import engine as view

    stack = _stack(args)
    console = _console(args)

    def approve() -> bool:
        """Ask, once the engine is known to be able to run (the use case checked)."""
        question = (f"Destroy every resource of stack {stack.name}? GPU nodes and their "
                    "workloads go away.")
        if not _confirm(console, question, f"destroy of stack {stack.name}"):
            raise _CancelledError("Destroy cancelled.")
        return True

    result = engine.destroy(Path(args.file), stack, _progress(console),
                            approve=None if args.yes else approve)
    if result is None:  # approve says yes or raises, so this cannot be
        raise _CancelledError("Destroy cancelled.")
    if args.format == "json":
        _out(view.format_json("destroy", stack.name, result))
    else:
        _out(view.summary("Destroy", result))
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
    stack = _stack(args)
    console = _console(args)
    reports = Path(args.node_reports) if args.node_reports else None
    result = drift.drift(Path(args.file), stack, reports, require, _progress(console))
    _out(view.render(result, args.format))
    if result.status == "drift":
        return EXIT_CHANGES
    if result.status == "unknown":
        console.err("error: no drift source could be checked, so drift is unknown\n")
        return EXIT_ERROR
    return EXIT_OK


def _cmd_advise(args: argparse.Namespace) -> int:
    from gpupool.advise.prometheus import auth_from, environment
    from gpupool.secrets import secret_values
    from gpupool.usecases import advise
    from gpupool.views import advise as view

    if args.list_rules:
        return _cmd_advise_rules(args)
    if args.demo:
        return _cmd_advise_demo(args)
    if args.file is None or args.prometheus is None:
        raise _UsageError("gpupool advise: give a stack FILE and --prometheus URL (or --demo to "
                          "try it offline on a bundled example)")
    if args.write and args.in_place:
        raise _UsageError("gpupool advise: give --write FILE or --in-place, not both")
    stack = _stack(args)
    console = _console(args)
    auth = auth_from(
        environment(),
        token_file=Path(args.bearer_token_file) if args.bearer_token_file else None,
        basic_auth_file=Path(args.basic_auth_file) if args.basic_auth_file else None,
        ca_file=Path(args.ca_file) if args.ca_file else None,
    )
    # a secret read from a file is kept out of every message, as one from the environment is
    _Run.secrets = [*(_Run.secrets or secret_values()), *auth.secrets()]
    target = Path(args.file) if args.in_place else Path(args.write) if args.write else None
    named = _named_workload(args, stack) if args.workload else None  # advise reads no block
    replay = _read_workload(args, stack, named) if named is not None else None
    result = advise.advise(
        Path(args.file), stack, url=args.prometheus, since_seconds=args.since, auth=auth,
        write=target, end=args.until,
        export_workload=Path(args.export_workload) if args.export_workload else None,
        replay=replay,
        progress=lambda line: console.err(f"{line}...\n"),
    )
    _out(view.render(result, args.format))
    return EXIT_OK


def _advise_given(args: argparse.Namespace) -> list[str]:
    """Return the flags of a real server's run given: --demo and --list-rules take none."""
    return [flag for flag, value in (
        ("FILE", args.file), ("--prometheus", args.prometheus), ("--write", args.write),
        ("--in-place", args.in_place), ("--until", args.until), ("--workload", args.workload),
        ("--export-workload", args.export_workload), ("--ca-file", args.ca_file),
        ("--bearer-token-file", args.bearer_token_file),
        ("--basic-auth-file", args.basic_auth_file)) if value]


def _cmd_advise_rules(args: argparse.Namespace) -> int:
    from gpupool.advise.rules import RULES
    from gpupool.views import advise_rules as view

    given = _advise_given(args) + (["--demo"] if args.demo else [])
    if given:
        raise _UsageError(f"gpupool advise --list-rules prints the rules and reads nothing: "
                          f"drop {', '.join(given)}")
    _out(view.render(RULES, args.format))
    return EXIT_OK


def _cmd_advise_demo(args: argparse.Namespace) -> int:
    from gpupool.usecases import advise_demo
    from gpupool.views import advise as view

    given = _advise_given(args)
    if given:
        raise _UsageError(f"gpupool advise --demo advises its own bundled stack and server: "
                          f"drop {', '.join(given)}")
    console = _console(args)
    result = advise_demo.demo(args.since,
                              progress=lambda line: console.err(f"{line}...\n"))
    _out(view.render(result, args.format))
    return EXIT_OK


def _stack_file(p: argparse.ArgumentParser) -> None:
    """Add the stack file argument and ``--quiet`` (a command reading one prints its warnings)."""
    p.add_argument("file", metavar="FILE", help="stack file")
    _quiet(p)


def _quiet(p: argparse.ArgumentParser) -> None:
    """``--quiet``, for every command that prints a stack file's diagnostics (``_shown``)."""
    p.add_argument("-q", "--quiet", action="store_true",
                   help="leave the stack file's warnings and advice out (errors are still "
                   "shown; exit codes do not change)")


def _detailed_exitcode(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--detailed-exitcode",
        action="store_true",
        help="exit 2 when there are changes, 0 when none, 1 on error",
    )


def _refresh(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--refresh",
        action="store_true",
        help="read every resource back from the cloud first, then plan against what is "
        "there (changes made outside are undone)",
    )


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser for every command."""
    # the cloud names come from the plug-ins and the catalog, which ``--version`` never needs
    from gpupool import clouds
    from gpupool.advise import window
    from gpupool.catalog import INSTANCE_CLOUDS

    parser = _Parser(
        prog="gpupool",
        description="GPU pools as code: validate, plan, render and apply GPU node pools and "
        "GPU sharing from one YAML file.",
    )
    parser.add_argument("--version", action="version", version=f"gpupool {__version__}")
    parser.add_argument(
        "--debug", action="store_true", help="show tracebacks (also GPUPOOL_DEBUG=1)"
    )
    # --no-color is accepted before or after the command: the top level sets the default and
    # each command's copy only overrides it when given (SUPPRESS)
    parser.add_argument(
        "--no-color",
        action="store_true",
        help="no colours (also NO_COLOR=1; there are none when not a terminal)",
    )
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--no-color", action="store_true", default=argparse.SUPPRESS,
                        help=argparse.SUPPRESS)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    def command(name: str, text: str) -> argparse.ArgumentParser:
        made: argparse.ArgumentParser = sub.add_parser(name, help=text, parents=[common])
        return made

    p = command("validate", "check stack files against the schema and GPU facts")
    p.add_argument("files", nargs="+", metavar="FILE", help="stack files")
    _quiet(p)
    _formats(p)
    p.set_defaults(handler=_cmd_validate)

    p = command("plan", "offline plan: changes, capacity and cost (no engine)")
    _stack_file(p)
    p.add_argument(
        "--base",
        metavar="FILE|GIT-REF",
        help="compare with another stack file, or this file at a git ref "
        "(default: the last applied graph, else empty)",
    )
    p.add_argument(
        "--force-base",
        action="store_true",
        help="accept a --base whose metadata.name is another stack's",
    )
    p.add_argument("--workload", metavar="FILE", default=None,
                   help="also replay this workload on the stack (and on a --base file or git "
                   "ref) and add the simulated section (gpupool simulate); default: the "
                   "stack's simulation.workload")
    p.add_argument("--workload-format", choices=("csv", "jsonl", "openb"), default=None,
                   help="the workload file's format (default: from its extension)")
    p.add_argument("--no-simulation", action="store_true",
                   help="leave out the simulated section the stack's simulation block asks for")
    p.add_argument("--summary", action="store_true",
                   help="print only the summary: counts of changes, cost and its change, "
                   "warnings (no simulation is run)")
    _detailed_exitcode(p)
    _formats(p, "markdown")
    p.set_defaults(handler=_cmd_plan)

    p = command("simulate", "replay a workload on the stack's pools: waits, allocation, cost")
    _stack_file(p)
    p.add_argument("--workload", metavar="FILE", default=None,
                   help="the jobs to replay: CSV or JSON Lines (docs/workload.md); default: the "
                   "stack's simulation.workload")
    p.add_argument("--workload-format", choices=("csv", "jsonl", "openb"), default=None,
                   help="the workload file's format (default: from its extension)")
    p.add_argument("--generate", type=_generate, nargs="?", const=200, default=None,
                   metavar="JOBS", help="replay JOBS jobs (default 200) made up for the stack "
                   "instead of a file: its tenants on their pools, shapes its GPUs hold, a day "
                   "of arrivals; seeded by --seed")
    p.add_argument("--seed", type=_whole(0, 2**32 - 1), default=None,
                   help="seed of the spot interruptions and of --generate (0 to 4294967295; "
                   "default: the stack's simulation.seed, else 0); the same seed gives the same "
                   "output")
    p.add_argument(
        "--base",
        metavar="FILE|GIT-REF",
        help="replay the workload on another stack file, or this file at a git ref, too, "
        "and show each figure's change",
    )
    p.add_argument("--spot-interruptions-per-hour", type=_at_most(3600, "a rate"), default=None,
                   metavar="RATE", help="interruptions per spot node and hour (default: the "
                   "stack's simulation.spotInterruptionsPerHour, else 0)")
    p.add_argument("--spot-shortage", type=_chance, default=None, metavar="CHANCE",
                   help="the chance, 0 to 1, that a spot node asked for is one the cloud cannot "
                   "fill (default: the stack's simulation.spotShortage, else 0); the autoscaler "
                   "gives up after 15 minutes and backs the group off")
    p.add_argument("--saturate", type=_percent, default=None, metavar="PERCENT",
                   help="capacity mode: draw pods from the workload until their GPU requests "
                   "reach PERCENT of the pools' GPUs, none leaving, and show the allocated "
                   "share as they arrive (the FGD paper's method)")
    p.add_argument("--scale-up-seconds", type=_at_most(86400, "seconds"), default=None,
                   metavar="SECONDS",
                   help="from a scale-up to a ready node (default 300, the cluster-autoscaler "
                   "FAQ's usual 5 minutes)")
    _formats(p, "markdown")
    p.set_defaults(handler=_cmd_simulate)

    p = command("advise", "right-size the stack from what its GPUs did (reads Prometheus)")
    p.add_argument("file", metavar="FILE", nargs="?", help="stack file (not with --demo)")
    _quiet(p)
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
    p.add_argument("--workload", metavar="FILE", default=None,
                   help="replay this workload (gpupool simulate) before and after each edit; "
                   "an edit that lengthens a tenant's queue wait is dropped")
    p.add_argument("--workload-format", choices=("csv", "jsonl", "openb"), default=None,
                   help="the workload file's format (default: from its extension)")
    _formats(p, "markdown")
    p.set_defaults(handler=_cmd_advise)

    p = command("render", "write the stack's Pulumi program and manifests")
    _stack_file(p)
    p.add_argument(
        "--out",
        metavar="DIR",
        help="output directory (default: .gpupool/build/<stack>/ next to the stack file)",
    )
    _formats(p)
    p.set_defaults(handler=_cmd_render)

    p = command("preview", "the engine's preview (Pulumi Automation API)")
    _stack_file(p)
    _refresh(p)
    _detailed_exitcode(p)
    _formats(p, "markdown")
    p.set_defaults(handler=_cmd_preview)

    p = command("up", "apply the stack (shows the engine's preview first, asks unless --yes)")
    _stack_file(p)
    p.add_argument("--yes", action="store_true", help="apply the preview shown without asking")
    _refresh(p)
    p.add_argument(
        "--expect",
        metavar="PLAN.json",
        help="apply only if the engine's preview changes exactly the addresses, with the same "
        "actions, as this reviewed `gpupool plan --format json` document",
    )
    _formats(p)
    p.set_defaults(handler=_cmd_up)

    p = command("destroy", "remove every resource of the stack")
    _stack_file(p)
    p.add_argument("--yes", action="store_true", help="destroy without asking")
    _formats(p)
    p.set_defaults(handler=_cmd_destroy)

    p = command("drift", "compare declared, recorded and observed state (CI)")
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

    p = command("init", "write a commented starter stack for a cloud and a GPU (never overwrites)")
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
    _formats(p)
    p.set_defaults(handler=_cmd_init)

    p = command("schema", "print the stack JSON Schema")
    p.add_argument("--format", choices=("json",), default="json",
                   help="output format (the schema is JSON; accepted like every command's)")
    p.add_argument(
        "--markdown",
        action="store_true",
        help="print the field reference table of docs/stack-file.md, generated from the schema",
    )
    p.set_defaults(handler=_cmd_schema)

    p = command("catalog", "list GPUs, instance types with prices, or regions; refresh prices")
    p.add_argument("what", choices=("gpus", "instances", "regions", "refresh"))
    p.add_argument("--cloud", choices=INSTANCE_CLOUDS, help="one cloud")
    p.add_argument("--gpu", metavar="MODEL", help="only this GPU model (aliases accepted)")
    p.add_argument(
        "--region", metavar="R", help="refresh: the region to price (default: the catalog's)"
    )
    _formats(p)
    p.set_defaults(handler=_cmd_catalog)

    p = command("node", "this node's GPUs")
    node_sub = p.add_subparsers(dest="node_command", metavar="ACTION", parser_class=_Parser)
    node_sub.required = True  # "gpupool node" alone is a usage error naming the actions
    q = node_sub.add_parser(
        "inspect",
        help="inventory of the local GPUs through NVML (read only; JSON for drift)",
        parents=[common],
    )
    _formats(q)
    q.set_defaults(handler=_cmd_node_inspect)

    p = command("completion", "print a shell completion script (bash or zsh)")
    p.add_argument("shell", choices=("bash", "zsh"))
    p.set_defaults(handler=_cmd_completion)
    return parser


def _format_in(argv: Sequence[str]) -> str:
    """Return the ``--format`` value in ``argv`` (for errors before parsing finished)."""
    found = "text"
    for i, token in enumerate(argv):
        if token == "--format" and i + 1 < len(argv):
            found = argv[i + 1]
        elif token.startswith("--format="):
            found = token.split("=", 1)[1]
    return found


_WRITE_FAILURES = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})
"""Errors of a write the machine refused (full disk, quota, file too large, I/O): said in one
line as the system says them, never reported as a bug in gpupool."""


def _kind(exc: BaseException) -> str:
    """Name an error for scripts: its class, kebab-case, without ``Error`` (``stack-locked``)."""
    name = type(exc).__name__.lstrip("_")
    name = name[: -len("Error")] if name.endswith("Error") and name != "Error" else name
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", name).lower()


def run(argv: Sequence[str] | None = None, stderr: TextIO | None = None) -> int:
    """Run the command line and return its exit code (never raises, never exits)."""
    err = stderr or sys.stderr
    words = list(sys.argv[1:] if argv is None else argv)
    if words == ["--version"]:  # answered before the parser (and the catalog) is loaded
        sys.stdout.write(f"gpupool {__version__}\n")
        return EXIT_OK
    debug = os.environ.get("GPUPOOL_DEBUG") == "1"
    fmt = _format_in(words)
    _Run.fmt, _Run.secrets = fmt, None  # read again: this run may see other variables and files
    no_color = "--no-color" in words
    console = _Console(_wants_colour(sys.stdout, no_color), _wants_colour(err, no_color))

    def fail(exc: BaseException, message: str, code: int, kind: str = "") -> int:
        """Say what went wrong: one line on stderr, and the error document for JSON."""
        text = _safe(message)
        err.write(_colour_messages(text) if console.colour_err else text)
        if fmt == "json":
            from gpupool.views.errors import error_document

            line = text.strip().removeprefix("error: ").splitlines()[0]
            diagnostics, differences = _error_lists(exc)
            with contextlib.suppress(OSError):  # stdout itself may be what failed
                _out(error_document(kind or _kind(exc), line, code, diagnostics, differences),
                     "json")
        return code

    try:
        parser = build_parser()
        args = parser.parse_args(words)
        debug = debug or args.debug
        handler: Handler | None = getattr(args, "handler", None)
        if handler is None:
            parser.print_help(err)
            return EXIT_USAGE
        args.console = console
        return handler(args)
    except SystemExit as exc:  # --help and --version end this way
        return exc.code if isinstance(exc.code, int) else EXIT_OK
    except _UsageError as exc:
        return fail(exc, f"{exc}\nRun 'gpupool --help' for usage.\n", EXIT_USAGE)
    except _CancelledError as exc:
        return fail(exc, f"{exc}\n", EXIT_ERROR)
    except _InvalidStackError as exc:  # its diagnostics and verdict are on stderr already
        return fail(exc, f"error: {exc}\n" if fmt == "json" else "", EXIT_ERROR)
    except _InvalidWorkloadError as exc:  # its diagnostics are on stderr already
        return fail(exc, f"error: {exc}\n", EXIT_ERROR)
    except KeyboardInterrupt as exc:
        return fail(exc, "gpupool: interrupted\n", EXIT_INTERRUPTED, "interrupted")
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:
        from gpupool.catalog import OverlayError
        from gpupool.errors import GpupoolError

        if debug:
            import traceback

            # the chain holds the engine's raw output, which may echo a credential
            err.write(_safe("".join(traceback.format_exception(exc))))
        if isinstance(exc, GpupoolError):
            return fail(exc, f"error: {exc}\n", exc.exit_code)
        if isinstance(exc, OverlayError):  # the catalog raises no gpupool error: it imports none
            return fail(exc, f"error: {exc}\n", EXIT_ERROR, "input")
        if isinstance(exc, OSError) and exc.errno in _WRITE_FAILURES:  # a full disk, not a bug
            return fail(exc, f"error: a write failed: {exc.strerror or exc}\n", EXIT_ERROR,
                        "input")
        return fail(
            exc,
            f"error: internal error: {type(exc).__name__}: {exc}\n"
            "This is a bug in gpupool; rerun with --debug and report the traceback.\n",
            EXIT_ERROR,
            "internal",
        )


def _error_lists(exc: BaseException) -> tuple[list[dict[str, object]], list[str]]:
    """Return the diagnostics and differences an error carries for its JSON document.

    An invalid stack or base carries the file's diagnostics, a plan mismatch its differences.
    """
    diagnostics = getattr(exc, "diagnostics", None)  # _InvalidStackError
    result = getattr(exc, "result", None)  # InvalidBaseError: the base file's validation
    if diagnostics is None and result is not None:
        diagnostics = [d.to_json() for d in result.diagnostics]
    return list(diagnostics or []), list(getattr(exc, "differences", ()))


def _colour_messages(text: str) -> str:
    from gpupool.views import colour

    return colour.messages(text)


class _Run:
    """The ``--format`` and the secret values of the current run (read once, on first use)."""

    fmt: str = "text"
    secrets: list[str] | None = None


def _safe(text: str, fmt: str = "text") -> str:
    """Return ``text`` as it may be written: without secrets, with control characters escaped.

    Every byte gpupool writes passes here (before any colour): results in every format,
    diagnostics, progress, prompts and errors. JSON keeps its escapes (a JSON escape for each
    control character json leaves raw); text and markdown also lose what GitHub Actions would
    run as a workflow command.
    """
    from gpupool.escape import controls, terminal
    from gpupool.secrets import scrub, secret_values

    if _Run.secrets is None:
        _Run.secrets = secret_values()
    text = scrub(text, _Run.secrets)
    return controls(text, json=True) if fmt == "json" else terminal(text)


def _out(text: str, fmt: str | None = None) -> None:
    """Write a command's result on stdout (see ``_safe``); JSON under ``--format json``."""
    sys.stdout.write(_safe(text, fmt or _Run.fmt))


#: The cyclic collector's first-generation threshold for one command's process. gpupool builds
#: hundreds of thousands of small objects for a large stack (a 1,000-pool plan: 21,345 resources)
#: and keeps nearly all of them to the end; at CPython's default (700 allocations) the collector
#: walks them over and over, a third of such a run, and finds no cycle to free (peak memory is the
#: same with it off). A larger first generation keeps it for the rare real cycle.
GC_THRESHOLD = 100_000


def main() -> None:
    """Console-script entry point (the process is one command: see ``GC_THRESHOLD``).

    Once the command has finished, its output is flushed and, when no other thread is left, the
    exit handlers run and the process ends without the interpreter's shutdown, which would free
    every object the command built one by one (a 1,000-pool plan: about a million, 0.45 CPU s)
    for a process that is about to go anyway.
    """
    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])
    code = _flushed(run())
    run_exit_handlers = getattr(atexit, "_run_exitfuncs", None)
    if threading.active_count() == 1 and run_exit_handlers is not None:
        run_exit_handlers()
        os._exit(_flushed(code))
    sys.exit(code)


def _flushed(code: int) -> int:
    """Flush stdout and stderr; return ``code``, or 1 when the output could not be written.

    A reader that went away (a broken pipe) is not an error of the command; a full disk or any
    other write error is, and says so in one line where stderr still takes it.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):
            pass
        except OSError as exc:
            with contextlib.suppress(OSError, ValueError):
                reason = exc.strerror or exc
                sys.stderr.write(f"error: the output could not be written ({reason})\n")
                sys.stderr.flush()
            code = code or 1
    return code
