"""Where a command's text goes, and the one filter every byte the command line writes passes.

Results go to stdout; diagnostics, notes, progress, prompts and errors to stderr. Everything is
first passed through ``Console.safe``: secrets scrubbed (``gpupool.secrets``), control characters
and GitHub workflow commands escaped (``gpupool.escape``), JSON keeping its own escapes. A stream
is coloured only when it is a terminal, ``NO_COLOR`` is unset and ``--no-color`` was not given.
The prompts of ``up`` and ``destroy`` are asked here too.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from gpupool.engine.results import ProgressEvent


def wants_colour(stream: TextIO, disabled: bool) -> bool:
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


class Console:
    """One run's streams: its ``--format``, whether each stream is coloured, and its secrets.

    The secret values are read on first use, once per run (each run may see other variables
    and files).
    """

    __slots__ = ("_secrets", "colour_err", "colour_out", "fmt")

    def __init__(self, fmt: str = "text", colour_out: bool = False,
                 colour_err: bool = False) -> None:
        self.fmt = fmt
        self.colour_out = colour_out
        self.colour_err = colour_err
        self._secrets: list[str] | None = None

    def safe(self, text: str, fmt: str = "text") -> str:
        """Return ``text`` as it may be written: without secrets, control characters escaped.

        Every byte gpupool writes passes here (before any colour): results in every format,
        diagnostics, progress, prompts and errors. JSON keeps its escapes (a JSON escape for
        each control character json leaves raw); text and markdown also lose what GitHub
        Actions would run as a workflow command.
        """
        from gpupool.escape import controls, terminal
        from gpupool.secrets import scrub, secret_values

        if self._secrets is None:
            self._secrets = secret_values()
        text = scrub(text, self._secrets)
        return controls(text, json=True) if fmt == "json" else terminal(text)

    def hide(self, values: Iterable[str]) -> None:
        """Keep ``values`` out of everything written from now on, as the environment's secrets.

        ``advise`` hands over a secret it read from a file (a bearer token, a password).
        """
        from gpupool.secrets import secret_values

        self._secrets = [*(self._secrets or secret_values()), *values]

    def out(self, text: str, *, plan: bool = False, fmt: str | None = None) -> None:
        """Write a result on stdout, in ``fmt`` (default: the run's ``--format``).

        With ``plan``, a text plan's symbols are coloured where stdout wants colour.
        """
        if self.colour_out and plan:
            from gpupool.views import colour

            text = colour.plan(self.safe(text))
        else:
            text = self.safe(text, fmt or self.fmt)
        sys.stdout.write(text)

    def err(self, text: str) -> None:
        """Write diagnostics, notes or progress on stderr."""
        text = self.safe(text)
        if self.colour_err and text:
            from gpupool.views import colour

            text = colour.messages(text)
        sys.stderr.write(text)

    def confirm(self, question: str, what: str) -> bool:
        """Ask a yes/no question on the terminal; refuse when there is none.

        Args:
            question: the question, asked as it is.
            what: what needs the answer, for the refusal: ``"up of stack prod"``.

        Raises:
            InputError: stdin is not a terminal.

        """
        from gpupool.errors import InputError

        if not sys.stdin.isatty():
            raise InputError(f"{what} needs confirmation and there is no terminal to ask on; "
                             "pass --yes")
        self.err(f"{question} Only 'yes' will be accepted: ")
        sys.stderr.flush()
        return sys.stdin.readline().strip() == "yes"

    def progress(self) -> Callable[[ProgressEvent], None]:
        """Return the engine's progress printer: one line on stderr per event worth showing."""
        from gpupool.views.engine import progress_line

        def show(event: ProgressEvent) -> None:
            line = progress_line(event)
            if line is not None:
                self.err(line)

        return show
