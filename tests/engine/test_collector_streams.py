"""Pulumi's own recorded engine event streams, replayed through gpupool's engine path.

The streams in tests/engine/streams (sources in its SOURCES.md) are real: event logs of `pulumi`
CLI runs from pulumi/pulumi's `pkg/backend/display/testdata/not-truncated/`, and the engine's
stream for steps of its lifecycle tests, `pkg/engine/lifecycletest/testdata/output/<Test>/<step>/
eventstream.json`. Each test runs `gpupool.engine.pulumi` (`preview`, `up`, `destroy`,
`refresh_preview`) with the installed SDK; only the Automation API's stack object is replaced,
by one that hands each recorded event to the SDK's `EngineEvent.from_json` and the callback as the
SDK's gRPC event servicer does (`_EventsServicer.StreamEvents` in
sdk/python/lib/pulumi/automation/_stack.py: an event it cannot parse is dropped with a warning),
then returns the SDK's own result type or raises its `CommandError` when the recording failed.

Every stream must parse whole: SDK 3.224.0 to 3.225.1 drop each event whose `detailedDiff` is
null (pulumi/pulumi#22105), which is why pyproject.toml requires 3.226 and the lower-bounds run
replays these streams on it.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from pulumi import automation as auto

from gpupool.drift.run import engine_items
from gpupool.engine import pulumi as engine
from gpupool.engine.results import EngineResult, EngineTarget, ProgressEvent, UpdateFailedError
from gpupool.errors import EngineError
from gpupool.usecases.engine import engine_changes
from gpupool.views.engine import progress_line
from tests import fake_pulumi
from tests.paths import TESTS

STREAMS = TESTS / "engine" / "streams"
RUNS: dict[str, Callable[..., EngineResult]] = {
    "preview": engine.preview,
    "up": engine.up,
    "destroy": engine.destroy,
    "refresh-preview": engine.refresh_preview,
}


def read_stream(name: str) -> list[dict[str, Any]]:
    """Return the recorded events of ``streams/<name>.json`` (one JSON object a line)."""
    text = (STREAMS / f"{name}.json").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def recorded_failure(events: list[dict[str, Any]]) -> bool:
    """Whether the recorded run failed: its summary says so, or a step failed."""
    summary = next((e["summaryEvent"] for e in events if "summaryEvent" in e), {})
    return summary.get("result") == "failed" or any("resOpFailedEvent" in e for e in events)


class ReplayStack:
    """The Automation API's ``Stack`` for one recorded operation (the library boundary).

    ``preview``, ``up``, ``destroy`` and ``preview_refresh`` take ``on_event`` like the SDK's,
    stream the recording through ``auto.EngineEvent.from_json`` and return the SDK's result
    types; ``dropped`` counts the events the installed SDK could not parse.
    """

    def __init__(self, events: list[dict[str, Any]]) -> None:
        self.events = events
        self.failed = recorded_failure(events)
        self.dropped = 0

    def _stream(self, on_event: Callable[[Any], None] | None) -> dict[str, int]:
        summary: dict[str, int] | None = None
        for data in self.events:
            try:
                event = auto.EngineEvent.from_json(data)
            except Exception as exc:  # as the SDK's servicer: warn and go on
                self.dropped += 1
                warnings.warn(f"Failed to parse engine event\n{exc}", stacklevel=2)
                continue
            if event.summary_event is not None:
                summary = dict(event.summary_event.resource_changes or {})
            if on_event is not None:
                on_event(event)
        if self.failed:
            raise auto.CommandError(auto.CommandResult(stdout="", stderr="", code=255))
        if summary is None:
            raise RuntimeError("summary event never found")
        return summary

    def _summary(self, kind: str, changes: dict[str, int]) -> auto.UpdateSummary:
        now = datetime.now(timezone.utc)
        return auto.UpdateSummary(kind=kind, start_time=now, message="", environment={},
                                  config={}, result="succeeded", end_time=now,
                                  resource_changes=changes)

    def preview(self, on_event: Callable[[Any], None] | None = None,
                **_: Any) -> auto.PreviewResult:
        return auto.PreviewResult("", "", self._stream(on_event))

    def preview_refresh(self, on_event: Callable[[Any], None] | None = None,
                        **_: Any) -> auto.PreviewResult:
        return auto.PreviewResult("", "", self._stream(on_event))

    def up(self, on_event: Callable[[Any], None] | None = None, **_: Any) -> auto.UpResult:
        return auto.UpResult("", "", self._summary("update", self._stream(on_event)), {})

    def destroy(self, on_event: Callable[[Any], None] | None = None,
                **_: Any) -> auto.DestroyResult:
        return auto.DestroyResult("", "", self._summary("destroy", self._stream(on_event)))


@dataclass
class Replayed:
    """One replay: what gpupool returned or raised, its progress events and the stack."""

    result: EngineResult | None
    error: EngineError | None
    events: list[ProgressEvent]
    stack: ReplayStack

    def progress(self) -> str:
        """Return the progress lines gpupool prints on stderr for this run.

        Each line starts with the elapsed time, ``[    0.0s]`` (ten characters).
        """
        return "".join(line for e in self.events if (line := progress_line(e)) is not None)

    def ops(self, *, changed_only: bool = False) -> list[tuple[str, str]]:
        assert self.result is not None
        return [(s.op, s.name) for s in self.result.steps if s.changed or not changed_only]


@pytest.fixture
def replay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., Replayed]]:
    """Run one gpupool engine operation against a recorded stream."""
    fake_pulumi.install(tmp_path / "bin", monkeypatch)  # answers the SDK's `pulumi version`
    program = tmp_path / "program"
    program.mkdir()
    (program / "Pulumi.yaml").write_text("name: test\nruntime: python\n")
    (tmp_path / "state").mkdir()  # destroy and refresh create none: a stack's backend exists
    target = EngineTarget(program, "test", f"file://{tmp_path / 'state'}")

    def run(kind: str, name: str) -> Replayed:
        stack = ReplayStack(read_stream(name))
        monkeypatch.setattr(auto, "create_or_select_stack", lambda *a, **k: stack)
        monkeypatch.setattr(auto, "select_stack", lambda *a, **k: stack)
        events: list[ProgressEvent] = []
        try:
            result, error = RUNS[kind](target, events.append), None
        except EngineError as exc:
            result, error = None, exc
        assert stack.dropped == 0, f"the installed SDK dropped {stack.dropped} events of {name}"
        return Replayed(result, error, events, stack)

    yield run


ALL_STREAMS = sorted(p.stem for p in STREAMS.glob("*.json"))


def test_every_stream_is_listed_in_sources() -> None:
    """Each saved stream has its row (upstream path, commit, blob) in SOURCES.md."""
    sources = (STREAMS / "SOURCES.md").read_text(encoding="utf-8")
    assert ALL_STREAMS
    for name in ALL_STREAMS:
        assert f"| {name}.json |" in sources, name


@pytest.mark.parametrize("name", ALL_STREAMS)
def test_the_installed_sdk_parses_every_recorded_event(name: str) -> None:
    """Every event parses (null `detailedDiff` included): the SDK floor is high enough.

    SDK 3.224.0-3.225.1 (sdk/python/lib/pulumi/automation/events.py) call
    `data.get("detailedDiff", {}).items()`, which fails on the null real CLIs send.
    """
    for data in read_stream(name):
        event = auto.EngineEvent.from_json(data)  # raises there: the events are dropped
        for key, attr in _PARSED.items():
            if key in data:
                assert getattr(event, attr) is not None, (key, data)


_PARSED = {"resourcePreEvent": "resource_pre_event", "resOutputsEvent": "res_outputs_event",
           "resOpFailedEvent": "res_op_failed_event", "diagnosticEvent": "diagnostic_event",
           "policyEvent": "policy_event", "summaryEvent": "summary_event"}


# -- create, update, delete ------------------------------------------------------------------


def test_create(replay: Callable[..., Replayed]) -> None:
    """display/up-3.json: `up` creates six resources; each started and finished."""
    run = replay("up", "display-up-3")
    assert run.result is not None
    assert run.ops() == [
        ("create", "eks-dev"), ("create", "eks-role"), ("create", "eks-sg"),
        ("create", "eks-rpa-service-policy"), ("create", "eks-rpa-cluster-policy"),
        ("create", "eks-cluster"),
    ]
    assert run.result.summary == {"create": 6}
    assert run.result.change_count == 6
    done = [e.urn.rsplit("::", 1)[-1] for e in run.events if e.kind == "resource-done"]
    assert sorted(done) == sorted(name for _, name in run.ops())  # the stack once, not twice
    assert "create     aws:eks/cluster:Cluster eks-cluster done" in run.progress()


def test_update_with_a_detailed_diff(replay: Callable[..., Replayed]) -> None:
    """display/up-4.json: one update, its diff keys once and its detailed diff per path."""
    run = replay("up", "display-up-4")
    assert run.result is not None
    assert run.ops(changed_only=True) == [("update", "eks-sg")]
    (step,) = [s for s in run.result.steps if s.changed]
    assert step.diffs == ("ingress",)  # the recording repeats it five times
    assert step.detailed_diff == (
        ("ingress[1].cidrBlocks[0]", "add"), ("ingress[1].fromPort", "add"),
        ("ingress[1].protocol", "add"), ("ingress[1].self", "add"), ("ingress[1].toPort", "add"),
    )
    assert run.result.change_count == 1


def test_delete_with_components(replay: Callable[..., Replayed]) -> None:
    """display/destroy-with-components.json: a child and its component are deleted."""
    run = replay("destroy", "display-destroy-with-components")
    assert run.result is not None
    assert run.ops() == [("same", "myproject-dev"), ("delete", "mychild"),
                         ("delete", "mycomponent")]
    assert run.result.change_count == 2


# -- replacements ----------------------------------------------------------------------------


def test_create_before_replace_preview_lists_the_stack_once(
    replay: Callable[..., Replayed],
) -> None:
    """display/webserver-userdata.json: a preview whose stack outputs event arrives twice."""
    run = replay("preview", "display-webserver-userdata")
    assert run.result is not None
    assert run.ops() == [
        ("same", "aws-ts-webserver-dev"), ("same", "web-secgrp"),
        ("create-replacement", "web-server-www"), ("replace", "web-server-www"),
        ("delete-replaced", "web-server-www"),
    ]
    assert {s.replace_keys for s in run.result.steps if s.name == "web-server-www"} == {
        ("userData",)}
    assert run.result.change_count == 1
    (change,) = [c for c in engine_changes(run.result) if c.actions != ("no-op",)]
    assert sorted(change.actions) == ["create", "delete"]  # a replacement
    assert change.replace_paths == (("userData",),)


def test_create_before_replace_up(replay: Callable[..., Replayed]) -> None:
    """lifecycle TestExplicitDeleteBeforeReplace/-0-1: create, replace, then delete the old one."""
    run = replay("up", "lifecycle-TestExplicitDeleteBeforeReplace--0-1")
    assert run.result is not None
    assert run.ops() == [("same", "provA"), ("create-replacement", "resA"), ("replace", "resA"),
                         ("same", "resB"), ("delete-replaced", "resA")]
    assert run.result.change_count == 1  # one replacement, not three steps


@pytest.mark.parametrize(("kind", "name"), [
    ("preview", "lifecycle-TestExplicitDeleteBeforeReplace--0-2-preview"),
    ("up", "lifecycle-TestExplicitDeleteBeforeReplace--0-2"),
])
def test_delete_before_replace_keeps_its_reasons(
    replay: Callable[..., Replayed], kind: str, name: str,
) -> None:
    """lifecycle TestExplicitDeleteBeforeReplace/-0-2: `delete-replaced` comes first, keyless.

    resA is replaced for its own key `A`; resB because it depends on resA (its `keys` are only
    on its `create-replacement`). Both replacements keep the key whatever step came first.
    """
    run = replay(kind, name)
    assert run.result is not None
    assert run.ops() == [
        ("same", "provA"), ("delete-replaced", "resB"), ("delete-replaced", "resA"),
        ("replace", "resA"), ("create-replacement", "resA"), ("replace", "resB"),
        ("create-replacement", "resB"),
    ]
    assert {(s.name, s.replace_keys) for s in run.result.steps if s.changed} == {
        ("resA", ("A",)), ("resB", ("A",))}
    assert run.result.change_count == 2
    changes = {c.name: c for c in engine_changes(run.result)}
    assert sorted(changes["resA"].actions) == sorted(changes["resB"].actions) == [
        "create", "delete"]
    assert changes["resA"].replace_paths == changes["resB"].replace_paths == (("A",),)
    assert changes["resA"].reasons == ("A forces replacement",)


def test_delete_before_replace_chain_counts_changes_like_pulumi(
    replay: Callable[..., Replayed],
) -> None:
    """lifecycle TestDeleteBeforeReplace/-0-0: 24 steps, 6 replacements and 5 updates.

    Pulumi's summary says replace 6, update 5; B and E are replaced only because what they
    depend on is, and carry no keys at all.
    """
    run = replay("up", "lifecycle-TestDeleteBeforeReplace--0-0")
    assert run.result is not None
    assert len(run.result.steps) == 24
    assert run.result.change_count == 11
    keys = {s.name: s.replace_keys for s in run.result.steps if s.op == "delete-replaced"}
    assert keys == {"K": ("A",), "F": ("A",), "E": (), "C": ("A",), "B": (), "A": ("A",)}


# -- refresh ---------------------------------------------------------------------------------


def test_refresh_with_drift(replay: Callable[..., Replayed]) -> None:
    """lifecycle TestRefreshBasics/all-0-0-preview: one resource changed, two deleted outside.

    Pulumi's own output says "3 changes. 3 unchanged".
    """
    run = replay("refresh-preview", "lifecycle-TestRefreshBasics-all-0-0-preview")
    assert run.result is not None
    assert run.result.changed
    assert run.ops(changed_only=True) == [("delete", "resC"), ("delete", "resC"),
                                          ("update", "resA")]
    assert [s.detailed_diff for s in run.result.steps if s.op == "update"] == [
        (("oof", "add"),)]
    assert run.result.change_count == 3
    assert len(run.result.steps) == 6
    messages = [item.summary for item in engine_items(run.result, "aws")]
    assert messages == ["pkgA:m:typA resC was deleted outside gpupool"] * 2 + [
        "pkgA:m:typA resA changed: oof"]


# -- failures --------------------------------------------------------------------------------


def failed(run: Replayed) -> UpdateFailedError:
    assert isinstance(run.error, UpdateFailedError), run.error
    assert "\n" not in str(run.error)
    return run.error


def test_create_failed(replay: Callable[..., Replayed]) -> None:
    """lifecycle TestResourceError/0: the only create fails; nothing applied."""
    error = failed(replay("up", "lifecycle-TestResourceError-0"))
    assert str(error) == ("Update failed at pkgA:m:typA 'resA': create failed intentionally; "
                          "0 changes applied before it — fix the cause and run it again.")
    assert error.partial.steps == ()


def test_delete_of_a_protected_resource_keeps_the_whole_reason(
    replay: Callable[..., Replayed],
) -> None:
    """lifecycle TestProtect/3: the three-line error, with the command that fixes it, survives."""
    run = replay("up", "lifecycle-TestProtect-3")
    error = failed(run)
    urn = "urn:pulumi:test::test::pkgA:m:typA::resA"
    assert str(error) == (
        f"Update failed at pkgA:m:typA 'resA': resource \"{urn}\" cannot be deleted because it "
        "is protected. To unprotect the resource, either remove the `protect` flag from the "
        "resource in your Pulumi program and run `pulumi up`, or use the command: "
        f"`pulumi state unprotect '{urn}'`; 0 changes applied before it — fix the cause and run "
        "it again.")
    lines = run.progress().splitlines()
    first = next(i for i, line in enumerate(lines) if "cannot be deleted" in line)
    assert lines[first].endswith(f"error: pkgA:m:typA resA: resource \"{urn}\" cannot be deleted")
    assert lines[first + 1].startswith(" " * 14 + "because it is protected.")
    assert lines[first + 2] == " " * 14 + f"`pulumi state unprotect '{urn}'`"
    assert any(line.endswith(f"failed     pkgA:m:typA resA: resource \"{urn}\" cannot be "
                             "deleted (more above)") for line in lines)


def test_pending_delete_of_a_replaced_resource(replay: Callable[..., Replayed]) -> None:
    """lifecycle TestPendingDeleteReplacement/1: the new resB applied, deleting the old failed."""
    error = failed(replay("up", "lifecycle-TestPendingDeleteReplacement-1"))
    assert str(error) == ("Update failed at pkgA:m:typB 'resB': Could not delete typB; 1 change "
                          "applied before it — fix the cause and run it again.")
    assert [(s.op, s.name) for s in error.partial.steps] == [
        ("same", "resA"), ("create-replacement", "resB"), ("replace", "resB")]


def test_continue_on_error(replay: Callable[..., Replayed]) -> None:
    """lifecycle TestUpContinueOnErrorCreate: three creates fail, three apply."""
    error = failed(replay("up", "lifecycle-TestUpContinueOnErrorCreate"))
    assert str(error) == (
        "Update failed at pkgB:m:typB 'failing': intentionally failed create (2 more failed); "
        "3 changes applied before it — fix the cause and run it again.")
    assert [s.name for s in error.partial.steps] == [
        "independent1", "independent2", "independent3"]
    assert [urn.rsplit("::", 1)[-1] for urn, _ in error.partial.failed] == [
        "failing", "failing2", "failing3"]


def test_failed_update_without_a_diagnostic(replay: Callable[..., Replayed]) -> None:
    """display/failed-stacks-dont-rewrite-operations.json: the summary counts no change.

    A `delete-replaced` completed, but Pulumi counts only logical steps (its summary: same 1).
    """
    error = failed(replay("up", "display-failed-stacks-dont-rewrite-operations"))
    assert str(error) == (
        "Update failed at pulumi-python:dynamic:Resource 'test-x': the operation failed; "
        "0 changes applied before it — fix the cause and run it again.")
    assert [(s.op, s.name) for s in error.partial.steps] == [
        ("same", "test-dev"), ("delete-replaced", "test-r")]


# -- policies --------------------------------------------------------------------------------


def test_mandatory_policy_names_policy_pack_and_resource(
    replay: Callable[..., Replayed],
) -> None:
    """lifecycle TestSimpleAnalyzeResourceFailure: the mandatory violation is the reason."""
    run = replay("up", "lifecycle-TestSimpleAnalyzeResourceFailure")
    error = failed(run)
    assert str(error) == (
        "Update failed at pkgA:m:typA 'resA': policy 'always-fails' of policy pack 'analyzerA' "
        "(mandatory): a policy failed; 0 changes applied before it — fix the cause and run it "
        "again.")
    (violation,) = error.partial.policy_violations
    assert (violation.policy, violation.pack, violation.mandatory) == (
        "always-fails", "analyzerA", True)
    assert [line[10:] for line in run.progress().splitlines()] == [  # after "[    0.0s]"
        "  error: pkgA:m:typA resA: policy 'always-fails' of policy pack 'analyzerA' "
        "(mandatory): a policy failed"]


def test_advisory_and_mandatory_policies_in_a_preview(replay: Callable[..., Replayed]) -> None:
    """lifecycle TestSimpleAnalyzeResourceMultipleViolations: five warnings, five errors."""
    run = replay("preview", "lifecycle-TestSimpleAnalyzeResourceMultipleViolations")
    assert type(run.error) is EngineError
    assert str(run.error) == (
        "Pulumi preview failed at pkgA:m:typA 'resA': policy 'always-fails-unspecified' of "
        "policy pack 'analyzerA' v1.0.0 (mandatory): a policy failed (and 4 more mandatory "
        "policies)")
    policy = [e for e in run.events if e.kind == "policy"]
    assert [e.severity for e in policy] == ["warning"] * 5 + ["error"] * 5
    assert "warning: pkgA:m:typA resA: policy 'always-fails-advisory-high' of policy pack " \
        "'analyzerA' v1.0.0 (advisory): a policy failed" in run.progress()


def test_advisory_policies_warn_and_the_update_succeeds(replay: Callable[..., Replayed]) -> None:
    """lifecycle TestRemediationDiagnostic: two advisory violations; resA is created."""
    run = replay("up", "lifecycle-TestRemediationDiagnostic")
    assert run.result is not None
    assert run.ops() == [("create", "resA")]
    assert [(v.urn.rsplit("::", 1)[-1], v.enforcement) for v in run.result.policy_violations] == [
        ("default", "advisory"), ("resA", "advisory")]
    assert run.result.failed == ()
    assert "warning: pulumi:providers:pkgA default: policy 'warning' of policy pack " \
        "'analyzerA' v1.0.0 (advisory): warning - could not run due to unknowns" in run.progress()


# -- components ------------------------------------------------------------------------------


def test_components_reach_the_step_list_of_up(replay: Callable[..., Replayed]) -> None:
    """lifecycle TestDestroyWithProgramWithComponents/0: the engine sends no outputs event for
    the component; Pulumi's output says "2 created", and so does gpupool."""
    run = replay("up", "lifecycle-TestDestroyWithProgramWithComponents-0")
    assert run.result is not None
    assert run.ops() == [("create", "parent"), ("create", "resA")]
    assert run.result.change_count == 2
    assert "create     my_component parent done" in run.progress()


def test_component_outputs_twice_in_a_preview_are_one_step(
    replay: Callable[..., Replayed],
) -> None:
    """lifecycle TestComponentOutputs/-0-0-preview: two outputs events, one planned step."""
    run = replay("preview", "lifecycle-TestComponentOutputs--0-0-preview")
    assert run.result is not None
    assert run.ops() == [("create", "resA")]
    assert sum(1 for e in run.events if e.kind == "resource-done") == 1
