"""Reading a workload file: its lines, streamed and bounded, and the problems found in them.

This module owns how a workload file (``gpupool simulate --workload``) is read, whatever its
format: only a regular file is opened (a FIFO cannot block the read, ``/dev/zero`` is refused, as
``gpupool.files.read_regular`` does for the files it reads whole), and it is streamed a line at
a time, never read whole, so a 1,000,000-row workload costs the jobs it holds and not its bytes.
A line longer than ``MAX_LINE_BYTES`` is a problem, never a long read. Each line is decoded as
UTF-8 on its own, so a bad byte is reported on its line and the lines after it are still read.

Problems are ``Diagnostic`` values placed on ``file:line:col`` (``Problems``); a reader collects
them all, and when there are any, ``WorkloadError`` carries them together, so nothing is
simulated from a workload with a bad row. At most ``MAX_PROBLEMS`` are kept, then one more says
how many were left out.
"""

from __future__ import annotations

import csv
import os
import stat
from array import array
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from gpupool.errors import InputError
from gpupool.spec.diagnostics import Diagnostic, Pos, Range, error, format_text, sort

#: The longest line read (bytes, newline included). A workload row is a few hundred bytes.
MAX_LINE_BYTES = 1024 * 1024
#: The most problems kept for one file; the rest are counted in one last diagnostic.
MAX_PROBLEMS = 1000

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


class WorkloadError(InputError):
    """A workload file that cannot be used: every problem in it, each on its line.

    ``problems`` are the diagnostics (sorted by line); ``diagnostics`` their JSON form, which
    the command line puts in its error document.
    """

    def __init__(
        self, source: str, problems: list[Diagnostic], last: Diagnostic | None = None
    ) -> None:
        self.source = source
        self.problems = tuple(sort(problems)) + ((last,) if last is not None else ())
        errors = sum(1 for d in self.problems if d.is_error)
        lines = "\n".join(format_text(d) for d in self.problems)
        super().__init__(
            f"{source}: {errors} problem{'s' * (errors != 1)} in the workload; nothing was "
            f"simulated\n{lines}"
        )

    @property
    def diagnostics(self) -> list[dict[str, Any]]:
        """The problems as JSON (``Diagnostic.to_json``)."""
        return [d.to_json() for d in self.problems]


class Problems:
    """The problems found in one workload file, placed on its lines.

    The same problem on many lines (the same severity, code, summary and hint: one unknown
    tenant named on every row of a file written for another stack) is one diagnostic, placed at
    the first of them, its summary ending ``(and 44 more rows: lines 3-46)``. ``MAX_PROBLEMS``
    bounds the distinct problems kept.
    """

    def __init__(self, source: str) -> None:
        self.source = source
        self._groups: dict[tuple[str, str, str, str], _Group] = {}
        self.left_out = 0

    def __bool__(self) -> bool:
        return bool(self._groups)

    def add(self, problem: Diagnostic, line: int, column: int = 1) -> None:
        """Record ``problem`` (built with ``error``) at ``line``:``column`` (1-based)."""
        key = (problem.severity.value, problem.code, problem.summary, problem.detail)
        group = self._groups.get(key)
        if group is not None:
            group.add(line, column)
        elif len(self._groups) >= MAX_PROBLEMS:
            self.left_out += 1
        else:
            self._groups[key] = _Group(problem, line, column)

    @property
    def found(self) -> list[Diagnostic]:
        """One diagnostic per distinct problem, each placed at the first line it is on."""
        return [group.placed(self.source) for group in self._groups.values()]

    def raise_if_any(self) -> None:
        """Raise ``WorkloadError`` with every problem when there is one."""
        if not self.found:
            return
        last = None
        if self.left_out:
            line = max(d.range.start.line for d in self.found if d.range is not None)
            at = Pos(line, 1)
            last = error(
                "workload.too-many-problems",
                f"{self.left_out:,} more problems not shown",
                f"Only the first {MAX_PROBLEMS:,} problems are listed; fix these and read "
                "the file again.",
            ).placed(Range(self.source, at, at))
        raise WorkloadError(self.source, self.found, last)


