"""``gpupool completion``: print a bash or zsh completion script (made by shtab)."""

from __future__ import annotations

import argparse
import sys

from gpupool.cli.console import Console
from gpupool.cli.exits import EXIT_OK

DESCRIPTION = """\
Tab completion of gpupool's commands, flags and their values: prints a bash or zsh script made
from the parser itself, so it always matches the flags."""

EXAMPLES = """\
examples:
  gpupool completion bash > ~/.local/share/bash-completion/completions/gpupool
  gpupool completion zsh > "${fpath[1]}/_gpupool\""""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the shell."""
    p.add_argument("shell", choices=("bash", "zsh"))


def run(args: argparse.Namespace, console: Console) -> int:
    """Print the script for every command's parser."""
    import shtab  # only here: the completion library never slows the other commands

    from gpupool.cli.parser import build_parser, complete_paths

    parser = build_parser()
    complete_paths(parser, shtab.FILE, shtab.DIRECTORY)
    _help_lines_only(parser)
    script = shtab.complete(parser, shell=args.shell)
    sys.stdout.write(script if script.endswith("\n") else script + "\n")
    return EXIT_OK


def _help_lines_only(parser: argparse.ArgumentParser) -> None:
    """Describe each command in the script by its one-line help, not its help page's paragraph.

    shtab (1.13, ``__init__.py``, the zsh and tcsh writers) offers a command's ``description``
    where it has one, else its ``help``; the description is a paragraph for ``--help``.
    """
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                sub.description = None
                _help_lines_only(sub)
