"""Signals and kills during ``gpupool up``: the engine is cancelled, never left running unlocked.

Issue 19, item 16. ``gpupool up`` runs through the stand-in ``pulumi`` (tests/fake_pulumi), which
stops mid-update at a gate (``FAKE_PULUMI_PAUSE``) and cancels like Pulumi on SIGINT or SIGTERM:
the steps in flight finish first (pulumi/pulumi ``pkg/backend/cancellation_scope.go``). So the
tests decide when the engine may exit.

- SIGTERM, SIGINT or SIGHUP to gpupool: the engine receives Pulumi's cancel (SIGINT), gpupool
  waits for it with the lock held (a second ``up`` is refused meanwhile), then exits 130 saying
  it was interrupted; the lock is free afterwards.
- SIGKILL of gpupool, which nothing can catch: the engine keeps the stack lock, because it
  inherited the locked descriptor (an ``flock`` belongs to the open file description), so a
  second ``up`` is refused until the engine has exited.

Waiting loops poll for files the stand-in writes, with a deadline that only a hang reaches.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gpupool.cli import run
from gpupool.lock import lock_path
from tests import fake_pulumi
from tests.paths import EXAMPLES, ROOT

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX signals and flock")

EXAMPLE = EXAMPLES / "aws-inference-l4.yaml"
STACK = "inference-prod"
DEADLINE_S = 60


def wait_for(what: str, done: Callable[[], bool], first: subprocess.Popen[str] | None = None,
             *, alive: bool = True) -> None:
    """Poll ``done`` until it holds; fail if the deadline passes (or ``first`` exits early)."""
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        if done():
            return
        if alive and first is not None and first.poll() is not None:
            pytest.fail(f"gpupool exited before {what}: {first.communicate()}")
        time.sleep(0.02)
    pytest.fail(f"timed out waiting for {what}")


def lock_is_free(path: Path) -> bool:
    fd = os.open(path, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
    return True


@pytest.fixture
def stack_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    fake_pulumi.install(tmp_path / "bin", monkeypatch)
    monkeypatch.setenv("PULUMI_CONFIG_PASSPHRASE", "correct horse battery")
    for name in ("FAKE_PULUMI_SCENARIO", "PULUMI_BACKEND_URL", "FAKE_PULUMI_DELAY_S",
                 "FAKE_PULUMI_PAUSE"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)
    target = tmp_path / "work" / "stack.yaml"
    target.parent.mkdir()
    shutil.copy(EXAMPLE, target)
    return target


@contextlib.contextmanager
def up_paused(stack_file: Path, gate: Path) -> Iterator[subprocess.Popen[str]]:
    """Start ``gpupool up`` in a child; yield it once the engine waits at ``gate``."""
    first = subprocess.Popen(
        [sys.executable, "-m", "gpupool", "up", "--yes", str(stack_file)],
        env={**os.environ, "FAKE_PULUMI_PAUSE": str(gate)}, cwd=ROOT,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    started = Path(f"{gate}.started")
    try:
        wait_for("the engine to start its update", started.exists, first)
        yield first
    finally:
        gate.touch()  # whatever happened, let the engine go
        if first.poll() is None:
            first.kill()
            first.communicate()
        if started.exists():  # the engine may outlive gpupool: make sure it ends
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(started.read_text(encoding="utf-8")), signal.SIGKILL)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP],
                         ids=["SIGTERM", "SIGINT", "SIGHUP"])  # fmt: skip
def test_a_signal_cancels_the_engine_and_gpupool_waits_for_it_holding_the_lock(
    tmp_path: Path, stack_file: Path, capsys: pytest.CaptureFixture[str], sig: signal.Signals
) -> None:
    gate = tmp_path / "gate"
    with up_paused(stack_file, gate) as first:
        first.send_signal(sig)
        # Pulumi's cancel is SIGINT whatever gpupool received (older CLIs ignore SIGTERM)
        signals = Path(f"{gate}.signals")
        wait_for("the engine to receive the forwarded signal", signals.exists, first)
        assert signals.read_text(encoding="utf-8") == "SIGINT"
        assert first.poll() is None  # the engine still finishes its steps: gpupool waits
        assert run(["up", "--yes", str(stack_file)]) == 1
        assert "error: stack is locked by " in capsys.readouterr().err
        gate.touch()  # the steps in flight are done: the engine exits
        _, err = first.communicate(timeout=DEADLINE_S)
    assert first.returncode == 130, err
    [line] = [x for x in err.splitlines() if x.startswith("error:")]
    assert line.startswith(f"error: Interrupted by {sig.name}: Pulumi cancelled the update"), line
    assert lock_is_free(lock_path(stack_file, STACK))
    assert run(["up", "--yes", str(stack_file)]) == 0  # and the next run proceeds


def test_after_a_sigkill_the_engine_keeps_the_lock_until_it_exits(
    tmp_path: Path, stack_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gate = tmp_path / "gate"
    lock = lock_path(stack_file, STACK)
    with up_paused(stack_file, gate) as first:
        first.kill()  # SIGKILL: gpupool cannot forward anything
        first.communicate()
        assert not lock_is_free(lock)  # held by the engine, which inherited the descriptor
        assert run(["up", "--yes", str(stack_file)]) == 1
        err = capsys.readouterr().err
        assert "error: stack is locked by " in err and f"pid {first.pid}" in err, err
        gate.touch()  # the engine finishes (its gpupool is gone) and exits
        wait_for("the engine to exit and free the lock", lambda: lock_is_free(lock), alive=False)
    assert run(["up", "--yes", str(stack_file)]) == 0
