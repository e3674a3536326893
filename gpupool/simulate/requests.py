"""Request traces for the stack's services: a rate series, or a log of one row per request.

This module owns how a service's demand is read (``gpupool simulate --requests``,
docs/workload.md, Request traces), in two formats:

* a **rate series**, CSV ``service,time,rps``: each row the requests per second of one service
  from ``time`` (seconds from the start, or an RFC 3339 time: the earliest in the file is 0)
  until that service's next row, a step function; a service's last row holds from then on.
  ``schemas/requests.schema.json`` is the JSON Schema of one row;
* a **request log**, CSV with a ``TIMESTAMP`` column and one row per request, as the Azure LLM
  inference traces (2023) publish it: ``TIMESTAMP,ContextTokens,GeneratedTokens``, the time
  written ``2023-11-16 18:17:03.9799600`` (no offset: read as UTC), an RFC 3339 time, or seconds.
  The token columns are checked (whole numbers, at least 0) and not used. A log is for one
  service, named on the command line: ``--requests SERVICE=FILE``.

Files are read as workloads are (``gpupool.simulate.source``): only a regular file, streamed a
line at a time with a bounded line length, every bad row reported at once on ``file:line:col``,
then nothing is returned. A service's times must rise from row to row (a log's may repeat);
every number is finite and bounded (``MAX_RPS``, 366 days, ``MAX_ROWS``).
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from gpupool.errors import InputError
from gpupool.simulate.columns import (
    MAX_SECONDS,
    BadValue,
    Submit,
    figure,
    read_submit,
    read_text,
)
from gpupool.simulate.fit import did_you_mean
from gpupool.simulate.source import Problems, csv_records
from gpupool.spec.diagnostics import Diagnostic, Pos, Range, error

#: The most requests per second one row may say (a typo's 1e12 is refused, not simulated).
MAX_RPS = 10_000_000.0
#: The most rows read from one trace; a longer demand is a rate series, not a log.
MAX_ROWS = 20_000_000
#: The most tokens one request of a log may hold (the Azure traces' largest is under 30,000).
MAX_TOKENS = 10_000_000
RATE_COLUMNS = ("service", "time", "rps")
LOG_TIME = "TIMESTAMP"
LOG_COLUMNS = (LOG_TIME, "ContextTokens", "GeneratedTokens")
#: A number as JSON writes one (no ``1_000``, no ``0x10``), with spaces around it allowed.
_NUMBER = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*")
_NOT_FINITE = ("nan", "inf", "infinity")
#: The Azure traces' time: date, space or T, time, an optional fraction of any length, no offset.
_NAIVE = re.compile(r"\s*(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?\s*")


@dataclass(frozen=True)
class RateSeries:
    """One service's requests per second, a step function of seconds from the start.

    ``times`` rise; ``rps[i]`` holds from ``times[i]`` until ``times[i + 1]`` (the last from
    then on); before the first time the rate is 0. ``line`` is the service's first row.
    """

    service: str
    source: str
    line: int
    times: tuple[float, ...]
    rps: tuple[float, ...]

    @property
    def end(self) -> float:
        """The last row's time: where the series stops saying anything new."""
        return self.times[-1]

    def rate(self, t: float) -> float:
        """Return the requests per second at ``t``."""
        i = bisect.bisect_right(self.times, t) - 1
        return self.rps[i] if i >= 0 else 0.0

    def arrivals(self, t0: float, t1: float) -> float:
        """Return the requests arriving in ``[t0, t1)``: the rate's integral over it."""
        if t1 <= t0:
            return 0.0
        total = 0.0
        i = max(0, bisect.bisect_right(self.times, t0) - 1)
        while i < len(self.times) and self.times[i] < t1:
            start = max(t0, self.times[i])
            stop = t1 if i + 1 == len(self.times) else min(t1, self.times[i + 1])
            if stop > start:
                total += self.rps[i] * (stop - start)
            i += 1
        return total


