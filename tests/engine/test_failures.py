"""Unit tests for the engine's event collector and failure classification (no CLI involved)."""

from __future__ import annotations

import pickle
from typing import Any

import pytest
from pulumi.automation import EngineEvent

from gpupool.engine.collector import EventCollector, clean_message
from gpupool.engine.failures import (
    CommandOutput,
    classify,
    one_line,
    parse_command_error,
)
from gpupool.engine.results import EngineResult, ResourceStep, UpdateFailedError
from gpupool.errors import CredentialsError, EngineError, ProgramError, StackLockedError
from gpupool.secrets import scrub

URN = "urn:pulumi:dev::proj::"
NG = URN + "aws:eks/nodeGroup:NodeGroup::pool-a"
CM = URN + "kubernetes:core/v1:ConfigMap::cfg"
STACK = URN + "pulumi:pulumi:Stack::proj-dev"


def meta(op: str, urn: str, **extra: Any) -> dict[str, Any]:
    return {"op": op, "urn": urn, "type": urn.split("::")[-2], "provider": "", **extra}


def feed(collector: EventCollector, *events: dict[str, Any]) -> EventCollector:
    for n, event in enumerate(events):
        collector.handle(EngineEvent.from_json({"sequence": n, "timestamp": 0, **event}))
    return collector


def diag(message: str, urn: str = "", severity: str = "error") -> dict[str, Any]:
    return {"diagnosticEvent": {"message": message, "color": "raw", "severity": severity,
                                "urn": urn}}


def out(stderr: str = "", stdout: str = "") -> CommandOutput:
    return CommandOutput(255, stdout, stderr)


# -- collector -----------------------------------------------------------------------------------


def test_refresh_steps_take_the_outcome_op_and_diff() -> None:
    """A refresh pre-event says `refresh`; the outputs event's op and diff replace it."""
    collector = feed(
        EventCollector("refresh-preview"),
        {"resourcePreEvent": {"metadata": meta("refresh", NG), "planning": True}},
        {"resOutputsEvent": {"metadata": meta(
            "update", NG, diffs=["scalingConfig"],
            detailedDiff={"scalingConfig.desiredSize": {"diffKind": "update"}}),
            "planning": True}},
        {"summaryEvent": {"resourceChanges": {"update": 1}}},
    )
    (step,) = collector.result().steps
    assert (step.op, step.diffs, step.detailed_diff) == (
        "update", ("scalingConfig",), (("scalingConfig.desiredSize", "update"),))
    assert collector.result().changed


def test_up_lists_only_completed_steps_and_records_failures() -> None:
    """For up, a started-but-failed step is not 'applied'; its diagnostic becomes the reason."""
    collector = feed(
        EventCollector("up"),
        {"resourcePreEvent": {"metadata": meta("update", CM)}},
        {"resOutputsEvent": {"metadata": meta("update", CM)}},
        {"resourcePreEvent": {"metadata": meta("create", NG)}},
        diag("<{%reset%}>creating node group: AccessDenied<{%reset%}>\n", NG),
        {"resOpFailedEvent": {"metadata": meta("create", NG), "status": 1, "steps": 0}},
    )
    result = collector.result()
    assert [(s.op, s.name) for s in result.steps] == [("update", "cfg")]
    assert result.failed == ((NG, "creating node group: AccessDenied"),)
    assert collector.applied_changes() == 1


def test_summary_without_event_falls_back_and_changed_ignores_reads() -> None:
    """The SDK's summary is used when no summary event came; same/read are not changes."""
    result = EventCollector("preview").result(fallback_summary={"same": 2, "read": 1})
    assert result.summary == {"same": 2, "read": 1}
    assert not result.changed
    steps = (ResourceStep(NG, "t", "pool-a", "same"),)
    assert not EngineResult("preview", steps, {}).changed


def test_debug_and_empty_diagnostics_are_dropped() -> None:
    """Debug and blank diagnostics never reach the progress callback."""
    seen: list[str] = []
    feed(EventCollector("preview", lambda e: seen.append(e.message)),
         diag("noise", severity="debug"), diag("   "), diag("careful", severity="warning"))
    assert seen == ["careful"]


def test_clean_message_strips_colour_tags() -> None:
    """Pulumi's `<{%fg 1%}>` tags are removed."""
    assert clean_message("<{%fg 1%}>error: <{%reset%}>boom<{%reset%}>\n") == "error: boom"


# -- classification ------------------------------------------------------------------------------


def test_parse_command_error_splits_the_sdk_text() -> None:
    """The SDK's CommandError text is split into exit code, stdout and stderr."""
    text = "\n code: 255\n stdout: line one\nline two\n stderr: error: bad"
    assert parse_command_error(text) == CommandOutput(255, "line one\nline two", "error: bad")
    assert parse_command_error("weird").stderr == "weird"


