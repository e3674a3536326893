r"""Escaping: user values shown on a terminal, in a CI log, in JSON and in markdown as plain text.

A stack file, a node report or a cluster can hold any character. This module owns how such text
is made inert before gpupool prints it:

- ``controls``: control characters (C0 but newline and tab, DEL, C1), Unicode line and paragraph
  separators and bidirectional overrides (the "Trojan Source" characters) become visible escapes
  (``\x1b``, ``\u202e``; in JSON the JSON escape ``\u001b``), so no value can move the
  cursor, ring a bell, retitle a terminal or reorder a line;
- ``workflow_commands``: a line that GitHub Actions would run as a workflow command
  (``::error::``, ``::add-mask::`` after leading white space, and the legacy ``##[`` anywhere in
  a line; actions/runner ``src/Runner.Common/ActionCommand.cs``, ``TryParseV2`` and
  ``TryParse``) gets its first ``:`` or its ``[`` escaped;
- ``terminal``: both, what ``gpupool.cli`` applies to everything it writes;
- ``one_line``: a value that must stay on its line (a key, a file name, a region) with its
  newlines, carriage returns and tabs escaped too;
- ``markdown`` and ``code``: a value as inline markdown text or as a code span that cannot open
  HTML, a comment, a link (autolinks of ``https://`` and ``www.`` included; GitHub's cmark-gfm
  still links an e-mail address), an image, emphasis, a heading or a table cell.
"""

from __future__ import annotations

import re

__all__ = ["code", "controls", "markdown", "one_line", "terminal", "workflow_commands"]

_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_LINE_BREAKS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_COMMAND = re.compile(r"^([ \t\f\v]*):(?=:)", re.MULTILINE)
_LEGACY_COMMAND = "##["
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~#!])")
_AUTOLINK = re.compile(r"(?i)\b(www)\.|:(?=//)")
_MD_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def controls(text: str, *, json: bool = False) -> str:
    """Escape control characters but newline and tab (as JSON escapes when ``json``).

    In a JSON document these characters can only stand inside a string, where the JSON escape
    means the same character, so the document still parses to the same value.
    """
    return _CONTROLS.sub(_json_escape if json else _visible, text)


def workflow_commands(text: str) -> str:
    """Escape what would make a line a GitHub Actions workflow command."""
    return _COMMAND.sub(r"\1\\x3a", text).replace(_LEGACY_COMMAND, "##\\x5b")


def terminal(text: str) -> str:
    """Return ``text`` safe to write on a terminal or in a CI log."""
    return workflow_commands(controls(text))


def one_line(text: str) -> str:
    """Return a value that stays on its line: every control character escaped, newlines too."""
    return _LINE_BREAKS.sub(_visible, text)


def _shortened(text: str, most: int | None) -> str:
    return text if most is None or len(text) <= most else text[:most] + "…"


def markdown(text: str, most: int | None = None) -> str:
    """Return a value as literal inline markdown (GitHub Flavored Markdown) on one line.

    ``most`` cuts the value to that many characters first (marked with an ellipsis), so one
    value cannot fill a comment with a size limit.
    """
    text = one_line(_shortened(text, most))
    text = "".join(_MD_ENTITIES.get(ch, ch) for ch in text)
    escaped = _MD_SPECIAL.sub(r"\\\1", text)
    return _AUTOLINK.sub(lambda m: f"{m.group(1)}\\." if m.group(1) else "\\:", escaped)


def code(text: str, most: int | None = None) -> str:
    """Return a value as one code span: literal inside, whatever backticks it holds."""
    text = one_line(_shortened(text, most))
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"
