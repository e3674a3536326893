"""``gpupool schema``: print the stack file's JSON Schema, or its field reference."""

from __future__ import annotations

import argparse

from gpupool.cli.console import Console
from gpupool.cli.exits import EXIT_OK

DESCRIPTION = """\
What may a stack file say? Prints the stack file's JSON Schema, for editors and CI, or with
--markdown the field reference table of docs/stack-file.md."""

EXAMPLES = """\
examples:
  gpupool schema > gpupool.schema.json
  gpupool schema --markdown"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """``--format`` (JSON only) and ``--markdown``."""
    p.add_argument("--format", choices=("json",), default="json",
                   help="output format (the schema is JSON; accepted like every command's)")
    p.add_argument(
        "--markdown",
        action="store_true",
        help="print the field reference table of docs/stack-file.md, generated from the schema",
    )


def run(args: argparse.Namespace, console: Console) -> int:
    """Print the schema (JSON) or the field reference (markdown)."""
    from gpupool.usecases.schema import schema_reference, schema_text

    if args.markdown:
        console.out(schema_reference(), fmt="markdown")
    else:
        console.out(schema_text(), fmt="json")
    return EXIT_OK