def test_lock_without_owner_details() -> None:
    """The Pulumi Cloud 409 conflict is a locked stack too."""
    error = classify("up", "dev", out("error: [409] Conflict: Another update is currently in "
                                      "progress."), EventCollector("up"))
    assert isinstance(error, StackLockedError)
    assert "locked by another update:" in str(error)


@pytest.mark.parametrize("stderr", [
    "error: constructing secrets manager of type \"passphrase\": unable to find either "
    "`PULUMI_CONFIG_PASSPHRASE` or `PULUMI_CONFIG_PASSPHRASE_FILE` when trying to access the "
    "Passphrase Secrets Provider",
    "error: getting secrets manager: passphrase must be set with PULUMI_CONFIG_PASSPHRASE or "
    "PULUMI_CONFIG_PASSPHRASE_FILE environment variables",
])
def test_passphrase_messages_old_and_new(stderr: str) -> None:
    """Both wordings of the missing-passphrase error map to CredentialsError."""
    error = classify("preview", "dev", out(stderr), EventCollector("preview"))
    assert isinstance(error, CredentialsError)
    assert "PULUMI_CONFIG_PASSPHRASE_FILE" in str(error)


@pytest.mark.parametrize(("message", "cloud"), [
    ("google: could not find default credentials. See https://cloud.google.com/docs/"
     "authentication/external/set-up-adc for more information", "Google Cloud"),
    ("building account: could not acquire access token to parse claims: running Azure CLI: "
     "exit status 1: ERROR: Please run 'az login' to setup account.", "Azure"),
    ("unable to validate AWS credentials. Details: No valid credential sources found.", "AWS"),
    ("unable to load kubeconfig: invalid configuration: no configuration has been provided",
     "Kubernetes"),
])
def test_cloud_credential_messages(message: str, cloud: str) -> None:
    """Typical provider messages for missing credentials name the cloud."""
    events = feed(EventCollector("preview"), diag(message, URN + "pulumi:providers:x::p"))
    error = classify("preview", "dev", out(), events)
    assert isinstance(error, CredentialsError)
    assert str(error).startswith(f"{cloud} credentials are missing")


def test_missing_provider_sdk_names_the_extra() -> None:
    """A program missing pulumi_aws is told to install gpupool[aws]."""
    stdout = ("    error: Program failed with an unhandled exception:\n    Traceback (most recent"
              " call last):\n      File \"/b/__main__.py\", line 3, in <module>\n        import "
              "pulumi_aws\n    ModuleNotFoundError: No module named 'pulumi_aws'\n")
    error = classify("preview", "dev", out(stdout=stdout), EventCollector("preview"))
    assert isinstance(error, ProgramError)
    assert "pip install 'gpupool[aws]'" in str(error)


def test_resource_failure_in_preview_is_a_plain_engine_error() -> None:
    """A provider rejecting an input during preview names the resource."""
    events = feed(EventCollector("preview"),
                  {"resourcePreEvent": {"metadata": meta("create", NG), "planning": True}},
                  diag("error: minSize must be <= maxSize", NG))
    error = classify("preview", "dev", out(), events)
    assert type(error) is EngineError
    assert str(error) == ("Pulumi preview failed at aws:eks/nodeGroup:NodeGroup 'pool-a': "
                          "minSize must be <= maxSize")


def test_failure_before_anything_applied_is_still_update_failed() -> None:
    """A resource failing first in up still raises UpdateFailedError (nothing applied)."""
    events = feed(EventCollector("up"),
                  {"resourcePreEvent": {"metadata": meta("create", NG)}},
                  diag("quota exceeded", NG),
                  {"resOpFailedEvent": {"metadata": meta("create", NG), "status": 1,
                                        "steps": 0}})
    error = classify("up", "dev", out(), events)
    assert isinstance(error, UpdateFailedError)
    assert "0 changes applied" in str(error)
    assert error.partial.steps == ()
    clone = pickle.loads(pickle.dumps(error))
    assert str(clone) == str(error) and clone.partial == error.partial


def test_generic_error_uses_the_last_error_line() -> None:
    """Anything unrecognised becomes EngineError with the last `error:` line of stderr."""
    stderr = "warning: something odd\nerror: could not load plugin for aws provider"
    error = classify("up", "dev", out(stderr), EventCollector("up"))
    assert type(error) is EngineError
    assert str(error) == "Pulumi update failed: could not load plugin for aws provider"
    assert "warning: something odd" in error.detail  # type: ignore[attr-defined]


