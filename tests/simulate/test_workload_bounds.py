"""Every figure of a workload is finite and within its bounds (docs/workload.md, Bounds).

Each test holds a reproducer from issue 34 (numbers that reached the engine as infinity and left
it as ``inf`` hours and ``nan%``), issue 35 (45 "unknown tenant" errors, one per row; a fraction
on a pool that shares no GPU by fraction) or what was found beside them.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpupool.simulate.columns import MAX_SECONDS
from gpupool.simulate.source import WorkloadError, line_ranges
from gpupool.simulate.workload import check_workload, read_workload
from tests.paths import EXAMPLES
from tests.stacks import load_stack

BIG = "9" * 400


def _problems(path: Path, fmt: str | None = None) -> list[tuple[int, int, str, str]]:
    with pytest.raises(WorkloadError) as caught:
        read_workload(path, fmt)
    return [(d.range.start.line, d.range.start.column, d.code, d.summary)
            for d in caught.value.problems if d.range is not None]


@pytest.mark.parametrize(("submit", "duration", "column"), [
    ("0", BIG, 4),  # 400 digits of seconds
    ("0", BIG + "d", 4),  # 400 digits of days: float() gives inf, without an error
    ("0", "1e308", 4),
    ("0", f"{MAX_SECONDS + 1:.0f}", 4),
    ("0", "367d", 4),
    ("0", "8784h1s", 4),  # 366 days and a second
    (BIG, "60", 2),
    ("1e308", "60", 2),
    (f"{MAX_SECONDS + 0.5}", "60", 2),
], ids=lambda v: v if len(str(v)) < 20 else f"{len(v)}-chars")  # fmt: skip
def test_a_time_beyond_366_days_is_a_bad_value_at_its_cell(
    tmp_path: Path, submit: str, duration: str, column: int
) -> None:
    path = tmp_path / "w.csv"
    path.write_text(f"submit,duration\n{submit},{duration}\n", encoding="utf-8")
    [(line, col, code, summary)] = _problems(path)
    assert (line, col, code) == (2, 1 if column == 2 else len(submit) + 2, "workload.bad-value")
    assert "at most 366 days (31,622,400 seconds)" in summary
    assert "inf" not in summary


def test_submit_and_duration_at_the_bound_are_read(tmp_path: Path) -> None:
    path = tmp_path / "w.csv"
    path.write_text(f"submit,duration\n{MAX_SECONDS:.0f},366d\n", encoding="utf-8")
    [job] = read_workload(path).jobs
    assert job.submit == job.duration == MAX_SECONDS


def test_offsets_of_1e308_never_sum_to_infinity(tmp_path: Path) -> None:
    """Issue 34: ``1e308`` plus ``1e308`` reached the report as ``inf`` hours."""
    path = tmp_path / "w.jsonl"
    path.write_text('{"submit": 1e308, "duration": 1e308}\n{"submit": 1.7e308, "duration": 9}\n',
                    encoding="utf-8")  # fmt: skip
    found = [(line, code) for line, _, code, _ in _problems(path)]
    assert found == [(1, "workload.bad-value")] * 2 + [(2, "workload.bad-value")]


def test_rfc3339_times_span_at_most_366_days(tmp_path: Path) -> None:
    path = tmp_path / "w.jsonl"
    path.write_text(
        '{"submit": "2026-01-05T09:00:00Z", "duration": 1}\n'
        '{"duration": 1}\n'
        '{"submit": "2028-01-05T09:00:00Z", "duration": 1}\n',
        encoding="utf-8",
    )
    [(line, column, code, summary)] = _problems(path)
    assert (line, column, code) == (3, 2, "workload.bad-value")  # where "submit" starts
    assert summary.startswith("submit is 730 days after the earliest, line 1's")


def test_a_time_before_1970_is_the_earliest_too(tmp_path: Path) -> None:
    """A negative epoch time was taken for a row without a time and clamped to 0."""
    path = tmp_path / "w.jsonl"
    path.write_text('{"name": "a", "submit": "1970-01-01T01:00:00Z", "duration": 1}\n'
                    '{"name": "b", "submit": "1969-12-31T23:00:00Z", "duration": 1}\n'
                    '{"name": "c", "duration": 1}\n', encoding="utf-8")  # fmt: skip
    assert [(j.name, j.submit) for j in read_workload(path).jobs] == [
        ("b", 0.0), ("c", 0.0), ("a", 7200.0)]


@pytest.mark.parametrize("row", [
    f"p,{BIG},1024,0,0,,,,0,",  # cpu_milli: an OverflowError dividing by 1000
    f"p,1000,{BIG},0,0,,,,0,",
    f"p,1000,1024,{BIG},1000,,,,0,",
    f"p,1000,1024,1,1000,,,,{BIG},",
    f"p,1000,1024,1,1000,,,,0,{BIG}",
    f"p,1000,1024,1,1000,,,,0,{'9' * 5000}",  # past int()'s digit limit
    "p,1000,1024,1,1000,,,,0,40000000",  # 463 days
    "p,+1000,1024,1,1000,,,,0,",
], ids=["cpu", "memory", "gpus", "created", "deleted", "5000-digits", "463-days",
        "signed"])  # fmt: skip
def test_openb_numbers_are_bounded(tmp_path: Path, row: str) -> None:
    path = tmp_path / "pods.csv"
    path.write_text("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
                    f"creation_time,deletion_time\n{row}\n", encoding="utf-8")  # fmt: skip
    [(line, _, code, summary)] = _problems(path, "openb")
    assert (line, code) == (2, "workload.bad-value")
    assert len(summary) < 200


def test_an_openb_list_without_deletion_times_is_for_capacity_mode_only(tmp_path: Path) -> None:
    """Its pods never end: a replay reported ``inf`` hours; ``--saturate`` never ends a pod."""
    path = tmp_path / "pods.csv"
    path.write_text("name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
                    + "".join(f"p{i},1000,1024,1,1000\n" for i in range(5)), encoding="utf-8")
    stack = load_stack("azure-kai-fair")
    workload = read_workload(path, "openb")
    [problem] = check_workload(stack, workload)
    assert (problem.code, problem.range.start.line) == ("workload.never-ends", 2)
    assert problem.is_error and problem.summary.endswith("(and 4 more rows: lines 3-6)")
    assert "--saturate" in problem.detail
    assert check_workload(stack, workload, replay=False) == []


# ---------------------------------------------------------------------------------------------
# Repeated problems are one diagnostic


def test_the_bundled_workload_on_another_stack_is_one_error_per_unknown_tenant() -> None:
    """Issue 35: 45 "unknown tenant" errors, one per row, against any other stack."""
    workload = read_workload(EXAMPLES / "azure-kai-fair.jobs.csv")
    found = check_workload(load_stack("aws-inference-l4"), workload)
    tenants = sorted({j.tenant for j in workload.jobs if j.tenant})
    assert [d.code for d in found] == ["workload.unknown-tenant"] * len(tenants)
    for d in found:
        tenant = d.summary.split("'")[1]
        lines = sorted(j.line for j in workload.jobs if j.tenant == tenant)
        assert d.range.start.line == lines[0]  # the first row, whatever the submit order
        assert f"(and {len(lines) - 1} more rows: lines " in d.summary
    assert sum(int(d.summary.split("(and ")[1].split()[0]) + 1 for d in found) == len(
        workload.jobs)


def test_bad_rows_alike_are_grouped_and_different_ones_are_not(tmp_path: Path) -> None:
    path = tmp_path / "w.csv"
    rows = ["a,soon", "b,1", "c,soon", "d,soon", "e,later", "f,soon"]
    path.write_text("name,duration\n" + "\n".join(rows) + "\n", encoding="utf-8")
    with pytest.raises(WorkloadError) as caught:
        read_workload(path)
    err = caught.value
    summaries = [(d.range.start.line, d.summary) for d in err.problems]
    assert summaries == [
        (2, "duration must be seconds or a duration such as 30m, 2h or 1h30m, not 'soon' "
            "(and 3 more rows: lines 4-5, 7)"),
        (6, "duration must be seconds or a duration such as 30m, 2h or 1h30m, not 'later'"),
    ]  # fmt: skip
    assert str(err).startswith(f"{path}: 2 problems in the workload")
    assert err.diagnostics[0]["summary"].endswith("(and 3 more rows: lines 4-5, 7)")


def test_line_ranges() -> None:
    assert line_ranges([3, 4, 5, 7, 9, 10]) == "3-5, 7, 9-10"
    assert line_ranges(list(range(2, 40, 2))) == "2, 4, 6, 8, 10, 12, ..."


def test_grouped_errors_reach_the_json_error_document(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from gpupool.cli import run

    code = run(["simulate", str(EXAMPLES / "aws-inference-l4.yaml"), "--workload",
                str(EXAMPLES / "azure-kai-fair.jobs.csv"), "--format", "json"])  # fmt: skip
    assert code == 1
    doc = json.loads(capsys.readouterr().out)
    diagnostics = doc["error"]["diagnostics"]
    assert len(diagnostics) == 3 and all("more rows: lines" in d["summary"] for d in diagnostics)


# ---------------------------------------------------------------------------------------------
# A fraction where no pool shares a GPU by fraction


def _fraction_rows(tmp_path: Path, *rows: str) -> Path:
    path = tmp_path / "w.csv"
    path.write_text("name,tenant,duration,fraction,pool\n" + "\n".join(rows) + "\n",
                    encoding="utf-8")
    return path


def test_a_fraction_on_time_slicing_and_mps_pools_is_a_warning(tmp_path: Path) -> None:
    """docs/workload.md: fraction is for fractional pools; aws-inference-l4 has none."""
    stack = load_stack("aws-inference-l4")
    path = _fraction_rows(tmp_path, "a,search,60,0.5,", "b,search,60,0.25,", "c,ads,60,0.5,",
                          "d,,60,0.5,", "e,,60,0.5,batch-l4-spot")
    found = check_workload(stack, read_workload(path))
    assert [(d.range.start.line, d.code, d.is_error) for d in found] == [
        (2, "workload.fraction-unshared", False),  # and line 3: search's one pool
        (4, "workload.fraction-unshared", False),
        (5, "workload.fraction-unshared", False),  # no tenant: any of the three pools
        (6, "workload.fraction-unshared", False),  # pinned
    ]
    assert found[0].summary == (
        "fraction on pool 'infer-l4' (time-slicing), which shares no GPU by fraction: each pod is "
        "given one replica, 1/4 of a GPU (and 1 more row: line 3)")
    assert "1/8 of a GPU" in found[1].summary  # MPS, 8 replicas
    assert found[2].summary.startswith("fraction on 3 pools, none of which shares a GPU")
    assert "'batch-l4-spot' (time-slicing): one replica, 1/2 of a GPU" in found[2].detail


def test_a_fraction_on_an_exclusive_pool_is_given_a_whole_gpu(tmp_path: Path) -> None:
    stack = load_stack("aws-training-compact")
    pool = next(p for p in stack.pools if p.sharing.kind.name == "exclusive")
    tenant = next(t for t in stack.tenants if pool.name in t.pools)
    path = _fraction_rows(tmp_path, f"a,{tenant.name},60,0.5,{pool.name}")
    [found] = check_workload(stack, read_workload(path))
    assert found.summary.endswith("each pod is given a whole GPU")


@pytest.mark.parametrize("name", ["azure-kai-fair", "onprem-hami"])
def test_a_fraction_on_a_fractional_pool_is_not_warned_about(tmp_path: Path, name: str) -> None:
    stack = load_stack(name)
    pool = next(p for p in stack.pools if p.sharing.kind.scheduler_slots)
    tenant = next((t.name for t in stack.tenants if pool.name in t.pools), "")
    path = _fraction_rows(tmp_path, f"a,{tenant},60,0.5,{pool.name}")
    assert check_workload(stack, read_workload(path)) == []


def test_a_fraction_with_a_mig_pool_among_its_pools_is_not_warned_about(tmp_path: Path) -> None:
    """A MIG pool gives the smallest profile covering the fraction: its own way of sharing."""
    stack = load_stack("aws-training-compact")
    pool = next(p for p in stack.pools if p.sharing.kind.partitioned)
    tenant = next(t for t in stack.tenants if pool.name in t.pools)
    path = _fraction_rows(tmp_path, f"a,{tenant.name},60,0.5,{pool.name}")
    assert check_workload(stack, read_workload(path)) == []


# ---------------------------------------------------------------------------------------------
# Hostile rows through the command line: one error document, or a report of finite numbers

_HOSTILE = ["9" * 400, "9" * 400 + "d", "1e308", "-1", "nan", "inf", "-0", "1e-320", "1.5",
            "31622401", "367d", "8784h", "366d"]
_CELLS = {
    "submit": ["0", "60", "31622400", "2026-01-05T09:00:00Z", "0001-01-01T00:00:00Z"],
    "duration": ["60", "2h", "366d"],
    "gpus": ["", "1", "4097"],
    "fraction": ["", "0.5", "1"],
    "cpu": ["", "1", "500m", "100001"],
    "memory_gib": ["", "4", "1048577"],
    "pods": ["", "2", "0"],
}


def _row(draw: st.DrawFn) -> str:
    cells = [draw(st.sampled_from(values + _HOSTILE)) for values in _CELLS.values()]
    return ",".join(["team-apps", *cells])


@settings(max_examples=25, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(rows=st.lists(st.composite(lambda draw: _row(draw))(), min_size=1, max_size=3))
def test_hostile_rows_give_one_error_document_or_finite_figures(
    tmp_path: Path, rows: list[str]
) -> None:
    from gpupool.cli import run

    path = tmp_path / "w.csv"
    path.write_text("tenant," + ",".join(_CELLS) + "\n" + "\n".join(rows) + "\n",
                    encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run(["simulate", str(EXAMPLES / "azure-kai-fair.yaml"), "--workload", str(path),
                    "--format", "json"])  # fmt: skip
    assert code in (0, 1), err.getvalue()[-2000:]
    doc = json.loads(out.getvalue(), parse_constant=_not_finite)
    if code == 1:
        assert doc["error"]["kind"] in ("workload", "invalid-workload")  # read, or checked
        assert all(d["range"]["start"]["line"] >= 2 for d in doc["error"]["diagnostics"])
    else:
        assert doc["pods"]["submitted"] >= 1


def _not_finite(name: str) -> None:
    raise AssertionError(f"{name} in a JSON document")


@pytest.mark.parametrize(("cells", "column", "says"), [
    ("60,0,,", 4, "checkpoint_every must be more than 0 seconds, not 0"),
    ("60,1e308,,", 4, "checkpoint_every must be at most 366 days"),
    (f"60,{BIG},,", 4, "checkpoint_every must be at most 366 days"),
    ("60,-5,,", 4, "checkpoint_every must be at least 0"),
    ("60,nan,,", 4, "checkpoint_every must be seconds or a duration"),
    ("60,,0s,", 5, "checkpoint_write must be more than 0 seconds"),
    ("60,,367d,", 5, "checkpoint_write must be at most 366 days"),
    ("60,,,inf", 6, "checkpoint_restore must be seconds or a duration"),
    ("60,,,2 hours", 6, "checkpoint_restore must be seconds or a duration"),
    ("60,30m,30m,", 5, "checkpoint_write is not shorter than checkpoint_every"),
], ids=lambda v: v if len(str(v)) < 20 else f"{len(v)}-chars")  # fmt: skip
def test_a_checkpoint_cell_out_of_bounds_is_a_bad_value_at_its_cell(
    tmp_path: Path, cells: str, column: int, says: str
) -> None:
    # docs/workload.md, Bounds: an interval and a write are more than 0 and at most 366 days,
    # a write shorter than the interval; a restore 0 to 366 days
    path = tmp_path / "w.csv"
    path.write_text("duration,checkpoint_every,checkpoint_write,checkpoint_restore\n"
                    f"{cells}\n", encoding="utf-8")
    [(line, col, code, summary)] = _problems(path)
    starts = [0]
    for cell in cells.split(","):
        starts.append(starts[-1] + len(cell) + 1)
    assert (line, col, code) == (2, starts[column - 3] + 1, "workload.bad-value")
    assert summary.startswith(says), summary
