"""Turning the Pulumi engine's event stream into gpupool's typed steps and progress events.

This module owns ``EventCollector``: it receives each ``pulumi.automation.EngineEvent`` (by
duck typing; nothing here imports pulumi), keeps the resource steps, failures, diagnostics,
policy violations and summary, and forwards ``ProgressEvent`` values to the caller's callback.
It does not run the engine (``gpupool.engine.pulumi``) nor decide what a failure means
(``gpupool.engine.failures``).

What the engine sends, and what the collector makes of it (pkg/engine/update.go and events.go;
hand-made streams in tests/engine/events):

- Each step starts with a ``resourcePreEvent`` and ends with a ``resOutputsEvent`` or a
  ``resOpFailedEvent``. In a preview every step gets an outputs event; in an update only custom
  resources and deletions do, so a component's step is complete as soon as it starts.
- A resource that registers outputs (the stack always does) gets a second outputs event for the
  same step; it is not a second step.
- A replacement is two or three steps of one URN (``create-replacement``, ``replace``,
  ``delete-replaced``) in an order that depends on delete-before-replace; the replacement's
  ``keys`` may be on any of them, so each of them reports what all of them say.
- ``detailedDiff`` is often ``null``; diagnostics and policy messages may span several lines
  and are kept whole.

Events arrive on a thread owned by the SDK (a log-file watcher for CLI <= 3.205, a gRPC server
thread after), so the collector guards its state with a lock, and a failing progress callback
never stops the operation.
"""

from __future__ import annotations

import re
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from gpupool.engine.results import (
    REPLACEMENT_OPS,
    EngineResult,
    PolicyViolation,
    ProgressEvent,
    ResourceStep,
    count_changes,
)
from gpupool.secrets import scrub

__all__ = [
    "EngineDiagnostic",
    "EventCollector",
    "clean_message",
    "urn_name",
    "urn_type",
]

_COLOR_TAG = re.compile(r"<\{%[^%]*%\}>")
_SEVERITIES = {"info#err": "info", "debug": "debug"}
#: Operations whose steps are planned, not performed: every planned step is listed.
_PLANNING = frozenset({"preview", "refresh-preview"})
#: Operations that perform steps; the engine sends no outputs event for a component's step in
#: them unless it deletes the component (``OnResourceStepPost``, pkg/engine/update.go).
_APPLYING = frozenset({"up", "destroy"})


def clean_message(text: str) -> str:
    """Strip Pulumi's ``<{%fg 1%}>`` colour tags and surrounding whitespace from a message."""
    return _COLOR_TAG.sub("", text or "").strip()


def urn_name(urn: str) -> str:
    """Return the logical name in a URN (``urn:pulumi:stack::project::type::name``)."""
    return urn.rsplit("::", 1)[-1] if "::" in urn else urn


def urn_type(urn: str) -> str:
    """Return the type token in a URN (``...::parent$type::name`` gives ``type``)."""
    parts = urn.split("::")
    return parts[-2].split("$")[-1] if len(parts) >= 4 else ""


def _op(value: Any) -> str:
    """Return an op as a plain string (the SDK gives ``OpType`` enums, summaries give str)."""
    return str(getattr(value, "value", value) or "")


@dataclass(frozen=True)
class EngineDiagnostic:
    """One diagnostic message from the engine, program or a provider."""

    urn: str
    severity: str
    message: str


@dataclass
class _OpenStep:
    """A step whose pre-event arrived; ``done`` once its outputs event arrives."""

    step: ResourceStep
    done: bool = False
    failed: bool = False


