"""What a failed Pulumi command means, as one sentence a user can act on.

This module owns the mapping from the CLI's exit code, stdout, stderr and the collected engine
events to gpupool's error classes (``gpupool.errors``): a locked stack, a missing passphrase,
missing cloud credentials, a program that raised, a resource that failed part way through an
update, or anything else. It reads text only and imports nothing from pulumi; the SDK's own
error subclasses are chosen by the same kind of text matching, so they are only hints here.

Every error carries a one-line message (``str(err)``) and a ``detail`` attribute holding the
useful tail of the output (never a full traceback). A reason that spans several lines (Pulumi's
"cannot be deleted / because it is protected ... `pulumi state unprotect ...`") is kept whole,
its lines joined, so the message still says why and what to run. Secret values are scrubbed
from both.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePath
from typing import TypeVar

from gpupool import clouds
from gpupool.engine.collector import (
    EngineDiagnostic,
    EventCollector,
    clean_message,
    urn_name,
)
from gpupool.engine.results import EngineInterruptedError, PolicyViolation, UpdateFailedError
from gpupool.errors import (
    CredentialsError,
    EngineError,
    EngineNotInstalledError,
    ProgramError,
    StackLockedError,
)
from gpupool.secrets import scrub

__all__ = [
    "CommandOutput",
    "classify",
    "engine_error",
    "not_installed",
    "one_line",
    "parse_command_error",
]

E = TypeVar("E", bound=EngineError)

INSTALL_URL = "https://www.pulumi.com/docs/install/"
_PLAN_HINT = "`gpupool plan` works without it."
_VERBS = {"preview": "preview", "up": "update", "destroy": "destroy",
          "refresh-preview": "refresh preview"}

_LOCKED = ("the stack is currently locked by", "[409] Conflict: Another update is currently")
_LOCK_OWNER = re.compile(r"created by (?P<who>\S+) \(pid (?P<pid>\d+)\) at (?P<when>\S+)")
_WRONG_PASSPHRASE = re.compile(r"incorrect passphrase", re.IGNORECASE)
_NO_PASSPHRASE = re.compile(
    r"passphrase must be set|unable to find either `?PULUMI_CONFIG_PASSPHRASE"
    r"|PULUMI_CONFIG_PASSPHRASE(_FILE)? (is not set|must be set)", re.IGNORECASE)
_CLOUDS: tuple[tuple[str, re.Pattern[str], str], ...] = (
    ("AWS", re.compile(
        r"No valid credential sources found|unable to validate AWS credentials"
        r"|NoCredentialProviders|failed to refresh cached credentials|ExpiredToken"
        r"|InvalidClientTokenId|security token included in the request is (invalid|expired)",
        re.IGNORECASE),
     "configure them (AWS_PROFILE, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or "
     "`aws sso login`) and retry"),
    ("Google Cloud", re.compile(
        r"could not find default credentials|Application Default Credentials"
        r"|oauth2: cannot fetch token", re.IGNORECASE),
     "run `gcloud auth application-default login` or set GOOGLE_APPLICATION_CREDENTIALS, "
     "then retry"),
    ("Azure", re.compile(
        r"az login|DefaultAzureCredential|AzureCLICredential|failed to get credentials"
        r"|AADSTS\d+", re.IGNORECASE),
     "run `az login` or set ARM_CLIENT_ID/ARM_CLIENT_SECRET/ARM_TENANT_ID, then retry"),
    ("Volcengine", re.compile(r"InvalidAccessKey|AccessKey(Id)? is (missing|empty|invalid)",
                              re.IGNORECASE),
     "set VOLCENGINE_ACCESS_KEY and VOLCENGINE_SECRET_KEY, then retry"),
    ("Kubernetes", re.compile(
        r"unable to load kubeconfig|no configuration has been provided"
        r"|You must be logged in to the server", re.IGNORECASE),
     "point KUBECONFIG at the cluster (or set the provider's kubeconfig) and retry"),
)
_PROGRAM_FAILED = re.compile(
    r"Program failed with an unhandled exception|python inline source runtime error"
    r"|an unhandled error occurred", re.IGNORECASE)
_PY_ERROR_LINE = re.compile(r"^\s*(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Exit"
                            r"|Interrupt|Warning|Iteration)\b.*$")
_PY_FRAME = re.compile(r'File "(?P<path>[^"]+)", line (?P<line>\d+)')
_MISSING_MODULE = re.compile(r"No module named '(?P<module>[\w.]+)'")
#: gpupool's pip extra that installs each provider SDK module (core dependencies have none).
_EXTRAS = {sdk.module: sdk.extra for sdk in clouds.sdks() if sdk.extra}
#: Cloud SDK request noise dropped from one-line reasons (kept in ``detail``).
_REQUEST_NOISE = re.compile(r",? ?https response error StatusCode: \d+, RequestID: [\w-]+")
#: A one-line reason longer than this is cut (the whole text stays in ``detail``).
_MAX_REASON = 600
_NOISE = re.compile(r"^(code: -?\d+|stdout:|stderr:|Resources:|Duration:|View (Live|in Browser)"
                    r"|Diagnostics:|Previewing|Updating|Destroying|Refreshing)", re.IGNORECASE)


@dataclass(frozen=True)
class CommandOutput:
    """The pieces of a failed CLI run (the SDK keeps them only inside the error's text)."""

    code: int | None
    stdout: str
    stderr: str


def parse_command_error(text: str) -> CommandOutput:
    r"""Split the SDK's ``CommandError`` text (``"\n code: N\n stdout: ...\n stderr: ..."``)."""
    match = re.match(r"\s*code: (-?\d+)\n stdout: ", text)
    if match is None:
        return CommandOutput(None, "", text)
    stdout, _, stderr = text[match.end():].rpartition("\n stderr: ")
    return CommandOutput(int(match.group(1)), stdout, stderr)


def not_installed(
    version: str | None = None, minimum: str | None = None
) -> EngineNotInstalledError:
    """Build the error for a missing (``version`` None) or too old Pulumi CLI."""
    if version is None:
        message = f"Pulumi CLI not found: install it ({INSTALL_URL}) — {_PLAN_HINT}"
    else:
        message = (f"Pulumi CLI {version} is too old (gpupool needs {minimum} or newer): "
                   f"upgrade it ({INSTALL_URL}) — {_PLAN_HINT}")
    return engine_error(EngineNotInstalledError, message)


def engine_error(cls: type[E], message: str, detail: str = "") -> E:
    """Build an engine error with its ``detail`` attribute set (every engine error has one)."""
    error = cls(message)
    error.detail = detail  # type: ignore[attr-defined]
    return error


def classify(kind: str, stack: str, output: CommandOutput, events: EventCollector,
             secrets: Iterable[str] = ()) -> EngineError:
    """Map a failed Pulumi command to the gpupool error that explains it.

    Args:
        kind: The operation (``preview``, ``up``, ``destroy``, ``refresh-preview``).
        stack: The stack name, for messages.
        output: The failed command's exit code, stdout and stderr.
        events: The events collected before the failure.
        secrets: Values to scrub from the message and detail.

    Returns:
        The error to raise; ``detail`` holds the useful tail of the output.

    """
    secrets = tuple(secrets)
    errors = events.error_diagnostics()
    text = "\n".join([output.stderr, output.stdout, *(d.message for d in errors)])
    error = _classify(kind, stack, output, events, errors, text)
    detail = scrub(getattr(error, "detail", "") or _detail(output, errors), secrets)
    error.args = (scrub(str(error), secrets),)
    error.detail = detail  # type: ignore[attr-defined]
    return error


def _classify(kind: str, stack: str, output: CommandOutput, events: EventCollector,
              errors: tuple[EngineDiagnostic, ...], text: str) -> EngineError:
    if any(marker in text for marker in _LOCKED):
        owner = _LOCK_OWNER.search(text)
        held = (f" (lock held by {owner['who']}, pid {owner['pid']}, since {owner['when']})"
                if owner else "")
        return StackLockedError(
            f"Stack '{stack}' is locked by another update{held}: wait for it to finish, or "
            f"if that process is gone run `pulumi cancel --stack {stack}` in the program "
            "directory.")
    if _WRONG_PASSPHRASE.search(text):
        return CredentialsError(
            f"The secrets passphrase is wrong for stack '{stack}': set "
            "PULUMI_CONFIG_PASSPHRASE (or PULUMI_CONFIG_PASSPHRASE_FILE) to the passphrase the "
            "stack was created with.")
    if _NO_PASSPHRASE.search(text):
        return CredentialsError(
            "The state passphrase is not set: export PULUMI_CONFIG_PASSPHRASE (or "
            "PULUMI_CONFIG_PASSPHRASE_FILE) and retry.")
    failed = _failed_resources(events)
    if kind in ("up", "destroy") and failed and events.applied_changes():
        return _update_failed(kind, events, failed)
    for cloud, pattern, hint in _CLOUDS:
        match = pattern.search(text)
        if match:
            return CredentialsError(f"{cloud} credentials are missing or invalid "
                                    f"({_line_around(text, match.start())}): {hint}.")
    if _PROGRAM_FAILED.search(text):
        return _program_error(output, errors)
    if kind in ("up", "destroy") and failed:
        return _update_failed(kind, events, failed)
    verb = _VERBS.get(kind, kind)
    if failed:
        urn, reason = failed[0]
        return EngineError(f"Pulumi {verb} failed at {_resource(urn)}: "
                           f"{one_line(reason)}")
    policies = events.mandatory_policies()
    if policies:
        return _policy_failed(kind, events, policies)
    return EngineError(f"Pulumi {verb} failed: {_headline(output, errors)}")


def _failed_resources(events: EventCollector) -> tuple[tuple[str, str], ...]:
    """Failures attached to real resources (not the stack root, which means the program)."""
    return tuple((urn, reason) for urn, reason in events.failed
                 if "::pulumi:pulumi:Stack::" not in urn)


def _update_failed(kind: str, events: EventCollector,
                   failed: tuple[tuple[str, str], ...]) -> UpdateFailedError:
    urn, reason = failed[0]
    others = f" ({len(failed) - 1} more failed)" if len(failed) > 1 else ""
    verb = "Update" if kind == "up" else "Destroy"
    message = (f"{verb} failed at {_resource(urn)}: {one_line(reason)}{others}; "
               f"{_applied(events)} — fix the cause and run it again.")
    return UpdateFailedError(message, events.result(), "\n".join(r for _, r in failed))


def _policy_failed(kind: str, events: EventCollector,
                   policies: tuple[PolicyViolation, ...]) -> EngineError:
    """Explain a run failed by mandatory policies that name no resource (stack policies)."""
    first = one_line(policies[0].describe())
    others = f" ({len(policies) - 1} more mandatory)" if len(policies) > 1 else ""
    detail = "\n".join(p.describe() for p in policies)
    if kind in ("up", "destroy"):
        verb = "Update" if kind == "up" else "Destroy"
        message = (f"{verb} failed: {first}{others}; {_applied(events)} — fix the cause and "
                   "run it again.")
        return UpdateFailedError(message, events.result(), detail)
    return engine_error(EngineError, f"Pulumi {_VERBS.get(kind, kind)} failed: {first}{others}",
                        detail)


def interrupted(kind: str, signum: int, error: EngineError,
                events: EventCollector) -> EngineInterruptedError:
    """Build the error for an operation a signal cancelled (``gpupool.engine.child``).

    The engine was sent Pulumi's cancel and has exited; ``partial`` holds what applied, so the
    applied record stays true. ``error`` is what the failed command alone would have said.
    """
    name = signal.Signals(signum).name
    done = f"; {_applied(events)}" if kind in ("up", "destroy") else ""
    message = (f"Interrupted by {name}: Pulumi cancelled the {_VERBS.get(kind, kind)} and has "
               f"exited{done} — run it again to finish ({one_line(str(error))})")
    return EngineInterruptedError(message, events.result(), getattr(error, "detail", ""))


def _applied(events: EventCollector) -> str:
    """Say how many changes applied, counted as Pulumi's summary counts them."""
    applied = events.applied_changes()
    return f"{applied} change{'s' if applied != 1 else ''} applied before it"


def _program_error(output: CommandOutput, errors: tuple[EngineDiagnostic, ...]) -> ProgramError:
    sources = [d.message for d in errors if _PROGRAM_FAILED.search(d.message)]
    sources += [output.stdout, output.stderr]
    for source in sources:
        lines = [clean_message(line) for line in source.splitlines()]
        error_lines = [line for line in lines if _PY_ERROR_LINE.match(line)]
        if not error_lines:
            continue
        last = error_lines[-1].strip()
        frames = [m for line in lines if (m := _PY_FRAME.search(line))]
        where = ""
        if frames:
            frame = frames[-1]
            where = f" at {PurePath(frame['path']).name} line {frame['line']}"
        missing = _MISSING_MODULE.search(last)
        if missing and missing["module"].split(".")[0].startswith("pulumi"):
            module = missing["module"].split(".")[0]
            extra = _EXTRAS.get(module)
            install = (f"pip install 'gpupool[{extra}]'" if extra
                       else f"pip install {module.replace('_', '-')}")
            return ProgramError(
                f"The Pulumi program needs the {module} package: {install} in the Python "
                "environment Pulumi runs the program with, then retry.")
        error = ProgramError(f"The Pulumi program raised {last}{where}: fix the cause (the "
                             "program is under the render directory) and retry.")
        error.detail = f"{last}{where}"  # type: ignore[attr-defined]
        return error
    return ProgramError("The Pulumi program failed with an unhandled exception: see the "
                        "program's output above and retry.")


def _resource(urn: str) -> str:
    """Name a resource as ``type 'name'`` from its URN (``...::parent$type::name``)."""
    type_ = urn.split("::")[-2].split("$")[-1] if urn.count("::") >= 3 else ""
    return f"{type_} '{urn_name(urn)}'" if type_ else f"'{urn_name(urn)}'"


def one_line(text: str) -> str:
    """Return a whole reason on one line: colour tags, request noise and "error:" dropped.

    The lines of a multi-line reason are joined with spaces (Pulumi breaks its own messages in
    the middle of a sentence); a reason longer than ``_MAX_REASON`` characters is cut.
    """
    lines = []
    for line in clean_message(text).splitlines():
        line = _REQUEST_NOISE.sub("", line).strip()
        if not lines and line.lower().startswith("error:"):
            line = line[len("error:"):].strip()
        if line:
            lines.append(line)
    if not lines:
        return "no reason given"
    joined = re.sub(r"\s+", " ", " ".join(lines)).rstrip(".")
    return joined if len(joined) <= _MAX_REASON else joined[:_MAX_REASON] + "…"


def _first_line(text: str) -> str:
    for line in clean_message(text).splitlines():
        line = _REQUEST_NOISE.sub("", line).strip()
        if line.lower().startswith("error:"):
            line = line[len("error:"):].strip()
        if line:
            return line.rstrip(".") if len(line) < 400 else line[:400] + "…"
    return "no reason given"


def _line_around(text: str, position: int) -> str:
    start = text.rfind("\n", 0, position) + 1
    end = text.find("\n", position)
    return _first_line(text[start:end if end != -1 else len(text)])


def _meaningful(text: str) -> list[str]:
    lines = (clean_message(line) for line in text.splitlines())
    return [line for line in lines if line and not _NOISE.match(line)]


def _headline(output: CommandOutput, errors: tuple[EngineDiagnostic, ...]) -> str:
    if errors:
        return one_line(errors[0].message)
    stderr = _meaningful(output.stderr)
    flagged = [line for line in stderr if line.lower().startswith("error:")]
    for candidates in (flagged, stderr, _meaningful(output.stdout)):
        if candidates:
            return _first_line(candidates[-1])
    code = f" (exit code {output.code})" if output.code is not None else ""
    return f"no error message{code}"


def _detail(output: CommandOutput, errors: tuple[EngineDiagnostic, ...], lines: int = 8) -> str:
    kept = [one_line(d.message) for d in errors]
    kept += _meaningful(output.stderr)
    if not kept:
        kept = _meaningful(output.stdout)
    kept = [line for line in kept if not line.startswith(("Traceback", "File \""))]
    return "\n".join(kept[-lines:])
