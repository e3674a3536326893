"""A stack's ``simulation`` block: ``plan`` and ``simulate`` replay the workload it names.

The block is for the GitOps loop: CI runs ``gpupool plan`` on a pull request's stack with no
flags, so the workload has to live with the stack for the comment to show who waits. A stack
file can come from the pull request itself, so the workload must stay in the stack's folder.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gpupool.cli import run
from tests.cli.test_cli_simulate import HEADER, ROWS, STACK

Capture = pytest.CaptureFixture[str]


def _stack(folder: Path, block: str, *, max_nodes: int = 10) -> Path:
    """The example beside its workload in ``folder``, its own block replaced by ``block``."""
    text = Path(STACK).read_text(encoding="utf-8")
    assert "{min: 1, max: 10}" in text and "\nsimulation:" in text
    text = text[:text.index("\nsimulation:") + 1]
    text = text.replace("{min: 1, max: 10}", f"{{min: 1, max: {max_nodes}}}")
    path = folder / "stack.yaml"
    path.write_text(text + block, encoding="utf-8")
    return path


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "jobs.csv").write_text(HEADER + "\n".join(ROWS) + "\n", encoding="utf-8")
    return tmp_path


def test_simulate_reads_the_named_workload_and_seed(folder: Path, capsys: Capture) -> None:
    stack = _stack(folder, "simulation:\n  workload: jobs.csv\n  seed: 7\n")
    assert run(["simulate", str(stack), "--format", "json",
                "--spot-interruptions-per-hour", "1"]) == 0
    named = json.loads(capsys.readouterr().out)
    assert run(["simulate", str(stack), "--format", "json", "--workload",
                str(folder / "jobs.csv"), "--seed", "7", "--spot-interruptions-per-hour", "1"]) == 0
    flagged = json.loads(capsys.readouterr().out)
    assert named["seed"] == 7 and named["pods"]["submitted"] == 19
    assert named == flagged  # the block is the same run as the flags it stands for
    assert run(["simulate", str(stack), "--format", "json", "--seed", "8"]) == 0
    assert json.loads(capsys.readouterr().out)["seed"] == 8  # a flag wins over the block


def test_the_block_states_the_spot_risk(folder: Path, capsys: Capture) -> None:
    """The plan's section runs under the spot figures the block states; a flag wins."""
    risky = _stack(folder, "simulation: {workload: jobs.csv, spotShortage: 1}\n")
    plain = folder / "plain.yaml"
    plain.write_text(risky.read_text(encoding="utf-8").replace(", spotShortage: 1", ""),
                     encoding="utf-8")
    docs = []
    for argv in (["plan", str(risky)], ["plan", str(plain)]):
        assert run([*argv, "--format", "json"]) == 0
        docs.append(json.loads(capsys.readouterr().out)["simulation"])
    unfilled = [{p["pool"]: p["spot_unfilled"] for p in d["pools"]} for d in docs]
    assert unfilled[0]["t4-spot"] > 0 and unfilled[1]["t4-spot"] == 0
    assert run(["simulate", str(risky), "--spot-shortage", "0", "--format", "json"]) == 0
    flag = json.loads(capsys.readouterr().out)
    assert all(p["spot_unfilled"] == 0 for p in flag["pools"])
    assert flag["pools"] == docs[1]["pools"]


def test_workload_flag_wins_over_the_block(folder: Path, capsys: Capture) -> None:
    other = folder / "other.csv"
    other.write_text(HEADER + ROWS[0] + "\n", encoding="utf-8")
    stack = _stack(folder, "simulation: {workload: jobs.csv}\n")
    assert run(["simulate", str(stack), "--workload", str(other), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["pods"]["submitted"] == 1 and doc["seed"] == 0


def test_the_example_names_its_workload(capsys: Capture) -> None:
    """The README's first command shows the simulated section: the example names a workload."""
    assert run(["plan", STACK]) == 0
    out = capsys.readouterr().out
    assert out.index("Plan:") < out.index("Simulation of stack shared-aks with workload")
    assert "azure-kai-fair.jobs.csv" in out


def test_plan_adds_the_section_the_block_asks_for(folder: Path, capsys: Capture) -> None:
    stack = _stack(folder, "simulation: {workload: jobs.csv}\n", max_nodes=2)
    assert run(["plan", str(stack), "--base", STACK, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["simulation"]["base"]["stack"] == "shared-aks"
    assert doc["simulation"]["pods"]["submitted"] == 19
    assert run(["plan", str(stack), "--base", STACK, "--format", "markdown"]) == 0
    md = capsys.readouterr().out
    assert md.index("### gpupool plan") < md.index("### Simulation: shared-aks against")
    assert run(["plan", str(stack), "--base", STACK, "--format", "json",
                "--no-simulation"]) == 0
    assert "simulation" not in json.loads(capsys.readouterr().out)


def test_a_workload_outside_the_folder_is_an_error(folder: Path, capsys: Capture) -> None:
    stack = _stack(folder, "simulation: {workload: ../jobs.csv}\n")
    assert run(["validate", str(stack)]) == 1
    err = capsys.readouterr().err
    assert "[simulation.workload-outside]" in err and f"{stack}:" in err
    assert run(["plan", str(stack)]) == 1
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")
def test_a_link_out_of_the_folder_is_refused(folder: Path, tmp_path_factory: pytest.TempPathFactory,
                                             capsys: Capture) -> None:
    """A link in the folder to a file elsewhere: a pull request could make CI quote any file."""
    secret = tmp_path_factory.mktemp("elsewhere") / "secret.csv"
    secret.write_text("name,tenant\nhunter2,x\n", encoding="utf-8")
    (folder / "link.csv").symlink_to(secret)
    stack = _stack(folder, "simulation: {workload: link.csv}\n")
    for argv in (["simulate", str(stack)], ["plan", str(stack)]):
        assert run(argv) == 1
        cap = capsys.readouterr()
        assert "leads outside the stack file's folder" in cap.err
        assert "hunter2" not in cap.err + cap.out and "Traceback" not in cap.err


def test_missing_named_workload_is_one_line(folder: Path, capsys: Capture) -> None:
    """A stack copied without its workload: one line naming the file and the way out."""
    stack = _stack(folder, "simulation: {workload: gone.csv}\n")
    assert run(["simulate", str(stack)]) == 1
    err = capsys.readouterr().err
    assert "gone.csv, which does not exist" in err and "--workload FILE" in err
    assert "Traceback" not in err
    assert run(["plan", str(stack)]) == 1
    assert "--no-simulation" in capsys.readouterr().err
    assert run(["plan", str(stack), "--no-simulation"]) == 0


def test_simulate_without_any_workload_is_a_usage_error(folder: Path, capsys: Capture) -> None:
    assert run(["simulate", str(_stack(folder, ""))]) == 64
    assert "names no workload" in capsys.readouterr().err
