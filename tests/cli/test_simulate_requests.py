"""``gpupool simulate --requests``: the services' standalone replay from the command line.

The command reads the traces (docs/workload.md, Request traces), replays each traced service
through KEDA, the HPA and its queue with unlimited capacity (docs/services-simulation.md), and
prints one row per service; a trace naming an undeclared service is an error at its line, and
``--requests`` beside a workload is a usage error until the simulator's loop drives services.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpupool.cli import run
from tests.paths import EXAMPLES, FIXTURES

STACK = str(EXAMPLES / "aws-inference-services.yaml")
EVENING = str(FIXTURES / "requests" / "recommend-evening.csv")


def test_the_json_carries_every_counter(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["simulate", STACK, "--requests", EVENING, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["mode"], doc["stack"]) == ("standalone", "recsys-staging")
    [service] = doc["services"]
    assert {"service", "requests", "served_in_slo", "not_served_share", "minutes_short",
            "replicas", "cold_starts", "gpu_hours", "cost", "cost_per_million",
            "timeline"} <= set(service)
    # 40 rps for 1800 s, 200 for 1800 s, 60 for 3600 s
    assert service["requests"] == 40 * 1800 + 200 * 1800 + 60 * 3600
    assert service["replicas"]["max"] <= 8
    assert set(service["timeline"][0]) == {"seconds", "demand_rps", "ready_replicas",
                                           "desired_replicas"}


def test_the_same_run_gives_the_same_bytes(capsys: pytest.CaptureFixture[str]) -> None:
    run(["simulate", STACK, "--requests", EVENING, "--format", "json"])
    first = capsys.readouterr().out
    run(["simulate", STACK, "--requests", EVENING, "--format", "json"])
    assert capsys.readouterr().out == first


def test_an_unknown_service_is_an_error_at_its_line(capsys: pytest.CaptureFixture[str]) -> None:
    bad = str(FIXTURES / "requests" / "unknown-service.csv")
    assert run(["simulate", STACK, "--requests", bad]) == 1
    err = capsys.readouterr().err
    assert "unknown-service.csv:2:1: error: no service 'recomend' in the stack" in err
    assert "Did you mean 'recommend'?" in err


def test_requests_beside_a_workload_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["simulate", STACK, "--requests", EVENING, "--generate"]) == 64
    assert "not with --generate" in capsys.readouterr().err


def test_a_service_without_capacity_is_refused(capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path) -> None:
    trace = tmp_path / "update.csv"
    trace.write_text("service,time,rps\nmodel-update,0,1\nmodel-update,60,0\n", encoding="utf-8")
    assert run(["simulate", STACK, "--requests", str(trace)]) == 1
    assert "has no capacityPerReplica" in capsys.readouterr().err
