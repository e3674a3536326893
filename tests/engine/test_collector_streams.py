"""Engine event streams replayed through gpupool's engine path.

The streams in tests/engine/events (see its README) are gpupool's own: hand-written event logs
of runs on gpupool's resources (its stack and project names, URNs and type tokens such as
``aws:eks/nodeGroup:NodeGroup`` and ``kubernetes:helm.sh/v3:Release``), one small stream per
behaviour, in the shape the engine sends (sdk/go/common/apitype/events.go; pkg/engine/events.go
and pkg/backend/display/display.go logJSONEvent in pulumi/pulumi): a prelude and a summary,
``resourcePreEvent`` / ``resOutputsEvent`` pairs with ``detailedDiff: null``, replacement steps
in both delete-before-replace orders, policy (analyzer) events, multi-line diagnostics, failures,
protect, refresh, pending deletes and continue-on-error. Each test runs `gpupool.engine.pulumi`
(`preview`, `up`, `destroy`, `refresh_preview`) with the installed SDK; only the Automation API's
stack object is replaced, by one that hands each event to the SDK's `EngineEvent.from_json` and
the callback as the SDK's gRPC event servicer does (`_EventsServicer.StreamEvents` in
sdk/python/lib/pulumi/automation/_stack.py: an event it cannot parse is dropped with a warning),
then returns the SDK's own result type or raises its `CommandError` when the run failed.

Every stream must parse whole: SDK 3.224.0 to 3.225.1 drop each event whose `detailedDiff` is
null (pulumi/pulumi#22105), which is why pyproject.toml requires 3.226 and the lower-bounds run
replays these streams on it.

The conformance tests at the end replay Pulumi's own recorded streams (its display tests'
`pkg/backend/display/testdata/not-truncated/*.json` and its lifecycle tests'
`pkg/engine/lifecycletest/testdata/output/<Test>/<step>/eventstream.json`), kept beside the
repository in SHARED_UPSTREAM/pulumi-engine-streams/ (its SOURCES.md names each
file's commit), and check on each what the tests above check on gpupool's own: the SDK parses
every event, the run fails exactly when the recording did, and gpupool counts the changes
Pulumi's summary counts. Without that folder they skip, naming it.
"""

from __future__ import annotations

import json
import re
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
from tests.paths import SHARED_UPSTREAM, TESTS, shared_upstream

STREAMS = TESTS / "engine" / "events"
UPSTREAM_STREAMS = "pulumi-engine-streams"  # in SHARED_UPSTREAM/
RUNS: dict[str, Callable[..., EngineResult]] = {
    "preview": engine.preview,
    "up": engine.up,
    "destroy": engine.destroy,
    "refresh-preview": engine.refresh_preview,
}
STACK = "urn:pulumi:prod::inference-prod::pulumi:pulumi:Stack::inference-prod-prod"
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
PLUGIN_CONFIG = "gpu-operator/gpupool-device-plugin-config"


def read_events(path: Path) -> list[dict[str, Any]]:
    """Return the events of one stream file (one JSON object a line)."""
    text = path.read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def read_stream(name: str) -> list[dict[str, Any]]:
    """Return the events of gpupool's own ``events/<name>.json``."""
    return read_events(STREAMS / f"{name}.json")


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
    """Run one gpupool engine operation against a stream (gpupool's own, or ``events``)."""
    fake_pulumi.install(tmp_path / "bin", monkeypatch)  # answers the SDK's `pulumi version`
    program = tmp_path / "program"
    program.mkdir()
    (program / "Pulumi.yaml").write_text("name: test\nruntime: python\n")
    (tmp_path / "state").mkdir()  # destroy and refresh create none: a stack's backend exists
    target = EngineTarget(program, "test", f"file://{tmp_path / 'state'}")

    def run(kind: str, name: str, events: list[dict[str, Any]] | None = None) -> Replayed:
        stack = ReplayStack(read_stream(name) if events is None else events)
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


@pytest.mark.parametrize("name", ALL_STREAMS)
def test_the_installed_sdk_parses_every_recorded_event(name: str) -> None:
    """Every event parses (null `detailedDiff` included): the SDK floor is high enough.

    SDK 3.224.0-3.225.1 (sdk/python/lib/pulumi/automation/events.py) call
    `data.get("detailedDiff", {}).items()`, which fails on the null real CLIs send.
    """
    check_parsed(read_stream(name))


def check_parsed(events: list[dict[str, Any]]) -> None:
    """Each event parses, and each kind of event gpupool reads comes out of it."""
    for data in events:
        event = auto.EngineEvent.from_json(data)  # raises there: the events are dropped
        for key, attr in _PARSED.items():
            if key in data:
                assert getattr(event, attr) is not None, (key, data)


