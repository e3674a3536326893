"""The per-stack lock: a second run is refused and told who holds the lock."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from gpupool.errors import StackLockedError
from gpupool.lock import lock_path, stack_lock

HOLD = """
import sys, time
from pathlib import Path
from gpupool.lock import stack_lock
with stack_lock(Path(sys.argv[1]), "up"):
    print("held", flush=True)
    time.sleep(30)
"""


def test_second_holder_is_refused_with_who_holds_it(tmp_path: Path) -> None:
    """While another process holds the lock, taking it fails naming pid and command."""
    path = lock_path(tmp_path / "stack.yaml", "prod")
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        with pytest.raises(StackLockedError) as exc, stack_lock(path, "destroy"):
            pass
        assert f"pid {proc.pid}" in str(exc.value)
        assert "'up'" in str(exc.value)
    finally:
        proc.kill()
        proc.wait()
    # A killed holder leaves no stale lock behind.
    deadline = time.time() + 5
    while True:
        try:
            with stack_lock(path, "up"):
                break
        except StackLockedError:
            if time.time() > deadline:
                raise
            time.sleep(0.05)


def test_lock_is_reentrant_after_release(tmp_path: Path) -> None:
    """Sequential runs in one process take the lock one after another."""
    path = lock_path(tmp_path / "s.yaml", "x")
    with stack_lock(path, "up"):
        pass
    with stack_lock(path, "up"):
        pass
    assert path.exists()