class EventCollector:
    """Collect one operation's engine events and forward progress.

    Args:
        kind: The ``EngineResult.kind`` being produced.
        on_event: Optional progress callback.
        clock: Monotonic clock (injectable for tests).
        secrets: Values to scrub from messages (see ``gpupool.secrets.scrub``).

    """

    def __init__(
        self,
        kind: str,
        on_event: Callable[[ProgressEvent], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        secrets: Iterable[str] = (),
    ) -> None:
        self.kind = kind
        self._secrets = tuple(secrets)
        self._on_event = on_event
        self._clock = clock
        self._start = clock()
        self._lock = threading.Lock()
        self._steps: list[_OpenStep] = []
        self._open: dict[str, list[_OpenStep]] = {}
        self._finished: set[tuple[str, str]] = set()
        self._failed: dict[str, str] = {}
        self._policy_counts: dict[str, int] = {}
        self._types: dict[str, str] = {}
        self.diagnostics: list[EngineDiagnostic] = []
        self.policies: list[PolicyViolation] = []
        self.summary: dict[str, int] | None = None
        self._callback_failed = False

    # -- receiving -------------------------------------------------------------------------

    def handle(self, event: Any) -> None:
        """Receive one SDK ``EngineEvent``; never raises."""
        try:
            progress = self._record(event)
        except Exception as exc:  # a malformed event must not kill the SDK's watcher thread
            warnings.warn(f"gpupool: ignored an engine event it could not read: {exc}",
                          RuntimeWarning, stacklevel=2)
            return
        for item in progress:
            self._emit(item)

    def _record(self, event: Any) -> list[ProgressEvent]:
        with self._lock:
            if getattr(event, "resource_pre_event", None) is not None:
                return self._pre(event.resource_pre_event.metadata)
            if getattr(event, "res_outputs_event", None) is not None:
                return self._outputs(event.res_outputs_event.metadata)
            if getattr(event, "res_op_failed_event", None) is not None:
                return [self._op_failed(event.res_op_failed_event.metadata)]
            if getattr(event, "diagnostic_event", None) is not None:
                return self._diagnostic(event.diagnostic_event)
            if getattr(event, "policy_event", None) is not None:
                return [self._policy(event.policy_event)]
            if getattr(event, "summary_event", None) is not None:
                changes = event.summary_event.resource_changes or {}
                self.summary = {_op(op): int(n) for op, n in changes.items()}
                text = ", ".join(f"{op} {n}" for op, n in sorted(self.summary.items()))
                return [self._progress("summary", "", "", "", text)]
        return []

    def _pre(self, meta: Any) -> list[ProgressEvent]:
        urn, type_, op = str(meta.urn), str(meta.type), _op(meta.op)
        self._types[urn] = type_
        opened = _OpenStep(_step(meta))
        self._add(opened)
        started = self._progress("resource-start", urn, type_, op, "")
        if self.kind in _APPLYING and op != "delete" and _is_component(meta):
            self._close(opened, done=True)  # no outputs event will come for it
            return [started, self._progress("resource-done", urn, type_, op, "")]
        return [started]

    def _outputs(self, meta: Any) -> list[ProgressEvent]:
        urn, op = str(meta.urn), _op(meta.op)
        opened = self._find_open(urn, op)
        if opened is None:
            if (urn, op) in self._finished:  # registered outputs: the same step, reported again
                return []
            opened = _OpenStep(_step(meta))  # outputs without a pre-event
            self._add(opened)
        elif opened.step.op == "refresh" and op != "refresh":
            # A refresh's outcome (same/update/delete) and its diff are only known afterwards.
            opened.step = replace(_step(meta), refreshed=True)
        self._close(opened, done=True)
        return [self._progress("resource-done", urn, str(meta.type), opened.step.op, "")]

    def _op_failed(self, meta: Any) -> ProgressEvent:
        urn = str(meta.urn)
        opened = self._find_open(urn, _op(meta.op))
        if opened is not None:
            self._close(opened, done=False)
        reason = self._failed.get(urn) or self._last_error_for(urn) or "the operation failed"
        self._failed[urn] = reason
        return self._progress("resource-failed", urn, str(meta.type), _op(meta.op), reason,
                              "error")

    def _diagnostic(self, diag: Any) -> list[ProgressEvent]:
        severity = _SEVERITIES.get(str(diag.severity), str(diag.severity))
        message = self._scrub(clean_message(str(diag.message)))
        if severity == "debug" or getattr(diag, "ephemeral", False) or not message:
            return []
        urn = str(diag.urn or "")
        self.diagnostics.append(EngineDiagnostic(urn, severity, message))
        if severity == "error" and urn and urn not in self._failed:
            self._failed[urn] = message
        return [self._progress("diagnostic", urn, self._types.get(urn, ""), "", message,
                               severity)]

    def _policy(self, event: Any) -> ProgressEvent:
        urn = str(getattr(event, "resource_urn", None) or "")
        violation = PolicyViolation(
            urn=urn,
            policy=str(event.policy_name or ""),
            pack=str(event.policy_pack_name or ""),
            pack_version=str(getattr(event, "policy_pack_version", "") or ""),
            enforcement=str(event.enforcement_level or ""),
            message=self._scrub(clean_message(str(event.message or ""))),
        )
        self.policies.append(violation)
        if violation.mandatory and urn:
            count = self._policy_counts.get(urn, 0)
            self._policy_counts[urn] = count + 1
            if count == 0:
                self._failed.setdefault(urn, violation.describe())
        type_ = self._types.get(urn) or urn_type(urn)
        return self._progress("policy", urn, type_, "", violation.describe(),
                              "error" if violation.mandatory else "warning")

    def _add(self, opened: _OpenStep) -> None:
        self._steps.append(opened)
        self._open.setdefault(opened.step.urn, []).append(opened)

    def _close(self, opened: _OpenStep, *, done: bool) -> None:
        opened.done, opened.failed = done, not done
        self._open[opened.step.urn].remove(opened)
        if done:
            self._finished.add((opened.step.urn, opened.step.op))

    def _find_open(self, urn: str, op: str) -> _OpenStep | None:
        """Find the unfinished step for ``urn``, preferring one with the same op."""
        candidates = self._open.get(urn, [])
        same_op = [o for o in candidates if o.step.op == op]
        return (same_op or candidates or [None])[0]

    def _scrub(self, text: str) -> str:
        return scrub(text, self._secrets)

    def _last_error_for(self, urn: str) -> str:
        for diag in reversed(self.diagnostics):
            if diag.urn == urn and diag.severity == "error":
                return diag.message
        return ""

    # -- forwarding ------------------------------------------------------------------------

    def _progress(self, kind: str, urn: str, type_: str, op: str, message: str,
                  severity: str = "") -> ProgressEvent:
        return ProgressEvent(kind=kind, urn=urn, type=type_, op=op, message=message,
                             elapsed_s=round(self._clock() - self._start, 3), severity=severity)

    def _emit(self, progress: ProgressEvent) -> None:
        if self._on_event is None or self._callback_failed:
            return
        try:
            self._on_event(progress)
        except Exception as exc:  # progress display must never break an apply
            self._callback_failed = True
            warnings.warn(f"gpupool: progress callback failed and was switched off: {exc!r}",
                          RuntimeWarning, stacklevel=2)

    # -- results ---------------------------------------------------------------------------

    @property
    def failed(self) -> tuple[tuple[str, str], ...]:
        """``(urn, reason)`` for each resource that failed, in the order first seen.

        A resource that violated several mandatory policies names the first and counts the rest.
        """
        with self._lock:
            return tuple((urn, _more_policies(reason, self._policy_counts.get(urn, 0)))
                         for urn, reason in self._failed.items())

    def error_diagnostics(self) -> tuple[EngineDiagnostic, ...]:
        """Return the error-severity diagnostics, in order."""
        with self._lock:
            return tuple(d for d in self.diagnostics if d.severity == "error")

    def mandatory_policies(self) -> tuple[PolicyViolation, ...]:
        """Return the mandatory policy violations (each one fails the operation), in order."""
        with self._lock:
            return tuple(p for p in self.policies if p.mandatory)

    def steps(self) -> tuple[ResourceStep, ...]:
        """Return the planned steps (previews) or the completed ones (up, destroy).

        The steps of one replacement each carry the keys, diffs and detailed diff that any of
        them reported, whichever step came first.
        """
        with self._lock:
            planned = self.kind in _PLANNING
            chosen = [o.step for o in self._steps if planned or o.done]
            merged = _merge_replacements([o.step for o in self._steps])
        return tuple(_with_reasons(step, merged[step.urn]) if step.op in REPLACEMENT_OPS
                     else step for step in chosen)

    def applied_changes(self) -> int:
        """How many changes applied, counted as Pulumi's summary counts them.

        A replacement is one change however many of its steps completed. Without a summary
        event, the completed steps are counted the same way.
        """
        with self._lock:
            done = [o.step for o in self._steps if o.done]
            summary = None if self.summary is None else dict(self.summary)
        return count_changes(summary, done)

    def result(self, outputs: Mapping[str, object] | None = None, stdout: str = "",
               fallback_summary: Mapping[Any, int] | None = None) -> EngineResult:
        """Build the ``EngineResult`` from what was collected."""
        summary = self.summary
        if summary is None:
            summary = {_op(op): int(n) for op, n in (fallback_summary or {}).items()}
        return EngineResult(kind=self.kind, steps=self.steps(), summary=dict(summary),
                            outputs=dict(outputs or {}), failed=self.failed,
                            stdout_tail=self._scrub(tail(stdout)),
                            policy_violations=tuple(self.policies))


def _is_component(meta: Any) -> bool:
    """Whether a step's resource is a component (``custom`` is omitted when false).

    Steps whose metadata carries no state at all are taken as custom: their outputs event is
    awaited as before.
    """
    state = getattr(meta, "new", None) or getattr(meta, "old", None)
    return state is not None and not getattr(state, "custom", True)


def _more_policies(reason: str, count: int) -> str:
    if count <= 1:
        return reason
    more = count - 1
    return f"{reason} (and {more} more mandatory polic{'ies' if more > 1 else 'y'})"


def _merge_replacements(steps: Iterable[ResourceStep]) -> dict[str, ResourceStep]:
    """Return, per URN with replacement steps, one step holding what all of them say."""
    merged: dict[str, ResourceStep] = {}
    for step in steps:
        if step.op not in REPLACEMENT_OPS:
            continue
        prior = merged.get(step.urn)
        if prior is None:
            merged[step.urn] = step
            continue
        detailed = dict(prior.detailed_diff)
        for path, kind in step.detailed_diff:
            detailed.setdefault(path, kind)
        merged[step.urn] = ResourceStep(
            urn=prior.urn, type=prior.type, name=prior.name, op=prior.op,
            diffs=tuple(dict.fromkeys([*prior.diffs, *step.diffs])),
            replace_keys=tuple(dict.fromkeys([*prior.replace_keys, *step.replace_keys])),
            detailed_diff=tuple(sorted(detailed.items())),
        )
    return merged


def _with_reasons(step: ResourceStep, merged: ResourceStep) -> ResourceStep:
    """Return ``step`` with the keys, diffs and detailed diff of its whole replacement."""
    return replace(step, diffs=merged.diffs, replace_keys=merged.replace_keys,
                   detailed_diff=merged.detailed_diff)


def _step(meta: Any) -> ResourceStep:
    urn = str(meta.urn)
    detailed = meta.detailed_diff or {}
    return ResourceStep(
        urn=urn,
        type=str(meta.type),
        name=urn_name(urn),
        op=_op(meta.op),
        diffs=tuple(dict.fromkeys(str(k) for k in (meta.diffs or ()))),  # real CLIs repeat them
        replace_keys=tuple(dict.fromkeys(str(k) for k in (meta.keys or ()))),
        detailed_diff=tuple(sorted(
            (str(path), _op(getattr(diff, "diff_kind", ""))) for path, diff in detailed.items()
        )),
    )


def tail(text: str, lines: int = 30) -> str:
    """Return the last ``lines`` non-blank-trimmed lines of ``text``."""
    kept = (text or "").rstrip().splitlines()[-lines:]
    return "\n".join(kept)