_PARSED = {"resourcePreEvent": "resource_pre_event", "resOutputsEvent": "res_outputs_event",
           "resOpFailedEvent": "res_op_failed_event", "diagnosticEvent": "diagnostic_event",
           "policyEvent": "policy_event", "summaryEvent": "summary_event"}


# -- create, update, delete ------------------------------------------------------------------


def test_create(replay: Callable[..., Replayed]) -> None:
    """up-create: the stack and four resources created; each started and finished once."""
    run = replay("up", "up-create")
    assert run.result is not None
    assert run.ops() == [
        ("create", "inference-prod-prod"), ("create", "infer-l4"), ("create", "infer-l40s-mps"),
        ("create", PLUGIN_CONFIG), ("create", "gpu-operator"),
    ]
    assert run.result.summary == {"create": 5}
    assert run.result.change_count == 5
    done = [e.urn.rsplit("::", 1)[-1] for e in run.events if e.kind == "resource-done"]
    assert sorted(done) == sorted(name for _, name in run.ops())  # the stack once, not twice
    assert f"create     {NODE_GROUP} infer-l4 done" in run.progress()
    assert "create     kubernetes:helm.sh/v3:Release gpu-operator done" in run.progress()


def test_update_with_a_detailed_diff(replay: Callable[..., Replayed]) -> None:
    """up-update-detailed-diff: one update, its diff keys once and its detailed diff per path."""
    run = replay("up", "up-update-detailed-diff")
    assert run.result is not None
    assert run.ops(changed_only=True) == [("update", "batch-l4-spot")]
    (step,) = [s for s in run.result.steps if s.changed]
    assert step.diffs == ("scalingConfig", "labels")  # the stream repeats scalingConfig
    assert step.detailed_diff == (
        ("labels.gpupool.io/capacity", "add"), ("scalingConfig.maxSize", "update"))
    assert run.result.change_count == 1


def test_delete_with_components(replay: Callable[..., Replayed]) -> None:
    """destroy-components: a chart's child and the chart component are deleted."""
    run = replay("destroy", "destroy-components")
    assert run.result is not None
    assert run.ops() == [("same", "inference-prod-prod"), ("delete", "gpu-operator/dcgm-exporter"),
                         ("delete", "dcgm-exporter")]
    assert run.result.change_count == 2


# -- replacements ----------------------------------------------------------------------------


def test_create_before_replace_preview_lists_the_stack_once(
    replay: Callable[..., Replayed],
) -> None:
    """preview-replace-create-first: a preview whose stack outputs event arrives twice."""
    run = replay("preview", "preview-replace-create-first")
    assert run.result is not None
    assert run.ops() == [
        ("same", "inference-prod-prod"), ("same", "gpupool-efa"),
        ("create-replacement", "infer-l4"), ("replace", "infer-l4"),
        ("delete-replaced", "infer-l4"),
    ]
    assert {s.replace_keys for s in run.result.steps if s.name == "infer-l4"} == {
        ("instanceTypes",)}
    assert run.result.change_count == 1
    (change,) = [c for c in engine_changes(run.result) if c.actions != ("no-op",)]
    assert sorted(change.actions) == ["create", "delete"]  # a replacement
    assert change.replace_paths == (("instanceTypes",),)


def test_create_before_replace_up(replay: Callable[..., Replayed]) -> None:
    """up-replace-create-first: create, replace, then delete the old node group."""
    run = replay("up", "up-replace-create-first")
    assert run.result is not None
    assert run.ops() == [("same", "aws"), ("create-replacement", "infer-l4"),
                         ("replace", "infer-l4"), ("same", "infer-l40s-mps"),
                         ("delete-replaced", "infer-l4")]
    assert run.result.change_count == 1  # one replacement, not three steps


@pytest.mark.parametrize(("kind", "name"), [
    ("preview", "preview-replace-delete-first"),
    ("up", "up-replace-delete-first"),
])
def test_delete_before_replace_keeps_its_reasons(
    replay: Callable[..., Replayed], kind: str, name: str,
) -> None:
    """Delete-before-replace: `delete-replaced` comes first, keyless.

    The placement group is replaced for its own key `strategy`; the node group in it because it
    depends on it (its `keys` are only on its `create-replacement`). Both replacements keep the
    key whatever step came first.
    """
    run = replay(kind, name)
    assert run.result is not None
    pg, ng = "train-h100-placement", "train-h100"
    assert run.ops() == [
        ("same", "aws"), ("delete-replaced", ng), ("delete-replaced", pg),
        ("replace", pg), ("create-replacement", pg), ("replace", ng),
        ("create-replacement", ng),
    ]
    assert {(s.name, s.replace_keys) for s in run.result.steps if s.changed} == {
        (pg, ("strategy",)), (ng, ("strategy",))}
    assert run.result.change_count == 2
    changes = {c.name: c for c in engine_changes(run.result)}
    assert sorted(changes[pg].actions) == sorted(changes[ng].actions) == ["create", "delete"]
    assert changes[pg].replace_paths == changes[ng].replace_paths == (("strategy",),)
    assert changes[pg].reasons == ("strategy forces replacement",)


