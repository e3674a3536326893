"""``gpupool simulate --requests``: the services on their request traces, in the full simulation.

The command reads the traces (docs/workload.md, Request traces), runs each traced service in the
simulation beside the workload (or alone on the pools), and reports per service in text, JSON
and markdown, with ``--base`` side by side (docs/services-simulation.md). A trace naming an
undeclared service is an error at its line; the stack file's ``simulation.requests`` names
traces as ``simulation.workload`` names a workload, inside the stack file's folder.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from gpupool.cli import run
from tests.paths import FIXTURES, TESTS

STACK = str(FIXTURES / "simulate" / "services" / "stack.yaml")
EVENING = str(FIXTURES / "requests" / "recommend-evening.csv")
JS = TESTS / "js"


def test_the_json_carries_every_counter(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["simulate", STACK, "--requests", EVENING, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["stack"] == "recsys-staging"
    assert doc["pods"]["submitted"] == 12  # the stack's workload, beside the service
    [service] = doc["services"]
    assert {"service", "requests", "served_in_slo", "not_served_share", "minutes_short",
            "replicas", "cold_starts", "blocked_scale_ups", "gpu_hours", "cost",
            "cost_per_million", "timeline", "base"} <= set(service)
    assert set(service["replicas"]) == {"min", "mean", "max", "at_peak"}
    # 40 rps for 1800 s, 200 for 1800 s, 60 for 3600 s
    assert service["requests"] == 40 * 1800 + 200 * 1800 + 60 * 3600
    assert service["replicas"]["max"] <= 8
    assert service["base"] is None
    assert set(service["timeline"][0]) == {"seconds", "demand_rps", "ready_replicas",
                                           "desired_replicas"}


def test_the_stack_files_traces_run_without_the_flag(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["simulate", STACK, "--format", "json"]) == 0
    [service] = json.loads(capsys.readouterr().out)["services"]
    assert service["requests"] == 648000


def test_the_services_alone_on_the_pools(capsys: pytest.CaptureFixture[str],
                                         tmp_path: Path) -> None:
    text = Path(STACK).read_text(encoding="utf-8")
    alone = tmp_path / "stack.yaml"
    alone.write_text(text[:text.index("\nsimulation:")] + "\n", encoding="utf-8")
    assert run(["simulate", str(alone), "--requests", EVENING, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["pods"]["submitted"] == 0
    assert doc["services"][0]["gpu_hours"] > 0


def test_the_base_sits_beside_the_head(capsys: pytest.CaptureFixture[str],
                                       tmp_path: Path) -> None:
    smaller = tmp_path / "stack.yaml"
    text = Path(STACK).read_text(encoding="utf-8").replace("{min: 2, max: 8}", "{min: 2, max: 4}")
    smaller.write_text(text, encoding="utf-8")
    for name in ("jobs.csv", "evening.csv"):
        shutil.copy(Path(STACK).parent / name, tmp_path / name)
    assert run(["simulate", str(smaller), "--base", STACK, "--format", "json"]) == 0
    [service] = json.loads(capsys.readouterr().out)["services"]
    assert service["replicas"]["max"] <= 4
    assert service["base"]["replicas"]["max"] > 4
    assert service["not_served_share"] > service["base"]["not_served_share"]
    assert run(["simulate", str(smaller), "--base", STACK]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^  not served in time +\d+\.\d% +\d+\.\d% +\+\d+\.\d pts$", out, re.M)


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


def test_requests_beside_saturate_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["simulate", STACK, "--requests", EVENING, "--saturate", "50"]) == 64
    assert "it runs no services" in capsys.readouterr().err


def test_a_service_without_capacity_is_refused(capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path) -> None:
    trace = tmp_path / "update.csv"
    trace.write_text("service,time,rps\nmodel-update,0,1\nmodel-update,60,0\n", encoding="utf-8")
    assert run(["simulate", STACK, "--requests", str(trace)]) == 1
    assert "has no capacityPerReplica" in capsys.readouterr().err


def _stack_naming(tmp_path: Path, entry: str) -> Path:
    text = Path(STACK).read_text(encoding="utf-8").replace("requests: [evening.csv]",
                                                           f"requests: ['{entry}']")
    shutil.copy(Path(STACK).parent / "jobs.csv", tmp_path / "jobs.csv")
    stack = tmp_path / "stack.yaml"
    stack.write_text(text, encoding="utf-8")
    return stack


def test_a_stack_trace_through_a_link_out_of_the_folder_is_refused(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    inner = tmp_path / "stack"
    inner.mkdir()
    (inner / "zero.csv").symlink_to("/dev/zero")
    stack = _stack_naming(inner, "zero.csv")
    assert run(["simulate", str(stack)]) == 1
    assert "leads outside the stack file's folder" in capsys.readouterr().err


def test_a_stack_trace_climbing_out_is_a_validation_error(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    stack = _stack_naming(tmp_path, "../rates.csv")
    assert run(["simulate", str(stack)]) == 1
    assert "The request trace is outside the stack file's folder" in capsys.readouterr().err


def test_a_fifo_trace_is_one_clear_error(capsys: pytest.CaptureFixture[str],
                                         tmp_path: Path) -> None:
    fifo = tmp_path / "rates.csv"
    os.mkfifo(fifo)
    stack = _stack_naming(tmp_path, "rates.csv")
    assert run(["simulate", str(stack)]) == 1
    err = capsys.readouterr().err
    assert "rates.csv" in err and "Traceback" not in err


def test_the_markdown_chart_parses_with_mermaid(capsys: pytest.CaptureFixture[str]) -> None:
    """The services' chart is a Mermaid xychart (mermaid docs/syntax/xyChart.md); mermaid.parse
    (tests/js/parse_mermaid_full.mjs, the mermaid package under jsdom) reads it."""
    node = shutil.which("node")
    if node is None or not (JS / "node_modules" / "mermaid").is_dir():
        message = "Mermaid is not installed (npm ci --prefix tests/js)"
        if os.environ.get("CI"):
            pytest.fail(message + "; .ci/run installs it")
        pytest.skip(message)
    assert run(["simulate", STACK, "--format", "markdown"]) == 0
    md = capsys.readouterr().out
    charts = re.findall(r"^```mermaid\n(.*?)^```$", md, re.M | re.S)
    service = [c for c in charts if "demand and ready capacity" in c]
    assert len(service) == 1
    assert len([ln for ln in service[0].splitlines() if ln.startswith("    line [")]) == 2
    done = subprocess.run([node, str(JS / "parse_mermaid_full.mjs")], input=json.dumps(charts),
                          capture_output=True, text=True, check=True, timeout=120)
    assert json.loads(done.stdout) == [{"ok": True, "type": "xychart"}] * len(charts)
    broken = service[0].replace("]\n    y-axis", "\n    y-axis", 1)
    done = subprocess.run([node, str(JS / "parse_mermaid_full.mjs")], input=json.dumps([broken]),
                          capture_output=True, text=True, check=True, timeout=120)
    assert json.loads(done.stdout)[0]["ok"] is False
