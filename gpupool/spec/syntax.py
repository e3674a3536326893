"""YAML syntax errors in gpupool's words: what is wrong, where, and what to do about it.

This module owns turning the exception PyYAML raises for text that is not YAML into one
``yaml.syntax`` diagnostic: a summary and a hint written for people editing a stack file (not the
parser's own phrasing, which names grammar productions such as ``<block mapping start>``), the
line and column of the problem, and the offending line with a caret under the column.

The parser's messages it recognises are PyYAML's (``yaml/scanner.py``, ``yaml/parser.py``,
``yaml/reader.py``, PyYAML 6.0); ``spec.load`` always reports syntax errors from the pure-Python
parser, so these messages are the same whichever PyYAML or libyaml is installed. A message it does
not recognise keeps the parser's words, prefixed by a general hint.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml

from gpupool.spec.diagnostics import Diagnostic, Pos, Range, error

#: Characters of the offending line shown around the column (a hostile line can be megabytes).
_SHOWN = 100


@dataclass(frozen=True)
class _Rule:
    """One family of parser messages and what gpupool says instead."""

    pattern: re.Pattern[str]  # searched in "<context> | <problem>"
    summary: str
    hint: str
    at_context: bool = False  # point at where the construct began, not where the parser stopped


def _rule(pattern: str, summary: str, hint: str, *, at_context: bool = False) -> _Rule:
    return _Rule(re.compile(pattern), summary, hint, at_context)


_INDENT_HINT = (
    "Keys of one mapping start in the same column, and list items ('- ') of one list too; "
    "indent with spaces only, the same number for every level."
)

_RULES = (
    _rule(
        r"found character '\\t' that cannot start any token",
        "Tab character in indentation",
        "YAML indents with spaces, never tabs; replace the tab with spaces.",
    ),
    _rule(
        r"found character '(.)' that cannot start any token",
        "Character cannot start a value",
        "'@' and '`' are reserved in YAML and cannot begin a plain value; quote the value "
        '("@...").',
    ),
    _rule(
        r"mapping values are not allowed here",
        "Unexpected ':' in a value",
        "A value cannot hold ': ' unquoted, and a key cannot begin in the middle of a line; "
        "quote the value, or put the key on its own line at the indentation of its siblings.",
    ),
    _rule(
        r"could not find expected ':'",
        "Key without ':'",
        "Every line of a mapping is 'key: value'; add the ':' or, if this line continues the "
        "value above it, indent it under that value.",
        at_context=True,
    ),
    _rule(
        r"while parsing a flow sequence.*expected ',' or '\]'",
        "List in [brackets] is not closed",
        "A '[' list ends with ']' and separates its items with ','; close it on the line where "
        "it starts, or write the list as '- ' items.",
        at_context=True,
    ),
    _rule(
        r"while parsing a flow mapping.*expected ',' or '\}'",
        "Mapping in {braces} is not closed",
        "A '{' mapping ends with '}' and separates its entries with ','; close it on the line "
        "where it starts, or write the entries as indented 'key: value' lines.",
        at_context=True,
    ),
    _rule(
        r"while parsing a flow node.*expected the node content",
        "Bracket is never closed",
        "A '[' or '{' opened here has no matching ']' or '}'; close it.",
    ),
    _rule(
        r"while scanning a quoted scalar.*found unexpected end of stream",
        "Quoted value is never closed",
        "A value that starts with a quote ends with the same quote; add the closing quote.",
        at_context=True,
    ),
    _rule(
        r"found unknown escape character",
        "Unknown escape in a double-quoted value",
        'Inside "double quotes" a backslash starts an escape such as \\n or \\"; write \\\\ '
        "for a backslash, or use 'single quotes', where a backslash is plain.",
    ),
    _rule(
        r"while scanning an? (alias|anchor)",
        "Anchor or alias without a name",
        "'&' (anchor) and '*' (alias) are followed by a name such as &defaults or *defaults; "
        "quote the value if the character is meant literally.",
        at_context=True,
    ),
    _rule(
        r"while scanning a block scalar",
        "Bad block scalar header",
        "After '|' or '>' only '+', '-' or an indentation digit may follow on the same line.",
    ),
    _rule(
        r"while parsing a block (mapping|collection)|did not find expected (key|'-')",
        "Indentation does not match",
        _INDENT_HINT,
    ),
)

_FALLBACK_HINT = "Check the indentation and the quotes on this line and the one before it."


def _where(filename: str, mark: yaml.Mark | None) -> Range:
    if mark is None:
        return Range(filename, Pos(1, 1), Pos(1, 1))
    at = Pos(mark.line + 1, mark.column + 1)
    return Range(filename, at, at)


def _excerpt(text: str, where: Range) -> str:
    """Return the line at ``where`` and a caret under its column (long lines cut around it)."""
    lines = text.splitlines()
    index = where.start.line - 1
    if not 0 <= index < len(lines):
        return ""
    line, column = lines[index], where.start.column - 1
    start = max(0, min(column - _SHOWN // 2, len(line) - _SHOWN))
    shown = line[start : start + _SHOWN]
    # control characters would garble a terminal: show them as '?'
    shown = "".join(c if c.isprintable() or c == " " else "?" for c in shown)
    prefix, suffix = ("..." if start else ""), ("..." if start + _SHOWN < len(line) else "")
    caret = " " * (len(prefix) + column - start) + "^"
    return f"{prefix}{shown}{suffix}\n{caret}"


def _reader_error(exc: yaml.reader.ReaderError, text: str, filename: str) -> Diagnostic:
    """Return the diagnostic of a character YAML does not allow (NUL, other controls)."""
    position = exc.position if isinstance(exc.position, int) else 0
    before = text[:position]
    line = before.count("\n") + 1
    column = position - (before.rfind("\n") + 1) + 1
    where = Range(filename, Pos(line, column), Pos(line, column))
    code = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or "?")
    detail = (
        f"Line {line}, column {column} holds the character U+{code:04X}, which YAML does not "
        "allow in a file (control characters other than tab and newline, NUL included). "
        "Delete it; a binary file or a wrong encoding is the usual cause."
    )
    excerpt = _excerpt(text, where)
    return error(
        "yaml.syntax",
        "YAML syntax error: character not allowed",
        f"{detail}\n{excerpt}" if excerpt else detail,
        range=where,
    )


def diagnostic(exc: yaml.YAMLError, text: str, filename: str) -> Diagnostic:
    """Return the ``yaml.syntax`` diagnostic for a parser exception raised on ``text``."""
    if isinstance(exc, yaml.reader.ReaderError):
        return _reader_error(exc, text, filename)
    context = getattr(exc, "context", None) or ""
    first_line = str(exc).splitlines()[0] if str(exc) else ""
    problem = getattr(exc, "problem", None) or first_line or "not valid YAML"
    said = f"{context} | {problem}"
    problem_mark = getattr(exc, "problem_mark", None)
    context_mark = getattr(exc, "context_mark", None)
    for rule in _RULES:
        if rule.pattern.search(said):
            mark = (context_mark if rule.at_context else None) or problem_mark or context_mark
            where = _where(filename, mark)
            summary, hint = rule.summary, rule.hint
            break
    else:
        where = _where(filename, problem_mark or context_mark)
        summary, hint = "Not valid YAML", f"The YAML parser says: {problem}. {_FALLBACK_HINT}"
    detail = f"Line {where.start.line}, column {where.start.column}: {hint}"
    excerpt = _excerpt(text, where)
    return error(
        "yaml.syntax",
        f"YAML syntax error: {summary[0].lower()}{summary[1:]}",
        f"{detail}\n{excerpt}" if excerpt else detail,
        range=where,
    )
