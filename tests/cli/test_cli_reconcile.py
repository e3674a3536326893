"""The GitOps loop: refresh from the cloud, then converge; apply only the plan that was reviewed.

Against the stand-in pulumi CLI and two scenarios recorded for stacks/examples/volcengine-a10.yaml
under the type tokens and logical names gpupool renders (tests/fake_pulumi/scenarios):
``first-apply`` (everything created) and ``edited-outside`` (the device plugin ConfigMap edited
with kubectl; only a refreshed preview or up sees it). Their streams follow real engine streams
(tests/engine/events): a refresh sends ``refresh`` pre-events whose outputs event carries the
outcome (Pulumi's lifecycle test TestRefreshBasics; refresh-preview-drift.json) before the steps
that converge, and the summary does not count the refresh steps (``RefreshStep.Logical()`` is false
in pulumi/pulumi pkg/resource/deploy/step.go). The SDK passes ``refresh=True`` as ``--refresh``
on ``preview`` and ``up`` (pulumi/automation/_stack.py, 3.226.0 to 3.272.0); the stand-in
refuses flags it does not know.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpupool import record
from gpupool.assemble import build
from gpupool.cli import run
from tests import fake_pulumi
from tests.fake_pulumi import vke_scenarios
from tests.paths import EXAMPLES
from tests.stacks import load_stack

EXAMPLE = EXAMPLES / "volcengine-a10.yaml"
CONFIGMAP = "k8s.configmap.gpu-operator.gpupool-device-plugin-config"
#: What the rendered program registers; the scenarios create or hold each, plus the stack itself.
RESOURCES = len(build(load_stack(EXAMPLE)).resources)

Capture = pytest.CaptureFixture[str]


@pytest.fixture
def stack_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return fake_pulumi.stack_workspace(EXAMPLE, tmp_path, monkeypatch)


def _changes(doc: dict[str, Any]) -> dict[str, list[str]]:
    return {c["address"]: c["actions"] for c in doc["resource_changes"]
            if c["actions"] != ["no-op"]}


def _engine_runs(tmp_path: Path, command: str) -> list[list[str]]:
    return [argv for argv in fake_pulumi.calls(tmp_path) if command in argv]


def _applied(stack_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capture) -> None:
    """Apply the stack for real first (the stand-in keeps its state in the backend)."""
    monkeypatch.setenv("FAKE_PULUMI_SCENARIO", "first-apply")
    assert run(["up", "--yes", str(stack_file)]) == 0
    capsys.readouterr()


# --------------------------------------------------------------------------------- --refresh


def test_preview_refresh_sees_what_was_changed_outside(
    stack_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capture, tmp_path: Path
) -> None:
    _applied(stack_file, monkeypatch, capsys)
    monkeypatch.setenv("FAKE_PULUMI_SCENARIO", "edited-outside")
    assert run(["preview", "--detailed-exitcode", str(stack_file)]) == 0  # state says: same
    assert "No changes." in capsys.readouterr().out
    code = run(["preview", "--refresh", "--detailed-exitcode", "--format", "json",
                str(stack_file)])
    assert code == 2
    # the refresh steps (one per resource in state) are not changes; the converging update is
    assert _changes(json.loads(capsys.readouterr().out)) == {CONFIGMAP: ["update"]}
    previews = _engine_runs(tmp_path, "preview")
    assert ["--refresh" in argv for argv in previews][-2:] == [False, True]


def test_up_refresh_refreshes_then_converges(
    stack_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capture, tmp_path: Path
) -> None:
    _applied(stack_file, monkeypatch, capsys)
    monkeypatch.setenv("FAKE_PULUMI_SCENARIO", "edited-outside")
    assert run(["up", "--yes", "--refresh", str(stack_file)]) == 0
    out = capsys.readouterr().out
    assert "~ kubernetes:core/v1:ConfigMap" in out  # the plan it applies, shown first
    assert out.rstrip().endswith(f"Apply complete: {RESOURCES} same, 1 update.")
    preview, up = _engine_runs(tmp_path, "preview")[-1], _engine_runs(tmp_path, "up")[-1]
    assert "--refresh" in preview and "--refresh" in up
    recorded = record.read_applied(record.record_path(stack_file, "vke-infer"))
    assert recorded == build(load_stack(stack_file))


# ---------------------------------------------------------------------------------- --expect


def _reviewed_plan(stack_file: Path, capsys: Capture, target: Path) -> Path:
    """What the pull request showed: ``gpupool plan --format json`` of the stack file."""
    assert run(["plan", "--format", "json", str(stack_file)]) == 0
    target.write_text(capsys.readouterr().out, encoding="utf-8")
    return target


def test_up_expect_applies_the_reviewed_plan(
    stack_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capture, tmp_path: Path
) -> None:
    reviewed = _reviewed_plan(stack_file, capsys, tmp_path / "plan.json")
    changes = _changes(json.loads(reviewed.read_text()))
    assert len(changes) == RESOURCES and changes["cloud.provider"] == ["create"]  # providers too
    monkeypatch.setenv("FAKE_PULUMI_SCENARIO", "first-apply")
    assert run(["up", "--yes", "--expect", str(reviewed), str(stack_file)]) == 0
    cap = capsys.readouterr()
    assert f"note: the engine's preview is the reviewed plan {reviewed}" in cap.err
    assert cap.out.rstrip().endswith(f"Apply complete: {RESOURCES + 1} create.")
    assert record.read_applied(record.record_path(stack_file, "vke-infer")) is not None


def test_up_expect_refuses_a_preview_that_differs_and_applies_nothing(
    stack_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capture, tmp_path: Path
) -> None:
    """Issue 18: the plan reviewed on the pull request had a second tenant; the file applied
    does not (it changed after the review), so the engine's preview lacks its namespace and
    quota: up says what differs (the actions, then any other resource whose pinned inputs
    changed), exits 1 and runs no update."""
    text = stack_file.read_text(encoding="utf-8")
    reviewed_file = tmp_path / "reviewed.yaml"
    reviewed_file.write_text(text + "  - name: ml\n    pools: [a10]\n    limit: {gpus: 2}\n")
    reviewed = _reviewed_plan(reviewed_file, capsys, tmp_path / "plan.json")
    applied = _reviewed_plan(stack_file, capsys, tmp_path / "applied.json")
    ml = sorted(set(_changes(json.loads(reviewed.read_text())))
                - set(_changes(json.loads(applied.read_text()))))
    assert {"k8s.namespace.ml", "k8s.resourcequota.ml.gpupool-gpus"} <= set(ml)
    differences = [f"{a}: reviewed plan: create; engine preview: no change" for a in ml]
    monkeypatch.setenv("FAKE_PULUMI_SCENARIO", "first-apply")
    assert run(["up", "--yes", "--expect", str(reviewed), str(stack_file)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    head = err.index(f"The engine's preview is not the reviewed plan {reviewed}:")
    listed, last = [line.strip() for line in err[head + 1:-1]], err[-1]
    assert listed[:len(ml)] == sorted(differences, key=listed.index)
    assert all(line.endswith("differ from the reviewed plan") for line in listed[len(ml):])
    named = {line.split(": ", 1)[0] for line in listed}
    assert last == (
        f"error: the engine's preview differs from the reviewed plan {reviewed} in {len(named)} "
        "resources; nothing was applied: review a new plan")
    assert not _engine_runs(tmp_path, "up")
    assert not record.record_path(stack_file, "vke-infer").exists()
    assert run(["up", "--yes", "--format", "json", "--expect", str(reviewed),
                str(stack_file)]) == 1
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["kind"] == "plan-mismatch"
    assert error["differences"] == listed


def test_up_expect_refuses_values_changed_after_the_review(
    stack_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capture, tmp_path: Path
) -> None:
    """Issue 27 item 4: the reviewed plan created a pool of 1-6 nodes; the file applied creates
    the same addresses with the same actions but 600 nodes, 30 replicas and a limit of 400. The
    plan pins every resource's inputs, so up names what differs and applies nothing."""
    reviewed = _reviewed_plan(stack_file, capsys, tmp_path / "plan.json")
    text = stack_file.read_text(encoding="utf-8")
    edited = (text.replace("nodes: {min: 1, max: 6}", "nodes: {min: 1, max: 600}")
              .replace("replicas: 3}", "replicas: 30}").replace("limit: {gpus: 4}",
                                                              "limit: {gpus: 400}"))
    assert edited.count("600") and edited != text
    stack_file.write_text(edited, encoding="utf-8")
    monkeypatch.setenv("FAKE_PULUMI_SCENARIO", "first-apply")
    assert run(["up", "--yes", "--expect", str(reviewed), str(stack_file)]) == 1
    err = capsys.readouterr().err
    assert f"The engine's preview is not the reviewed plan {reviewed}:" in err
    pool = build(load_stack(stack_file)).get("pool.a10.node_group")
    assert pool is not None
    said = [line.strip() for line in err.splitlines() if "differ from the reviewed plan" in line]
    assert any(line.startswith("pool.a10.node_group: inputs ") for line in said), err
    assert any(line.startswith("k8s.resourcequota.apps.") for line in said), err
    assert any(line.startswith(f"{CONFIGMAP}: inputs ") for line in said), err
    assert not _engine_runs(tmp_path, "up")
    assert not record.record_path(stack_file, "vke-infer").exists()


def test_up_expect_of_another_stacks_plan_is_an_input_error(
    stack_file: Path, capsys: Capture, tmp_path: Path
) -> None:
    other = tmp_path / "other.yaml"
    other.write_text(stack_file.read_text().replace("name: vke-infer", "name: vke-prod"))
    reviewed = _reviewed_plan(other, capsys, tmp_path / "plan.json")
    assert run(["up", "--yes", "--expect", str(reviewed), str(stack_file)]) == 1
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"error: --expect {reviewed} is the plan of stack 'vke-prod', not 'vke-infer'")
    assert not _engine_runs(tmp_path, "preview")  # refused before the engine ran


def test_the_scenarios_are_those_of_the_graph_the_example_renders_now() -> None:
    """The stand-in can only answer for the resources the program registers: after a change to
    what volcengine-a10 renders, run ``python -m tests.fake_pulumi.vke_scenarios``."""
    for name, data in vke_scenarios.scenarios().items():
        path = vke_scenarios.SCENARIOS / f"{name}.json"
        assert json.loads(path.read_text(encoding="utf-8")) == data, f"{name}: regenerate it"
