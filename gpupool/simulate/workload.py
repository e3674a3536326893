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

``check_workload`` (``gpupool.simulate.fit``, imported here) is the second step, against a
stack: the tenants, priorities, pools and MIG profiles the rows name must be the stack's.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from functools import partial
from pathlib import Path

from gpupool.errors import InputError
from gpupool.simulate import openb
from gpupool.simulate.columns import BY_NAME, COLUMNS, MAX_SECONDS, BadValue, Submit, read_json
from gpupool.simulate.fit import check_workload as check_workload
from gpupool.simulate.fit import did_you_mean
from gpupool.simulate.jobs import Job, Workload
from gpupool.simulate.source import Problems, csv_records, lines
from gpupool.spec.diagnostics import Diagnostic, error

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
        problems.add(
            error(
                "workload.empty",
                "the workload holds no job",
                "Add a row per job below the header (docs/workload.md).",
            ),
            1,
        )
    problems.raise_if_any()
    jobs.sort(key=lambda j: j.submit)  # stable: file order breaks ties
    return Workload(source=source, jobs=tuple(jobs))


# ---------------------------------------------------------------------------------------------
# Rows: (line, the raw cells in COLUMNS order (None: absent), where each cell starts)


#: A row: its line, its cells in ``COLUMNS`` order (None where absent), and a function giving the
#: 1-based column where the cell of a ``COLUMNS`` index starts (called only to report a problem).
Row = tuple[int, list[object], Callable[[int], int]]


def _csv_rows(path: Path, problems: Problems) -> Iterator[Row]:
    header: list[str] | None = None
    order: list[int | None] = []  # COLUMNS index -> header index
    for first, row in csv_records(path, problems):
        if header is None:
            header = [cell.strip() for cell in row]
            if not _header_ok(header, first, problems):
                return
            at = {name: i for i, name in enumerate(header)}
            order = [at.get(c.name) for c in COLUMNS]
            continue
        if len(row) != len(header):
            problems.add(
                error(
                    "workload.cell-count",
                    f"{len(row)} cells where the header has {len(header)}",
                    f"Columns: {', '.join(header)}. A cell holding a comma is quoted.",
                ),
                first,
            )
            continue
        yield (
            first,
            [None if i is None else row[i] for i in order],
            partial(_csv_column, row, order),
        )


def _csv_column(row: list[str], order: list[int | None], index: int) -> int:
    """Return where the cell of ``COLUMNS[index]`` starts (exact when no cell is quoted)."""
    at = order[index]
    return 1 if at is None else 1 + sum(len(cell) + 1 for cell in row[:at])


def _header_ok(header: list[str], line: int, problems: Problems) -> bool:
    ok = True
    seen: set[str] = set()
    looks_openb = {"cpu_milli", "num_gpu", "gpu_milli"} & set(header)
    for i, name in enumerate(header):
        column = _csv_column(header, list(range(len(header))), i)
        if name in seen:
            problems.add(
                error("workload.duplicate-column", f"column {name!r} appears twice"), line, column
            )
            ok = False
        seen.add(name)
        if name not in BY_NAME:
            hint = did_you_mean(name, BY_NAME)
            if looks_openb:
                hint += " This header is an openb pod list's: read it with --workload-format openb."
            problems.add(
                error(
                    "workload.unknown-column",
                    f"unknown column {name!r}",
                    f"Columns: {', '.join(BY_NAME)}.{hint}",
                ),
                line,
                column,
            )
            ok = False
    for column in COLUMNS:
        if column.required and column.name not in seen:
            problems.add(
                error(
                    "workload.missing-column",
                    f"no {column.name!r} column",
                    f"Every job needs {column.name}: {column.meaning}.",
                ),
                line,
            )
            ok = False
    return ok


def _jsonl_rows(path: Path, problems: Problems) -> Iterator[Row]:
    for line, text in lines(path, problems):
        if not text.strip():
            continue
        try:
            value = json.loads(text, parse_constant=_no_constant)
        except (ValueError, RecursionError) as exc:
            where = getattr(exc, "colno", 1)
            problems.add(
                error("workload.bad-json", f"not JSON: {getattr(exc, 'msg', exc)}"), line, where
            )
            continue
        if not isinstance(value, dict):
            problems.add(
                error(
                    "workload.bad-json",
                    "a row must be a JSON object",
                    'One job per line, such as {"tenant": "ml", "duration": "2h"}.',
                ),
                line,
            )
            continue
        unknown = [key for key in value if key not in BY_NAME]
        for key in unknown:
            problems.add(
                error(
                    "workload.unknown-column",
                    f"unknown column {key!r}",
                    f"Columns: {', '.join(BY_NAME)}.{did_you_mean(key, BY_NAME)}",
                ),
                line,
                _json_column(text, key),
            )
        if not unknown:
            yield line, [value.get(c.name) for c in COLUMNS], partial(_json_at, text)


