"""``gpupool plan``'s simulated section runs the services as ``gpupool simulate`` does.

The section the stack's ``simulation`` block (or ``--workload``, or ``--requests``) asks for
replays the jobs and, where traces are named (``simulation.requests``, ``--requests``), the
services on them beside the jobs, on the same pools (docs/services-simulation.md): the plan's
JSON carries ``simulation.services`` with the very entries ``simulate`` writes, and its text and
markdown the services' table after the batch figures. ``--base`` runs the base stack on the same
traces, side by side.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from gpupool.cli import run
from tests.paths import FIXTURES

Capture = pytest.CaptureFixture[str]
STACK = str(FIXTURES / "simulate" / "services" / "stack.yaml")
MAX4 = str(FIXTURES / "simulate" / "services" / "max4.yaml")
EVENING = str(FIXTURES / "requests" / "recommend-evening.csv")


def _json(argv: list[str], capsys: Capture) -> dict[str, object]:
    assert run([*argv, "--format", "json"]) == 0
    doc: dict[str, object] = json.loads(capsys.readouterr().out)
    return doc


def test_the_plans_section_carries_the_services_simulate_reports(capsys: Capture) -> None:
    planned = _json(["plan", STACK], capsys)
    simulated = _json(["simulate", STACK], capsys)
    section = planned["simulation"]
    assert isinstance(section, dict)
    [service] = section["services"]
    assert service["service"] == "recommend"
    # the stack's evening trace: 40 rps for 1800 s, 200 for 1800 s, 60 for 3600 s
    assert service["requests"] == 40 * 1800 + 200 * 1800 + 60 * 3600
    assert section["services"] == simulated["services"]
    assert section["pods"] == simulated["pods"]  # the jobs beside them, as simulate ran them


def test_the_text_and_markdown_plans_show_the_services_after_the_jobs(capsys: Capture) -> None:
    assert run(["plan", STACK, "--format", "text"]) == 0
    text = capsys.readouterr().out
    plan_table = text.index("Services (KEDA scales each")
    jobs = text.index("Simulation of stack recsys-staging")
    served = text.index("Services (replicas beside the jobs, on the same pools and scheduler)")
    assert plan_table < jobs < served
    assert re.search(r"^  recommend +648,000 +584,000 +9\.9%", text[served:], re.M)
    assert run(["plan", STACK, "--format", "markdown"]) == 0
    md = capsys.readouterr().out
    section = md.index("### Simulation: ")
    assert md.index("### gpupool plan") < section < md.index("recommend", section)
    assert "```mermaid" in md[section:]


def test_without_a_trace_the_section_has_no_services(capsys: Capture, tmp_path: Path) -> None:
    text = Path(STACK).read_text(encoding="utf-8").replace("  requests: [evening.csv]\n", "")
    stack = tmp_path / "stack.yaml"
    stack.write_text(text, encoding="utf-8")
    shutil.copy(Path(STACK).parent / "jobs.csv", tmp_path / "jobs.csv")
    section = _json(["plan", str(stack)], capsys)["simulation"]
    assert isinstance(section, dict) and "services" not in section
    # --requests names the trace the block no longer does
    section = _json(["plan", str(stack), "--requests", EVENING], capsys)["simulation"]
    assert isinstance(section, dict)
    assert [s["service"] for s in section["services"]] == ["recommend"]


def test_requests_alone_run_the_services_alone(capsys: Capture, tmp_path: Path) -> None:
    text = Path(STACK).read_text(encoding="utf-8")
    alone = tmp_path / "stack.yaml"
    alone.write_text(text[:text.index("\nsimulation:")] + "\n", encoding="utf-8")
    assert "simulation" not in _json(["plan", str(alone)], capsys)
    section = _json(["plan", str(alone), "--requests", EVENING], capsys)["simulation"]
    assert isinstance(section, dict)
    assert section["pods"]["submitted"] == 0  # type: ignore[index]
    assert section["services"][0]["gpu_hours"] > 0  # type: ignore[index]


def test_the_base_runs_on_the_same_traces(capsys: Capture) -> None:
    # max4.yaml caps recommend at 4 replicas; the base (stack.yaml) lets it reach 8
    section = _json(["plan", MAX4, "--base", STACK], capsys)["simulation"]
    assert isinstance(section, dict)
    [service] = section["services"]
    assert service["replicas"]["max"] <= 4
    assert service["base"]["replicas"]["max"] > 4
    assert service["not_served_share"] > service["base"]["not_served_share"]
    assert run(["plan", MAX4, "--base", STACK, "--format", "text"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^  not served in time +\d+\.\d% +\d+\.\d% +\+\d+\.\d pts$", out, re.M)


def test_a_workload_flag_keeps_the_stacks_traces(capsys: Capture) -> None:
    # --workload names the jobs; the services still run on simulation.requests
    jobs = str(Path(STACK).parent / "jobs.csv")
    section = _json(["plan", STACK, "--workload", jobs], capsys)["simulation"]
    assert isinstance(section, dict)
    assert [s["service"] for s in section["services"]] == ["recommend"]
    assert section["pods"]["submitted"] == 12  # type: ignore[index]


def test_no_simulation_leaves_the_services_out(capsys: Capture) -> None:
    assert "simulation" not in _json(["plan", STACK, "--no-simulation"], capsys)
