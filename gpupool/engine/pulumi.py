"""Running a rendered Pulumi program through Pulumi's Automation API.

This module is the only importer of ``pulumi.automation``, and imports it lazily inside the
functions that need it, so ``import gpupool.engine.pulumi`` stays cheap and works without the
SDK. It owns: finding and version-checking the ``pulumi`` CLI, selecting (or creating) the stack
for an ``EngineTarget`` against its backend, and running preview, up, destroy, a read-only
refresh preview and a state export. Results come back as ``gpupool.engine.results`` values;
failures as ``gpupool.errors`` classes chosen by ``gpupool.engine.failures``.

It does not render programs (``gpupool.render``), record applied state (``gpupool.record``) or
print anything: progress goes to the caller's ``on_event`` callback.

Protocol notes (pulumi SDK 3.272): every operation is a subprocess call to ``pulumi`` with
``--non-interactive`` and ``--stack``; engine events come back over ``--event-log`` (a temporary
file for CLI <= 3.205, a gRPC stream after). The backend is passed as ``PULUMI_BACKEND_URL``,
never through ``pulumi login``. Each CLI command is started by ``gpupool.engine.child.Command``
(signals forwarded, the stack lock inherited), never by the SDK's ``PulumiCommand.run``; the CLI
is found and version-checked before a ``file://`` backend is created, and only operations that
create the stack create it. ``refresh_preview`` runs ``refresh --preview-only`` (never
``--expect-no-changes``, which writes state before it fails). The SDK must be 3.226 or newer:
3.224.0 to 3.225.1 drop every engine event whose ``detailedDiff`` is null, which CLIs since
3.103 send on most steps (pulumi/pulumi#22105).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from gpupool.engine.child import Command
from gpupool.engine.collector import EventCollector
from gpupool.engine.failures import (
    INSTALL_URL,
    classify,
    engine_error,
    interrupted,
    not_installed,
    parse_command_error,
)
from gpupool.engine.results import EngineResult, EngineTarget, ProgressEvent
from gpupool.errors import CredentialsError, EngineError, EngineNotInstalledError
from gpupool.secrets import secret_values

__all__ = [
    "MINIMUM_CLI_VERSION",
    "check_ready",
    "destroy",
    "export_state",
    "preview",
    "refresh_preview",
    "up",
]

#: ``refresh --preview-only`` arrived in CLI 3.105.0; below that a drift check would have to
#: write state, so gpupool refuses older CLIs.
MINIMUM_CLI_VERSION = "3.105.0"

OnEvent = Callable[[ProgressEvent], None]
_Operation = Callable[[Any, Callable[[Any], None]], tuple[str, Mapping[str, object], Any]]

_SKIP_VERSION_CHECK = "PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK"
_SECRET_SIG = ("4dabf18193072939515e22adb298388d", "1b47061264138c4ac30d75fd1eb44270")
_PROJECT_FILES = ("Pulumi.yaml", "Pulumi.yml", "Pulumi.json")


def preview(target: EngineTarget, on_event: OnEvent | None = None, *,
            refresh: bool = False) -> EngineResult:
    """Preview the changes ``up`` would make (``pulumi preview``); creates the stack if new.

    With ``refresh`` the engine first reads every resource in state from the cloud
    (``pulumi preview --refresh``; the SDK's ``refresh=True``, the same keyword from 3.226 to
    3.272) and plans against what it found; those refresh steps come back marked
    ``refreshed``. Nothing is written: a preview's refresh is a preview too.

    Raises:
        EngineNotInstalledError: no usable ``pulumi`` CLI.
        StackLockedError, CredentialsError, ProgramError, EngineError: the preview failed.

    """
    def run(stack: Any, handle: Callable[[Any], None]) -> tuple[str, Mapping[str, object], Any]:
        result = stack.preview(on_event=handle, refresh=refresh or None)
        return result.stdout, {}, result.change_summary

    return _run("preview", target, on_event, run, create=True)


def up(target: EngineTarget, on_event: OnEvent | None = None, *,
       refresh: bool = False) -> EngineResult:
    """Apply the program (``pulumi up --yes --skip-preview``); creates the stack if new.

    With ``refresh`` the engine refreshes state from the cloud first (``pulumi up --refresh``)
    and then converges on the program, so changes made outside are undone or adopted.

    Raises:
        UpdateFailedError: a resource failed; ``err.partial`` holds the steps that applied.
        EngineNotInstalledError, StackLockedError, CredentialsError, ProgramError, EngineError:
            the update could not run.

    """
    def run(stack: Any, handle: Callable[[Any], None]) -> tuple[str, Mapping[str, object], Any]:
        result = stack.up(on_event=handle, refresh=refresh or None)
        outputs = {key: "[secret]" if value.secret else value.value
                   for key, value in result.outputs.items()}
        return result.stdout, outputs, result.summary.resource_changes

    return _run("up", target, on_event, run, create=True)


def destroy(target: EngineTarget, on_event: OnEvent | None = None) -> EngineResult:
    """Delete the stack's resources (``pulumi destroy --yes --skip-preview``).

    A stack that does not exist has nothing to destroy: the result is empty.

    Raises:
        UpdateFailedError: a deletion failed; ``err.partial`` holds the steps that applied.
        EngineNotInstalledError, StackLockedError, CredentialsError, EngineError: as for ``up``.

    """
    def run(stack: Any, handle: Callable[[Any], None]) -> tuple[str, Mapping[str, object], Any]:
        result = stack.destroy(on_event=handle)
        return result.stdout, {}, result.summary.resource_changes

    return _run("destroy", target, on_event, run, create=False)


def refresh_preview(target: EngineTarget, on_event: OnEvent | None = None) -> EngineResult:
    """Compare recorded state with the cloud without writing state (``refresh --preview-only``).

    Steps carry the refresh outcome (``same``, ``update``, ``delete``); ``result.changed`` means
    drift. A stack that does not exist has recorded nothing: the result is empty.
    """
    def run(stack: Any, handle: Callable[[Any], None]) -> tuple[str, Mapping[str, object], Any]:
        result = stack.preview_refresh(on_event=handle)
        return result.stdout, {}, result.change_summary

    return _run("refresh-preview", target, on_event, run, create=False)


def export_state(target: EngineTarget) -> dict[str, Any] | None:
    """Return the stack's state (``pulumi stack export``) with secret values redacted.

    Returns:
        ``{"version": ..., "deployment": {...}}``, or ``None`` when the stack does not exist.
        Every secret value is replaced by the string ``"[secret]"``.

    """
    auto = _automation()
    secrets = secret_values(target.env)
    collector = EventCollector("export", secrets=secrets)
    _require_project(Path(target.work_dir))
    command = _pulumi_command(auto, target)
    try:
        stack = _open_stack(auto, target, command, create=False)
        if stack is None:
            return None
        deployment = stack.export_stack()
    except auto.CommandError as exc:
        output = parse_command_error(str(exc))
        raise classify("export", target.stack_name, output, collector, secrets) from exc
    state = {"version": deployment.version, "deployment": deployment.deployment}
    redacted: dict[str, Any] = _redact(state)
    return redacted


def check_ready(target: EngineTarget) -> None:
    """Check, without running an operation, what every operation on ``target`` needs.

    The SDK, a ``pulumi`` CLI new enough (``pulumi version``), and for a backend that keeps
    secrets with a passphrase the passphrase in the environment. ``up`` and ``destroy`` call
    this before they ask for confirmation, so a user never says "yes" to a run that cannot
    start.

    Raises:
        EngineNotInstalledError: no SDK, or no usable ``pulumi`` CLI.
        CredentialsError: the backend needs a passphrase and none is set.

    """
    _pulumi_command(_automation(), target)
    _check_passphrase(target)


def _check_passphrase(target: EngineTarget) -> None:
    """Raise ``CredentialsError`` when the backend's passphrase secrets manager would fail.

    Self-managed backends (``file://``, ``s3://``, ``gs://``, ``azblob://``, ``postgres://``)
    default to the passphrase secrets manager; Pulumi Cloud (``https://``) keeps secrets itself.
    The rule is the CLI's ``readPassphrase`` (pulumi/pulumi
    ``pkg/secrets/passphrase/manager.go``): ``PULUMI_CONFIG_PASSPHRASE`` set, even empty, is
    enough; otherwise ``PULUMI_CONFIG_PASSPHRASE_FILE`` must name a file it can read.
    """
    if target.backend_url.startswith(("https://", "http://")):
        return
    env = {**os.environ, **target.env}
    if "PULUMI_CONFIG_PASSPHRASE" in env:
        return
    phrase_file = env.get("PULUMI_CONFIG_PASSPHRASE_FILE", "")
    if phrase_file:
        if Path(phrase_file).is_file() and os.access(phrase_file, os.R_OK):
            return
        raise engine_error(CredentialsError, f"PULUMI_CONFIG_PASSPHRASE_FILE names {phrase_file}, "
                           "which cannot be read: point it at the file holding the state "
                           "passphrase.")
    raise engine_error(CredentialsError, "The state passphrase is not set: the backend "
                       f"{target.backend_url} encrypts secrets with one; export "
                       "PULUMI_CONFIG_PASSPHRASE (or PULUMI_CONFIG_PASSPHRASE_FILE) and retry.")


# -- running ---------------------------------------------------------------------------------


def _automation() -> ModuleType:
    """Import ``pulumi.automation`` on first use."""
    try:
        from pulumi import automation
    except ImportError as exc:  # the SDK is a dependency, but say what to do if it is gone
        raise engine_error(
            EngineNotInstalledError,
            f"The pulumi Python package is not installed ({exc}): pip install 'pulumi>=3.226,<4'."
        ) from exc
    return automation


def _run(kind: str, target: EngineTarget, on_event: OnEvent | None, operation: _Operation,
         *, create: bool) -> EngineResult:
    auto = _automation()
    secrets = secret_values(target.env)
    collector = EventCollector(kind, on_event, secrets=secrets)
    _require_project(Path(target.work_dir))
    command = _pulumi_command(auto, target)
    with command.forwarding():  # a SIGTERM cancels the engine, then gpupool waits for it
        try:
            stack = _open_stack(auto, target, command, create=create)
            if stack is None:
                return collector.result()
            stdout, outputs, summary = operation(stack, collector.handle)
        except auto.CommandError as exc:
            output = parse_command_error(str(exc))
            error = classify(kind, target.stack_name, output, collector, secrets)
            if command.received is not None:
                raise interrupted(kind, command.received, error, collector) from exc
            raise error from exc
        except RuntimeError as exc:  # the SDK's "summary event never found": events were lost
            raise engine_error(EngineError, f"Pulumi {kind} finished without reporting a "
                               f"summary ({exc}): retry, and check that the CLI and SDK "
                               "versions match.") from exc
    return collector.result(outputs, stdout, summary)


def _require_project(work_dir: Path) -> None:
    """Refuse a work dir without a Pulumi project before any CLI call."""
    if not any((work_dir / name).is_file() for name in _PROJECT_FILES):
        raise engine_error(EngineError, f"No Pulumi project (Pulumi.yaml) in {work_dir}: render "
                           "the stack first (`gpupool render`).")


def _open_stack(auto: ModuleType, target: EngineTarget, command: Command, *,
                create: bool) -> Any | None:
    """Select (or create) the target's stack; ``None`` if ``create`` is false and it is absent."""
    work_dir = Path(target.work_dir)
    if not _backend_ready(target.backend_url, work_dir, create=create):
        return None  # a file backend that does not exist has recorded no stack
    options = auto.LocalWorkspaceOptions(
        work_dir=str(work_dir),
        env_vars=_environment(target),
        pulumi_command=command,
    )
    if create:
        return auto.create_or_select_stack(target.stack_name, work_dir=str(work_dir),
                                           opts=options)
    try:
        return auto.select_stack(target.stack_name, work_dir=str(work_dir), opts=options)
    except auto.StackNotFoundError:
        return None


def _pulumi_command(auto: ModuleType, target: EngineTarget) -> Command:
    """Find ``pulumi`` on PATH and check its version, or raise ``EngineNotInstalledError``.

    The SDK's ``PulumiCommand`` finds and checks it; ``gpupool.engine.child.Command`` runs it, so
    that signals reach it and the stack lock (``target.keep_fds``) is held while it runs.
    """
    if shutil.which("pulumi") is None:
        raise not_installed()
    from semver import VersionInfo  # a dependency of the pulumi SDK

    skip = _SKIP_VERSION_CHECK in target.env
    try:
        found = auto.PulumiCommand(version=VersionInfo.parse(MINIMUM_CLI_VERSION),
                                   skip_version_check=skip)
        return Command(found, auto.CommandResult, auto.errors.create_command_error,
                       target.keep_fds)
    except (OSError, subprocess.CalledProcessError) as exc:
        raise not_installed() from exc
    except auto.InvalidVersionError as exc:
        text = str(exc)
        found = re.search(r"current CLI version is (\S+?)\.?(?:\s|$)", text)
        if found and "Minimum version" in text:
            raise not_installed(found.group(1), MINIMUM_CLI_VERSION) from exc
        first = text.split(". ")[0].rstrip(".")
        raise engine_error(
            EngineNotInstalledError,
            f"Pulumi CLI version check failed ({first}): install a CLI matching the pulumi "
            f"Python package ({INSTALL_URL}) — `gpupool plan` works without it.") from exc


def _environment(target: EngineTarget) -> dict[str, str]:
    """Environment for every CLI call: target env, the backend, no update check."""
    env = {"PULUMI_SKIP_UPDATE_CHECK": "true"}
    env.update(target.env)
    env["PULUMI_BACKEND_URL"] = target.backend_url
    return env


def _backend_ready(backend_url: str, work_dir: Path, *, create: bool) -> bool:
    """Make sure a ``file://`` backend directory exists; say whether the backend can be used.

    Only an operation that creates the stack (``preview``, ``up``) creates the directory (the
    CLI refuses a missing one), and only once the CLI has been found. The others (``destroy``,
    drift's refresh, the state export) create nothing: a missing directory holds no stack.
    """
    if not backend_url.startswith("file://"):
        return True
    path = Path(os.path.expanduser(backend_url[len("file://"):] or "."))
    if not path.is_absolute():  # the CLI resolves relative paths from its cwd, the work dir
        path = work_dir / path
    if not create:
        return path.is_dir()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise engine_error(EngineError, f"Cannot create the state backend directory {path}: "
                           f"{exc.strerror}.") from exc
    return True


def _redact(value: Any) -> Any:
    """Replace Pulumi secret envelopes (``{sig: ..., plaintext|ciphertext: ...}``) by a marker."""
    if isinstance(value, dict):
        if value.get(_SECRET_SIG[0]) == _SECRET_SIG[1]:
            return "[secret]"
        return {key: _redact(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_redact(item) for item in value]
    return value
