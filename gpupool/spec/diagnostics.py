"""Diagnostics: every problem found in a stack file, as a value.

A diagnostic is found first (with a JSON path into the document) and placed later (the source map
turns the path into ``file:line:col``). This module owns the value types, their ordering and
their text form (one line per diagnostic and per line of detail: the file name, a key or a value
quoted in a message keeps its newlines and control characters escaped, ``gpupool.escape``). Of
gpupool it imports only that leaf.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from gpupool.escape import one_line

Path = tuple[str | int, ...]

#: Longest summary and detail kept: diagnostics quote what the file says, and a hostile file can
#: say megabytes in one value. Longer text keeps its start and end (where hints go).
MAX_SUMMARY = 200
MAX_DETAIL = 2000


class Severity(str, enum.Enum):
    """How bad a diagnostic is: errors fail validation, warnings and info (advice) do not."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True, order=True)
class Pos:
    """A 1-based line and column (in characters)."""

    line: int
    column: int


@dataclass(frozen=True)
class Range:
    """A span of one file."""

    filename: str
    start: Pos
    end: Pos


@dataclass(frozen=True)
class Diagnostic:
    """One problem: what, why, how to fix, and where."""

    severity: Severity
    code: str
    summary: str
    detail: str = ""
    path: Path = ()
    range: Range | None = None
    #: Where to point in the source for ``path``: "value", "key" (unknown keys) or "parent".
    anchor: str = "value"

    @property
    def is_error(self) -> bool:
        """True for errors."""
        return self.severity is Severity.ERROR

    def placed(self, where: Range | None) -> Diagnostic:
        """Return a copy with its source range set."""
        return replace(self, range=where)

    def to_json(self) -> dict[str, Any]:
        """Return this diagnostic's JSON shape (docs/commands.md, validate --format json)."""
        out: dict[str, Any] = {
            "severity": self.severity.value,
            "code": self.code,
            "summary": self.summary,
            "detail": self.detail,
            "path": list(self.path),
        }
        if self.range is not None:
            out["range"] = {
                "filename": self.range.filename,
                "start": {"line": self.range.start.line, "column": self.range.start.column},
                "end": {"line": self.range.end.line, "column": self.range.end.column},
            }
        else:
            out["range"] = None
        return out


def clip(text: str, most: int) -> str:
    """Return ``text`` cut to about ``most`` characters, keeping its start and its end."""
    if len(text) <= most:
        return text
    tail = most // 3
    cut = len(text) - most
    return f"{text[: most - tail]} ... ({cut:,} characters cut) ... {text[-tail:]}"


def error(code: str, summary: str, detail: str = "", path: Path = (), **kw: Any) -> Diagnostic:
    """Build an error diagnostic (summary and detail clipped to a readable length)."""
    return Diagnostic(
        Severity.ERROR,
        code,
        clip(summary, MAX_SUMMARY),
        clip(detail, MAX_DETAIL),
        tuple(path),
        **kw,
    )


def warning(code: str, summary: str, detail: str = "", path: Path = (), **kw: Any) -> Diagnostic:
    """Build a warning diagnostic (summary and detail clipped to a readable length)."""
    return Diagnostic(
        Severity.WARNING,
        code,
        clip(summary, MAX_SUMMARY),
        clip(detail, MAX_DETAIL),
        tuple(path),
        **kw,
    )


def info(code: str, summary: str, detail: str = "", path: Path = (), **kw: Any) -> Diagnostic:
    """Build an info diagnostic: advice, which never fails validation."""
    return Diagnostic(
        Severity.INFO,
        code,
        clip(summary, MAX_SUMMARY),
        clip(detail, MAX_DETAIL),
        tuple(path),
        **kw,
    )


_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


def sort_key(d: Diagnostic) -> tuple[str, int, int, int, str, str]:
    """Return the key ``sort`` orders by: file, line, column (sourceless first), severity."""
    if d.range is None:
        return ("", 0, 0, _RANK[d.severity], d.code, d.summary)
    r = d.range
    return (r.filename, r.start.line, r.start.column, _RANK[d.severity], d.code, d.summary)


def sort(diags: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Sort by file, line, column (sourceless first), errors, warnings, info; drop repeats."""
    seen: set[Diagnostic] = set()
    out = []
    for d in diags:
        if d not in seen:
            seen.add(d)
            out.append(d)
    return sorted(out, key=sort_key)


def has_errors(diags: Iterable[Diagnostic]) -> bool:
    """Return True when any diagnostic is an error."""
    return any(d.is_error for d in diags)


def format_text(d: Diagnostic) -> str:
    """Render one diagnostic the way compilers do: ``file:line:col: severity: summary [code]``."""
    where = ""
    if d.range is not None:
        where = f"{one_line(d.range.filename)}:{d.range.start.line}:{d.range.start.column}: "
    head = f"{where}{d.severity.value}: {one_line(d.summary)} [{d.code}]"
    if d.detail:
        body = "\n".join("  " + one_line(line) for line in d.detail.splitlines())
        return f"{head}\n{body}"
    return head
