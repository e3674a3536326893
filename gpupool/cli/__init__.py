"""The ``gpupool`` command line: parse flags, run one command, map the result to an exit code.

The package owns argument parsing, where output goes (results on stdout; diagnostics, progress
and errors on stderr; with ``--format json`` exactly one JSON document on stdout, the error
document when the command fails), the one filter everything written passes first, whether a
stream gets colour, the prompts of ``up`` and ``destroy``, shell completion scripts and the exit
codes (docs/commands.md, Exit codes). Its parts:

- ``parser``: the table of commands and the parser; ``commands/<name>.py``: one command each,
  its help page, its arguments and its run, which calls its use case (``gpupool.usecases``) and
  hands the result to its view (``gpupool.views``); nothing else happens there;
- ``options``: the options several commands share; ``types``: the flag value converters;
- ``console``: the streams, the output filter, colour and prompts; ``steps``: what several
  commands do (read the stack, show a plan, read the workload); ``exits``: the exit codes;
- here: ``run`` (one command, never raising) and ``main`` (the console script).

Each command's machinery, and the completion library, is imported only when that command runs,
so ``gpupool --help`` stays fast.

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
from collections.abc import Callable, Sequence
from typing import TextIO

from gpupool import __version__
from gpupool.cli.console import Console, wants_colour
from gpupool.cli.exits import (
    EXIT_CHANGES,
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    CancelledError,
    InvalidStackError,
    InvalidWorkloadError,
    UsageError,
)
from gpupool.cli.parser import build_parser, command_in

__all__ = ["EXIT_CHANGES", "EXIT_ERROR", "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_USAGE",
           "build_parser", "main", "run"]

Handler = Callable[[argparse.Namespace, Console], int]


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
    no_color = "--no-color" in words
    console = Console(fmt, wants_colour(sys.stdout, no_color), wants_colour(err, no_color))

    def fail(exc: BaseException, message: str, code: int, kind: str = "") -> int:
        """Say what went wrong: one line on stderr, and the error document for JSON."""
        text = console.safe(message)
        err.write(_colour_messages(text) if console.colour_err else text)
        if fmt == "json":
            from gpupool.views.errors import error_document

            line = text.strip().removeprefix("error: ").splitlines()[0]
            diagnostics, differences = _error_lists(exc)
            with contextlib.suppress(OSError):  # stdout itself may be what failed
                console.out(error_document(kind or _kind(exc), line, code, diagnostics,
                                           differences), fmt="json")
        return code

    try:
        parser = build_parser(only=command_in(words))
        args = parser.parse_args(words)
        debug = debug or args.debug
        handler: Handler | None = getattr(args, "handler", None)
        if handler is None:
            parser.print_help(err)
            return EXIT_USAGE
        return handler(args, console)
    except SystemExit as exc:  # --help and --version end this way
        return exc.code if isinstance(exc.code, int) else EXIT_OK
    except UsageError as exc:
        return fail(exc, f"{exc}\nRun 'gpupool --help' for usage.\n", EXIT_USAGE)
    except CancelledError as exc:
        return fail(exc, f"{exc}\n", EXIT_ERROR)
    except InvalidStackError as exc:  # its diagnostics and verdict are on stderr already
        return fail(exc, f"error: {exc}\n" if fmt == "json" else "", EXIT_ERROR)
    except InvalidWorkloadError as exc:  # its diagnostics are on stderr already
        return fail(exc, f"error: {exc}\n", EXIT_ERROR)
    except KeyboardInterrupt as exc:
        return fail(exc, "gpupool: interrupted\n", EXIT_INTERRUPTED, "interrupted")
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:
        return fail(exc, *_unexpected(exc, err, console, debug))


def _unexpected(exc: Exception, err: TextIO, console: Console,
                debug: bool) -> tuple[str, int, str]:
    """Return the line, exit code and kind of an error the command did not expect to end it.

    With ``--debug`` the traceback goes to ``err`` first (scrubbed: the chain holds the
    engine's raw output, which may echo a credential).
    """
    from gpupool.catalog import OverlayError
    from gpupool.errors import GpupoolError

    if debug:
        import traceback

        err.write(console.safe("".join(traceback.format_exception(exc))))
    if isinstance(exc, GpupoolError):
        return f"error: {exc}\n", exc.exit_code, ""
    if isinstance(exc, OverlayError):  # the catalog raises no gpupool error: it imports none
        return f"error: {exc}\n", EXIT_ERROR, "input"
    if isinstance(exc, OSError) and exc.errno in _WRITE_FAILURES:  # a full disk, not a bug
        return f"error: a write failed: {exc.strerror or exc}\n", EXIT_ERROR, "input"
    return (f"error: internal error: {type(exc).__name__}: {exc}\n"
            "This is a bug in gpupool; rerun with --debug and report the traceback.\n",
            EXIT_ERROR, "internal")


def _error_lists(exc: BaseException) -> tuple[list[dict[str, object]], list[str]]:
    """Return the diagnostics and differences an error carries for its JSON document.

    An invalid stack or base carries the file's diagnostics, a plan mismatch its differences.
    """
    diagnostics = getattr(exc, "diagnostics", None)  # InvalidStackError
    result = getattr(exc, "result", None)  # InvalidBaseError: the base file's validation
    if diagnostics is None and result is not None:
        diagnostics = [d.to_json() for d in result.diagnostics]
    return list(diagnostics or []), list(getattr(exc, "differences", ()))


def _colour_messages(text: str) -> str:
    from gpupool.views import colour

    return colour.messages(text)


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
