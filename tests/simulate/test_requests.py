"""Request traces (gpupool/simulate/requests.py): rate series and request logs, read or refused.

Hand-worked values: a rate series is a step function, so its arrivals are sums of rate x
seconds. Hostile traces (huge, NaN, negative, unsorted, a FIFO, a link to /dev/zero) are each
one clear error at file:line:col, within the workloads' limits (gpupool/simulate/source.py).
The public Azure LLM inference traces (2023) are read as published from
../shared/reference/upstream/traces/ (SOURCES-services.md), skipping when absent.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpupool.errors import InputError
from gpupool.simulate import requests, source
from gpupool.simulate.requests import (
    check_requests,
    read_log,
    read_rates,
    read_requests,
    split_option,
)
from gpupool.simulate.source import WorkloadError
from tests.paths import ROOT, shared_upstream

AZURE = "traces/azure-llm-2023"
SCHEMA = json.loads((ROOT / "schemas" / "requests.schema.json").read_text(encoding="utf-8"))


def _write(tmp: Path, text: str, name: str = "r.csv") -> Path:
    path = tmp / name
    path.write_text(text, encoding="utf-8")
    return path


def _problems(call: object) -> list[tuple[int, int, str]]:
    with pytest.raises(WorkloadError) as caught:
        call()  # type: ignore[operator]
    return [(d.range.start.line, d.range.start.column, d.summary)
            for d in caught.value.problems if d.range is not None]


def test_a_rate_series_is_a_step_function(tmp_path: Path) -> None:
    path = _write(tmp_path, "service,time,rps\nweb,0,10\napi,30,1\nweb,60,20\nweb,120,0\n")
    series = read_rates(path)
    web = series["web"]
    assert list(series) == ["web", "api"]
    assert (web.rate(0), web.rate(59.9), web.rate(60), web.rate(500)) == (10, 10, 20, 0)
    # 10 rps for 60 s, then 20 rps for 60 s
    assert web.arrivals(0, 120) == 10 * 60 + 20 * 60
    assert web.arrivals(30, 90) == 10 * 30 + 20 * 30
    assert web.end == 120
    api = series["api"]
    assert api.rate(29) == 0  # before its first row
    assert api.arrivals(0, 90) == 60  # its last row holds from then on


def test_rfc3339_times_count_from_the_earliest(tmp_path: Path) -> None:
    path = _write(tmp_path, "service,time,rps\nweb,2026-01-05T09:01:00Z,5\n"
                            "api,2026-01-05T09:00:00Z,1\nweb,2026-01-05T10:02:00+01:00,7\n")
    series = read_rates(path)
    assert series["web"].times == (60.0, 120.0)  # 10:02+01:00 is 09:02Z
    assert series["api"].times == (0.0,)


def test_bad_rows_are_all_reported_at_once(tmp_path: Path) -> None:
    path = _write(tmp_path, "service,time,rps\nweb,0,10\nweb,60,5\nweb,30,1\nweb,90,nan\n"
                            "web,90,-2\nweb,100,1e400\n,110,1\nweb,soon,1\n"
                            "web,2026-01-05T09:00:00Z,1\n")
    assert _problems(lambda: read_rates(path)) == [
        (4, 5, "time '30' is not after line 3's, the service's row before"),
        (5, 8, "rps must be at least 0 and at most 10,000,000, not nan"),
        (6, 8, "rps must be at least 0 and at most 10,000,000, not -2"),
        (7, 9, "rps must be at least 0 and at most 10,000,000, not 1e400"),
        (8, 1, "service is empty"),
        (9, 5, "time must be a number, not 'soon'"),
        (10, 5, "time is an RFC 3339 time, line 2's is seconds"),
    ]


def test_a_bad_header_is_one_error_each(tmp_path: Path) -> None:
    path = _write(tmp_path, "service,tme,rps\nweb,0,1\n")
    found = _problems(lambda: read_rates(path))
    assert (1, 9, "unknown column 'tme'") in found
    assert (1, 1, "no 'time' column") in found


def test_rps_is_a_plain_number(tmp_path: Path) -> None:
    path = _write(tmp_path, "service,time,rps\nweb,0,1_000\nweb,1,0x10\nweb,2, 1e3 \nweb,3,inf\n")
    assert _problems(lambda: read_rates(path)) == [
        (2, 7, "rps must be a number, not '1_000'"),
        (3, 7, "rps must be a number, not '0x10'"),
        (5, 7, "rps must be at least 0 and at most 10,000,000, not inf"),
    ]


def test_an_empty_trace_is_an_error(tmp_path: Path) -> None:
    path = _write(tmp_path, "service,time,rps\n")
    assert _problems(lambda: read_rates(path)) == [(1, 1, "the trace holds no rate")]


def test_a_trace_longer_than_366_days_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, "service,time,rps\nweb,2025-01-01T00:00:00Z,1\n"
                            "web,2026-01-03T00:00:00Z,1\n")
    assert _problems(lambda: read_rates(path)) == [
        (3, 1, "time is 367 days after the earliest; a trace spans at most 366 days")]


def test_too_many_rows_stop_the_read_with_one_error(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(requests, "MAX_ROWS", 3)
    path = _write(tmp_path, "TIMESTAMP\n" + "".join(f"{i}\n" for i in range(10)))
    assert _problems(lambda: read_log(path, "web")) == [(5, 1, "more than 3 rows")]


def test_a_line_too_long_is_one_error(tmp_path: Path) -> None:
    path = tmp_path / "long.csv"
    path.write_bytes(b"service,time,rps\nweb,0," + b"1" * (source.MAX_LINE_BYTES + 5) + b"\n")
    found = _problems(lambda: read_rates(path))
    assert found == [(2, 1, "line longer than 1,048,576 bytes")]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "r.csv"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="not a regular file"):
        read_rates(fifo)
    with pytest.raises(InputError, match="not a regular file"):
        read_log(fifo, "web")


def test_a_link_to_dev_zero_is_refused(tmp_path: Path) -> None:
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero here")
    link = tmp_path / "zero.csv"
    link.symlink_to("/dev/zero")
    with pytest.raises(InputError, match="not a regular file"):
        read_log(link, "web")


def test_a_request_log_counts_its_requests(tmp_path: Path) -> None:
    path = _write(tmp_path, "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                            "2023-11-16 18:17:03.5000000,10,2\n2023-11-16 18:17:03.5000000,1,1\n"
                            "2023-11-16 18:17:05.2500000,3,4\n")
    log = read_log(path, "web")
    assert log.times == (0.0, 0.0, 1.75)
    assert log.arrivals(0, 1) == 2
    assert log.arrivals(0, 2) == 3
    assert log.rate(2.0, window=2.0) == 1.5


def test_a_request_log_refuses_unsorted_and_bad_rows(tmp_path: Path) -> None:
    path = _write(tmp_path, "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                            "2023-11-16 18:17:03.5,10,2\n2023-11-16 18:17:01,1,1\n"
                            "2023-11-16 18:17:04,-3,4\n2023-02-30 18:17:04,1,1\n"
                            "2023-11-16 18:17:05,1,x\n")
    assert _problems(lambda: read_log(path, "web")) == [
        (3, 1, "TIMESTAMP is before line 2's"),
        (4, 21, "ContextTokens must be a whole number at least 0 and at most 10,000,000, "
                "not '-3'"),
        (5, 1, "TIMESTAMP '2023-02-30 18:17:04' is not a real date and time"),
        (6, 23, "GeneratedTokens must be a whole number at least 0 and at most 10,000,000, "
                "not 'x'"),
    ]


def test_split_option() -> None:
    assert split_option("web=trace.csv") == ("web", Path("trace.csv"))
    assert split_option("rates.csv") == (None, Path("rates.csv"))
    assert split_option("dir/a=b.csv") == (None, Path("dir/a=b.csv"))  # not a service name


def test_read_requests_refuses_one_service_given_twice(tmp_path: Path) -> None:
    rates = _write(tmp_path, "service,time,rps\nweb,0,1\n")
    log = _write(tmp_path, "TIMESTAMP\n0\n", "log.csv")
    assert set(read_requests([str(rates), f"api={log}"])) == {"web", "api"}
    with pytest.raises(InputError, match="also given by"):
        read_requests([str(rates), f"web={log}"])


def test_unknown_services_are_named_with_a_suggestion(tmp_path: Path) -> None:
    rates = _write(tmp_path, "service,time,rps\nrecomend,0,1\n")
    [found] = check_requests(["recommend", "model-update"], read_rates(rates))
    assert found.code == "workload.unknown-service"
    assert found.range is not None and found.range.start.line == 2
    assert "recommend" in found.detail


# -- the public traces, as published ----------------------------------------------------------


@pytest.mark.parametrize(("name", "rows", "span"), [
    # SOURCES-services.md: 8,819 requests from 18:17:03.98 to 19:14:19.93
    ("AzureLLMInferenceTrace_code.csv", 8819, 3435.95),
    # 19,366 requests from 18:15:46.68 to 19:14:08.40
    ("AzureLLMInferenceTrace_conv.csv", 19366, 3501.72),
])
def test_the_azure_traces_read_as_published(name: str, rows: int, span: float) -> None:
    path = shared_upstream(f"{AZURE}/{name}")
    log = read_log(path, "web")
    assert len(log.times) == rows
    assert log.end == pytest.approx(span, abs=0.01)
    assert log.arrivals(0, log.end + 1) == rows


def test_the_azure_trace_facts_without_the_files(tmp_path: Path) -> None:
    # the Azure traces' own shape (a space, seven fractional digits, no offset, no final
    # newline), in the project's words: two rows 52 ms apart
    path = tmp_path / "azure.csv"
    path.write_bytes(b"TIMESTAMP,ContextTokens,GeneratedTokens\n"
                     b"2023-11-16 18:17:03.9799600,4808,10\n2023-11-16 18:17:04.0319600,3180,8")
    log = read_log(path, "web")
    assert log.times == pytest.approx((0.0, 0.052))


# -- the schema and the reader agree ----------------------------------------------------------


def test_the_schema_names_the_reader_columns() -> None:
    jsonschema.Draft7Validator.check_schema(SCHEMA)
    assert list(SCHEMA["properties"]) == list(requests.RATE_COLUMNS)
    assert SCHEMA["required"] == list(requests.RATE_COLUMNS)
    assert SCHEMA["properties"]["rps"]["maximum"] == requests.MAX_RPS


@settings(max_examples=60, deadline=None)
@given(time=st.one_of(st.integers(-5, 40_000_000), st.floats(-1, 1e8, allow_nan=False)),
       rps=st.one_of(st.integers(-3, 20_000_000), st.floats(-1, 2e7, allow_nan=False)))
def test_the_reader_accepts_a_row_exactly_when_the_schema_does(time: float, rps: float) -> None:
    import tempfile

    valid = jsonschema.Draft7Validator(SCHEMA).is_valid({"service": "web", "time": time,
                                                         "rps": rps})
    with tempfile.TemporaryDirectory() as tmp:
        path = _write(Path(tmp), f"service,time,rps\nweb,{time!r},{rps!r}\n")
        try:
            read_rates(path)
            read = True
        except WorkloadError:
            read = False
    assert read == valid