@dataclass(frozen=True)
class RequestLog:
    """One service's requests, one arrival time each (seconds from the log's first request)."""

    service: str
    source: str
    line: int
    times: tuple[float, ...]

    @property
    def end(self) -> float:
        """The last request's arrival."""
        return self.times[-1]

    def rate(self, t: float, window: float = 1.0) -> float:
        """Return the requests per second over ``[t - window, t)``."""
        return self.arrivals(t - window, t) / window

    def arrivals(self, t0: float, t1: float) -> float:
        """Return how many requests arrive in ``[t0, t1)``."""
        if t1 <= t0:
            return 0.0
        return float(bisect.bisect_left(self.times, t1) - bisect.bisect_left(self.times, t0))


Trace = RateSeries | RequestLog


def split_option(text: str) -> tuple[str | None, Path]:
    """Split a ``--requests`` value: ``SERVICE=FILE`` (a request log) or ``FILE`` (a rate series).

    The part before the first ``=`` is a service only when it is a DNS label (the services'
    names), so a path holding ``=`` elsewhere is still a path.
    """
    name, sep, rest = text.partition("=")
    if sep and rest and re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", name):
        return name, Path(rest)
    return None, Path(text)


def read_requests(values: list[str]) -> dict[str, Trace]:
    """Read every ``--requests`` value: service name -> its trace.

    Raises:
        WorkloadError: a file has bad rows (all of them, each at its line).
        InputError: a file cannot be read, or two files give one service's demand.

    """
    out: dict[str, Trace] = {}
    for value in values:
        service, path = split_option(value)
        got: dict[str, Trace] = (
            dict(read_rates(path)) if service is None else {service: read_log(path, service)}
        )
        for name, trace in got.items():
            if name in out:
                raise InputError(f"{trace.source}: service {name!r}'s demand is also given by "
                                 f"{out[name].source}; give each service one trace")
            out[name] = trace
    return out


def check_requests(services: list[str], traces: dict[str, Trace]) -> list[Diagnostic]:
    """Return an error for each trace naming a service the stack does not declare."""
    found = []
    for name, trace in traces.items():
        if name not in services:
            hint = did_you_mean(name, services) or f" The stack's services: {', '.join(services)}."
            found.append(
                error("workload.unknown-service", f"no service {name!r} in the stack",
                      f"A request trace is the demand of one of the stack's services.{hint}")
                .placed(Range(trace.source, Pos(trace.line, 1), Pos(trace.line, 1)))
            )
    return found


# ---------------------------------------------------------------------------------------------
# CSV rows


def _rows(path: Path, problems: Problems, columns: tuple[str, ...],
          required: tuple[str, ...]) -> Iterator[tuple[int, dict[str, str], dict[str, int]]]:
    """Yield ``(line, cells by column, where each cell starts)`` for each row below the header."""
    header: list[str] | None = None
    count = 0
    for first, row in csv_records(path, problems):
        if header is None:
            header = [cell.strip() for cell in row]
            if not _header_ok(header, first, problems, columns, required):
                return
            continue
        count += 1
        if count > MAX_ROWS:
            problems.add(error("workload.bad-value", f"more than {MAX_ROWS:,} rows",
                               "A trace this long is a rate series: requests per second per "
                               "interval (docs/workload.md, Request traces)."), first)
            return
        if len(row) != len(header):
            problems.add(error("workload.cell-count",
                               f"{len(row)} cells where the header has {len(header)}",
                               f"Columns: {', '.join(header)}."), first)
            continue
        starts, at = {}, 1
        for name, cell in zip(header, row, strict=True):
            starts[name] = at
            at += len(cell) + 1
        yield first, dict(zip(header, row, strict=True)), starts


def _header_ok(header: list[str], line: int, problems: Problems, columns: tuple[str, ...],
               required: tuple[str, ...]) -> bool:
    ok, seen, at = True, set(), 1
    for name in header:
        if name in seen:
            problems.add(error("workload.duplicate-column", f"column {name!r} appears twice"),
                         line, at)
            ok = False
        elif name not in columns:
            problems.add(error("workload.unknown-column", f"unknown column {name!r}",
                               f"Columns: {', '.join(columns)}.{did_you_mean(name, columns)}"),
                         line, at)
            ok = False
        seen.add(name)
        at += len(name) + 1
    for name in required:
        if name not in seen:
            problems.add(error("workload.missing-column", f"no {name!r} column",
                               f"A request trace's header names {', '.join(columns)}."), line)
            ok = False
    return ok


