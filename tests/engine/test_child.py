"""``gpupool.engine.child.Command`` runs CLI commands as the SDK's ``PulumiCommand.run`` does.

It stands in for ``pulumi.automation.PulumiCommand.run`` (pulumi SDK 3.272,
``pulumi/automation/_cmd.py``), so each test runs the same command both ways against the
stand-in CLI and compares: the arguments (``--non-interactive`` first), the result, the error
class. Then what differs: the child inherits the descriptors it is given, runs in a session of
its own, and no command starts after a signal was received.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import pytest
from pulumi import automation as auto

from gpupool.engine.child import Command
from tests import fake_pulumi


@pytest.fixture
def found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> auto.PulumiCommand:
    fake_pulumi.install(tmp_path / "bin", monkeypatch)
    monkeypatch.setenv("FAKE_PULUMI_LOG", str(tmp_path / "calls.jsonl"))
    return auto.PulumiCommand()


def command(found: auto.PulumiCommand, keep_fds: tuple[int, ...] = ()) -> Command:
    return Command(found, auto.CommandResult, auto.errors.create_command_error, keep_fds)


def calls(tmp_path: Path) -> list[dict[str, object]]:
    """The CLI invocations after the SDK's ``pulumi version`` check."""
    lines = (tmp_path / "calls.jsonl").read_text(encoding="utf-8").splitlines()
    return [c for c in map(json.loads, lines) if c["argv"] != ["version"]]


def test_a_command_runs_as_the_sdk_runs_it(found: auto.PulumiCommand, tmp_path: Path) -> None:
    lines: list[str] = []
    theirs = found.run(["whoami", "--json"], str(tmp_path), {"PULUMI_BACKEND_URL": "file://x"})
    ours = command(found).run(["whoami", "--json"], str(tmp_path),
                              {"PULUMI_BACKEND_URL": "file://x"}, lines.append)  # fmt: skip
    assert (ours.stdout, ours.stderr, ours.code) == (theirs.stdout, theirs.stderr, theirs.code)
    assert lines == ours.stdout.splitlines()
    first, second = calls(tmp_path)
    # the SDK's order of the flag changed between 3.226 (last) and 3.272 (first); the CLI (cobra)
    # takes flags anywhere, so the same words are the same command
    assert sorted(first["argv"]) == sorted(second["argv"]) == ["--json", "--non-interactive",
                                                               "whoami"]
    assert first["automation"] == second["automation"] == "true"
    assert first["backend"] == second["backend"] == "file://x"


def test_a_failed_command_raises_the_sdk_error(found: auto.PulumiCommand, tmp_path: Path) -> None:
    with pytest.raises(auto.CommandError) as theirs:
        found.run(["nonsense"], str(tmp_path), {})
    with pytest.raises(auto.CommandError) as ours:
        command(found).run(["nonsense"], str(tmp_path), {})
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value)


def test_the_child_inherits_the_descriptors_it_is_given_and_has_its_own_session(
    tmp_path: Path
) -> None:
    """The stack lock's descriptor reaches the CLI; a terminal's ^C does not (own session)."""
    probe = tmp_path / "probe"
    probe.write_text(
        f"#!{sys.executable}\nimport json, os, sys\n"
        "fds = sorted(int(n) for n in os.listdir('/proc/self/fd')) if os.path.isdir("
        "'/proc/self/fd') else []\n"
        "print(json.dumps({'argv': sys.argv[1:], 'sid': os.getsid(0), 'pid': os.getpid(), "
        "'fds': fds}))\n",
        encoding="utf-8",
    )  # fmt: skip
    probe.chmod(0o755)
    held = os.open(tmp_path / "lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        class Found:
            command, version = str(probe), None

        out = json.loads(command(Found(), (held,)).run(["up"], str(tmp_path), {}).stdout)
    finally:
        os.close(held)
    assert out["argv"] == ["--non-interactive", "up"]
    assert out["sid"] == out["pid"] != os.getsid(0)  # a session of its own
    if out["fds"]:
        assert held in out["fds"]


def test_no_command_starts_once_a_signal_was_received(
    found: auto.PulumiCommand, tmp_path: Path
) -> None:
    cli = command(found)
    with cli.forwarding():
        os.kill(os.getpid(), signal.SIGTERM)  # caught: forwarded to no one, remembered
        with pytest.raises(auto.CommandError, match="received SIGTERM"):
            cli.run(["whoami"], str(tmp_path), {})
    assert cli.received == signal.SIGTERM
    assert calls(tmp_path) == []
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # the handler is gone again
