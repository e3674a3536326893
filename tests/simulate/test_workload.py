"""Reading workload files (gpupool/simulate/workload.py, source.py, columns.py).

The fixtures are under ``tests/fixtures/workloads/``; every bad-row kind has a row there and its
expected line and code here.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpupool.errors import InputError
from gpupool.simulate import source
from gpupool.simulate.columns import MAX_SECONDS
from gpupool.simulate.generate import to_csv
from gpupool.simulate.jobs import Job
from gpupool.simulate.source import WorkloadError
from gpupool.simulate.workload import check_workload, read_workload
from tests.paths import FIXTURES
from tests.stacks import load_stack

WORKLOADS = FIXTURES / "workloads"


def _problems(path: Path, fmt: str | None = None) -> list[tuple[int, int, str]]:
    with pytest.raises(WorkloadError) as caught:
        read_workload(path, fmt)
    return [(d.range.start.line, d.range.start.column, d.code) for d in caught.value.problems]


def test_csv_reads_every_column_with_its_unit_and_default() -> None:
    jobs = {j.name: j for j in read_workload(WORKLOADS / "valid" / "small.csv").jobs}
    train = jobs["train"]
    assert (train.line, train.submit, train.duration, train.gpus, train.pods) == (2, 0, 7200, 8, 2)
    assert (train.tenant, train.priority, train.pool, train.cpu, train.memory_gib) == (
        "foundation", "high", "h100-island", 64, 512,
    )  # fmt: skip
    notebook = jobs["notebook"]
    assert (notebook.mig, notebook.duration, notebook.gpus, notebook.fraction) == (
        "1g.10gb", 5400, 0, None,
    )  # fmt: skip
    assert jobs["sweep"].cpu == 0.5  # 500m
    etl = jobs["etl"]  # no GPU shape: a CPU-only job; empty cells take their defaults
    assert (etl.gpus, etl.fraction, etl.mig, etl.priority, etl.pool, etl.pods) == (
        0, None, None, None, None, 1,
    )  # fmt: skip
    assert etl.duration == 600


def test_jobs_are_sorted_by_submit_with_file_order_breaking_ties(tmp_path: Path) -> None:
    path = tmp_path / "w.csv"
    path.write_text("name,submit,duration\nc,30,1\na,10,1\nb,10,1\nd,0,1\n", encoding="utf-8")
    assert [j.name for j in read_workload(path).jobs] == ["d", "a", "b", "c"]


def test_jsonl_reads_rfc3339_times_from_the_earliest_and_skips_blank_lines() -> None:
    workload = read_workload(WORKLOADS / "valid" / "small.jsonl")
    assert [(j.name, j.line, j.submit) for j in workload.jobs] == [
        ("train", 1, 0.0), ("notebook", 2, 600.0), ("sweep", 4, 600.0),
    ]  # fmt: skip
    notebook = workload.jobs[1]
    assert (notebook.cpu, notebook.duration, notebook.pool) == (2.0, 5400.0, "a100-mig")
    assert workload.jobs[2].pool is None  # JSON null takes the default


def test_default_names_are_unique_by_line(tmp_path: Path) -> None:
    path = tmp_path / "w.csv"
    path.write_text("duration\n60\n\n2m\n", encoding="utf-8")
    assert [(j.name, j.duration) for j in read_workload(path).jobs] == [
        ("job-2", 60.0), ("job-4", 120.0),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("90", 90), ("1.5", 1.5), ("45s", 45), ("30m", 1800), ("2h", 7200), ("1h30m", 5400),
     ("1d", 86400), ("1.5h", 5400), (" 2h ", 7200)],
)  # fmt: skip
def test_durations_in_seconds_or_with_units(tmp_path: Path, text: str, seconds: float) -> None:
    path = tmp_path / "w.csv"
    path.write_text(f'duration\n"{text}"\n', encoding="utf-8")
    assert read_workload(path).jobs[0].duration == seconds


# Every bad-row kind, at its line and column (1-based; a CSV row's column is where its cell starts).
BAD = {
    "bad-rows.csv": [
        (3, 27, "workload.missing-value"),  # duration empty
        (4, 24, "workload.bad-value"),  # "2 hours"
        (5, 32, "workload.shape"),  # gpus and fraction
        (6, 40, "workload.shape"),  # gpu_memory_gib beside mig
        (7, 1, "workload.cell-count"),
        (8, 1, "workload.duplicate-name"),  # ok-1 again
        (9, 21, "workload.mixed-times"),  # an RFC 3339 time after seconds
        (10, 1, "workload.bad-csv"),  # "quoted"x
    ],
    "bad-header.csv": [
        (1, 1, "workload.missing-column"),  # no duration
        (1, 25, "workload.duplicate-column"),
        (1, 30, "workload.unknown-column"),
    ],
    "bad-rows.jsonl": [
        (2, 45, "workload.bad-value"),  # "8" is a string
        (3, 35, "workload.unknown-column"),  # queue
        (4, 1, "workload.bad-json"),  # an array
        (5, 10, "workload.bad-json"),  # not JSON
        (6, 1, "workload.bad-json"),  # NaN
    ],
    "empty.csv": [(1, 1, "workload.empty")],
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_every_bad_row_is_reported_at_its_line(name: str) -> None:
    assert _problems(WORKLOADS / "invalid" / name) == BAD[name]


def test_openb_rows_are_reported_at_their_lines() -> None:
    codes = [(line, code) for line, _, code in _problems(WORKLOADS / "invalid" / "openb-bad.csv",
                                                          "openb")]  # fmt: skip
    assert codes == [
        (3, "workload.bad-value"),  # cpu_milli "four"
        (4, "workload.bad-value"),  # two GPUs each shared
        (5, "workload.bad-value"),  # gpu_milli 1500
        (6, "workload.bad-value"),  # qos Gold
        (7, "workload.bad-value"),  # deleted before created
        (8, "workload.duplicate-name"),
    ]


def test_the_error_carries_every_problem_as_text_and_json() -> None:
    path = WORKLOADS / "invalid" / "bad-rows.csv"
    with pytest.raises(WorkloadError) as caught:
        read_workload(path)
    err = caught.value
    assert isinstance(err, InputError)  # the command line's one-line-per-error path
    text = str(err)
    assert text.startswith(f"{path}: 8 problems in the workload; nothing was simulated\n")
    assert f"{path}:4:24: error: duration must be seconds" in text
    first = err.diagnostics[0]
    assert first["code"] == "workload.missing-value"
    assert first["range"]["filename"] == str(path)
    assert first["range"]["start"] == {"line": 3, "column": 27}


def test_an_openb_list_read_as_gpupool_csv_says_which_format_it_is(tmp_path: Path) -> None:
    path = tmp_path / "pods.csv"
    path.write_text("name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,1000,1024,1,500\n",
                    encoding="utf-8")  # fmt: skip
    with pytest.raises(WorkloadError) as caught:
        read_workload(path)
    assert "--workload-format openb" in caught.value.problems[-1].detail


def test_the_format_comes_from_the_suffix_or_is_named(tmp_path: Path) -> None:
    path = tmp_path / "w.txt"
    path.write_text('{"duration": 5}\n', encoding="utf-8")
    with pytest.raises(InputError, match=re.escape("--workload-format csv|jsonl|openb")):
        read_workload(path)
    assert read_workload(path, "jsonl").jobs[0].duration == 5
    with pytest.raises(InputError, match="unknown workload format 'yaml'"):
        read_workload(path, "yaml")


def test_a_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot be read"):
        read_workload(tmp_path / "absent.csv")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "w.csv"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="not a regular file"):
        read_workload(fifo)


def test_a_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "w.csv"
    folder.mkdir()
    with pytest.raises(InputError):
        read_workload(folder)


def test_a_bad_line_does_not_hide_the_lines_after_it(tmp_path: Path) -> None:
    path = tmp_path / "w.csv"
    long_row = b"a," + b"1" * (source.MAX_LINE_BYTES + 1) + b"\n"
    path.write_bytes(b"name,duration\n" + long_row + b"caf\xe9,5\nz\x00,5\nok,-1\n")
    assert _problems(path) == [
        (2, 1, "workload.line-too-long"),
        (3, 4, "workload.not-utf8"),
        (4, 2, "workload.not-utf8"),  # NUL
        (5, 4, "workload.bad-value"),
    ]


def test_problems_are_listed_up_to_a_bound_then_counted(tmp_path: Path) -> None:
    path = tmp_path / "w.csv"
    # distinct problems: the same one on many rows is one diagnostic (test_workload_bounds.py)
    rows = "".join(f"j{i},soon{i}\n" for i in range(source.MAX_PROBLEMS + 7))
    path.write_text("name,duration\n" + rows, encoding="utf-8")
    with pytest.raises(WorkloadError) as caught:
        read_workload(path)
    problems = caught.value.problems
    assert len(problems) == source.MAX_PROBLEMS + 1
    assert problems[-1].code == "workload.too-many-problems"
    assert problems[-1].summary == "7 more problems not shown"


def test_a_byte_order_mark_and_crlf_line_ends_are_read(tmp_path: Path) -> None:
    path = tmp_path / "w.csv"
    path.write_bytes(b"\xef\xbb\xbfname,duration\r\na,5\r\n")
    assert [(j.name, j.duration) for j in read_workload(path).jobs] == [("a", 5.0)]


def test_check_workload_names_what_the_stack_lacks_at_each_row() -> None:
    stack = load_stack("aws-training-compact")
    workload = read_workload(WORKLOADS / "invalid" / "unknown-names.csv")
    found = [(d.range.start.line, d.code) for d in check_workload(stack, workload)]
    assert found == [
        (3, "workload.unknown-tenant"),  # foundaton
        (4, "workload.unknown-priority"),  # urgent
        (5, "workload.unknown-pool"),  # a100-mog
        (6, "workload.unknown-mig-profile"),  # 7g.80gb is not in a100-mig's layout
        (7, "workload.unknown-mig-profile"),  # 1g.5gb is in no layout of the stack
    ]
    tenant = check_workload(stack, workload)[0]
    assert "Did you mean 'foundation'?" in tenant.detail


def test_check_workload_accepts_the_valid_fixtures() -> None:
    stack = load_stack("aws-training-compact")
    for name in ("small.csv", "small.jsonl"):
        assert check_workload(stack, read_workload(WORKLOADS / "valid" / name)) == []


# ---------------------------------------------------------------------------------------------
# Properties over generated rows

_names = st.text(st.sampled_from("abcdefghij-0123456789"), min_size=1, max_size=12)
_jobs = st.builds(
    lambda shape, name, tenant, submit, duration, cpu, memory, pods, pool, priority: Job(
        name=name, line=0, submit=float(submit), duration=float(duration), tenant=tenant,
        gpus=shape[0], fraction=shape[1], mig=shape[2], gpu_memory_gib=shape[3], cpu=cpu,
        memory_gib=memory, priority=priority, pool=pool, pods=pods,
    ),
    st.one_of(
        st.tuples(st.integers(1, 16), st.none(), st.none(), st.none()),
        st.tuples(st.just(0), st.sampled_from([0.125, 0.25, 0.5, 0.75]), st.none(),
                  st.sampled_from([None, 4.0, 10.5])),
        st.tuples(st.just(0), st.none(), st.sampled_from(["1g.10gb", "3g.40gb", "7g.80gb"]),
                  st.none()),
        st.tuples(st.just(0), st.none(), st.none(), st.sampled_from([None, 2.0])),
    ),
    _names, st.one_of(st.none(), _names), st.integers(0, 10**7), st.integers(0, 10**6),
    st.sampled_from([0.0, 0.5, 2.0, 16.0]), st.sampled_from([0.0, 1.0, 64.0]),
    st.integers(1, 64), st.one_of(st.none(), _names), st.sampled_from([None, "high", "low"]),
)  # fmt: skip


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(_jobs, max_size=30, unique_by=lambda j: j.name))
def test_written_jobs_read_back_the_same(tmp_path: Path, jobs: list[Job]) -> None:
    """Any jobs written as gpupool CSV read back to the same jobs, each on its own line."""
    path = tmp_path / "w.csv"
    path.write_text(to_csv(jobs), encoding="utf-8")
    if not jobs:
        with pytest.raises(WorkloadError, match="holds no job"):
            read_workload(path)
        return
    read = read_workload(path).jobs
    want = sorted(
        (Job(**{**{f: getattr(j, f) for f in Job.__slots__}, "line": i + 2}) for i, j in
         enumerate(jobs)),
        key=lambda j: j.submit,
    )  # fmt: skip
    assert list(read) == want
    assert all(math.isfinite(j.submit) and j.duration >= 0 for j in read)


def test_a_row_without_a_submit_time_in_a_file_of_rfc3339_times_starts_first(
    tmp_path: Path,
) -> None:
    path = tmp_path / "w.jsonl"
    path.write_text(
        '{"name": "a", "submit": "2026-01-05T09:00:00+01:00", "duration": 1}\n'
        '{"name": "b", "duration": 1}\n'
        '{"name": "c", "submit": "2026-01-05T08:01:00Z", "duration": 1}\n',
        encoding="utf-8",
    )
    assert [(j.name, j.submit) for j in read_workload(path).jobs] == [
        ("a", 0.0), ("b", 0.0), ("c", 60.0),
    ]  # fmt: skip


def test_a_json_integer_too_large_for_a_float_is_a_bad_value(tmp_path: Path) -> None:
    path = tmp_path / "w.jsonl"
    path.write_text('{"duration": 1' + "0" * 400 + "}\n", encoding="utf-8")
    assert _problems(path) == [(1, 2, "workload.bad-value")]


_HEAD = b"name,tenant,submit,duration,gpus,fraction,mig,cpu,pods\n"


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    fmt=st.sampled_from(["csv", "jsonl", "openb"]),
    body=st.one_of(
        st.binary(max_size=300),
        st.lists(
            st.lists(st.sampled_from([*'a1,.-:"{}[]hmT \t\x00é', "nan", "1e999", "1e308", "9" * 400,
                                      "d", "-0", "2026-01-05T09:00:00Z", "0001-01-01T00:00:00Z"]),
                     max_size=40)
            .map("".join),
            max_size=6,
        ).map(lambda rows: "\n".join(rows).encode("utf-8", "surrogatepass")),
    ),
)  # fmt: skip
def test_any_bytes_give_a_workload_or_its_problems(tmp_path: Path, fmt: str, body: bytes) -> None:
    """No file makes the reader raise anything but a WorkloadError (never a traceback)."""
    path = tmp_path / "w.any"
    path.write_bytes((_HEAD if fmt != "jsonl" else b"") + body)
    try:
        workload = read_workload(path, fmt)
    except WorkloadError as exc:
        assert exc.problems and all(d.range is not None for d in exc.problems)
    else:  # every figure finite and within its bounds (docs/workload.md, Bounds)
        for j in workload.jobs:
            assert 0 <= j.submit <= MAX_SECONDS and (0 <= j.duration <= MAX_SECONDS or (
                fmt == "openb" and j.duration == math.inf)), j  # openb without deletion_time
            figures = (j.cpu, j.memory_gib, j.gpu_memory_gib or 0.0, j.fraction or 0.0)
            assert all(math.isfinite(x) and x >= 0 for x in figures), j