def test_program_error_from_the_stack_root_is_not_an_update_failure() -> None:
    """A traceback reported on the Stack resource is a ProgramError even during up."""
    events = feed(EventCollector("up"), diag(
        "Program failed with an unhandled exception:\nTraceback (most recent call last):\n"
        "  File \"/b/__main__.py\", line 9, in <module>\nValueError: bad pool", STACK))
    error = classify("up", "dev", out(), events)
    assert isinstance(error, ProgramError)
    assert "ValueError: bad pool at __main__.py line 9" in str(error)


def test_secret_values_are_scrubbed_from_message_and_detail() -> None:
    """Values of secret variables never appear in the error text."""
    key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    error = classify("up", "dev", out(f"error: signature mismatch for key {key}"),
                     EventCollector("up"), secrets=[key, "short"])
    assert key not in str(error) and key not in error.detail  # type: ignore[attr-defined]
    assert "***" in str(error)
    # 4 to 7 characters: only where the value stands alone (gpupool.secrets, README "Secrets")
    assert scrub("a short word", ["short"]) == "a *** word"
    assert scrub("a shorter word", ["short"]) == "a shorter word"


def test_progress_and_failures_are_scrubbed_too() -> None:
    """Secret values are removed from progress messages and recorded failures as well."""
    key = "AKIAIOSFODNN7EXAMPLE-secret"
    seen: list[str] = []
    collector = feed(EventCollector("up", lambda e: seen.append(e.message), secrets=[key]),
                     diag(f"request signed with {key} was rejected", NG))
    assert seen == ["request signed with *** was rejected"]
    assert collector.failed == ((NG, "request signed with *** was rejected"),)


# -- what real streams send (tests/engine/events) ------------------------------------------------


def policy(message: str, level: str, urn: str | None = NG) -> dict[str, Any]:
    """A `policyEvent` as the engine sends it (sdk/go/common/apitype/events.go PolicyEvent)."""
    data = {"message": message, "color": "raw", "policyName": "no-public-ips",
            "policyPackName": "guardrails", "policyPackVersion": "", "enforcementLevel": level}
    return {"policyEvent": data if urn is None else {**data, "resourceUrn": urn}}


def test_a_stack_policy_without_a_resource_is_the_failure_reason() -> None:
    """A mandatory stack policy (no resource URN) fails preview and up with its own words."""
    events = feed(EventCollector("preview"), policy("no public IPs\nanywhere", "mandatory", None))
    error = classify("preview", "dev", out(), events)
    assert type(error) is EngineError
    assert str(error) == ("Pulumi preview failed: policy 'no-public-ips' of policy pack "
                          "'guardrails' (mandatory): no public IPs anywhere")
    events = feed(EventCollector("up"),
                  {"resourcePreEvent": {"metadata": meta("update", CM)}},
                  {"resOutputsEvent": {"metadata": meta("update", CM)}},
                  policy("no public IPs", "mandatory", None))
    update = classify("up", "dev", out(), events)
    assert isinstance(update, UpdateFailedError)
    assert str(update).startswith("Update failed: policy 'no-public-ips' of policy pack")
    assert "; 1 change applied before it" in str(update)


def test_advisory_policies_are_warnings_not_failures() -> None:
    """An advisory violation is reported as a warning and never becomes a failure."""
    seen: list[tuple[str, str, str]] = []
    collector = feed(EventCollector("preview", lambda e: seen.append((e.kind, e.severity,
                                                                       e.type))),
                     policy("<{%reset%}>public IP<{%reset%}>\n", "advisory"))
    assert seen == [("policy", "warning", "aws:eks/nodeGroup:NodeGroup")]  # type from the URN
    assert collector.failed == ()
    (violation,) = collector.result().policy_violations
    assert violation.message == "public IP" and not violation.mandatory


def test_counting_changes_without_a_summary_counts_a_replacement_once() -> None:
    """Without a summary event, completed steps are counted as the engine's summary would."""
    steps = [("create-replacement", NG), ("replace", NG), ("delete-replaced", NG),
             ("update", CM), ("same", STACK)]
    events: list[dict[str, Any]] = []
    for op, urn in steps:
        events += [{"resourcePreEvent": {"metadata": meta(op, urn)}},
                   {"resOutputsEvent": {"metadata": meta(op, urn)}}]
    collector = feed(EventCollector("up"), *events)
    assert collector.applied_changes() == 2
    assert collector.result().change_count == 2


def test_a_long_reason_is_cut_on_its_one_line() -> None:
    """A huge provider message is kept whole up to a limit, joined on one line."""
    reason = one_line("error: " + "x" * 300 + "\n" + "y" * 400)
    assert reason.startswith("x" * 300 + " yyy") and reason.endswith("…")
    assert len(reason) == 601 and "\n" not in reason
