"""``gpupool simulate`` on the command line: formats, determinism, --base, errors."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from gpupool.cli import run
from tests.paths import EXAMPLES

Capture = pytest.CaptureFixture[str]

HEADER = "name,tenant,submit,duration,gpus,fraction,cpu,memory_gib,pods\n"
ROWS = [
    "train-1,team-nlp,0,7200,1,,4,32,1",
    "train-2,team-nlp,60,3600,1,,4,32,2",
    "cv-1,team-cv,120,5400,1,,4,32,1",
    "cv-2,team-cv,180,600,1,,4,32,1",
    "apps-1,team-apps,0,1800,,0.5,2,8,1",
    "apps-2,team-apps,30,1800,,0.5,2,8,1",
    *(f"apps-burst-{i},team-apps,600,1800,,0.5,2,8,1" for i in range(12)),
]
STACK = str(EXAMPLES / "azure-kai-fair.yaml")


@pytest.fixture
def workload(tmp_path: Path) -> Path:
    path = tmp_path / "w.csv"
    path.write_text(HEADER + "\n".join(ROWS) + "\n", encoding="utf-8")
    return path


def test_json_document(workload: Path, capsys: Capture) -> None:
    assert run(["simulate", STACK, "--workload", str(workload), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["format_version"] == "1" and doc["stack"] == "shared-aks" and doc["seed"] == 0
    assert doc["pods"]["submitted"] == 19  # train-2 is a gang of 2
    assert doc["pods"]["submitted"] == sum(
        doc["pods"][k] for k in ("started", "rejected", "never_started"))
    assert {p["pool"] for p in doc["pools"]} == {"a100", "t4-spot"}
    for p in doc["pools"]:
        assert set(p) >= {"pool", "allocation_ratio", "fragmentation", "node_hours",
                          "peak_nodes", "cost"}
    for t in doc["tenants"]:
        assert set(t) >= {"tenant", "submitted", "started", "rejected", "never_started",
                          "wait_seconds", "preemptions", "gpu_hours", "cost"}
        assert set(t["wait_seconds"]) == {"p50", "p95", "max"}
    assert "base" not in doc


def test_same_seed_same_bytes(workload: Path, capsys: Capture) -> None:
    outs = []
    for _ in range(2):
        assert run(["simulate", STACK, "--workload", str(workload), "--seed", "5",
                    "--spot-interruptions-per-hour", "2"]) == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] and "Tenants" in outs[0] and "Pools" in outs[0]


def test_base_file_side_by_side(workload: Path, tmp_path: Path, capsys: Capture) -> None:
    """A lower nodes.max on the T4 spot pool: the base (the example) beside the head."""
    head = tmp_path / "head.yaml"
    text = Path(STACK).read_text(encoding="utf-8")
    assert "{min: 1, max: 10}" in text
    head.write_text(text.replace("{min: 1, max: 10}", "{min: 1, max: 2}"), encoding="utf-8")
    assert run(["simulate", str(head), "--workload", str(workload), "--base", STACK,
                "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["base"]["stack"] == doc["stack"] == "shared-aks"
    peak = {p["pool"]: p["peak_nodes"] for p in doc["pools"]}
    base_peak = {p["pool"]: p["peak_nodes"] for p in doc["base"]["pools"]}
    # with fallbackToOnDemand the pool reaches max 2 spot + 2 on-demand nodes (facts.groups)
    assert peak["t4-spot"] <= 4 < base_peak["t4-spot"]
    waits = {t["tenant"]: t["wait_seconds"]["max"] for t in doc["tenants"]}
    base_waits = {t["tenant"]: t["wait_seconds"]["max"] for t in doc["base"]["tenants"]}
    assert waits["team-apps"] > base_waits["team-apps"]
    assert run(["simulate", str(head), "--workload", str(workload), "--base", STACK,
                "--format", "markdown"]) == 0
    md = capsys.readouterr().out
    assert md.startswith("### Simulation: shared-aks against shared-aks")
    assert "xychart-beta" in md and "| t4-spot |" in md


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_base_git_ref(workload: Path, tmp_path: Path, capsys: Capture) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    stack = repo / "stack.yaml"
    shutil.copy(STACK, stack)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git[:3], "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "base"], check=True)
    text = stack.read_text(encoding="utf-8")
    stack.write_text(text.replace("{min: 1, max: 10}", "{min: 1, max: 2}"), encoding="utf-8")
    assert run(["simulate", str(stack), "--workload", str(workload), "--base", "HEAD"]) == 0
    out = capsys.readouterr().out
    assert "Base: stack shared-aks" in out and "(change from the base)" in out


def test_workload_errors_name_lines_and_simulate_nothing(workload: Path, capsys: Capture) -> None:
    workload.write_text(HEADER + "a,team-nlp,0,60,1,,1,1,1\nb,nobody,0,60,1,,1,1,1\n",
                        encoding="utf-8")
    assert run(["simulate", STACK, "--workload", str(workload)]) == 1
    cap = capsys.readouterr()
    assert f"{workload}:3:" in cap.err and "nothing was simulated" in cap.err
    assert cap.out == ""


def test_bad_rate_is_a_usage_error(workload: Path, capsys: Capture) -> None:
    code = run(["simulate", STACK, "--workload", str(workload),
                "--spot-interruptions-per-hour", "-1"])
    assert code == 64 and "must be a finite number >= 0" in capsys.readouterr().err


def test_missing_base_is_one_line(workload: Path, capsys: Capture) -> None:
    assert run(["simulate", STACK, "--workload", str(workload), "--base", "no-such-ref"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: --base no-such-ref") and "Traceback" not in err


def test_saturate_json_and_base(workload: Path, tmp_path: Path, capsys: Capture) -> None:
    """Capacity mode: the curve per percent; with a base, the base's under ``base``."""
    head = tmp_path / "head.yaml"
    text = Path(STACK).read_text(encoding="utf-8")
    head.write_text(text.replace("{min: 1, max: 10}", "{min: 1, max: 2}"), encoding="utf-8")
    assert run(["simulate", str(head), "--workload", str(workload), "--saturate", "120",
                "--base", STACK, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    curve = doc["saturation"]
    assert curve["arrived_percent"] == list(range(121))
    assert len(curve["allocated_percent"]) == 121 and curve["allocated_percent"][0] == 0
    assert doc["capacity_gpus"] < doc["base"]["capacity_gpus"]
    assert doc["pods"] >= doc["failed"] >= 0
    assert run(["simulate", STACK, "--workload", str(workload), "--saturate", "100",
                "--format", "markdown"]) == 0
    assert "xychart-beta" in capsys.readouterr().out


def test_saturate_percent_bounds(workload: Path, capsys: Capture) -> None:
    assert run(["simulate", STACK, "--workload", str(workload), "--saturate", "0"]) == 64
    assert "percent from 1 to 1000" in capsys.readouterr().err


def test_plan_with_workload_adds_the_simulated_section(workload: Path, tmp_path: Path,
                                                       capsys: Capture) -> None:
    head = tmp_path / "head.yaml"
    text = Path(STACK).read_text(encoding="utf-8")
    head.write_text(text.replace("{min: 1, max: 10}", "{min: 1, max: 2}"), encoding="utf-8")
    assert run(["plan", str(head), "--base", STACK, "--workload", str(workload),
                "--format", "markdown"]) == 0
    md = capsys.readouterr().out
    assert md.index("### gpupool plan") < md.index("### Simulation: shared-aks against")
    assert run(["plan", str(head), "--base", STACK, "--workload", str(workload),
                "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert "resource_changes" in doc and doc["simulation"]["base"]["stack"] == "shared-aks"
