"""Stand-in ``pulumi`` CLI for gpupool's engine tests (the real CLI cannot be installed here).

Run through the ``pulumi`` launcher next to this file (the tests put this folder, or a wrapper
that runs it with the test interpreter, first on PATH).

It answers exactly the commands that the pulumi Python SDK 3.272.0 Automation API issues for a
local program (``pulumi/automation/_cmd.py``, ``_local_workspace.py``, ``_stack.py``):

    pulumi version                                   (version check, no --non-interactive)
    --non-interactive stack select --stack S         ("no stack named 'S' found" when absent)
    --non-interactive stack init S
    --non-interactive preview [--diff] [--refresh] --exec-kind auto.local --event-log L --stack S
    --non-interactive up --yes --skip-preview [--refresh] --exec-kind auto.local --event-log L
        --stack S
    --non-interactive destroy --skip-preview --yes --exec-kind auto.local --event-log L --stack S
    --non-interactive refresh --preview-only --exec-kind auto.local --event-log L --stack S
    --non-interactive stack output --json [--show-secrets] --stack S
    --non-interactive stack history --json --show-secrets --page-size 1 --page 1 --stack S
    --non-interactive stack export --show-secrets --stack S
    --non-interactive config --show-secrets --json --stack S,  whoami [--json]

Anything else (an unknown command or flag) fails with exit 255, so a protocol change in the SDK
shows up as a test failure rather than being faked silently.

Event transport: the SDK picks it from the reported version. Above 3.205.0 it listens on gRPC and
passes ``--event-log tcp://127.0.0.1:PORT``; the fake then streams each engine event as JSON in
``pulumirpc.Events/StreamEvents`` (``EventRequest{string event = 1}``, encoded by hand so that
only ``grpcio`` is needed). At or below 3.205.0 it passes a file path and the fake appends JSON
lines. Either way the last event is ``cancelEvent``, which ends the SDK's file watcher.

Environment:
    FAKE_PULUMI_SCENARIO   recorded scenario in ./scenarios (default ``changes``): changes,
                           no-changes, fail-mid-update, program-error, no-credentials, locked,
                           empty, delete-before-replace, policy (advisory and mandatory policy
                           violations), protected (destroy stops at a protected resource),
                           first-apply (volcengine-a10's first apply, under the names gpupool
                           renders), edited-outside (volcengine-a10 with a ConfigMap edited
                           outside: only a refreshed preview or up sees it); these two are
                           written from the example's graph by vke_scenarios.py. A scenario may
                           ``inherit`` another and override operations. ``preview --refresh``
                           and ``up --refresh`` replay ``preview+refresh`` / ``up+refresh``.
    FAKE_PULUMI_VERSION    version to report (default 3.272.0; 3.200.0 selects the file log).
    FAKE_PULUMI_DELAY_S    seconds preview, up, destroy and refresh wait before answering
                           (default 0), so a test can start a second run while one is going.
    FAKE_PULUMI_PAUSE      a path GATE: ``up`` and ``destroy`` stop mid-update, write their pid to
                           GATE.started and wait until GATE exists. A SIGINT or SIGTERM there
                           cancels the update as Pulumi does (pkg/backend/cancellation_scope.go:
                           the first one cancels, printing "^C received; cancelling..."; the steps
                           in flight still finish): the fake writes the signals' names to
                           GATE.signals, waits for GATE (the steps in flight) unless a second
                           signal terminates it, and fails with "update failed", applying
                           nothing. Without a signal it goes on once GATE exists.
    FAKE_PULUMI_ECHO       comma-separated environment variable names whose values every
                           operation echoes (a warning event, stdout and, on failure, stderr),
                           as a careless provider might: gpupool must scrub them. ``@NAME``
                           echoes the content of the file NAME points at (``@KUBECONFIG``).
    FAKE_PULUMI_LOG        file to which every invocation is appended as a JSON line
                           (argv, cwd, backend, whether a passphrase was set; never its value).
    PULUMI_BACKEND_URL     must be ``file://DIR`` and DIR must exist. State lives in
                           DIR/.pulumi/stacks/<project>/<stack>.json, as in a DIY backend.
    PULUMI_CONFIG_PASSPHRASE / _FILE   required by commands that need the secrets manager; the
                           stack remembers a hash of it (Pulumi.<stack>.yaml ``encryptionsalt``)
                           and rejects a different one with "incorrect passphrase".

The scenario data follow real engine streams (sdk/go/common/apitype/events.go field names, as
read by pulumi/automation/events.py; hand-made examples in tests/engine/events), including what
a stand-in could easily get wrong: ``"detailedDiff": null`` on every step without one, ``"old":
null`` on creates and ``"new": null`` on deletions, ``custom`` omitted for components, a
replacement's steps in the engine's order (``delete-replaced`` last and keyless for
create-before-replace, first and keyless for delete-before-replace), the stack's outputs event
twice in a preview (when its step is planned and when the program registers its outputs) and
once, at the end, in an update, and ``policyEvent`` for policy violations. ``{stack}`` and
``{project}`` are filled in.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import signal
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEFAULT_VERSION = "3.272.0"
SECRET_SIG = "4dabf18193072939515e22adb298388d"
SECRET_VALUE = "1b47061264138c4ac30d75fd1eb44270"
VALUE_FLAGS = {"--stack", "--event-log", "--exec-kind", "--page-size", "--page", "--color",
               "--message", "--secrets-provider", "--config-file", "--parallel"}
COMMANDS: dict[tuple[str, ...], set[str]] = {
    ("whoami",): {"--json"},
    ("stack", "select"): {"--stack", "--create"},
    ("stack", "init"): {"--stack", "--secrets-provider", "--no-select"},
    ("stack", "output"): {"--json", "--show-secrets", "--stack"},
    ("stack", "history"): {"--json", "--show-secrets", "--page-size", "--page", "--stack"},
    ("stack", "export"): {"--show-secrets", "--stack"},
    ("config",): {"--show-secrets", "--json", "--stack"},
    ("preview",): {"--diff", "--json", "--exec-kind", "--event-log", "--stack", "--refresh",
                   "--expect-no-changes", "--color", "--message"},
    ("up",): {"--yes", "--skip-preview", "--diff", "--exec-kind", "--event-log", "--stack",
              "--refresh", "--expect-no-changes", "--color", "--message"},
    ("destroy",): {"--yes", "--skip-preview", "--preview-only", "--exec-kind", "--event-log",
                   "--stack", "--color", "--message"},
    ("refresh",): {"--yes", "--skip-preview", "--preview-only", "--exec-kind", "--event-log",
                   "--stack", "--expect-no-changes", "--color", "--message"},
}
LOCKING = {"up", "destroy", "refresh"}


class Fail(Exception):
    """End the command with ``exit`` code, ``stderr`` and optional ``stdout``."""

    def __init__(self, stderr: str, code: int = 255, stdout: str = "") -> None:
        super().__init__(stderr)
        self.stderr, self.code, self.stdout = stderr, code, stdout


def version() -> str:
    return os.environ.get("FAKE_PULUMI_VERSION", DEFAULT_VERSION)


def version_tuple() -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version())[:3])


def log_invocation(argv: list[str]) -> None:
    path = os.environ.get("FAKE_PULUMI_LOG")
    if not path:
        return
    entry = {"argv": argv, "cwd": os.getcwd(), "backend": os.environ.get("PULUMI_BACKEND_URL"),
             "automation": os.environ.get("PULUMI_AUTOMATION_API"),
             "passphrase_set": passphrase() is not None}
    with open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps(entry) + "\n")


def parse(argv: list[str]) -> tuple[tuple[str, ...], list[str], dict[str, str]]:
    """Split argv into the command words, positional arguments and flags (validated)."""
    words: list[str] = []
    positional: list[str] = []
    flags: dict[str, str] = {}
    i = 0
    while i < len(argv):
        token = argv[i]
        if token == "--non-interactive":
            pass
        elif token.startswith("--"):
            name, eq, value = token.partition("=")
            if name in VALUE_FLAGS and not eq:
                i += 1
                if i >= len(argv):
                    raise Fail(f"error: flag needs an argument: {name}")
                value = argv[i]
            flags[name] = value if (eq or name in VALUE_FLAGS) else "true"
        elif (not flags and (*words, token) in COMMANDS) or (not words and token == "stack"):
            words.append(token)
        else:
            positional.append(token)
        i += 1
    command = tuple(words)
    if command not in COMMANDS:
        shown = " ".join(a for a in argv if a != "--non-interactive")
        raise Fail(f'error: unknown command "{shown}" for "pulumi"')
    unknown = sorted(set(flags) - COMMANDS[command])
    if unknown:
        raise Fail(f"error: unknown flag: {unknown[0]}")
    return command, positional, flags


# -- scenario, backend and secrets -------------------------------------------------------------


def scenario(stack: str, project: str) -> dict[str, Any]:
    name = os.environ.get("FAKE_PULUMI_SCENARIO", "changes")
    data: dict[str, Any] = {}
    chain = []
    while name:
        path = HERE / "scenarios" / f"{name}.json"
        if not path.is_file():
            raise Fail(f"fake pulumi: no scenario {name!r} in {path.parent}", 99)
        text = path.read_text(encoding="utf-8")
        text = text.replace("{stack}", stack).replace("{project}", project)
        chain.append(json.loads(text))
        name = chain[-1].get("inherit", "")
    for layer in reversed(chain):
        data.update(layer)
    return data


def backend_dir() -> Path:
    url = os.environ.get("PULUMI_BACKEND_URL", "")
    if not url:
        raise Fail("error: PULUMI_ACCESS_TOKEN must be set for login during non-interactive "
                   "CLI sessions")
    if not url.startswith("file://"):
        raise Fail(f"fake pulumi: only file:// backends are supported, not {url}", 99)
    path = Path(os.path.expanduser(url[len("file://"):]))
    if not path.is_absolute():
        path = Path.cwd() / path
    if not path.is_dir():
        raise Fail(f"error: could not create backend: the directory {path} does not exist")
    return path


def project_name() -> str:
    project = Path.cwd() / "Pulumi.yaml"
    if not project.is_file():
        raise Fail(f"error: no Pulumi.yaml project file found (searching upwards from "
                   f"{Path.cwd()}). If you have not created a project yet, use `pulumi new`")
    match = re.search(r"^name:\s*['\"]?([\w.-]+)", project.read_text(encoding="utf-8"), re.M)
    if match is None:
        raise Fail("error: failed to load Pulumi.yaml: project is missing a 'name' attribute")
    return match.group(1)


def passphrase() -> str | None:
    value = os.environ.get("PULUMI_CONFIG_PASSPHRASE")
    if value:
        return value
    path = os.environ.get("PULUMI_CONFIG_PASSPHRASE_FILE")
    if path and Path(path).is_file():
        return Path(path).read_text(encoding="utf-8").strip() or None
    return None


def check_passphrase(stack: str, *, init: bool = False) -> None:
    """Fail like the passphrase secrets manager when the passphrase is missing or wrong."""
    secret = passphrase()
    if secret is None:
        raise Fail('error: constructing secrets manager of type "passphrase": passphrase must '
                   "be set with PULUMI_CONFIG_PASSPHRASE or PULUMI_CONFIG_PASSPHRASE_FILE "
                   "environment variables")
    salt = "v1:fake:" + hashlib.sha256(secret.encode()).hexdigest()[:16]
    settings = Path.cwd() / f"Pulumi.{stack}.yaml"
    recorded = re.search(r"^encryptionsalt:\s*(\S+)", settings.read_text(encoding="utf-8"),
                         re.M) if settings.is_file() else None
    if recorded is None and init:
        with settings.open("a", encoding="utf-8") as out:
            out.write(f"encryptionsalt: {salt}\n")
    elif recorded is not None and recorded.group(1) != salt:
        raise Fail("error: incorrect passphrase, please set PULUMI_CONFIG_PASSPHRASE to the "
                   "correct passphrase or set PULUMI_CONFIG_PASSPHRASE_FILE to a file "
                   "containing the passphrase")


class Backend:
    """The DIY backend layout: ``.pulumi/stacks/<project>/<stack>.json`` plus history."""

    def __init__(self, stack: str) -> None:
        self.stack = stack
        self.project = project_name()
        root = backend_dir() / ".pulumi"
        self.state_path = root / "stacks" / self.project / f"{stack}.json"
        self.history_path = root / "history" / self.project / stack / "fake-history.json"
        self.meta = root / "meta.yaml"

    def exists(self) -> bool:
        return self.state_path.is_file()

    def require(self) -> None:
        if not self.exists():
            raise Fail(f"error: no stack named '{self.stack}' found")

    def load(self) -> dict[str, Any]:
        return json.loads(self.state_path.read_text(encoding="utf-8"))

    def save(self, state: dict[str, Any]) -> None:
        self.state_path.parent.mkdir(parents=True, exist_ok=True)
        self.meta.write_text("version: 1\n", encoding="utf-8")
        self.state_path.write_text(json.dumps(state, indent=4) + "\n", encoding="utf-8")

    def history(self) -> list[dict[str, Any]]:
        if not self.history_path.is_file():
            return []
        return json.loads(self.history_path.read_text(encoding="utf-8"))

    def record(self, kind: str, ok: bool, changes: dict[str, int]) -> None:
        entries = self.history()
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
        entries.append({"kind": kind, "startTime": stamp, "endTime": stamp, "message": "",
                        "environment": {"exec.kind": "auto.local"}, "config": {},
                        "result": "succeeded" if ok else "failed",
                        "version": len(entries) + 1, "resourceChanges": changes})
        self.history_path.parent.mkdir(parents=True, exist_ok=True)
        self.history_path.write_text(json.dumps(entries, indent=2), encoding="utf-8")


def new_state() -> dict[str, Any]:
    return {"version": 3, "deployment": {
        "manifest": {"time": "2026-01-01T00:00:00Z", "magic": "fake", "version": "v" + version()},
        "secrets_providers": {"type": "passphrase", "state": {"salt": "v1:fake"}}}}


def encrypt(value: Any) -> dict[str, str]:
    token = base64.b64encode(json.dumps(value).encode()).decode()
    return {SECRET_SIG: SECRET_VALUE, "ciphertext": token}


def decrypt_all(value: Any) -> Any:
    """Turn ciphertext envelopes into plaintext ones, as ``--show-secrets`` does."""
    if isinstance(value, dict):
        if value.get(SECRET_SIG) == SECRET_VALUE and "ciphertext" in value:
            plain = base64.b64decode(value["ciphertext"]).decode()
            return {SECRET_SIG: SECRET_VALUE, "plaintext": plain}
        return {k: decrypt_all(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decrypt_all(v) for v in value]
    return value


# -- commands --------------------------------------------------------------------------------


def stack_outputs(backend: Backend, show_secrets: bool) -> dict[str, Any]:
    for resource in backend.load()["deployment"].get("resources", []):
        if resource["type"] == "pulumi:pulumi:Stack":
            result = {}
            for key, value in resource.get("outputs", {}).items():
                if isinstance(value, dict) and value.get(SECRET_SIG) == SECRET_VALUE:
                    value = (json.loads(base64.b64decode(value["ciphertext"]))
                             if show_secrets else "[secret]")
                result[key] = value
            return result
    return {}


def check_lock(data: dict[str, Any], backend: Backend, operation: str,
               flags: dict[str, str]) -> None:
    lock = data.get("lock")
    if not lock or operation not in LOCKING:
        return
    # refresh --preview-only stopped taking the DIY lock in 3.229.0 (pulumi/pulumi#22385).
    if operation == "refresh" and "--preview-only" in flags and version_tuple() >= (3, 229):
        return
    url = os.environ["PULUMI_BACKEND_URL"].rstrip("/")
    path = f".pulumi/locks/organization/{backend.project}/{backend.stack}/{lock['id']}.json"
    raise Fail("error: the stack is currently locked by 1 lock(s). Either wait for the other "
               "process(es) to end or delete the lock file with `pulumi cancel`.\n"
               f"  {url}/{path}: created by {lock['username']}@{lock['hostname']} "
               f"(pid {lock['pid']}) at {lock['timestamp']}")


def send_events(target: str | None, events: list[dict[str, Any]]) -> None:
    if not target:
        return
    stamp = int(time.time())
    lines = [json.dumps({"sequence": n, "timestamp": stamp, **event})
             for n, event in enumerate([*events, {"cancelEvent": {}}])]
    if target.startswith("tcp://"):
        stream_grpc(target[len("tcp://"):], lines)
        return
    with open(target, "a", encoding="utf-8") as log:
        for line in lines:
            log.write(line + "\n")
            log.flush()


def stream_grpc(address: str, lines: list[str]) -> None:
    import grpc

    def encode(text: str) -> bytes:  # EventRequest { string event = 1; }
        data = text.encode("utf-8")
        size, prefix = len(data), bytearray(b"\x0a")
        while True:
            byte, size = size & 0x7F, size >> 7
            prefix.append(byte | (0x80 if size else 0))
            if not size:
                return bytes(prefix) + data

    with grpc.insecure_channel(address, options=[("grpc.enable_http_proxy", 0)]) as channel:
        call = channel.stream_unary("/pulumirpc.Events/StreamEvents",
                                    request_serializer=encode,
                                    response_deserializer=lambda raw: raw)
        call(iter(lines), timeout=30)


def apply_to_state(backend: Backend, events: list[dict[str, Any]], op: dict[str, Any],
                   ok: bool) -> None:
    """Write the resources whose steps completed (and, on success, the outputs) to state."""
    state = backend.load()
    resources = {r["urn"]: r for r in state["deployment"].get("resources", [])}
    for event in events:
        meta = event.get("resOutputsEvent", {}).get("metadata")
        if not meta:
            continue
        if meta["op"] in ("delete", "delete-replaced"):
            if meta["op"] == "delete":
                resources.pop(meta["urn"], None)
        elif meta.get("new"):
            new = meta["new"]
            resources[meta["urn"]] = {"urn": new["urn"], "custom": new.get("custom", True),
                                      "id": new.get("id", ""), "type": new["type"],
                                      "inputs": new.get("inputs", {}),
                                      "outputs": dict(new.get("inputs", {})),
                                      "parent": new.get("parent", "")}
    if ok and op.get("outputs"):
        for resource in resources.values():
            if resource["type"] == "pulumi:pulumi:Stack":
                secret = set(op.get("secret_outputs", []))
                resource["outputs"] = {k: encrypt(v) if k in secret else v
                                       for k, v in op["outputs"].items()}
    state["deployment"]["resources"] = list(resources.values())
    if not state["deployment"]["resources"]:
        del state["deployment"]["resources"]
    backend.save(state)


def echoed() -> str:
    """What ``FAKE_PULUMI_ECHO`` asks to print: one ``NAME=value`` line per variable."""
    names = [n for n in os.environ.get("FAKE_PULUMI_ECHO", "").split(",") if n]
    out = []
    for name in names:
        if name.startswith("@"):  # the content of the file the variable names
            path = Path(os.environ.get(name[1:], "/nonexistent"))
            out.append(f"debug: {name[1:]} says:\n" + (path.read_text(encoding="utf-8")
                                                         if path.is_file() else ""))
        else:
            out.append(f"debug: {name}={os.environ.get(name, '')}\n")
    return "".join(out)


def operation(name: str, flags: dict[str, str]) -> None:
    stack = flags.get("--stack", "")
    backend = Backend(stack)
    backend.require()
    check_passphrase(stack)
    data = scenario(stack, backend.project)
    check_lock(data, backend, name, flags)
    # preview --refresh / up --refresh replay their own recording ("preview+refresh"), so a
    # scenario without one cannot pass for a refreshed run.
    key = f"{name}+refresh" if "--refresh" in flags else name
    op = data.get(key)
    if op is None:
        raise Fail(f"fake pulumi: scenario has no recorded {key!r} operation", 99)
    events = op.get("events", [])
    echo = echoed()
    if echo:
        events = [*events[:1], {"diagnosticEvent": {
            "message": echo, "color": "raw", "severity": "warning", "prefix": "warning: ",
            "urn": f"urn:pulumi:{stack}::{backend.project}::pulumi:pulumi:Stack::"
                   f"{backend.project}-{stack}"}}, *events[1:]]
        op = {**op, "stdout": op.get("stdout", "") + echo, "stderr": op.get("stderr", "") + echo}
    time.sleep(float(os.environ.get("FAKE_PULUMI_DELAY_S", "0") or 0))
    if os.environ.get("FAKE_PULUMI_PAUSE") and name in ("up", "destroy"):
        cancelled = pause_mid_update(Path(os.environ["FAKE_PULUMI_PAUSE"]))
        if cancelled:
            send_events(flags.get("--event-log"), events[:1])
            raise Fail("error: update failed", 255, cancelled)
    send_events(flags.get("--event-log"), events)
    code = int(op.get("exit", 0))
    writes = name in ("up", "destroy") or (name == "refresh" and "--preview-only" not in flags)
    if writes:
        apply_to_state(backend, events, op, code == 0)
        summary = next((e["summaryEvent"]["resourceChanges"] for e in events
                        if "summaryEvent" in e), {})
        backend.record("update" if name == "up" else name, code == 0, summary)
    if code:
        raise Fail(op.get("stderr", ""), code, op.get("stdout", ""))
    sys.stdout.write(op.get("stdout", ""))


def pause_mid_update(gate: Path) -> str:
    """Wait at ``gate`` (see FAKE_PULUMI_PAUSE); return Pulumi's cancel message if signalled."""
    received: list[int] = []

    def cancel(signum: int, frame: object) -> None:
        received.append(signum)
        if len(received) > 1:  # "^C received; terminating"
            os._exit(255)
        Path(f"{gate}.signals").write_text(signal.Signals(signum).name, encoding="utf-8")

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, cancel)
    started = Path(f"{gate}.started.tmp")
    started.write_text(str(os.getpid()), encoding="utf-8")
    started.replace(f"{gate}.started")
    while not gate.exists() and not received:
        time.sleep(0.02)
    if not received:
        return ""
    while not gate.exists():  # the steps in flight finish
        time.sleep(0.02)
    return ("^C received; cancelling. If you would like to terminate immediately, press ^C "
            "again.\nNote that terminating immediately may lead to orphaned resources and other "
            "inconsistencies.\n")