def _json_column(text: str, key: str) -> int:
    return max(1, text.find(json.dumps(key)) + 1)


def _json_at(text: str, index: int) -> int:
    return _json_column(text, COLUMNS[index].name)


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


# ---------------------------------------------------------------------------------------------
# Jobs from rows

# Indexes of the cells of a row, in ``COLUMNS`` order (tests/simulate/test_workload_schema.py
# holds the order).
_NAME, _TENANT, _SUBMIT, _DURATION, _GPUS, _FRACTION, _MIG, _GPU_MEMORY = range(8)
_CPU, _MEMORY, _PRIORITY, _POOL, _PODS = range(8, 13)
_EVERY, _WRITE, _RESTORE = range(13, 16)
#: The most distinct cells of one column whose values are kept (a column of few values, such
#: as tenant, cpu or gpus, is then read once per value; names and times are not kept).
_CACHED = 4096
_BAD = object()


def _jobs(rows: Iterable[Row], problems: Problems, *, from_json: bool) -> list[Job]:
    jobs: list[Job] = []
    names: dict[str, int] = {}
    # each column's values already read, by cell text; an absent column (None) and, in CSV, an
    # empty cell are the default (JSON's empty string is a value, read and refused)
    caches: list[dict[object, object]] = [{} for _ in COLUMNS]
    for cache, column in zip(caches, COLUMNS, strict=True):
        if not column.required:
            cache[None] = column.default
            if not from_json:
                cache[""] = column.default
    readers = [partial(read_json, c) if from_json else c.read for c in COLUMNS]
    kind: tuple[bool, int] | None = None  # (RFC 3339?, line of the first row)
    columns: list[int] = []  # RFC 3339 times: where each job's submit cell starts (0: none)
    for line, cells, where in rows:
        # most cells repeat a value read before: one look-up each, then read only the others
        values = [
            cache.get(raw, _BAD) if raw is None or type(raw) is str else _BAD
            for raw, cache in zip(cells, caches, strict=True)
        ]
        bad = _read_cells(cells, values, (readers, caches), line, where, problems,
                          from_json=from_json)
        if bad or not _shape_ok(values, line, where, problems):
            continue
        submit = values[_SUBMIT]
        assert isinstance(submit, Submit)
        if cells[_SUBMIT] not in (None, ""):
            if kind is None:
                kind = (submit.rfc3339, line)
            elif kind[0] != submit.rfc3339:
                problems.add(_mixed_times(submit, kind), line, where(_SUBMIT))
                continue
        name = values[_NAME]
        if name is None:
            name = f"job-{line}"
        assert isinstance(name, str)
        if name in names:
            problems.add(
                error(
                    "workload.duplicate-name", f"job name {name!r} is also on line {names[name]}"
                ),
                line,
                where(_NAME),
            )
            continue
        names[name] = line
        if problems:
            continue  # the file is bad: only look for more problems
        if kind is None or kind[0]:  # kept for RFC 3339 files (None: no time seen yet)
            columns.append(where(_SUBMIT) if cells[_SUBMIT] not in (None, "") else 0)
        jobs.append(
            Job(
                name,
                line,
                submit.seconds,
                values[_DURATION],
                values[_TENANT],  # type: ignore[arg-type]
                values[_GPUS],
                values[_FRACTION],
                values[_MIG],
                values[_GPU_MEMORY],  # type: ignore[arg-type]
                values[_CPU],
                values[_MEMORY],
                values[_PRIORITY],
                values[_POOL],  # type: ignore[arg-type]
                values[_PODS],  # type: ignore[arg-type]
                checkpoint_every=values[_EVERY],  # type: ignore[arg-type]
                checkpoint_write=values[_WRITE],  # type: ignore[arg-type]
                checkpoint_restore=values[_RESTORE],  # type: ignore[arg-type]
            )
        )
    if kind is not None and kind[0] and jobs:
        jobs = _from_earliest(jobs, columns, problems)
    return jobs