class _Group:
    """One problem and every line it is on (the first with its column)."""

    def __init__(self, problem: Diagnostic, line: int, column: int) -> None:
        self.problem = problem
        self.first = Pos(line, max(1, column))
        self.lines = array("q")  # the other lines, in the order found

    def add(self, line: int, column: int) -> None:
        if line < self.first.line:
            self.lines.append(self.first.line)
            self.first = Pos(line, max(1, column))
        elif line != self.first.line:
            self.lines.append(line)

    def placed(self, source: str) -> Diagnostic:
        problem = self.problem
        if self.lines:
            more = sorted(set(self.lines))
            rows = f"{len(more):,} more row{'s' * (len(more) != 1)}"
            word = "lines" if len(more) > 1 else "line"
            problem = replace(problem, summary=f"{problem.summary} (and {rows}: {word} "
                              f"{line_ranges(more)})")
        return problem.placed(Range(source, self.first, self.first))


def line_ranges(lines: list[int], most: int = 6) -> str:
    """Return sorted line numbers as ranges, ``3-20, 22, 25-46``, the first ``most`` of them."""
    runs: list[list[int]] = []
    for line in lines:
        if runs and line == runs[-1][1] + 1:
            runs[-1][1] = line
        else:
            runs.append([line, line])
    shown = [f"{a}" if a == b else f"{a}-{b}" for a, b in runs[:most]]
    return ", ".join(shown) + (", ..." if len(runs) > most else "")


def open_regular(path: Path) -> Any:
    """Open ``path`` for binary reading when it is a regular file (a link is followed).

    Raises:
        InputError: it is missing, unreadable, or not a regular file (a FIFO, a device, a
            folder).

    """
    try:
        fd = os.open(path, os.O_RDONLY | _NONBLOCK | _CLOEXEC)
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise InputError(f"{path}: not a regular file; a workload is read from a file")
    return os.fdopen(fd, "rb")


def lines(path: Path, problems: Problems, *, keep_bad: bool = False) -> Iterator[tuple[int, str]]:
    """Yield ``(line number, text)`` for each line of the file, without its line break.

    A line that is too long, not UTF-8 or holds a NUL character is recorded in ``problems`` and
    yielded as an empty line when ``keep_bad`` (so a reader counting lines stays on count),
    else not at all; a byte order mark on the first line is dropped.

    Raises:
        InputError: the file cannot be opened or read (see ``open_regular``).

    """
    with open_regular(path) as fh:
        number = 0
        while True:
            try:
                raw = fh.readline(MAX_LINE_BYTES + 1)
            except OSError as exc:
                raise InputError(f"{path}: cannot be read ({exc.strerror or exc})") from None
            if not raw:
                return
            number += 1
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                problems.add(
                    error(
                        "workload.line-too-long",
                        f"line longer than {MAX_LINE_BYTES:,} bytes",
                        "A workload row is one job; this is not one.",
                    ),
                    number,
                )
                while raw and not raw.endswith(b"\n"):  # skip the rest of it
                    raw = fh.readline(MAX_LINE_BYTES)
                if keep_bad:
                    yield number, ""
                continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                problems.add(
                    error(
                        "workload.not-utf8",
                        "not UTF-8 text",
                        f"Byte 0x{raw[exc.start]:02x} cannot start or continue a UTF-8 character.",
                    ),
                    number,
                    exc.start + 1,
                )
                if keep_bad:
                    yield number, ""
                continue
            if number == 1 and text.startswith("\ufeff"):
                text = text[1:]
            text = text.rstrip("\r\n")
            if "\x00" in text:
                problems.add(
                    error(
                        "workload.not-utf8",
                        "NUL character in the line",
                        "A workload is text; this looks like a binary file.",
                    ),
                    number,
                    text.index("\x00") + 1,
                )
                if keep_bad:
                    yield number, ""
                continue
            yield number, text


def csv_records(path: Path, problems: Problems) -> Iterator[tuple[int, list[str]]]:
    """Yield ``(first line, cells)`` for each CSV record of the file, blank lines left out.

    A record that is not CSV is recorded in ``problems`` (``workload.bad-csv``) and skipped;
    a quoted cell may span lines, so a record's number is the line it starts on.
    """
    reader = csv.reader((text + "\n" for _, text in lines(path, problems, keep_bad=True)),
                        strict=True)
    while True:
        first = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            problems.add(error("workload.bad-csv", f"not CSV: {exc}"), reader.line_num)
            continue
        if row and (len(row) != 1 or row[0].strip()):
            yield first, row
