"""gpupool.engine.pulumi against the stand-in CLI (tests/fake_pulumi): the real Automation API
code path, with recorded engine output instead of a cloud.

The stand-in's scenarios follow the shape of Pulumi's real streams (gpupool's own in
tests/engine/events and Pulumi's recorded ones in SHARED_UPSTREAM, both replayed directly in
test_collector_streams.py); the Pulumi lifecycle test a case mirrors is named in its docstring.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from gpupool.engine import pulumi as engine
from gpupool.engine.results import EngineTarget, ProgressEvent, UpdateFailedError
from gpupool.errors import (
    CredentialsError,
    EngineError,
    EngineNotInstalledError,
    ProgramError,
    StackLockedError,
)
from tests import fake_pulumi
from tests.paths import FAKE_PULUMI

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
STATE_WRITING = {"up", "destroy", "import", "cancel"}


@dataclass
class Fake:
    """A test's view of the stand-in CLI: target, invocation log and scenario switches."""

    target: EngineTarget
    log: Path
    state_dir: Path
    monkeypatch: pytest.MonkeyPatch

    def scenario(self, name: str) -> None:
        self.monkeypatch.setenv("FAKE_PULUMI_SCENARIO", name)

    def version(self, version: str) -> None:
        self.monkeypatch.setenv("FAKE_PULUMI_VERSION", version)

    def calls(self) -> list[list[str]]:
        if not self.log.exists():
            return []
        lines = self.log.read_text().splitlines()
        return [json.loads(line)["argv"] for line in lines]

    def commands(self) -> list[tuple[str, ...]]:
        """Return each call's command words (flags and values dropped)."""
        result = []
        for argv in self.calls():
            words = [a for a in argv if a != "--non-interactive"]
            cut = next((i for i, a in enumerate(words) if a.startswith("-")), len(words))
            result.append(tuple(words[:cut]))
        return result

    def forget_calls(self) -> None:
        self.log.unlink(missing_ok=True)

    def state_file(self) -> Path:
        return self.state_dir / ".pulumi" / "stacks" / "gpupool-test" / "dev.json"

    def resources(self) -> dict[str, str]:
        state = json.loads(self.state_file().read_text())
        return {
            r["urn"].rsplit("::", 1)[-1]: r["type"]
            for r in state["deployment"].get("resources", [])
        }


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Fake:
    fake_pulumi.install(tmp_path / "bin", monkeypatch)
    monkeypatch.setenv("FAKE_PULUMI_LOG", str(tmp_path / "calls.jsonl"))
    monkeypatch.setenv("PULUMI_CONFIG_PASSPHRASE", "correct horse battery")
    for name in (
        "PULUMI_CONFIG_PASSPHRASE_FILE",
        "FAKE_PULUMI_SCENARIO",
        "FAKE_PULUMI_VERSION",
        "PULUMI_BACKEND_URL",
        "PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK",
    ):
        monkeypatch.delenv(name, raising=False)
    program = tmp_path / "program"
    program.mkdir()
    (program / "Pulumi.yaml").write_text("name: gpupool-test\nruntime: python\n")
    (program / "__main__.py").write_text("import pulumi\n")
    state = tmp_path / "state" / "nested"  # does not exist yet: the engine creates it
    target = EngineTarget(work_dir=program, stack_name="dev", backend_url=f"file://{state}")
    return Fake(target, tmp_path / "calls.jsonl", state, monkeypatch)


# -- success paths -------------------------------------------------------------------------------