def test_delete_before_replace_chain_counts_changes_like_pulumi(
    replay: Callable[..., Replayed],
) -> None:
    """up-replace-delete-first-chain: 12 steps, 3 replacements and 2 updates.

    The summary says replace 3, update 2; the Helm release is replaced only because the
    provider it was created with is, and carries no keys at all.
    """
    run = replay("up", "up-replace-delete-first-chain")
    assert run.result is not None
    assert len(run.result.steps) == 12
    assert run.result.change_count == 5
    keys = {s.name: s.replace_keys for s in run.result.steps if s.op == "delete-replaced"}
    assert keys == {PLUGIN_CONFIG: ("kubeconfig",), "gpu-operator": (), "k8s": ("kubeconfig",)}


# -- refresh ---------------------------------------------------------------------------------


def test_refresh_with_drift(replay: Callable[..., Replayed]) -> None:
    """refresh-preview-drift: one resource changed, one deleted outside, three unchanged.

    Each `refresh` pre-event is closed by an outputs event that carries the outcome, not always
    right after it.
    """
    run = replay("refresh-preview", "refresh-preview-drift")
    assert run.result is not None
    assert run.result.changed
    assert run.ops(changed_only=True) == [("delete", "ads/gpupool-gpus"),
                                          ("update", PLUGIN_CONFIG)]
    assert [s.detailed_diff for s in run.result.steps if s.op == "update"] == [
        (("data.infer-l4", "update"),)]
    assert run.result.change_count == 2
    assert len(run.result.steps) == 5
    messages = [item.summary for item in engine_items(run.result, "aws")]
    assert messages == [
        "kubernetes:core/v1:ResourceQuota ads/gpupool-gpus was deleted outside gpupool",
        f"kubernetes:core/v1:ConfigMap {PLUGIN_CONFIG} changed: data.infer-l4"]


# -- failures --------------------------------------------------------------------------------


def failed(run: Replayed) -> UpdateFailedError:
    assert isinstance(run.error, UpdateFailedError), run.error
    assert "\n" not in str(run.error)
    return run.error


def test_create_failed(replay: Callable[..., Replayed]) -> None:
    """up-create-failed: the only create fails; nothing applied."""
    error = failed(replay("up", "up-create-failed"))
    assert str(error) == (
        f"Update failed at {NODE_GROUP} 'infer-l4': creating EKS Node Group (ml-prod:infer-l4): "
        "InvalidRequestException: subnet-0d4e5f60718293a4b does not exist; 0 changes applied "
        "before it — fix the cause and run it again.")
    assert error.partial.steps == ()


def test_delete_of_a_protected_resource_keeps_the_whole_reason(
    replay: Callable[..., Replayed],
) -> None:
    """up-delete-protected: the three-line error, with the command that fixes it, survives."""
    run = replay("up", "up-delete-protected")
    error = failed(run)
    urn = f"urn:pulumi:prod::inference-prod::{NODE_GROUP}::train-h100"
    assert str(error) == (
        f"Update failed at {NODE_GROUP} 'train-h100': resource \"{urn}\" cannot be deleted "
        "because it is protected. Drop its protect option from the program and update, or run: "
        f"`pulumi state unprotect '{urn}'`; 0 changes applied before it — fix the cause and run "
        "it again.")
    lines = run.progress().splitlines()
    first = next(i for i, line in enumerate(lines) if "cannot be deleted" in line)
    assert lines[first].endswith(
        f"error: {NODE_GROUP} train-h100: resource \"{urn}\" cannot be deleted")
    assert lines[first + 1].startswith(" " * 14 + "because it is protected.")
    assert lines[first + 2] == " " * 14 + f"`pulumi state unprotect '{urn}'`"
    assert any(line.endswith(f"failed     {NODE_GROUP} train-h100: resource \"{urn}\" cannot be "
                             "deleted (more above)") for line in lines)


