"""Flags of ``simulate`` and ``advise`` within their bounds, and ``simulate --generate``.

Issue 34: ``--until nan``, ``--until 1e20`` (queries sent for ever), ``--since`` of 400 digits
(an internal error) and rates of ``1e300`` are usage errors; issue 35: ``--seed -1`` was taken
though the range starts at 0, and a newcomer's stack had no workload to replay.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpupool.cli import EXIT_USAGE, run
from tests.paths import EXAMPLES

Capture = pytest.CaptureFixture[str]
STACK = str(EXAMPLES / "azure-kai-fair.yaml")


@pytest.mark.parametrize("flags", [
    ["--seed", "-1"],
    ["--seed", "4294967296"],
    ["--seed", "1.5"],
    ["--seed", "9" * 400],
    ["--spot-interruptions-per-hour", "nan"],
    ["--spot-interruptions-per-hour", "inf"],
    ["--spot-interruptions-per-hour", "3601"],
    ["--spot-interruptions-per-hour", "1e400"],
    ["--scale-up-seconds", "inf"],
    ["--scale-up-seconds", "86401"],
    ["--spot-shortage", "nan"],
    ["--generate", "0"],
    ["--generate", "100001"],
    ["--generate", "1e3"],
    ["--generate", "--workload", str(EXAMPLES / "azure-kai-fair.jobs.csv")],
], ids=lambda f: " ".join(f)[:40])  # fmt: skip
def test_simulate_flags_out_of_bounds_are_usage_errors(flags: list[str], capsys: Capture) -> None:
    assert run(["simulate", STACK, *flags]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "internal error" not in err and len(err.strip().splitlines()) <= 3


def test_the_seed_range_is_the_stack_files(capsys: Capture) -> None:
    """0 to 4294967295, as ``simulation.seed`` in the stack schema."""
    assert run(["simulate", STACK, "--seed", "4294967295", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["seed"] == 4294967295


@pytest.mark.parametrize("flags", [
    ["--until", "nan"],
    ["--until", "inf"],
    ["--until", "1e20"],
    ["--until", "-1"],
    ["--until", "0001-01-01T00:00:00Z"],
    ["--since", "9" * 400 + "d"],
    ["--since", "100000000000000d"],
    ["--since", "367d"],
], ids=lambda f: " ".join(f)[:40])  # fmt: skip
def test_advise_window_out_of_bounds_is_a_usage_error(flags: list[str], capsys: Capture) -> None:
    code = run(["advise", STACK, "--prometheus", "http://127.0.0.1:9", *flags])
    err = capsys.readouterr().err
    assert code == EXIT_USAGE, err
    assert "internal error" not in err and "--" + flags[0].lstrip("-") in err


def test_generate_replays_a_workload_made_for_the_stack(capsys: Capture) -> None:
    stack = str(EXAMPLES / "aws-inference-l4.yaml")  # its bundled workload fits another stack
    assert run(["simulate", stack, "--generate", "50", "--seed", "3"]) == 0
    first = capsys.readouterr()
    assert first.out.startswith("Simulation of stack inference-prod with workload --generate 50 "
                                "(seed 3,")
    assert "Pods: 50 submitted, 50 started, 0 rejected, 0 never started" in first.out
    assert first.err == ""  # no diagnostic: every row fits the stack
    assert run(["simulate", stack, "--generate", "50", "--seed", "3"]) == 0
    assert capsys.readouterr().out == first.out
    assert run(["simulate", stack, "--generate", "50", "--seed", "4"]) == 0
    assert capsys.readouterr().out != first.out


def test_generate_defaults_to_200_jobs_and_the_blocks_seed(capsys: Capture) -> None:
    assert run(["simulate", STACK, "--generate", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["workload"] == "--generate 200" and doc["pods"]["submitted"] >= 200


def test_generate_before_the_stack_file_says_where_it_goes(capsys: Capture) -> None:
    assert run(["simulate", "--generate", STACK]) == EXIT_USAGE
    assert "name the stack file before it" in capsys.readouterr().err


@pytest.mark.parametrize("line", [
    "seed: -1", "seed: 4294967296", "seed: .inf", "seed: 1.5",
    "spotInterruptionsPerHour: .nan", "spotInterruptionsPerHour: 3601",
    "spotShortage: .nan", "spotShortage: 1.5", "spotShortage: -0.1",
])  # fmt: skip
def test_the_simulation_blocks_figures_out_of_bounds_are_stack_errors(
    tmp_path: Path, line: str, capsys: Capture
) -> None:
    """The block's figures are the stack schema's to bound (a regression guard)."""
    text = (EXAMPLES / "azure-kai-fair.yaml").read_text(encoding="utf-8")
    head = text.split("\nsimulation:", 1)[0]
    (tmp_path / "w.csv").write_text("duration\n60\n", encoding="utf-8")
    stack = tmp_path / "stack.yaml"
    stack.write_text(f"{head}\nsimulation:\n  workload: w.csv\n  {line}\n", encoding="utf-8")
    assert run(["simulate", str(stack), "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["error"]["kind"] == "invalid-stack"