def test_preview_reports_planned_steps_summary_and_progress(fake: Fake) -> None:
    """A preview returns every planned step with its diff, the summary, and progress events."""
    events: list[ProgressEvent] = []
    result = engine.preview(fake.target, events.append)

    assert result.kind == "preview"
    assert result.changed
    assert result.summary == {"same": 3, "create": 1, "update": 1, "replace": 1}
    assert result.outputs == {}
    ops = [(s.op, s.name) for s in result.steps if s.op != "same"]
    assert ops == [
        ("create-replacement", "pool-infer-l4"),
        ("replace", "pool-infer-l4"),
        ("update", "time-slicing-config"),
        ("create", "gpu-operator"),
        ("delete-replaced", "pool-infer-l4"),
    ]
    replace = next(s for s in result.steps if s.op == "replace")
    assert replace.type == NODE_GROUP
    assert replace.replace_keys == ("instanceTypes",)
    assert replace.detailed_diff == (("instanceTypes[0]", "update-replace"),)
    update = next(s for s in result.steps if s.op == "update")
    assert update.diffs == ("data",)
    assert update.detailed_diff == (("data.config.yaml", "update"),)
    assert "+-1 to replace" in result.stdout_tail

    names = [s.name for s in result.steps]
    assert names.count("gpupool-test-dev") == 1  # its outputs event arrives twice
    assert result.change_count == 3  # a replacement is one change, as in Pulumi's summary

    kinds = [e.kind for e in events]
    assert kinds[-1] == "summary"
    assert "resource-start" in kinds and "resource-done" in kinds
    starts = [e for e in events if e.kind == "resource-start" and e.type == NODE_GROUP]
    assert starts and starts[0].op == "create-replacement"
    assert all(b.elapsed_s >= a.elapsed_s for a, b in itertools.pairwise(events))


def test_first_preview_creates_the_stack_and_backend_then_reuses_them(fake: Fake) -> None:
    """The first run creates the file backend and the stack; later runs only select it."""
    assert not fake.state_dir.exists()
    engine.preview(fake.target)
    assert fake.state_dir.is_dir()
    assert fake.commands()[:4] == [
        ("version",),
        ("stack", "select"),
        ("stack", "init", "dev"),
        ("preview",),
    ]
    fake.forget_calls()
    engine.preview(fake.target)
    assert fake.commands() == [("version",), ("stack", "select"), ("preview",)]


def test_every_call_uses_the_backend_url_and_never_logs_in(fake: Fake) -> None:
    """The backend travels as PULUMI_BACKEND_URL on every stack call; `pulumi login` never runs."""
    engine.up(fake.target)
    entries = [json.loads(line) for line in fake.log.read_text().splitlines()]
    assert all(e["backend"] == fake.target.backend_url for e in entries if e["argv"] != ["version"])
    assert all(e["automation"] == "true" for e in entries if e["argv"] != ["version"])
    assert ("login",) not in fake.commands()


def test_preview_without_changes_is_not_changed(fake: Fake) -> None:
    """When everything matches, every step is `same` and `changed` is false."""
    fake.scenario("no-changes")
    result = engine.preview(fake.target)
    assert not result.changed
    assert result.summary == {"same": 6}
    assert {s.op for s in result.steps} == {"same"}


def test_up_applies_changes_and_returns_masked_outputs(fake: Fake) -> None:
    """Up returns the applied steps, the summary and the outputs with secrets masked."""
    result = engine.up(fake.target)
    assert result.kind == "up"
    assert result.changed
    assert result.summary == {"same": 3, "create": 1, "update": 1, "replace": 1}
    assert result.outputs == {"pools": ["infer-l4"], "kubeconfig": "[secret]"}
    assert ("create", "gpu-operator") in [(s.op, s.name) for s in result.steps]
    up_call = next(argv for argv in fake.calls() if "up" in argv)
    assert {"--non-interactive", "--yes", "--skip-preview"} <= set(up_call)  # flag order varies
    assert up_call.index("up") < up_call.index("--yes")
    assert "gpu-operator" in fake.resources()


def test_destroy_removes_everything(fake: Fake) -> None:
    """Destroy deletes the stack's resources and reports each deletion."""
    engine.up(fake.target)
    result = engine.destroy(fake.target)
    assert result.summary == {"delete": 6}
    assert {s.op for s in result.steps} == {"delete"}
    assert fake.resources() == {}
    destroy_call = next(argv for argv in fake.calls() if "destroy" in argv)
    assert {"--skip-preview", "--yes"} <= set(destroy_call)


def test_destroy_and_refresh_of_an_unknown_stack_create_nothing(fake: Fake) -> None:
    """Destroy, refresh preview and export on a stack that never existed do not create it."""
    assert not engine.destroy(fake.target).steps
    assert not engine.refresh_preview(fake.target).changed
    assert engine.export_state(fake.target) is None
    assert ("stack", "init", "dev") not in fake.commands()
    assert not fake.state_file().exists()