def test_pending_delete_of_a_replaced_resource(replay: Callable[..., Replayed]) -> None:
    """up-pending-delete: the new node group applied, deleting the old one failed."""
    error = failed(replay("up", "up-pending-delete"))
    assert str(error) == (
        f"Update failed at {NODE_GROUP} 'batch-l4-spot': deleting EKS Node Group "
        "(ml-prod:batch-l4-spot): ResourceInUseException: node group is in use; 1 change "
        "applied before it — fix the cause and run it again.")
    assert [(s.op, s.name) for s in error.partial.steps] == [
        ("same", "infer-l4"), ("create-replacement", "batch-l4-spot"),
        ("replace", "batch-l4-spot")]


def test_continue_on_error(replay: Callable[..., Replayed]) -> None:
    """up-continue-on-error: three node group creates fail, three namespaces apply."""
    error = failed(replay("up", "up-continue-on-error"))
    assert str(error) == (
        f"Update failed at {NODE_GROUP} 'train-h100': creating EKS Node Group "
        "(ml-prod:train-h100): InsufficientInstanceCapacity: no p5.48xlarge capacity in "
        "us-east-1a (2 more failed); 3 changes applied before it — fix the cause and run it "
        "again.")
    assert [s.name for s in error.partial.steps] == ["ads", "scoring", "search"]
    assert [urn.rsplit("::", 1)[-1] for urn, _ in error.partial.failed] == [
        "train-h100", "train-h200", "train-b200"]


def test_failed_update_without_a_diagnostic(replay: Callable[..., Replayed]) -> None:
    """up-failed-no-diagnostic: the summary counts no change and has no result.

    A `delete-replaced` completed, but Pulumi counts only logical steps (its summary: same 1).
    """
    error = failed(replay("up", "up-failed-no-diagnostic"))
    assert str(error) == (
        f"Update failed at {NODE_GROUP} 'infer-l4': the operation failed; "
        "0 changes applied before it — fix the cause and run it again.")
    assert [(s.op, s.name) for s in error.partial.steps] == [
        ("same", "inference-prod-prod"), ("delete-replaced", PLUGIN_CONFIG)]


# -- policies --------------------------------------------------------------------------------


def test_mandatory_policy_names_policy_pack_and_resource(
    replay: Callable[..., Replayed],
) -> None:
    """up-policy-mandatory: the mandatory violation is the reason."""
    run = replay("up", "up-policy-mandatory")
    error = failed(run)
    assert str(error) == (
        f"Update failed at {NODE_GROUP} 'batch-l4-spot': policy 'spot-pools-keep-on-demand' of "
        "policy pack 'gpupool-guardrails' (mandatory): a spot pool keeps on-demand nodes beside "
        "it; 0 changes applied before it — fix the cause and run it again.")
    (violation,) = error.partial.policy_violations
    assert (violation.policy, violation.pack, violation.mandatory) == (
        "spot-pools-keep-on-demand", "gpupool-guardrails", True)
    assert [line[10:] for line in run.progress().splitlines()] == [  # after "[    0.0s]"
        f"  error: {NODE_GROUP} batch-l4-spot: policy 'spot-pools-keep-on-demand' of policy pack "
        "'gpupool-guardrails' (mandatory): a spot pool keeps on-demand nodes beside it"]


def test_advisory_and_mandatory_policies_in_a_preview(replay: Callable[..., Replayed]) -> None:
    """preview-policy-violations: two warnings, three errors."""
    run = replay("preview", "preview-policy-violations")
    assert type(run.error) is EngineError
    assert str(run.error) == (
        f"Pulumi preview failed at {NODE_GROUP} 'infer-l4': policy 'max-nodes-within-budget' of "
        "policy pack 'gpupool-guardrails' v1.0.0 (mandatory): at most 6 nodes in a pool (and 2 "
        "more mandatory policies)")
    policy = [e for e in run.events if e.kind == "policy"]
    assert [e.severity for e in policy] == ["warning"] * 2 + ["error"] * 3
    assert f"warning: {NODE_GROUP} infer-l4: policy 'pool-label-set' of policy pack " \
        "'gpupool-guardrails' v1.0.0 (advisory): nodes carry gpupool.io/pool" in run.progress()


def test_advisory_policies_warn_and_the_update_succeeds(replay: Callable[..., Replayed]) -> None:
    """up-policy-advisory: two advisory violations; the node group is created."""
    run = replay("up", "up-policy-advisory")
    assert run.result is not None
    assert run.ops() == [("create", "infer-l4")]
    assert [(v.urn.rsplit("::", 1)[-1], v.enforcement) for v in run.result.policy_violations] == [
        ("default", "advisory"), ("infer-l4", "advisory")]
    assert run.result.failed == ()
    assert "warning: pulumi:providers:aws default: policy 'unknowns' of policy pack " \
        "'gpupool-guardrails' v1.0.0 (advisory): could not check: values unknown until apply" \
        in run.progress()


