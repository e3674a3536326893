"""preview, up, destroy and drift from the command line, against the stand-in pulumi CLI.

The product path is the real one (validate, build the graph, render, Automation API); only the
``pulumi`` executable is the recorded stand-in from tests/fake_pulumi.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpupool import record
from gpupool.assemble import build
from gpupool.cli import run
from gpupool.graph import ResourceGraph
from tests import fake_pulumi
from tests.paths import EXAMPLES
from tests.stacks import load_stack

EXAMPLE = EXAMPLES / "aws-inference-l4.yaml"


@pytest.fixture
def stack_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of an example in a temp dir, with the stand-in pulumi first on PATH."""
    return fake_pulumi.stack_workspace(EXAMPLE, tmp_path, monkeypatch)


def test_preview_reads_like_plan_and_exits_2_on_changes(
    stack_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """preview --detailed-exitcode prints a plan and exits 2 when the engine plans changes."""
    assert run(["preview", "--detailed-exitcode", str(stack_file)]) == 2
    out = capsys.readouterr()
    assert "Plan:" in out.out
    assert "[" in out.err  # progress lines with elapsed time go to stderr
    assert (stack_file.parent / ".gpupool" / "build" / "inference-prod" / "__main__.py").exists()
    assert (stack_file.parent / ".gpupool" / "state" / ".pulumi").is_dir()


def test_preview_without_changes_exits_0(
    stack_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No engine changes means exit 0 even with --detailed-exitcode."""
    monkeypatch.setenv("FAKE_PULUMI_SCENARIO", "no-changes")
    assert run(["preview", "--detailed-exitcode", "--format", "json", str(stack_file)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["summary"] == {"add": 0, "change": 0, "destroy": 0, "replace": 0}


def test_up_with_yes_applies_and_records_the_graph(stack_file: Path) -> None:
    """up --yes applies and writes the applied graph the offline plan uses next."""
    assert run(["up", "--yes", str(stack_file)]) == 0
    path = record.record_path(stack_file, "inference-prod")
    recorded = record.read_applied(path)
    assert recorded == build(load_stack(stack_file))
    # The next offline plan compares against the record: nothing to do.
    assert run(["plan", "--detailed-exitcode", str(stack_file)]) == 0


def test_up_without_terminal_refuses_to_ask(
    stack_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --yes and without a terminal, up shows the preview and refuses to prompt."""
    assert run(["up", str(stack_file)]) == 1
    cap = capsys.readouterr()
    assert "Plan:" in cap.out
    assert cap.err.endswith("error: up of stack inference-prod needs confirmation and there is "
                            "no terminal to ask on; pass --yes\n")
    assert not record.record_path(stack_file, "inference-prod").exists()


def test_failed_up_names_the_resource_and_keeps_a_record(
    stack_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A failure mid-update is one line naming the resource; the record keeps what applied."""
    monkeypatch.setenv("FAKE_PULUMI_SCENARIO", "fail-mid-update")
    assert run(["up", "--yes", str(stack_file)]) == 1
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    assert last.startswith("error: ")
    assert "g6e.2xlarge is not supported" in last  # the engine's reason, in one line
    assert "Traceback" not in err
    assert isinstance(
        record.read_applied(record.record_path(stack_file, "inference-prod")), ResourceGraph
    )


def test_preview_of_a_delete_before_replace_says_why(
    stack_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The keyless delete-replaced step comes first; the plan still names the forcing key."""
    monkeypatch.setenv("FAKE_PULUMI_SCENARIO", "delete-before-replace")
    assert run(["preview", "--format", "json", str(stack_file)]) == 0
    doc = json.loads(capsys.readouterr().out)
    (pool,) = [c for c in doc["resource_changes"] if c["address"].endswith("pool-infer-l4")]
    assert sorted(pool["actions"]) == ["create", "delete"]
    assert pool["replace_paths"] == [["instanceTypes"]]
    assert "instanceTypes forces replacement" in pool["reasons"]


def test_policy_violations_are_shown_and_the_mandatory_one_fails(
    stack_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Advisory violations are warnings, a mandatory one is the error; each names the policy,
    its pack and the resource, the multi-line message indented under it."""
    monkeypatch.setenv("FAKE_PULUMI_SCENARIO", "policy")
    assert run(["preview", str(stack_file)]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert any(line.endswith(
        "warning: kubernetes:core/v1:ConfigMap time-slicing-config: policy "
        "'configmaps-have-owner-label' of policy pack 'org-guardrails' v1.4.0 (advisory): "
        "ConfigMap time-slicing-config has no 'owner' label.") for line in lines)
    at = next(i for i, line in enumerate(lines) if "error: aws:eks/nodeGroup:NodeGroup" in line)
    assert lines[at + 1] == " " * 14 + "Add it to the pool's tags and run the update again."
    assert lines[-1] == (
        "error: Pulumi preview failed at aws:eks/nodeGroup:NodeGroup 'pool-infer-l4': policy "
        "'gpu-node-groups-have-cost-center' of policy pack 'org-guardrails' v1.4.0 (mandatory): "
        "GPU node groups must carry a 'cost-center' tag. Add it to the pool's tags and run the "
        "update again")


def test_destroy_stopped_by_a_protected_resource_shows_the_whole_reason(
    stack_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The engine's three-line refusal: every line in the progress, indented under the node
    group; the closing error is one line with the command that unprotects it."""
    assert run(["up", "--yes", str(stack_file)]) == 0
    capsys.readouterr()
    monkeypatch.setenv("FAKE_PULUMI_SCENARIO", "protected")
    assert run(["destroy", "--yes", str(stack_file)]) == 1
    lines = capsys.readouterr().err.splitlines()
    at = next(i for i, line in enumerate(lines) if line.endswith("cannot be deleted"))
    assert "error: aws:eks/nodeGroup:NodeGroup pool-infer-l4: resource" in lines[at]
    assert lines[at + 1].startswith(" " * 14 + "because it is protected.")
    assert lines[at + 2].startswith(" " * 14 + "`pulumi state unprotect ")
    assert lines[-1].startswith("error: Destroy failed at aws:eks/nodeGroup:NodeGroup")
    assert "because it is protected" in lines[-1] and "`pulumi state unprotect " in lines[-1]
    assert "2 changes applied before it" in lines[-1]


def test_destroy_with_yes_empties_the_record(stack_file: Path) -> None:
    """destroy --yes removes everything; the record becomes an empty graph."""
    assert run(["up", "--yes", str(stack_file)]) == 0
    assert run(["destroy", "--yes", str(stack_file)]) == 0
    recorded = record.read_applied(record.record_path(stack_file, "inference-prod"))
    assert recorded is not None and recorded.resources == ()


def test_missing_cli_is_one_line_pointing_at_plan(
    stack_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without pulumi on PATH, preview/up/destroy say how to install it and that plan works."""
    monkeypatch.setenv("PATH", str(stack_file.parent))
    for cmd in (["preview"], ["up", "--yes"], ["destroy", "--yes"]):
        assert run([*cmd, str(stack_file)]) == 1
        err = capsys.readouterr().err
        errors = [line for line in err.splitlines() if line.startswith("error:")]
        assert len(errors) == 1  # validation warnings about the stack may come before it
        assert errors[0].startswith("error: Pulumi CLI not found")
        assert "gpupool plan" in errors[0]


def test_drift_exit_codes(
    stack_file: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    """drift: 0 when checked sources agree, 1 when nothing could be checked or a required
    source is missing, 2 on drift; never a traceback."""
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "missing-kubeconfig"))
    monkeypatch.setenv("FAKE_PULUMI_SCENARIO", "no-changes")
    assert run(["drift", str(stack_file)]) == 0  # the engine source ran and found nothing
    assert run(["drift", "--require", "cluster", str(stack_file)]) == 1
    assert run(["drift", "--require", "gpu", str(stack_file)]) == 64
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / "n.json").write_text(
        json.dumps(
            {
                "format_version": "1",
                "hostname": "n",
                "node_name": "n",
                "driver_version": "580.95.05",
                "cuda_driver_version": "13.0",
                "nvml_version": "13.580.95.05",
                "gpus": [],
                "faults": [{"gpu": 0, "kind": "ecc", "detail": "3 uncorrected ECC errors"}],
            }
        )
    )
    assert run(["drift", "--node-reports", str(reports), str(stack_file)]) == 2
    monkeypatch.setenv("PATH", str(tmp_path))
    capsys.readouterr()
    assert run(["drift", str(stack_file)]) == 1
    assert "no drift source could be checked" in capsys.readouterr().err
    # an empty report folder was not looked at: never exit 0, whatever the format says
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run(["drift", "--require", "node", "--node-reports", str(empty), str(stack_file)]) == 1
    assert "'node' is required but could not be checked" in capsys.readouterr().err
    assert run(["drift", "--format", "json", "--node-reports", str(empty), str(stack_file)]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert (doc["status"], doc["drifted"]) == ("unknown", None)


def test_preview_carries_the_stack_files_warnings_and_advice_as_plan_does(
    stack_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The engine's plan leads with the same summary: its diagnostics are the file's, not none."""
    from gpupool.spec.validate import validate_file

    found = [d.to_json() for d in validate_file(stack_file, str(stack_file)).diagnostics]
    assert found  # the example has advice
    assert run(["preview", "--format", "json", str(stack_file)]) == 0
    assert json.loads(capsys.readouterr().out)["diagnostics"] == found
    assert run(["preview", str(stack_file)]) == 0
    summary = capsys.readouterr().out.split("\n\n")[1]
    advice = sum(1 for d in found if d["severity"] == "info")
    assert summary.startswith("Summary:\n") and f"Advice: {advice} items" in summary
