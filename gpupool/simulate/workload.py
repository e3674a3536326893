"""Workload files: read one into a ``Workload``, and check its names against a stack.

This module owns gpupool's own workload format, one row per job, as CSV with a header or as
JSON Lines (one JSON object per line), with the columns of ``gpupool.simulate.columns``
(docs/workload.md; ``schemas/workload.schema.json`` is the JSON Schema of one JSON Lines row),
and picks the reader of a file: by ``fmt`` (``csv``, ``jsonl``, ``openb``: the Alibaba trace,
``gpupool.simulate.openb``) or else by the file's suffix.

Every bad row is reported, each on its line (``file:line:col``), and then nothing is returned:
``WorkloadError`` carries them all. The rules a row must keep beyond its cells' own: exactly one
GPU shape (``gpus``, ``fraction`` or ``mig``, or none for a CPU-only job; ``gpu_memory_gib``
beside ``gpus`` or ``fraction``, or alone, never with ``mig``), names unique in the file, and
``submit`` in one kind of time throughout (seconds, or RFC 3339 times, the earliest being 0).

``check_workload`` is the second step, against a stack: the tenants, priorities, pools and MIG
profiles the rows name must be the stack's.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from difflib import get_close_matches
from pathlib import Path

from gpupool.errors import InputError
from gpupool.model import PRIORITIES, Stack
from gpupool.simulate import openb
from gpupool.simulate.columns import BY_NAME, COLUMNS, BadValue, Submit, read_json
from gpupool.simulate.jobs import Job, Workload
from gpupool.simulate.source import Problems, lines
from gpupool.spec.diagnostics import Diagnostic, Pos, Range, error

FORMATS = ("csv", "jsonl", "openb")
#: File suffixes and the format each means when no format is given.
SUFFIXES = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}


def read_workload(path: Path | str, fmt: str | None = None) -> Workload:
    """Read a workload file: every job, sorted by submit time (file order breaks ties).

    Args:
        path: the file (a regular file; it is streamed, never read whole).
        fmt: ``csv``, ``jsonl`` or ``openb``; None: by the suffix (``.csv``, ``.jsonl``,
            ``.ndjson``; an openb pod list is a ``.csv`` and needs ``openb`` named).

    Raises:
        WorkloadError: rows are bad (all of them, each at its line); nothing is returned.
        InputError: the file cannot be read, or its format is neither named nor known by its
            suffix.

    """
    path = Path(path)
    if fmt is None:
        fmt = SUFFIXES.get(path.suffix.lower())
        if fmt is None:
            raise InputError(
                f"{path}: cannot tell the workload's format from its suffix; name it with "
                f"--workload-format {'|'.join(FORMATS)}"
            )
    if fmt not in FORMATS:
        raise InputError(f"unknown workload format {fmt!r}; use one of {', '.join(FORMATS)}")
    source = str(path)
    problems = Problems(source)
    if fmt == "openb":
        jobs = openb.read_pods(path, problems)
    else:
        rows = _csv_rows(path, problems) if fmt == "csv" else _jsonl_rows(path, problems)
        jobs = _jobs(rows, problems, from_json=fmt == "jsonl")
    if not jobs and not problems:
        problems.add("workload.empty", "the workload holds no job", 1,
                     detail="Add a row per job below the header (docs/workload.md).")  # fmt: skip
    problems.raise_if_any()
    jobs.sort(key=lambda j: j.submit)  # stable: file order breaks ties
    return Workload(source=source, jobs=tuple(jobs))


# ---------------------------------------------------------------------------------------------
# Rows: (line, {column: (raw value, column of the cell)}) from either format


Cells = dict[str, tuple[object, int]]


def _csv_rows(path: Path, problems: Problems) -> Iterator[tuple[int, Cells]]:
    state = _LineState()
    reader = csv.reader(state.feed(lines(path, problems)), strict=True)
    header: list[str] | None = None
    while True:
        state.first = None
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            problems.add("workload.bad-csv", f"not CSV: {exc}", state.first or state.last)
            continue
        line = state.first or state.last
        if not row or (len(row) == 1 and not row[0].strip()):
            continue  # a blank line
        if header is None:
            header = [cell.strip() for cell in row]
            if not _header_ok(header, line, state.text, problems):
                return
            continue
        if len(row) != len(header):
            problems.add(
                "workload.cell-count",
                f"{len(row)} cells where the header has {len(header)}",
                line,
                detail=f"Columns: {', '.join(header)}. A cell holding a comma is quoted.",
            )
            continue
        text = state.text if state.first == state.last else None
        yield (
            line,
            {
                name: (cell, _csv_column(text, i))
                for i, (name, cell) in enumerate(zip(header, row, strict=True))
            },
        )


class _LineState:
    """Which physical lines the CSV reader took for its last row (a quoted cell spans several)."""

    def __init__(self) -> None:
        self.first: int | None = None
        self.last = 0
        self.text = ""

    def feed(self, numbered: Iterable[tuple[int, str]]) -> Iterator[str]:
        for number, text in numbered:
            if self.first is None:
                self.first = number
            self.last = number
            self.text = text
            yield text + "\n"


def _csv_column(text: str | None, index: int) -> int:
    """Return the 1-based column where cell ``index`` of a one-line CSV row starts."""
    if text is None:
        return 1
    cell, quoted = 0, False
    for at, char in enumerate(text):
        if cell == index:
            return at + 1
        if char == '"':
            quoted = not quoted
        elif char == "," and not quoted:
            cell += 1
    return len(text) + 1 if cell == index else 1


def _header_ok(header: list[str], line: int, text: str, problems: Problems) -> bool:
    ok = True
    seen: set[str] = set()
    looks_openb = {"cpu_milli", "num_gpu", "gpu_milli"} & set(header)
    for i, name in enumerate(header):
        column = _csv_column(text, i)
        if name in seen:
            problems.add("workload.duplicate-column", f"column {name!r} appears twice", line,
                         column)  # fmt: skip
            ok = False
        seen.add(name)
        if name not in BY_NAME:
            hint = _did_you_mean(name, BY_NAME)
            if looks_openb:
                hint += (" This header is an openb pod list's: read it with "
                         "--workload-format openb.")  # fmt: skip
            problems.add(
                "workload.unknown-column",
                f"unknown column {name!r}",
                line,
                column,
                f"Columns: {', '.join(BY_NAME)}.{hint}",
            )
            ok = False
    for column in COLUMNS:
        if column.required and column.name not in seen:
            problems.add(
                "workload.missing-column",
                f"no {column.name!r} column",
                line,
                detail=f"Every job needs {column.name}: {column.meaning}.",
            )
            ok = False
    return ok


def _jsonl_rows(path: Path, problems: Problems) -> Iterator[tuple[int, Cells]]:
    for line, text in lines(path, problems):
        if not text.strip():
            continue
        try:
            value = json.loads(text, parse_constant=_no_constant)
        except (ValueError, RecursionError) as exc:
            where = getattr(exc, "colno", 1)
            problems.add("workload.bad-json", f"not JSON: {getattr(exc, 'msg', exc)}", line,
                         where)  # fmt: skip
            continue
        if not isinstance(value, dict):
            problems.add(
                "workload.bad-json",
                "a row must be a JSON object",
                line,
                detail='One job per line, such as {"tenant": "ml", "duration": "2h"}.',
            )
            continue
        cells: Cells = {}
        bad = False
        for key, cell in value.items():
            column = max(1, text.find(json.dumps(key)) + 1)
            if key not in BY_NAME:
                problems.add(
                    "workload.unknown-column",
                    f"unknown column {key!r}",
                    line,
                    column,
                    f"Columns: {', '.join(BY_NAME)}.{_did_you_mean(key, BY_NAME)}",
                )
                bad = True
                continue
            cells[key] = (cell, column)
        if not bad:
            yield line, cells


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def _did_you_mean(name: str, known: Iterable[str]) -> str:
    hits = get_close_matches(name, list(known), n=1)
    return f" Did you mean {hits[0]!r}?" if hits else ""


# ---------------------------------------------------------------------------------------------
# Jobs from rows


def _jobs(rows: Iterable[tuple[int, Cells]], problems: Problems, *, from_json: bool) -> list[Job]:
    jobs: list[Job] = []
    names: dict[str, int] = {}
    strings: dict[str, str] = {}  # one copy of each tenant, pool, priority and MIG name
    kind: tuple[bool, int] | None = None  # (RFC 3339?, line of the first row)
    for line, cells in rows:
        values: dict[str, object] = {}
        bad = False
        for column in COLUMNS:
            raw, at = cells.get(column.name, (None, 1))
            if raw is None or (isinstance(raw, str) and not raw.strip()):
                if column.required:
                    problems.add("workload.missing-value", f"{column.name} is required", line,
                                 at, f"{column.name}: {column.meaning}.")  # fmt: skip
                    bad = True
                values[column.name] = column.default
                continue
            try:
                values[column.name] = read_json(column, raw) if from_json else column.read(raw)
            except BadValue as exc:
                problems.add("workload.bad-value", str(exc), line, at,
                             f"{column.name}: {column.meaning}.")  # fmt: skip
                bad = True
        if bad or not _shape_ok(values, cells, line, problems):
            continue
        submit = values["submit"]
        assert isinstance(submit, Submit)
        if "submit" in cells and cells["submit"][0] not in (None, ""):
            if kind is None:
                kind = (submit.rfc3339, line)
            elif kind[0] != submit.rfc3339:
                problems.add(
                    "workload.mixed-times",
                    "submit is "
                    + ("an RFC 3339 time" if submit.rfc3339 else "seconds")
                    + f", line {kind[1]}'s is "
                    + ("an RFC 3339 time" if kind[0] else "seconds"),
                    line,
                    cells["submit"][1],
                    "A file's submit times are all seconds from the start or all RFC 3339 "
                    "times (the earliest is then 0).",
                )
                continue
        name = values["name"]
        if name is None:
            name = f"job-{line}"
        assert isinstance(name, str)
        if name in names:
            problems.add("workload.duplicate-name", f"job name {name!r} is also on line "
                         f"{names[name]}", line, cells.get("name", (None, 1))[1])  # fmt: skip
            continue
        names[name] = line
        if problems:
            continue  # the file is bad: only look for more problems
        jobs.append(
            Job(
                name=name,
                line=line,
                submit=submit.seconds,
                duration=values["duration"],  # type: ignore[arg-type]
                tenant=_one(strings, values["tenant"]),
                gpus=values["gpus"],  # type: ignore[arg-type]
                fraction=values["fraction"],  # type: ignore[arg-type]
                mig=_one(strings, values["mig"]),
                gpu_memory_gib=values["gpu_memory_gib"],  # type: ignore[arg-type]
                cpu=values["cpu"],  # type: ignore[arg-type]
                memory_gib=values["memory_gib"],  # type: ignore[arg-type]
                priority=_one(strings, values["priority"]),
                pool=_one(strings, values["pool"]),
                pods=values["pods"],  # type: ignore[arg-type]
            )
        )
    if kind is not None and kind[0] and jobs:
        start = min(j.submit for j in jobs)
        jobs = [replace(j, submit=j.submit - start) for j in jobs]
    return jobs


def _one(strings: dict[str, str], value: object) -> str | None:
    if value is None:
        return None
    assert isinstance(value, str)
    return strings.setdefault(value, value)


def _shape_ok(values: Mapping[str, object], cells: Cells, line: int, problems: Problems) -> bool:
    shapes = [n for n in ("gpus", "fraction", "mig") if values[n] not in (None, 0)]
    if len(shapes) > 1:
        problems.add(
            "workload.shape",
            f"{' and '.join(shapes)} both set: a job asks for one GPU shape",
            line,
            cells[shapes[1]][1],
            "gpus: whole GPUs per pod; fraction: a share of one GPU; mig: one MIG instance. "
            "Leave the others empty.",
        )
        return False
    if values["mig"] is not None and values["gpu_memory_gib"] is not None:
        problems.add(
            "workload.shape",
            "gpu_memory_gib set beside mig: a MIG profile fixes its memory",
            line,
            cells["gpu_memory_gib"][1],
            "Leave gpu_memory_gib empty on a MIG row; the profile's name says its memory.",
        )
        return False
    return True


# ---------------------------------------------------------------------------------------------
# Names against a stack


def check_workload(stack: Stack, workload: Workload) -> list[Diagnostic]:
    """Return an error for each row naming a tenant, priority, pool or MIG profile not in the stack.

    A MIG profile must be in the layout of the pool a row pins, or else of some pool of the
    stack. At most ``MAX_PROBLEMS`` are returned, then one saying how many more there were.
    """
    problems = Problems(workload.source)
    tenants = [t.name for t in stack.tenants]
    pools = {p.name: p for p in stack.pools}
    layouts = {p.name: {name for name, _ in p.sharing.mig_layout} for p in stack.pools}
    every_profile = set().union(*layouts.values()) if layouts else set()
    for job in workload.jobs:
        if job.tenant is not None and job.tenant not in tenants:
            problems.add(
                "workload.unknown-tenant", f"tenant {job.tenant!r} is not in stack "
                f"{stack.name!r}", job.line,
                detail=_listing("tenants", tenants, job.tenant),
            )  # fmt: skip
        if job.priority is not None and job.priority not in PRIORITIES:
            problems.add(
                "workload.unknown-priority", f"priority {job.priority!r} is not a gpupool "
                "priority", job.line, detail=_listing("priorities", PRIORITIES, job.priority),
            )  # fmt: skip
        if job.pool is not None and job.pool not in pools:
            problems.add(
                "workload.unknown-pool", f"pool {job.pool!r} is not in stack {stack.name!r}",
                job.line, detail=_listing("pools", list(pools), job.pool),
            )  # fmt: skip
        if job.mig is not None:
            pinned = job.pool if job.pool in layouts else None
            have = every_profile if pinned is None else layouts[pinned]
            if job.mig not in have:
                where = f"stack {stack.name!r}" if pinned is None else f"pool {pinned!r}"
                problems.add(
                    "workload.unknown-mig-profile",
                    f"MIG profile {job.mig!r} is in no MIG layout of {where}",
                    job.line,
                    detail=_listing("MIG profiles", sorted(have), job.mig),
                )
    out = list(problems.found)
    if problems.left_out:
        at = Pos(out[-1].range.start.line if out[-1].range else 1, 1)
        out.append(
            error("workload.too-many-problems", f"{problems.left_out:,} more problems not shown")
            .placed(Range(workload.source, at, at))
        )  # fmt: skip
    return out


def _listing(what: str, names: Iterable[str], name: str) -> str:
    names = list(names)
    if not names:
        return f"The stack has no {what}."
    return f"The stack's {what}: {', '.join(names)}.{_did_you_mean(name, names)}"