# -- components ------------------------------------------------------------------------------


def test_components_reach_the_step_list_of_up(replay: Callable[..., Replayed]) -> None:
    """up-component: the engine sends no outputs event for the chart component; both count."""
    run = replay("up", "up-component")
    assert run.result is not None
    assert run.ops() == [("create", "dcgm-exporter"), ("create", "gpu-operator/dcgm-exporter")]
    assert run.result.change_count == 2
    assert "create     kubernetes:helm.sh/v4:Chart dcgm-exporter done" in run.progress()


def test_component_outputs_twice_in_a_preview_are_one_step(
    replay: Callable[..., Replayed],
) -> None:
    """preview-component-outputs-twice: two outputs events, one planned step."""
    run = replay("preview", "preview-component-outputs-twice")
    assert run.result is not None
    assert run.ops() == [("create", "dcgm-exporter")]
    assert sum(1 for e in run.events if e.kind == "resource-done") == 1


# -- conformance: Pulumi's own recorded streams (SHARED_UPSTREAM) ----------------------------


def _upstream_names() -> list[str]:
    """The recorded streams in the shared folder, or the folder's name when it is absent."""
    folder = SHARED_UPSTREAM / UPSTREAM_STREAMS
    return sorted(p.name for p in folder.glob("*.json")) or [UPSTREAM_STREAMS]


def _kind(events: list[dict[str, Any]]) -> str:
    """The gpupool operation a recording is a run of, read from its events."""
    ops = [e["resourcePreEvent"]["metadata"]["op"] for e in events if "resourcePreEvent" in e]
    summary = next((e["summaryEvent"] for e in events if "summaryEvent" in e), {})
    if "refresh" in ops:
        return "refresh-preview"
    if summary.get("isPreview") or any(e.get("resourcePreEvent", {}).get("planning")
                                        for e in events):
        return "preview"
    if "delete" in ops and set(ops) <= {"delete", "same"}:
        return "destroy"
    return "up"


def _pulumi_count(events: list[dict[str, Any]]) -> int:
    """The changes Pulumi's own summary counts (every logical step that is not `same`)."""
    summary = next(e["summaryEvent"] for e in events if "summaryEvent" in e)
    return sum(n for op, n in (summary.get("resourceChanges") or {}).items() if op != "same")


def _expected_steps(events: list[dict[str, Any]], kind: str) -> list[tuple[str, str]]:
    """The (op, URN) steps a recording shows: one per pre-event, or per outcome of a refresh."""
    key = "resOutputsEvent" if kind == "refresh-preview" else "resourcePreEvent"
    return [(e[key]["metadata"]["op"], e[key]["metadata"]["urn"]) for e in events if key in e]


@pytest.mark.parametrize("name", _upstream_names())
def test_upstream_stream_conforms(replay: Callable[..., Replayed], name: str) -> None:
    """Pulumi's recorded stream (pulumi/pulumi display and lifecycle test data; the shared
    folder's SOURCES.md names each): the installed SDK parses every event, gpupool fails
    exactly when the recording did, each step the engine sent is one step of gpupool's, and
    gpupool counts the changes Pulumi's summary counts."""
    if name == UPSTREAM_STREAMS:  # no stream found: skip naming the folder, or fail if it is there
        pytest.fail(f"no recorded stream in {shared_upstream(UPSTREAM_STREAMS)}")
    path = shared_upstream(f"{UPSTREAM_STREAMS}/{name}")
    events = read_events(path)
    check_parsed(events)
    kind = _kind(events)
    run = replay(kind, name, events)
    count = _pulumi_count(events)
    if recorded_failure(events):
        assert run.error is not None, f"{name} failed, gpupool did not"
        assert "\n" not in str(run.error)
        if kind in ("up", "destroy"):
            error = failed(run)
            applied = re.search(r"; (\d+) changes? applied before it", str(error))
            assert applied is not None and int(applied.group(1)) == count, str(error)
            sent = {urn for _, urn in _expected_steps(events, kind)}
            assert {s.urn for s in error.partial.steps} <= sent
        return
    assert run.error is None, run.error
    assert run.result is not None
    assert run.result.change_count == count
    assert [(s.op, s.urn) for s in run.result.steps] == _expected_steps(events, kind)
    done = {e.urn for e in run.events if e.kind == "resource-done"}
    assert done <= {s.urn for s in run.result.steps}