def _read_cells(cells: list[object], values: list[object],
                read: tuple[list[Callable[[object], object]], list[dict[object, object]]],
                line: int, where: Callable[[int], int], problems: Problems, *,
                from_json: bool) -> bool:
    """Read the cells not found in the caches into ``values``; return True when one was bad."""
    readers, caches = read
    bad = False
    for index in [i for i, v in enumerate(values) if v is _BAD]:
        column, raw = COLUMNS[index], cells[index]
        if raw is None or (not from_json and type(raw) is str and (not raw or raw.isspace())):
            if column.required:
                problems.add(
                    error(
                        "workload.missing-value",
                        f"{column.name} is required",
                        f"{column.name}: {column.meaning}.",
                    ),
                    line,
                    where(index),
                )
                bad = True
            values[index] = column.default
            continue
        try:
            value = readers[index](raw)
        except BadValue as exc:
            problems.add(
                error("workload.bad-value", str(exc), f"{column.name}: {column.meaning}."),
                line,
                where(index),
            )
            bad = True
            values[index] = None
            continue
        cache = caches[index]
        if type(raw) is str and len(cache) < _CACHED:
            cache[raw] = value
        values[index] = value
    return bad


def _mixed_times(submit: Submit, kind: tuple[bool, int]) -> Diagnostic:
    def what(rfc3339: bool) -> str:
        return "an RFC 3339 time" if rfc3339 else "seconds"

    return error(
        "workload.mixed-times",
        f"submit is {what(submit.rfc3339)}, line {kind[1]}'s is {what(kind[0])}",
        "A file's submit times are all seconds from the start or all RFC 3339 times (the "
        "earliest is then 0).",
    )


def _from_earliest(jobs: list[Job], columns: list[int], problems: Problems) -> list[Job]:
    """Return RFC 3339 submit times as seconds from the earliest, each at most ``MAX_SECONDS``.

    ``columns`` holds where each job's submit cell starts, 0 for a row without one, which starts
    with the earliest.
    """
    timed = [j for j, at in zip(jobs, columns, strict=True) if at]
    first = min(timed, key=lambda j: j.submit, default=None)
    start = first.submit if first is not None else 0.0
    out = [replace(j, submit=j.submit - start if at else 0.0)
           for j, at in zip(jobs, columns, strict=True)]
    for job, column in zip(out, columns, strict=True):
        if job.submit > MAX_SECONDS:
            problems.add(
                error(
                    "workload.bad-value",
                    f"submit is {job.submit / 86400:,.0f} days after the earliest, line "
                    f"{first.line if first else 1}'s; a workload spans at most 366 days",
                    f"{COLUMNS[_SUBMIT].name}: {COLUMNS[_SUBMIT].meaning}.",
                ),
                job.line,
                column,
            )
    return [] if problems else out


def _shape_ok(
    values: list[object], line: int, where: Callable[[int], int], problems: Problems
) -> bool:
    shapes = [i for i in (_GPUS, _FRACTION, _MIG) if values[i] not in (None, 0)]
    if len(shapes) > 1:
        names = " and ".join(COLUMNS[i].name for i in shapes)
        problems.add(
            error(
                "workload.shape",
                f"{names} both set: a job asks for one GPU shape",
                "gpus: whole GPUs per pod; fraction: a share of one GPU; mig: one MIG instance. "
                "Leave the others empty.",
            ),
            line,
            where(shapes[1]),
        )
        return False
    every, write = values[_EVERY], values[_WRITE]
    if isinstance(every, float) and isinstance(write, float) and write >= every:
        problems.add(
            error(
                "workload.bad-value",
                "checkpoint_write is not shorter than checkpoint_every",
                "A job that writes a checkpoint for as long as it works between two never "
                "progresses. Lengthen checkpoint_every or shorten checkpoint_write.",
            ),
            line,
            where(_WRITE),
        )
        return False
    if values[_MIG] is not None and values[_GPU_MEMORY] is not None:
        problems.add(
            error(
                "workload.shape",
                "gpu_memory_gib set beside mig: a MIG profile fixes its memory",
                "Leave gpu_memory_gib empty on a MIG row; the profile's name says its memory.",
            ),
            line,
            where(_GPU_MEMORY),
        )
        return False
    return True
