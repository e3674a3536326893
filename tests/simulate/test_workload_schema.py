"""schemas/workload.schema.json and the reader agree (gpupool/simulate/columns.py, workload.py).

The schema is the published description of one JSON Lines row; the reader does not run it (a
million rows through jsonschema would take minutes), so this holds them together: the same
columns in the same order, the same required ones, and over generated rows, the reader accepts a
one-row JSON Lines file exactly when the schema says the row is valid.

Known gaps, kept out of the generated rows: the schema's RFC 3339 pattern cannot tell a real date
from ``2026-13-45``, which the reader refuses; its duration pattern cannot tell ``0m`` from
``1m`` in ``checkpoint_every`` and ``checkpoint_write`` (the reader refuses a zero interval or
write); and draft 7 cannot compare two cells, so the reader's "checkpoint_write shorter than
checkpoint_every" is held by ``test_a_checkpoint_write_as_long_as_the_interval_is_refused``.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpupool.simulate.columns import COLUMNS
from gpupool.simulate.source import WorkloadError
from gpupool.simulate.workload import read_workload
from tests.paths import ROOT

SCHEMA = json.loads((ROOT / "schemas" / "workload.schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft7Validator(SCHEMA)


def test_the_schema_is_a_valid_draft_7_schema() -> None:
    jsonschema.Draft7Validator.check_schema(SCHEMA)


def test_the_schema_has_the_reader_columns_in_order() -> None:
    # the reader indexes a row's cells in this order (gpupool/simulate/workload.py)
    assert [c.name for c in COLUMNS] == [
        "name", "tenant", "submit", "duration", "gpus", "fraction", "mig", "gpu_memory_gib",
        "cpu", "memory_gib", "priority", "pool", "pods", "checkpoint_every", "checkpoint_write",
        "checkpoint_restore",
    ]  # fmt: skip
    assert list(SCHEMA["properties"]) == [c.name for c in COLUMNS]
    assert SCHEMA["required"] == [c.name for c in COLUMNS if c.required]
    assert SCHEMA["additionalProperties"] is False


_text = st.one_of(
    st.text(st.sampled_from(["a", "b", "-", " ", "\t", "\x01", "\x85", "\xa0", "é"]), max_size=4),
    st.integers(0, 3),
    st.booleans(),
)
_values = {
    "name": _text,
    "tenant": _text,
    "priority": _text,
    "pool": _text,
    "submit": st.one_of(
        st.integers(-5, 10**6),
        st.sampled_from([31_622_400, 31_622_401, 31_622_400.5, 1e308, 10**400]),
        st.floats(-10, 1e7, allow_nan=False),
        st.sampled_from(
            [
                "2026-01-05T09:00:00Z",
                "2026-01-05 09:00:00+02:00",
                "2026-01-05T09:00:00.5z",
                "2026-01-05",
                "10",
                "",
                " ",
                "soon",
                "1e3",
            ]
        ),
        st.booleans(),
    ),
    "duration": st.one_of(
        st.integers(-5, 10**5),
        st.sampled_from([31_622_400, 31_622_401, 1e308, 10**400]),
        st.floats(-10, 1e6, allow_nan=False),
        st.sampled_from(
            [
                "2h",
                "1h30m",
                "30m",
                "1d",
                "45s",
                "1.5h",
                " 2h ",
                "2 hours",
                "h",
                "10",
                "",
                "2h30",
                "1e3",
            ]
        ),
        st.booleans(),
    ),
    "gpus": st.one_of(
        st.integers(-2, 5000), st.sampled_from([-1, 4096, 4097, 2.0, 2.5, "2", True])
    ),
    "fraction": st.one_of(
        st.floats(-0.5, 1.5, allow_nan=False), st.sampled_from([0, 1, 0.0, 1.0, "0.5"])
    ),
    "mig": st.sampled_from(
        ["1g.10gb", "3g.40gb+me", "8g.1gb", "1g.10GB", " 1g.10gb ", "", "x", 5, True]
    ),
    "gpu_memory_gib": st.one_of(st.floats(-1, 5000, allow_nan=False), st.sampled_from([0, "4"])),
    "cpu": st.one_of(
        st.floats(-1, 2e5, allow_nan=False),
        st.sampled_from(["500m", "0.5m", "1e3m", "-5m", "m", "5", "", "2000000m"]),
    ),
    "memory_gib": st.one_of(st.floats(-1, 2e6, allow_nan=False), st.sampled_from(["4", False])),
    "pods": st.one_of(
        st.integers(-1, 200_000), st.sampled_from([0, 1, 100_000, 100_001, 1.5, 2.0, "3"])
    ),
    **{
        key: st.one_of(
            st.floats(-10, 1e6, allow_nan=False),
            st.integers(-5, 10**5),
            st.sampled_from([0, 31_622_400, 31_622_401, 1e308, "30m", "1h30m", "2 hours", "10",
                             "", "h", True]),
        )
        for key in ("checkpoint_every", "checkpoint_write", "checkpoint_restore")
    },
}
#: Values each column certainly accepts, drawn three times as often as any value, so that many
#: rows are valid but for one cell and the boundary in that cell decides.
_good = {
    "name": st.sampled_from(["a", "job-1", " x "]),
    "tenant": st.sampled_from(["ml", "team-a"]),
    "priority": st.sampled_from(["high", "low"]),
    "pool": st.sampled_from(["a100"]),
    "submit": st.one_of(st.integers(0, 10**6), st.sampled_from(["2026-01-05T09:00:00Z"])),
    "duration": st.one_of(st.integers(0, 10**5), st.sampled_from(["2h", "1h30m"])),
    "gpus": st.integers(0, 8),
    "fraction": st.sampled_from([0.25, 0.5, 0.999]),
    "mig": st.sampled_from(["1g.10gb"]),
    "gpu_memory_gib": st.sampled_from([1, 4.5]),
    "cpu": st.one_of(st.floats(0, 64), st.sampled_from(["500m"])),
    "memory_gib": st.floats(0, 512),
    "pods": st.integers(1, 8),
    "checkpoint_every": st.sampled_from([1800, "30m", 3600.5]),
    "checkpoint_write": st.sampled_from([30, "1m", 0.5]),
    "checkpoint_restore": st.sampled_from([0, 90, "2m"]),
}


def _cell(key: str) -> st.SearchStrategy[object]:
    good = _good[key]
    return st.one_of(good, good, good, _values[key])


_rows = st.fixed_dictionaries(
    {"duration": st.one_of(st.none(), _cell("duration"))},
    optional={
        **{k: st.one_of(st.none(), _cell(k)) for k in _values if k != "duration"},
        "queue": st.just("x"),
    },
).map(lambda row: {k: v for k, v in row.items() if not (k == "duration" and v is None)}).filter(
    # two cells compared: the schema cannot, a test of its own holds the rule
    lambda row: row.get("checkpoint_every") is None or row.get("checkpoint_write") is None
)


@settings(
    max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(_rows)
def test_the_reader_accepts_a_row_exactly_when_the_schema_does(tmp_path: Path, row: dict) -> None:  # type: ignore[type-arg]
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    try:
        read_workload(path)
    except WorkloadError as exc:
        accepted, why = False, str(exc)
    else:
        accepted, why = True, "read"
    valid = VALIDATOR.is_valid(row)
    assert accepted == valid, f"reader {'accepts' if accepted else 'refuses'} {row}: {why}"


def _agree(path: Path, row: dict[str, object]) -> None:
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    try:
        read_workload(path)
    except WorkloadError as exc:
        accepted, why = False, str(exc)
    else:
        accepted, why = True, "read"
    assert accepted == VALIDATOR.is_valid(row), (
        f"reader {'accepts' if accepted else 'refuses'} {row}: {why}"
    )


@settings(
    max_examples=600, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.sampled_from(sorted(_values)).flatmap(lambda k: st.tuples(st.just(k), _values[k])))
def test_each_cell_alone_is_accepted_exactly_when_the_schema_does(
    tmp_path: Path, cell: tuple[str, object]
) -> None:
    """One cell beside a good duration: each column's own boundaries, one at a time."""
    key, value = cell
    _agree(tmp_path / "one.jsonl", {"duration": 60, key: value})


def test_a_checkpoint_write_as_long_as_the_interval_is_refused(tmp_path: Path) -> None:
    # the reader compares the two cells (gpupool/simulate/workload.py, _shape_ok): a job that
    # writes for as long as it works between checkpoints never progresses
    path = tmp_path / "one.jsonl"
    path.write_text('{"duration": 60, "checkpoint_every": "1m", "checkpoint_write": 60}\n',
                    encoding="utf-8")
    try:
        read_workload(path)
    except WorkloadError as exc:
        assert "one.jsonl:1:" in str(exc)
        assert "checkpoint_write is not shorter than checkpoint_every" in str(exc)
    else:
        raise AssertionError("a write as long as the interval was read")
    path.write_text('{"duration": 60, "checkpoint_every": "1m", "checkpoint_write": 59.5, '
                    '"checkpoint_restore": "2m"}\n', encoding="utf-8")
    (job,) = read_workload(path).jobs
    assert (job.checkpoint_every, job.checkpoint_write, job.checkpoint_restore) == (60, 59.5, 120)