def test_export_state_redacts_secret_values(fake: Fake) -> None:
    """The exported state keeps its structure but never carries a secret's plaintext."""
    engine.up(fake.target)
    state = engine.export_state(fake.target)
    assert state is not None
    assert state["version"] == 3
    stack = next(r for r in state["deployment"]["resources"] if r["type"] == "pulumi:pulumi:Stack")
    assert stack["outputs"] == {"pools": ["infer-l4"], "kubeconfig": "[secret]"}
    assert "apiVersion" not in json.dumps(state)


@pytest.mark.parametrize("version", ["3.200.0", "3.272.0"], ids=["file-log", "grpc"])
def test_both_event_transports_give_the_same_result(fake: Fake, version: str) -> None:
    """CLI <= 3.205 streams events through a log file, newer ones over gRPC; results agree."""
    fake.version(version)
    result = engine.preview(fake.target)
    assert result.summary == {"same": 3, "create": 1, "update": 1, "replace": 1}
    assert len(result.steps) == 8
    preview_call = next(argv for argv in fake.calls() if "preview" in argv)
    log_target = preview_call[preview_call.index("--event-log") + 1]
    assert log_target.startswith("tcp://") == (version == "3.272.0")


def test_fake_folder_itself_works_first_on_path(
    fake: Fake, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checked-in launcher runs when tests/fake_pulumi is put first on PATH."""
    monkeypatch.setenv("PATH", f"{FAKE_PULUMI}{os.pathsep}{os.environ['PATH']}")
    fake.version("3.200.0")  # file transport: the launcher's python3 may lack grpcio
    assert engine.preview(fake.target).changed


def test_passphrase_file_in_target_env_is_enough(
    fake: Fake, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PULUMI_CONFIG_PASSPHRASE_FILE given through the target's env unlocks the stack."""
    monkeypatch.delenv("PULUMI_CONFIG_PASSPHRASE")
    secret = tmp_path / "passphrase"
    secret.write_text("from a file\n")
    target = EngineTarget(
        fake.target.work_dir,
        "dev",
        fake.target.backend_url,
        env={"PULUMI_CONFIG_PASSPHRASE_FILE": str(secret)},
    )
    assert engine.preview(target).changed


def test_progress_callback_failure_does_not_break_the_operation(fake: Fake) -> None:
    """A raising progress callback is switched off with a warning; the result still arrives."""

    def explode(event: ProgressEvent) -> None:
        raise ValueError("display broke")

    with pytest.warns(RuntimeWarning, match="progress callback failed"):
        result = engine.up(fake.target, explode)
    assert result.outputs["pools"] == ["infer-l4"]


def test_delete_before_replace_keeps_the_replacement_keys(fake: Fake) -> None:
    """A delete-before-replace starts with a keyless `delete-replaced`; every step of the
    replacement still says which key forces it (lifecycle TestExplicitDeleteBeforeReplace)."""
    fake.scenario("delete-before-replace")
    result = engine.preview(fake.target)
    steps = result.steps_for(next(s.urn for s in result.steps if s.name == "pool-infer-l4"))
    assert [s.op for s in steps] == ["delete-replaced", "replace", "create-replacement"]
    assert {s.replace_keys for s in steps} == {("instanceTypes",)}
    applied = engine.up(fake.target)
    assert applied.change_count == 3
    assert "pool-infer-l4" in fake.resources()


def test_up_lists_the_stack_once(fake: Fake) -> None:
    """In an update the stack (a component) gets no outputs event until the program registers
    its outputs; its step is still listed once."""
    result = engine.up(fake.target)
    assert [s.name for s in result.steps].count("gpupool-test-dev") == 1


# -- failures ------------------------------------------------------------------------------------


def test_failure_mid_update_raises_with_the_partial_result(fake: Fake) -> None:
    """A resource failing part way raises UpdateFailedError naming it, with what applied."""
    fake.scenario("fail-mid-update")
    events: list[ProgressEvent] = []
    with pytest.raises(UpdateFailedError) as caught:
        engine.up(fake.target, events.append)
    error = caught.value
    assert isinstance(error, EngineError)
    message = str(error)
    assert "\n" not in message
    assert f"{NODE_GROUP} 'pool-infer-l4'" in message
    assert "InvalidParameterException" in message
    assert "RequestID" not in message  # request noise stays in the detail
    assert "1 change applied" in message
    applied = [(s.op, s.name) for s in error.partial.steps if s.changed]
    assert applied == [("update", "time-slicing-config")]
    assert error.partial.failed[0][0].endswith("::pool-infer-l4")
    assert "RequestID" in error.detail
    failed = [e for e in events if e.kind == "resource-failed"]
    assert failed and failed[0].type == NODE_GROUP and failed[0].severity == "error"
    assert "time-slicing-config" in fake.resources()
    assert "gpu-operator" not in fake.resources()


def test_mandatory_policy_fails_naming_policy_pack_and_resource(fake: Fake) -> None:
    """An organisation policy pack: the advisory violation is a warning, the mandatory one the
    reason the preview and the update fail (lifecycle TestSimpleAnalyzeResourceFailure)."""
    fake.scenario("policy")
    events: list[ProgressEvent] = []
    with pytest.raises(EngineError) as caught:
        engine.preview(fake.target, events.append)
    reason = ("policy 'gpu-node-groups-have-cost-center' of policy pack 'org-guardrails' v1.4.0 "
              "(mandatory): GPU node groups must carry a 'cost-center' tag. Add it to the "
              "pool's tags and run the update again")
    assert str(caught.value) == f"Pulumi preview failed at {NODE_GROUP} 'pool-infer-l4': {reason}"
    policies = [(e.severity, e.urn.rsplit("::", 1)[-1]) for e in events if e.kind == "policy"]
    assert policies == [("warning", "time-slicing-config"), ("error", "pool-infer-l4")]

    with pytest.raises(UpdateFailedError) as failed:
        engine.up(fake.target)
    assert str(failed.value) == (f"Update failed at {NODE_GROUP} 'pool-infer-l4': {reason}; 1 "
                                 "change applied before it — fix the cause and run it again.")
    assert [v.enforcement for v in failed.value.partial.policy_violations] == [
        "advisory", "mandatory"]


def test_destroy_of_a_protected_resource_says_how_to_unprotect_it(fake: Fake) -> None:
    """The engine's three-line refusal stays whole in the one-line error (lifecycle TestProtect)."""
    engine.up(fake.target)
    fake.scenario("protected")
    with pytest.raises(UpdateFailedError) as caught:
        engine.destroy(fake.target)
    message = str(caught.value)
    assert "\n" not in message
    assert "cannot be deleted because it is protected" in message
    assert "`pulumi state unprotect 'urn:pulumi:dev::gpupool-test::" in message
    assert message.endswith("; 2 changes applied before it — fix the cause and run it again.")
    assert "pool-infer-l4" in fake.resources() and "gpu-operator" not in fake.resources()


def test_locked_stack_names_the_holder(fake: Fake) -> None:
    """A stack locked by another process raises StackLockedError saying who holds it, since when."""
    engine.preview(fake.target)
    fake.scenario("locked")
    with pytest.raises(StackLockedError) as caught:
        engine.up(fake.target)
    message = str(caught.value)
    assert "alice@ci-runner-7" in message and "2026-03-02T10:15:00Z" in message
    assert "pulumi cancel" in message


def test_refresh_preview_runs_while_an_update_holds_the_lock(fake: Fake) -> None:
    """Drift checks do not wait for the lock (`refresh --preview-only` skips it on CLI >= 3.229).

    On older CLIs the fake raises the lock error, mapped like any other (not tested: the SDK's
    file-log watcher then waits 5 s for an event log that never ends).
    """
    engine.up(fake.target)
    fake.scenario("locked")
    assert engine.refresh_preview(fake.target).changed


def test_missing_passphrase_names_both_variables(
    fake: Fake, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a passphrase the error says to set PULUMI_CONFIG_PASSPHRASE(_FILE)."""
    monkeypatch.delenv("PULUMI_CONFIG_PASSPHRASE")
    with pytest.raises(CredentialsError) as caught:
        engine.preview(fake.target)
    message = str(caught.value)
    assert "PULUMI_CONFIG_PASSPHRASE" in message and "PULUMI_CONFIG_PASSPHRASE_FILE" in message


def test_wrong_passphrase_is_reported_without_revealing_it(
    fake: Fake, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A different passphrase than the stack's raises CredentialsError; no value is echoed."""
    engine.preview(fake.target)
    monkeypatch.setenv("PULUMI_CONFIG_PASSPHRASE", "a different passphrase")
    with pytest.raises(CredentialsError, match="wrong") as caught:
        engine.preview(fake.target)
    text = f"{caught.value} {caught.value.detail}"  # type: ignore[attr-defined]
    assert "a different passphrase" not in text and "correct horse" not in text


def test_missing_cloud_credentials(fake: Fake) -> None:
    """A provider without credentials raises CredentialsError naming the cloud and the fix."""
    fake.scenario("no-credentials")
    with pytest.raises(CredentialsError, match="AWS credentials") as caught:
        engine.preview(fake.target)
    assert "aws sso login" in str(caught.value)


def test_program_error_reports_the_python_error_line(fake: Fake) -> None:
    """A program that raised gives ProgramError with its last error line, not the traceback."""
    fake.scenario("program-error")
    with pytest.raises(ProgramError) as caught:
        engine.preview(fake.target)
    message = str(caught.value)
    assert "KeyError: 'infer-l4'" in message and "__main__.py line 41" in message
    assert "Traceback" not in message and "\n" not in message


def test_missing_cli(fake: Fake, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With no pulumi on PATH the error is one line: how to install it, and that plan works."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(EngineNotInstalledError) as caught:
        engine.preview(fake.target)
    assert str(caught.value) == (
        "Pulumi CLI not found: install it (https://www.pulumi.com/docs/install/) — "
        "`gpupool plan` works without it."
    )


def test_too_old_cli(fake: Fake) -> None:
    """A CLI older than gpupool's minimum is refused before any stack command runs."""
    fake.version("3.100.0")
    with pytest.raises(EngineNotInstalledError, match=r"3\.100\.0 is too old"):
        engine.up(fake.target)
    assert fake.commands() == [("version",)]


def test_missing_program_directory(fake: Fake, tmp_path: Path) -> None:
    """A work dir without Pulumi.yaml is reported before the CLI runs."""
    target = EngineTarget(tmp_path / "nowhere", "dev", fake.target.backend_url)
    with pytest.raises(EngineError, match="No Pulumi project"):
        engine.preview(target)
    assert fake.calls() == []


# -- drift safety and import hygiene -------------------------------------------------------------


def test_refresh_preview_never_runs_a_state_writing_command(fake: Fake) -> None:
    """Drift runs only `refresh --preview-only`: no up/destroy/import, no --yes, state untouched."""
    engine.up(fake.target)
    before = fake.state_file().read_bytes()
    fake.forget_calls()

    result = engine.refresh_preview(fake.target)

    assert result.kind == "refresh-preview"
    assert result.changed
    drifted = [s for s in result.steps if s.changed]
    assert [(s.op, s.name) for s in drifted] == [("update", "pool-infer-l4")]
    assert drifted[0].detailed_diff == (("scalingConfig.desiredSize", "update"),)
    assert fake.state_file().read_bytes() == before
    for argv in fake.calls():
        assert not STATE_WRITING & set(argv[:3]), argv
        assert "--expect-no-changes" not in argv
        if "refresh" in argv:
            assert "--preview-only" in argv
            assert "--yes" not in argv and "--skip-preview" not in argv
    assert ("refresh",) in fake.commands()
    assert ("stack", "init", "dev") not in fake.commands()


def test_importing_the_engine_does_not_import_pulumi() -> None:
    """`import gpupool.engine.pulumi` leaves the pulumi SDK unimported (it is loaded lazily)."""
    code = (
        "import gpupool.engine.pulumi, gpupool.engine.results, sys; "
        "assert 'pulumi' not in sys.modules, sorted(m for m in sys.modules if 'pulumi' in m)"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert completed.returncode == 0, completed.stderr
