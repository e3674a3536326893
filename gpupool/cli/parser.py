"""The argument parser: the table of commands, the top level, one sub-parser per command.

``COMMANDS`` names each command's module (``gpupool.cli.commands``) and its one-line help, as
pip's table of commands does; a module is imported only when its parser is filled.

``build_parser()`` fills every command's parser (the completion script needs them all);
``build_parser(only=NAME)`` fills only that command's, so a run imports one command's module.
Every command's parser is still registered, by its table row, so ``gpupool --help`` and an
unknown command's error list them all. A usage error raises ``UsageError`` (exit 64), not
argparse's exit 2 (``options.Parser``).
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence
from typing import NamedTuple

from gpupool import __version__
from gpupool.cli.options import HelpPage, Parser, common

_EVERY = "*"


class Command(NamedTuple):
    """One row of the table: the module's dotted name and the help line ``gpupool --help`` shows."""

    module: str
    help: str


#: The commands in the order ``gpupool --help`` lists them.
COMMANDS: dict[str, Command] = {
    name: Command(f"gpupool.cli.commands.{name}", text)
    for name, text in (
        ("validate", "check stack files against the schema and GPU facts"),
        ("plan", "offline plan: changes, capacity and cost (no engine)"),
        ("simulate", "replay a workload on the stack's pools: waits, allocation, cost"),
        ("advise", "right-size the stack from what its GPUs did (reads Prometheus)"),
        ("render", "write the stack's Pulumi program and manifests"),
        ("preview", "the engine's preview (Pulumi Automation API)"),
        ("up", "apply the stack (shows the engine's preview first, asks unless --yes)"),
        ("destroy", "remove every resource of the stack"),
        ("drift", "compare declared, recorded and observed state (CI)"),
        ("init", "write a commented starter stack for a cloud and a GPU (never overwrites)"),
        ("schema", "print the stack JSON Schema"),
        ("catalog", "list GPUs, instance types with prices, or regions; refresh prices"),
        ("node", "this node's GPUs"),
        ("completion", "print a shell completion script (bash or zsh)"),
    )
}



def command_in(argv: Sequence[str]) -> str | None:
    """Return the command ``argv`` names, when it is one of the table's (else None).

    That is its first word that is not an option: no top-level option takes a value.
    """
    word = next((w for w in argv if not w.startswith("-")), None)
    return word if word in COMMANDS else None


def build_parser(only: str | None = _EVERY) -> argparse.ArgumentParser:
    """Build the argument parser: every command's flags, or only ``only``'s (None: none)."""
    parser = Parser(
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
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name, row in COMMANDS.items():
        if only in (_EVERY, name):
            module = importlib.import_module(row.module)
            p = sub.add_parser(name, help=row.help, parents=[common()],
                               description=module.DESCRIPTION, epilog=module.EXAMPLES,
                               formatter_class=HelpPage)
            module.add_arguments(p)
            p.set_defaults(handler=module.run)
        else:
            sub.add_parser(name, help=row.help, parents=[common()])
    return parser


def complete_paths(parser: argparse.ArgumentParser, files: object, dirs: object) -> None:
    """Mark the arguments that name files or directories, for the completion script."""
    for action in parser._actions:
        if action.metavar in ("FILE", "PLAN.json", "FILE|GIT-REF"):
            action.complete = files  # type: ignore[attr-defined]
        elif action.metavar == "DIR":
            action.complete = dirs  # type: ignore[attr-defined]
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                complete_paths(sub, files, dirs)
