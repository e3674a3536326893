"""Safe file names and atomic file writes: the one way gpupool puts a file on disk.

This module owns two rules every writer follows:

- ``check_name``: a name that becomes one path component (a stack name in
  ``.gpupool/applied/<stack>.json`` or ``.gpupool/locks/<stack>.lock``) must be one plain file
  name, never a way out of its directory;
- ``write_atomic``: a file is replaced by renaming a complete temporary file over it, so a reader
  (or a crash, or a SIGKILL) sees the old file or the new one, never part of either. The
  temporary file lives in the same directory (a rename never crosses file systems), is created
  with ``O_EXCL`` (never through a file or link already there), is flushed and fsynced before the
  rename, and the directory is fsynced after it so the rename itself survives a power cut
  (``durable``; a rendered program, rebuilt by every run that uses it, skips the fsyncs).
  Temporary files are named ``<prefix><pid>.<serial><suffix>``; a writer killed before its rename
  leaves one behind, and the next write there removes it once that pid is gone.

It knows nothing of what the files hold: ``gpupool.record`` writes the applied record and
``gpupool.render`` the program through it, each turning ``OSError`` into its own error.
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import re
from pathlib import Path

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_SERIAL = itertools.count()
# what follows the prefix of a temporary file name, before its suffix: "<pid>.<serial>"
_TEMP_TAIL = re.compile(r"(\d+)\.[^.]+")


def check_name(name: str, error: type[Exception] = ValueError) -> None:
    """Refuse a stack name that would leave its directory as part of a path.

    Args:
        name: the name (a stack's ``metadata.name``; the schema makes it a DNS label, this
            guards stacks built some other way).
        error: the exception class to raise, so each caller keeps its own error type.

    Raises:
        error: the name is empty, ``.``/``..``, or holds a separator or a NUL.

    """
    if name in ("", ".", "..") or any(c in name for c in "/\\\0"):
        raise error(f"stack name {name!r} cannot name a file")


def write_atomic(
    path: Path,
    data: bytes,
    *,
    mode: int = 0o666,
    temp_prefix: str | None = None,
    temp_suffix: str = ".tmp",
    durable: bool = True,
    sweep: bool = True,
) -> bool:
    """Replace ``path`` with ``data`` so that readers see the old file or the new one.

    First removes the temporary files of writers that are gone (same prefix and suffix). When
    ``path`` already holds exactly ``data`` nothing is written. Otherwise ``data`` goes to a new
    temporary file beside ``path``, is fsynced (``durable``), renamed over ``path``
    (``os.replace`` is atomic on POSIX and Windows) and the directory is fsynced. On any failure
    the temporary file is removed and the error propagates; ``path`` is left as it was.

    Args:
        path: the file to replace; its directory must exist.
        data: the whole new content.
        mode: permission bits of a new file (the umask applies).
        temp_prefix: how the temporary file's name starts (default ``.<file name>.``); a writer
            that owns a whole directory passes one prefix for all its files.
        temp_suffix: how the temporary file's name ends.
        durable: fsync the file before the rename and the directory after it, so the new file
            survives a power cut. A writer whose output is rebuilt on every use (a rendered
            program) passes False: a crash still leaves the old file or the new one.
        sweep: remove dead writers' temporary files first. A writer of many files in one
            directory passes False and calls ``remove_stale_temps`` once for the directory.

    Returns:
        True when the file was written, False when it already held ``data``.

    Raises:
        OSError: the directory cannot be read or written, or the disk is full.

    """
    path = Path(path)
    prefix = f".{path.name}." if temp_prefix is None else temp_prefix
    if sweep:
        remove_stale_temps(path.parent, prefix, temp_suffix)
    try:
        with open(path, "rb") as fh:
            if fh.read(len(data) + 1) == data:
                return False  # already whole and current (re-renders leave most files as they are)
    except OSError:
        pass
    while True:  # O_EXCL: never through a file or link already there
        tmp = path.parent / f"{prefix}{os.getpid()}.{next(_SERIAL)}{temp_suffix}"
        with contextlib.suppress(FileExistsError):
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _CLOEXEC, mode)
            break
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if durable:
        _fsync_dir(path.parent)
    return True


def remove_stale_temps(directory: Path, prefix: str, suffix: str) -> None:
    """Remove the ``<prefix><pid>.<serial><suffix>`` files in ``directory`` whose writer is gone.

    A writer killed before its rename leaves its temporary file behind; the next writer removes
    it, never one whose pid still runs (nor its own).
    """
    if os.name == "nt":  # os.kill(pid, 0) would terminate the process there
        return
    for tmp in Path(directory).glob(f"{glob.escape(prefix)}*{glob.escape(suffix)}"):
        tail = _TEMP_TAIL.fullmatch(tmp.name[len(prefix) : len(tmp.name) - len(suffix)])
        if tail is None or int(tail.group(1)) == os.getpid():
            continue
        try:
            os.kill(int(tail.group(1)), 0)
        except ProcessLookupError:  # its writer is gone: the rename will never come
            with contextlib.suppress(OSError):
                tmp.unlink()
        except (OSError, OverflowError):  # alive and owned by someone else, or not a pid
            continue


def _fsync_dir(directory: Path) -> None:
    """Sync a directory so a rename inside it is durable (a no-op where unsupported)."""
    if os.name == "nt":  # directories cannot be opened for fsync on Windows
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