def run(argv: list[str]) -> None:
    if argv == ["version"]:
        print(f"v{version()}")
        return
    command, positional, flags = parse(argv)
    if command == ("whoami",):
        print(json.dumps({"user": "fake", "url": os.environ.get("PULUMI_BACKEND_URL")})
              if "--json" in flags else "fake")
        return
    stack = flags.get("--stack") or (positional[0] if positional else "")
    if not stack:
        raise Fail("error: no stack selected; please use `pulumi stack select`")
    backend = Backend(stack)
    if command == ("stack", "select"):
        backend.require()
    elif command == ("stack", "init"):
        if backend.exists():
            raise Fail(f"error: stack '{stack}' already exists")
        check_passphrase(stack, init=True)
        backend.save(new_state())
        print(f"Created stack '{stack}'")
    elif command == ("stack", "output"):
        backend.require()
        print(json.dumps(stack_outputs(backend, "--show-secrets" in flags), indent=2))
    elif command == ("stack", "history"):
        backend.require()
        entries = list(reversed(backend.history()))
        if "--page-size" in flags:
            size, page = int(flags["--page-size"]), int(flags.get("--page", "1"))
            entries = entries[(page - 1) * size: page * size]
        print(json.dumps(entries, indent=2))
    elif command == ("stack", "export"):
        backend.require()
        state = backend.load()
        if "--show-secrets" in flags:
            check_passphrase(stack)
            state = decrypt_all(state)
        print(json.dumps(state, indent=4))
    elif command == ("config",):
        backend.require()
        print("{}")
    else:
        operation(command[0], flags)


def main() -> int:
    argv = sys.argv[1:]
    log_invocation(argv)
    try:
        run(argv)
    except Fail as failure:
        sys.stdout.write(failure.stdout)
        if failure.stderr:
            sys.stderr.write(failure.stderr.rstrip("\n") + "\n")
        return failure.code
    return 0


if __name__ == "__main__":
    sys.exit(main())
