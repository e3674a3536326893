"""Typed values that cross the engine boundary: targets, steps, results, progress, failures.

This module owns the shapes that ``gpupool.engine.pulumi`` returns and raises, so that the rest of
gpupool (plan, drift, report, cli) can use them without importing Pulumi. It imports nothing
from ``pulumi``; converting the SDK's engine events into these values is
``gpupool.engine.collector``'s job.

Operation names are Pulumi's own ``StepOp`` strings (``create``, ``update``, ``delete``,
``replace``, ``create-replacement``, ``delete-replaced``, ``same``, ``read``, ``refresh`` ...);
translating them into Terraform's vocabulary is the report's job, not the engine's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from gpupool.errors import EngineError

__all__ = [
    "NO_CHANGE_OPS",
    "REPLACEMENT_OPS",
    "UNCOUNTED_OPS",
    "EngineResult",
    "EngineTarget",
    "PolicyViolation",
    "ProgressEvent",
    "ResourceStep",
    "UpdateFailedError",
    "count_changes",
]

#: Ops that are not changes. Mirrors the engine's ``ResourceChanges.HasChanges`` (pkg/engine):
#: everything counts except same, read, read-discard (``discard``) and read-replacement.
NO_CHANGE_OPS: frozenset[str] = frozenset({"same", "read", "discard", "read-replacement"})

#: The steps of one replacement. Which of them carries the replacement's reasons depends on the
#: order: in a delete-before-replace ``delete-replaced`` comes first and has no ``keys``.
REPLACEMENT_OPS: frozenset[str] = frozenset({"create-replacement", "replace", "delete-replaced"})

#: Steps the engine's summary does not count (``Step.Logical()`` is false for them in
#: pkg/resource/deploy/step.go): the halves of a replacement, whose logical step is ``replace``,
#: and bookkeeping. Refresh steps are counted by their outcome (``same``, ``update``, ``delete``).
UNCOUNTED_OPS: frozenset[str] = frozenset({
    "create-replacement", "delete-replaced", "read-replacement", "discard-replaced",
    "import-replacement", "remove-pending-replace", "refresh",
})

#: The enforcement level of a policy violation that stops the operation.
MANDATORY = "mandatory"


@dataclass(frozen=True)
class EngineTarget:
    """Where and how to run the engine.

    Attributes:
        work_dir: The rendered program directory (holds ``Pulumi.yaml`` and ``__main__.py``).
        stack_name: The Pulumi stack name.
        backend_url: The state backend, e.g. ``file:///home/me/.gpupool/state`` or ``s3://bucket``.
            A ``file://`` directory is created on first use. Passed to the CLI as
            ``PULUMI_BACKEND_URL``; gpupool never runs ``pulumi login``.
        env: Extra environment variables for every CLI call (passphrase, cloud credentials ...).
            They are layered over the process environment. The ``pulumi`` executable itself is
            found on the process ``PATH``.
        keep_fds: Descriptors every CLI process inherits: the stack lock's, so that the lock
            stays held while the engine runs, even if gpupool is killed (``engine.child``).

    """

    work_dir: Path
    stack_name: str
    backend_url: str
    env: Mapping[str, str] = field(default_factory=dict)
    keep_fds: tuple[int, ...] = ()


@dataclass(frozen=True)
class ResourceStep:
    """One step the engine planned (preview) or performed (up, destroy) on one resource.

    Attributes:
        urn: The resource's Pulumi URN.
        type: The Pulumi type token, e.g. ``aws:eks/nodeGroup:NodeGroup``.
        name: The logical name (the URN's last ``::`` segment).
        op: Pulumi's step op. A replacement shows up as ``create-replacement``, ``replace`` and
            ``delete-replaced`` steps for the same URN. For a refresh preview it is the result
            of the refresh (``same``, ``update``, ``delete``), not ``refresh``.
        diffs: Top-level input keys that changed.
        replace_keys: Keys whose change forces replacement.
        detailed_diff: ``(property path, diff kind)`` pairs sorted by path; kinds are
            ``add``, ``add-replace``, ``update``, ``update-replace``, ``delete``,
            ``delete-replace``.
        refreshed: The step was a refresh (its pre-event said ``refresh``) and ``op`` is what
            the refresh found. A ``preview --refresh`` or ``up --refresh`` sends these for every
            resource in state before the steps that converge on the program.

    """

    urn: str
    type: str
    name: str
    op: str
    diffs: tuple[str, ...] = ()
    replace_keys: tuple[str, ...] = ()
    detailed_diff: tuple[tuple[str, str], ...] = ()
    refreshed: bool = False

    @property
    def changed(self) -> bool:
        """Whether this step changes the resource (its op is not same/read)."""
        return self.op not in NO_CHANGE_OPS


@dataclass(frozen=True)
class PolicyViolation:
    """One policy a resource (or the stack) violated, from the engine's ``policyEvent``.

    Policy packs run during preview and update whenever the backend enforces them (Pulumi
    Cloud organisation packs apply whether gpupool asks or not).

    Attributes:
        urn: The resource's URN; empty when the policy judged the whole stack.
        policy: The policy's name.
        pack: The policy pack's name.
        pack_version: The pack's version (empty when unknown).
        enforcement: ``mandatory`` (the operation fails) or ``advisory`` (a warning); any other
            level the engine sends is kept as given and read as a warning.
        message: What the policy says, colour tags removed (may span several lines).

    """

    urn: str
    policy: str
    pack: str
    pack_version: str
    enforcement: str
    message: str

    @property
    def mandatory(self) -> bool:
        """Whether this violation stops the operation."""
        return self.enforcement == MANDATORY

    def describe(self) -> str:
        """Return ``policy 'P' of pack 'K' (level): message`` for failures and progress."""
        version = f" v{self.pack_version}" if self.pack_version else ""
        return (f"policy '{self.policy}' of policy pack '{self.pack}'{version} "
                f"({self.enforcement or 'advisory'}): {self.message}")


@dataclass(frozen=True)
class EngineResult:
    """What one engine operation planned or did.

    Attributes:
        kind: ``preview``, ``up``, ``destroy`` or ``refresh-preview``.
        steps: Resource steps in engine order. For ``up`` and ``destroy`` only steps that
            completed are listed (so after a failure these are the ones that applied); a
            component resource, which the engine sends no outputs event for, completes when it
            starts. The steps of one replacement each carry the keys, diffs and detailed diff
            that any of them reported.
        summary: Op -> count, from the engine's summary event (logical steps only, so a
            replacement counts once, as ``replace``).
        outputs: Stack outputs after ``up`` (secret values are shown as ``"[secret]"``);
            empty for other kinds.
        failed: ``(urn, message)`` for every resource the engine reported as failed (a
            mandatory policy violation is the failure of the resource it judged).
        stdout_tail: The last lines of the CLI's human output, for logs.
        policy_violations: Every policy violation the engine reported, advisory ones too.

    """

    kind: str
    steps: tuple[ResourceStep, ...]
    summary: Mapping[str, int]
    outputs: Mapping[str, object] = field(default_factory=dict)
    failed: tuple[tuple[str, str], ...] = ()
    stdout_tail: str = ""
    policy_violations: tuple[PolicyViolation, ...] = ()

    @property
    def changed(self) -> bool:
        """Whether the operation proposes or made any change (an op other than same/read).

        Decided from the summary counts, falling back to the steps when there is no summary.
        """
        if self.summary:
            return any(n > 0 and op not in NO_CHANGE_OPS for op, n in self.summary.items())
        return any(step.changed for step in self.steps)

    @property
    def change_count(self) -> int:
        """How many changes Pulumi's own summary counts ("3 changes" in the CLI's output).

        A replacement is one change (``replace``), not its create and delete halves; same and
        read are none. Taken from the summary, or counted from the steps when there is none.
        """
        return count_changes(self.summary or None, self.steps)

    def steps_for(self, urn: str) -> tuple[ResourceStep, ...]:
        """Return the steps for one URN, in engine order."""
        return tuple(step for step in self.steps if step.urn == urn)


def count_changes(summary: Mapping[str, int] | None, steps: Iterable[ResourceStep] = ()) -> int:
    """Count changes as the engine's summary does (``acts.Ops[op]++`` in pkg/engine/update.go).

    Args:
        summary: Op -> count from the summary event; used whenever it is not ``None``.
        steps: The steps to count when there is no summary: each counted step (see
            ``UNCOUNTED_OPS``) whose op is a change.

    """
    if summary is not None:
        return sum(n for op, n in summary.items() if op not in NO_CHANGE_OPS and n > 0)
    return sum(1 for s in steps if s.changed and s.op not in UNCOUNTED_OPS)


@dataclass(frozen=True)
class ProgressEvent:
    """A progress notification passed to ``on_event`` callbacks while the engine runs.

    Attributes:
        kind: ``resource-start``, ``resource-done``, ``resource-failed``, ``diagnostic``,
            ``policy`` (a policy violation) or ``summary``.
        urn: The resource's URN (empty for stack-wide diagnostics and the summary).
        type: The resource's type token (empty when there is no resource).
        op: The step op for resource events; empty otherwise.
        message: Failure reason, diagnostic or policy text (whole, possibly several lines),
            or for ``summary`` e.g. ``"create 2, same 3"``.
        elapsed_s: Seconds since the operation started.
        severity: For ``diagnostic`` and ``resource-failed``: ``error``, ``warning`` or ``info``;
            for ``policy``: ``error`` (mandatory) or ``warning`` (advisory).

    """

    kind: str
    urn: str
    type: str
    op: str
    message: str
    elapsed_s: float
    severity: str = ""


class UpdateFailedError(EngineError):
    """``up`` or ``destroy`` failed part way; ``partial`` records what did apply.

    The message names the failing resource and the reason. ``partial.steps`` are the steps
    that completed before the failure, ``partial.failed`` the resources that failed.
    """

    def __init__(self, message: str, partial: EngineResult, detail: str = "") -> None:
        super().__init__(message)
        self.partial = partial
        self.detail = detail

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (str(self), self.partial, self.detail))


class EngineInterruptedError(UpdateFailedError):
    """A signal (SIGINT, SIGTERM, SIGHUP) cancelled the operation; the engine has exited.

    ``partial`` records what applied before Pulumi stopped, as for any failed update. Exit code
    130, as for an interrupted command.
    """

    exit_code = 130