def _bad(problems: Problems, message: str, meaning: str, line: int, column: int) -> None:
    problems.add(error("workload.bad-value", message, meaning), line, column)


def _empty(problems: Problems, what: str) -> None:
    problems.add(error("workload.empty", f"the trace holds no {what}",
                       "Add a row below the header (docs/workload.md, Request traces)."), 1)


# ---------------------------------------------------------------------------------------------
# Rate series


_TIME_MEANING = "time: seconds from the start, or an RFC 3339 time (the earliest is 0)"


def read_rates(path: Path | str) -> dict[str, RateSeries]:
    """Read a rate series file: service name -> its series, in the order first named.

    Raises:
        WorkloadError: rows are bad (all of them, each at its line).
        InputError: the file cannot be read.

    """
    path = Path(path)
    source = str(path)
    problems = Problems(source)
    series: dict[str, tuple[int, list[float], list[float], list[int]]] = {}
    kind: tuple[bool, int] | None = None
    for line, cells, at in _rows(path, problems, RATE_COLUMNS, RATE_COLUMNS):
        try:
            name = read_text(cells["service"], "service")
        except BadValue as exc:
            _bad(problems, str(exc), "service: the stack service the row's rate is of", line, 1)
            continue
        when = _time(cells["time"], "time", problems, line, at["time"])
        rps = _rps(cells["rps"], problems, line, at["rps"])
        if when is None or rps is None:
            continue
        if kind is None:
            kind = (when.rfc3339, line)
        elif kind[0] != when.rfc3339:
            _bad(problems, f"time is {_kind(when.rfc3339)}, line {kind[1]}'s is "
                 f"{_kind(kind[0])}", "A file's times are all seconds or all RFC 3339 times.",
                 line, at["time"])
            continue
        _, times, rates, lines_ = series.setdefault(name, (line, [], [], []))
        if times and when.seconds <= times[-1]:
            _bad(problems, f"time {cells['time'].strip()!r} is not after line {lines_[-1]}'s, the "
                 f"service's row before", "A service's rows are in time order, each time once.",
                 line, at["time"])
            continue
        times.append(when.seconds)
        rates.append(rps)
        lines_.append(line)
    if not series and not problems:
        _empty(problems, "rate")
    start = min((t[0] for _, t, _, _ in series.values()), default=0.0) if kind and kind[0] else 0
    for _, times, _, lines_ in series.values():
        for t, line in zip(times, lines_, strict=True):
            if t - start > MAX_SECONDS:
                _bad(problems, f"time is {(t - start) / 86400:,.0f} days after the earliest; a "
                     "trace spans at most 366 days", _TIME_MEANING, line, 1)
    problems.raise_if_any()
    return {
        name: RateSeries(name, source, first, tuple(t - start for t in times), tuple(rates))
        for name, (first, times, rates, _) in series.items()
    }


def _kind(rfc3339: bool) -> str:
    return "an RFC 3339 time" if rfc3339 else "seconds"


def _time(text: str, what: str, problems: Problems, line: int, column: int) -> Submit | None:
    try:
        value = read_submit(text)
    except BadValue as exc:
        message = str(exc).replace("submit", what)
        _bad(problems, message, _TIME_MEANING, line, column)
        return None
    return value


def _rps(text: str, problems: Problems, line: int, column: int) -> float | None:
    meaning = f"rps: requests per second, at least 0 and at most {figure(MAX_RPS)}"
    try:
        if not _NUMBER.fullmatch(text) and text.strip().lower().lstrip("+-") not in _NOT_FINITE:
            raise ValueError(text)
        value = float(text.strip())
    except ValueError:
        _bad(problems, f"rps must be a number, not {text!r}", meaning, line, column)
        return None
    if not math.isfinite(value) or not 0 <= value <= MAX_RPS:
        shown = text.strip() if not math.isfinite(value) else figure(value)
        _bad(problems, f"rps must be at least 0 and at most {figure(MAX_RPS)}, not {shown}",
             meaning, line, column)
        return None
    return value


