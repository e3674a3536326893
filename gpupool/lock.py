"""A per-stack lock so two ``gpupool up`` (or ``destroy``) runs on one stack cannot both proceed.

The lock is an ``fcntl.flock`` on ``.gpupool/locks/<stack>.lock`` beside the stack file: the
kernel drops it when the holder exits, however it exits, so a killed run never leaves a stale
lock. The file records who holds it (user, host, pid, command, start time) so the second run can
say so. Pulumi's own backend lock still applies on top; this one also guards gpupool's record.

The holder's name is written into the locked file itself, not replaced atomically: renaming a new
file over it would hand the next run a different inode, and with it a lock of its own. The stack
name is checked by ``gpupool.files.check_name``, the rule the applied record follows too.
"""

from __future__ import annotations

import fcntl
import getpass
import json
import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from gpupool.errors import StackLockedError, StateError
from gpupool.files import check_name


def lock_path(stack_file: Path, stack_name: str) -> Path:
    """Return the lock file of a stack (``StateError`` for a name that is not a file name)."""
    check_name(stack_name, StateError)
    return stack_file.resolve().parent / ".gpupool" / "locks" / f"{stack_name}.lock"


def _holder(fd: int) -> str:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        info = json.loads(os.read(fd, 4096).decode("utf-8") or "{}")
    except (OSError, ValueError):
        return "another gpupool run"
    if not isinstance(info, dict) or "pid" not in info:  # it has the lock, not yet its name
        return "another gpupool run that is just starting"
    when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(info.get("since", 0)))
    return (
        f"{info.get('user', '?')}@{info.get('host', '?')} (pid {info.get('pid', '?')}, "
        f"'{info.get('command', '?')}', since {when})"
    )


@contextmanager
def stack_lock(path: Path, command: str) -> Iterator[None]:
    """Hold the stack's lock for the duration of the block.

    Raises:
        StackLockedError: another run holds the lock; the message says who and since when.

    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StackLockedError(
                f"stack is locked by {_holder(fd)}; wait for it to finish "
                "(the lock is released when that process exits)"
            ) from None
        info = {
            "user": getpass.getuser(),
            "host": socket.gethostname(),
            "pid": os.getpid(),
            "command": command,
            "since": int(time.time()),
        }
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, json.dumps(info).encode("utf-8"))
        yield
    finally:
        os.close(fd)  # closing drops the flock
