"""Colour for people at a terminal: ANSI styles laid over text output that is already complete.

The text formats are written without colour (so files, pipes and CI logs stay plain); when the
command line writes to a terminal and colour is wanted (``NO_COLOR`` unset or empty, no
``--no-color``: https://no-color.org), it passes the text through ``plan`` or ``messages``.
Colouring only wraps existing characters in escape sequences, so the text read without them is
the same.

- ``plan``: Terraform's colours for the action symbols at the start of a line (``+`` green,
  ``-`` red, ``~`` yellow, a replacement's ``+/-`` and ``-/+`` yellow), the ``Plan:`` line bold;
- ``messages``: ``error`` red and ``warning`` yellow where a diagnostic, note or progress line
  says so, ``failed`` red.
"""

from __future__ import annotations

import re

RESET = "\x1b[0m"
BOLD = "\x1b[1m"
RED = "\x1b[31m"
GREEN = "\x1b[32m"
YELLOW = "\x1b[33m"

_SYMBOL = re.compile(r"^(\s*)(\+/-|-/\+|\+|-|~)(?= )", re.MULTILINE)
_SYMBOL_STYLE = {"+": GREEN, "-": RED, "~": YELLOW, "+/-": YELLOW, "-/+": YELLOW}
_PLAN_LINE = re.compile(r"^(Plan: .*|No changes\..*)$", re.MULTILINE)
_SEVERITY = re.compile(r"(^|: |\] ?\s*|^\s+)(error|warning|failed)(?=[: ])", re.MULTILINE)
_SEVERITY_STYLE = {"error": RED, "warning": YELLOW, "failed": RED}


def paint(text: str, style: str) -> str:
    """Wrap ``text`` in one ANSI style."""
    return f"{style}{text}{RESET}"


def plan(text: str) -> str:
    """Colour a plan's action symbols and its summary line."""
    text = _SYMBOL.sub(lambda m: m.group(1) + paint(m.group(2), _SYMBOL_STYLE[m.group(2)]), text)
    return _PLAN_LINE.sub(lambda m: paint(m.group(1), BOLD), text)


def messages(text: str) -> str:
    """Colour the severity words of diagnostics, notes and progress lines."""
    return _SEVERITY.sub(
        lambda m: m.group(1) + paint(m.group(2), _SEVERITY_STYLE[m.group(2)]), text
    )
