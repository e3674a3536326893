"""The options several commands share, each defined once, and the parser class they go on.

``Parser`` turns argparse's usage errors into ``UsageError`` (exit 64); ``common`` is the parent
of every command's parser; ``HelpPage`` lays out a command's help page.

A command's module calls these in the order its usage line shows them. The simulation knobs
(``knob``) are named by their field of ``gpupool.simulate.engine.Settings``: the flag's value
lands under that name, and ``simulation_flags`` hands the given ones to the use case, which
fills the rest from the stack's ``simulation`` block, else the defaults
(``gpupool.usecases.simulate.resolve``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import NoReturn

from gpupool.cli import types
from gpupool.cli.exits import UsageError

#: The workload formats ``--workload-format`` takes: ``gpupool.simulate.workload.FORMATS``
#: (tests/cli/test_cli_package.py holds them equal; the reader is not imported to build a parser).
WORKLOAD_FORMATS = ("csv", "jsonl", "openb")


class Parser(argparse.ArgumentParser):
    """An ArgumentParser that reports usage errors with exit code 64 instead of 2."""

    def error(self, message: str) -> NoReturn:
        """Raise the usage error ``message``, prefixed with the command (``gpupool plan: ...``)."""
        raise UsageError(f"{self.prog}: {message}")


class HelpPage(argparse.HelpFormatter):
    """A command's help page: its description wrapped to the terminal, as the options are.

    The examples (the epilog, which starts ``examples:``) keep their lines as written.
    """

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith("examples:"):
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


def common() -> argparse.ArgumentParser:
    """Return the parent of every command's parser: ``--no-color`` after the command too."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("--no-color", action="store_true", default=argparse.SUPPRESS,
                        help=argparse.SUPPRESS)
    return parent


def stack_file(p: argparse.ArgumentParser) -> None:
    """Add the stack file argument and ``--quiet`` (a command reading one prints its warnings)."""
    p.add_argument("file", metavar="FILE", help="stack file")
    quiet(p)


def quiet(p: argparse.ArgumentParser) -> None:
    """Add ``--quiet``, for every command that prints a stack file's diagnostics."""
    p.add_argument("-q", "--quiet", action="store_true",
                   help="leave the stack file's warnings and advice out (errors are still "
                   "shown; exit codes do not change)")


def fmt(p: argparse.ArgumentParser, *extra: str) -> None:
    """``--format``: text and json, and the command's ``extra`` formats."""
    p.add_argument(
        "--format",
        choices=("text", "json", *extra),
        default="text",
        help="output format (default: text)",
    )


def base(p: argparse.ArgumentParser, text: str) -> None:
    """Add ``--base FILE|GIT-REF``: what the stack is compared with (``text`` says how)."""
    p.add_argument("--base", metavar="FILE|GIT-REF", help=text)


def detailed_exitcode(p: argparse.ArgumentParser) -> None:
    """``--detailed-exitcode``: exit 2 when there are changes."""
    p.add_argument(
        "--detailed-exitcode",
        action="store_true",
        help="exit 2 when there are changes, 0 when none, 1 on error",
    )


def refresh(p: argparse.ArgumentParser) -> None:
    """``--refresh``: read the cloud back before planning."""
    p.add_argument(
        "--refresh",
        action="store_true",
        help="read every resource back from the cloud first, then plan against what is "
        "there (changes made outside are undone)",
    )


def workload(p: argparse.ArgumentParser, text: str) -> None:
    """``--workload FILE`` (``text`` says what is done with it) and ``--workload-format``."""
    p.add_argument("--workload", metavar="FILE", default=None, help=text)
    p.add_argument("--workload-format", choices=WORKLOAD_FORMATS, default=None,
                   help="the workload file's format (default: from its extension)")


def requests(p: argparse.ArgumentParser, text: str) -> None:
    """Add ``--requests [SERVICE=]FILE``, repeatable (``text``: what is done with the traces)."""
    p.add_argument("--requests", action="append", default=None, metavar="[SERVICE=]FILE",
                   help=f"{text}: a rate series FILE, or SERVICE=FILE for a request log "
                   "(docs/workload.md, Request traces); repeatable; default: the stack's "
                   "simulation.requests")


@dataclass(frozen=True)
class Knob:
    """One simulation setting's flag: its name, value type, metavar and help."""

    flag: str
    type: Callable[[str], object]
    metavar: str | None
    help: str


#: The simulation settings a flag may give, by their ``Settings`` field name.
KNOBS: Mapping[str, Knob] = {
    "seed": Knob(
        "--seed", types.whole(0, 2**32 - 1), None,
        "seed of the spot interruptions and of --generate (0 to 4294967295; default: the "
        "stack's simulation.seed, else 0); the same seed gives the same output"),
    "spot_interruptions_per_hour": Knob(
        "--spot-interruptions-per-hour", types.at_most(3600, "a rate"), "RATE",
        "interruptions per spot node and hour (default: the stack's "
        "simulation.spotInterruptionsPerHour, else 0)"),
    "spot_shortage": Knob(
        "--spot-shortage", types.chance, "CHANCE",
        "the chance, 0 to 1, that a spot node asked for is one the cloud cannot fill (default: "
        "the stack's simulation.spotShortage, else 0); the autoscaler gives up after 15 "
        "minutes and backs the group off"),
    "scale_up_seconds": Knob(
        "--scale-up-seconds", types.at_most(86400, "seconds"), "SECONDS",
        "from a scale-up to a ready node (default 300, the cluster-autoscaler FAQ's usual 5 "
        "minutes)"),
}


def knob(p: argparse.ArgumentParser, name: str) -> None:
    """Add the flag of the simulation setting ``name`` (a ``Settings`` field, ``KNOBS``)."""
    k = KNOBS[name]
    p.add_argument(k.flag, dest=name, type=k.type, default=None, metavar=k.metavar,
                   help=k.help)


def simulation_flags(args: argparse.Namespace) -> dict[str, object]:
    """Return the simulation settings the command's flags gave, by field name.

    A command without a knob's flag gives none of it; a flag not given gives None, and the
    setting comes from the stack's ``simulation`` block or its default.
    """
    given = vars(args)
    return {name: given[name] for name in KNOBS if given.get(name) is not None}
