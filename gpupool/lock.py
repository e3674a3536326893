"""A per-stack lock so two ``gpupool up`` (or ``destroy``) runs on one stack cannot both proceed.

The lock is an ``fcntl.flock`` on ``.gpupool/locks/<stack>.lock`` beside the stack file: the
kernel drops it when the holder exits, however it exits, so a killed run never leaves a stale
lock. The file records who holds it (user, host, pid, command, start time) so the second run can
say so. Pulumi's own backend lock still applies on top; this one also guards gpupool's record.

The holder's name is written into the locked file itself, not replaced atomically: renaming a new
file over it would hand the next run a different inode, and with it a lock of its own. So the file
is opened where it is found, and nothing else may be there: ``.gpupool`` and ``.gpupool/locks``
are reached without following a link (``gpupool.files.open_dir``), the file is opened with
``O_NOFOLLOW`` and must be a regular file with one name (a link or a hard link would otherwise let
the holder's name truncate another file). The stack name is checked by
``gpupool.files.check_name``, the rule the applied record follows too.

An ``flock`` belongs to the open file description, not to the process: a child that inherits the
descriptor ``stack_lock`` yields keeps the lock held after its parent is gone, however the parent
died. ``gpupool.usecases.engine`` hands it to the engine's ``pulumi`` process for that reason.
"""

from __future__ import annotations

import fcntl
import getpass
import json
import os
import socket
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from gpupool.errors import StackLockedError, StateError
from gpupool.files import anchored, check_name, open_dir


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


def _open(path: Path) -> int:
    """Open (or create) the lock file, refusing links, hard links, FIFOs and devices."""
    try:
        with open_dir(*anchored(path.parent), create=True) as directory:
            fd = directory.open(path.name, os.O_RDWR | os.O_CREAT | os.O_NONBLOCK, 0o600)
    except OSError as exc:
        raise StateError(f"cannot open the stack lock {path}: {exc.strerror or exc}") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
        os.close(fd)
        what = "a regular file" if not stat.S_ISREG(st.st_mode) else "a file with one name"
        raise StateError(f"cannot use the stack lock {path}: it is not {what}; remove it")
    return fd


@contextmanager
def stack_lock(path: Path, command: str) -> Iterator[int]:
    """Hold the stack's lock for the duration of the block.

    Yields:
        The locked file's descriptor (not inheritable; a child given it in ``pass_fds`` holds
        the lock for as long as it keeps it open).

    Raises:
        StackLockedError: another run holds the lock; the message says who and since when.
        StateError: the lock file cannot be opened, or is a link, a hard link or not a file.

    """
    fd = _open(path)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StackLockedError(
                f"stack is locked by {_holder(fd)}; wait for it to finish "
                "(the lock is released when that process and the engine it started have exited)"
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
        yield fd
    finally:
        os.close(fd)  # closing drops the flock