# ---------------------------------------------------------------------------------------------
# Request log


def read_log(path: Path | str, service: str) -> RequestLog:
    """Read a request log (one row per request) as the demand of ``service``.

    Raises:
        WorkloadError: rows are bad (all of them, each at its line).
        InputError: the file cannot be read.

    """
    path = Path(path)
    source = str(path)
    problems = Problems(source)
    whole: list[int] = []  # seconds, whole, as read (epoch seconds for dates)
    parts: list[float] = []  # the fraction of a second
    first = 0
    previous: tuple[int, float, int] | None = None  # the row before: whole, fraction, line
    kind: tuple[bool, int] | None = None
    for line, cells, at in _rows(path, problems, LOG_COLUMNS, (LOG_TIME,)):
        when = _log_time(cells[LOG_TIME], problems, line, at[LOG_TIME])
        tokens_ok = all(_tokens(cells[c], c, problems, line, at[c])
                        for c in LOG_COLUMNS[1:] if c in cells)
        if when is None or not tokens_ok:
            continue
        rfc3339 = when[2]
        if kind is None:
            kind, first = (rfc3339, line), line
        elif kind[0] != rfc3339:
            _bad(problems, f"{LOG_TIME} is {'a date' if rfc3339 else 'seconds'}, line "
                 f"{kind[1]}'s is {'a date' if kind[0] else 'seconds'}",
                 "A log's times are all dates or all seconds.", line, at[LOG_TIME])
            continue
        if previous is not None and (when[0], when[1]) < previous[:2]:
            _bad(problems, f"{LOG_TIME} is before line {previous[2]}'s",
                 "A request log is in arrival order (sort it by TIMESTAMP).", line, at[LOG_TIME])
            continue
        previous = (when[0], when[1], line)
        whole.append(when[0])
        parts.append(when[1])
    if not whole and not problems:
        _empty(problems, "request")
    base = whole[0] if whole else 0
    base_part = parts[0] if parts else 0.0
    if whole and (whole[-1] - base) + (parts[-1] - base_part) > MAX_SECONDS:
        _bad(problems, f"the log spans {(whole[-1] - base) / 86400:,.0f} days; a trace spans at "
             "most 366 days", _TIME_MEANING, previous[2] if previous else 1, 1)
    problems.raise_if_any()
    times = tuple((w - base) + (p - base_part) for w, p in zip(whole, parts, strict=True))
    return RequestLog(service, source, first, times)


def _log_time(text: str, problems: Problems, line: int,
              column: int) -> tuple[int, float, bool] | None:
    """Return (whole seconds, fraction, is a date) of a log's time, or None when bad."""
    naive = _NAIVE.fullmatch(text)
    if naive is not None:
        y, mo, d, h, mi, s = (int(g) for g in naive.groups()[:6])
        try:
            when = datetime(y, mo, d, h, mi, s, tzinfo=timezone.utc)
        except ValueError:
            _bad(problems, f"{LOG_TIME} {text!r} is not a real date and time", _LOG_MEANING,
                 line, column)
            return None
        return int(when.timestamp()), float(naive.group(7) or 0.0), True
    value = _time(text, LOG_TIME, problems, line, column)
    if value is None:
        return None
    return math.floor(value.seconds), value.seconds - math.floor(value.seconds), value.rfc3339


_LOG_MEANING = (f"{LOG_TIME}: when the request arrived, as the Azure traces write it "
                "(2023-11-16 18:17:03.9799600, UTC), an RFC 3339 time, or seconds")


def _tokens(text: str, column: str, problems: Problems, line: int, at: int) -> bool:
    cell = text.strip()
    if cell == "":
        return True
    if not cell.isascii() or not cell.isdigit() or int(cell) > MAX_TOKENS:
        _bad(problems, f"{column} must be a whole number at least 0 and at most "
             f"{figure(MAX_TOKENS)}, not {text!r}", f"{column}: tokens of the request (not used "
             "by the queue model)", line, at)
        return False
    return True
