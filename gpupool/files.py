"""Safe file names, folders that are never reached through a link, bounded reads, atomic writes.

This module is the one way gpupool puts a file on disk or reads one it did not write. It owns:

- ``check_name``: a name that becomes one path component (a stack name in
  ``.gpupool/applied/<stack>.json`` or ``.gpupool/locks/<stack>.lock``) must be one plain file
  name, never a way out of its directory;
- ``open_dir``: gpupool's own folders are walked one component at a time from a folder the
  caller trusts, never through a symbolic link. Below a ``.gpupool`` folder everything is
  gpupool's (``anchored`` finds where that tree starts), so a link planted at ``.gpupool``,
  ``.gpupool/build/<stack>``, ``.gpupool/applied`` or ``.gpupool/locks`` is refused, not
  followed. On POSIX each folder is held open (``openat`` with ``O_NOFOLLOW``), and files are
  created, renamed and removed relative to that descriptor: swapping a folder for a link after
  the check changes nothing. Where the system has no ``openat`` (Windows) each component is
  checked with ``lstat`` instead, which a process racing gpupool could defeat;
- ``write_atomic``: a file is replaced by renaming a complete temporary file over it, so a reader
  (or a crash, or a SIGKILL) sees the old file or the new one, never part of either. The
  temporary file lives in the same directory (a rename never crosses file systems), is created
  with ``O_EXCL`` (never through a file or link already there), is flushed and fsynced before the
  rename, and the directory is fsynced after it so the rename itself survives a power cut
  (``durable``; a rendered program, rebuilt by every run that uses it, skips the fsyncs). A link,
  a folder, a FIFO or a device where the file goes is refused, never written through.
  Temporary files are named ``<prefix><pid>.<serial><suffix>``; a writer killed before its rename
  leaves one behind, and the next write there removes it once that pid is gone;
- ``read_regular``: a file that may come from anywhere (a node report, an applied record) is read
  only when it is a regular file (a FIFO cannot block the read, ``/dev/zero`` is not one), and at
  most ``limit`` + 1 bytes of it whatever ``st_size`` says.

It knows nothing of what the files hold: ``gpupool.record`` writes the applied record,
``gpupool.render`` the program and ``gpupool.lock`` the lock file through it, each turning
``OSError`` into its own error (an ``UnsafePathError``'s ``strerror`` is one sentence).
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import re
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_AT = os.open in os.supports_dir_fd and os.name != "nt"  # openat and friends
_SERIAL = itertools.count()
# what follows the prefix of a temporary file name, before its suffix: "<pid>.<serial>"
_TEMP_TAIL = re.compile(r"(\d+)\.[^.]+")
#: the folder beside a stack file that holds gpupool's state; everything below it is gpupool's
STATE_DIR = ".gpupool"


class UnsafePathError(OSError):
    """A path gpupool would write or read through is a link or not the kind of file it must be."""

    def __init__(self, path: Path | str, what: str) -> None:
        super().__init__(errno.ELOOP, f"{path} {what}")


class TooLargeError(OSError):
    """A file is larger than what gpupool reads of that kind."""

    def __init__(self, path: Path | str, limit: int) -> None:
        super().__init__(errno.EFBIG, f"{path} is larger than {limit} bytes")


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


def anchored(directory: Path) -> tuple[Path, tuple[str, ...]]:
    """Split ``directory`` into the folder the caller trusts and the components gpupool owns.

    Below the last ``.gpupool`` component everything is gpupool's, from ``.gpupool`` down;
    a directory outside such a tree is trusted as a whole (a ``--out`` the user named).

    >>> anchored(Path("/repo/.gpupool/build/prod"))
    (PosixPath('/repo'), ('.gpupool', 'build', 'prod'))
    """
    parts = Path(directory).parts
    if STATE_DIR not in parts:
        return Path(directory), ()
    at = len(parts) - 1 - parts[::-1].index(STATE_DIR)
    return Path(*parts[:at]) if at else Path("."), tuple(parts[at:])


class Dir:
    """A folder held open (a descriptor where the system has ``openat``), and its path."""

    def __init__(self, path: Path, fd: int | None) -> None:
        self.path = path
        self.fd = fd

    def _at(self, name: str) -> tuple[str | Path, int | None]:
        return (name, self.fd) if self.fd is not None else (self.path / name, None)

    def lstat(self, name: str) -> os.stat_result | None:
        """Return what is at ``name`` without following a link (None when nothing is)."""
        where, fd = self._at(name)
        try:
            return os.stat(where, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            return None

    def open(self, name: str, flags: int, mode: int = 0o666) -> int:
        """Open ``name`` here, never through a link (``O_NOFOLLOW``; ``lstat`` without it)."""
        where, fd = self._at(name)
        if not _NOFOLLOW:
            st = self.lstat(name)
            if st is not None and stat.S_ISLNK(st.st_mode):
                raise UnsafePathError(self.path / name, "is a symbolic link")
        try:
            return os.open(where, flags | _NOFOLLOW | _CLOEXEC, mode, dir_fd=fd)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise UnsafePathError(self.path / name, "is a symbolic link") from None
            raise

    def listdir(self) -> list[str]:
        """Return the names in this folder."""
        return os.listdir(self.fd if self.fd is not None else self.path)

    def unlink(self, name: str) -> None:
        """Remove the file (or link) ``name`` here; a link's target is never touched."""
        where, fd = self._at(name)
        os.unlink(where, dir_fd=fd)

    def replace(self, src: str, dst: str) -> None:
        """Rename ``src`` over ``dst``, both in this folder (atomic on POSIX and Windows)."""
        if self.fd is None:
            os.replace(self.path / src, self.path / dst)
        else:
            os.replace(src, dst, src_dir_fd=self.fd, dst_dir_fd=self.fd)

    def fsync(self) -> None:
        """Sync the folder so a rename inside it is durable (a no-op where unsupported)."""
        if self.fd is not None:
            os.fsync(self.fd)

    def child(self, name: str, *, create: bool) -> Dir:
        """Open the folder ``name`` here, refusing a link; create it first when ``create``."""
        if name in ("", ".", "..") or "/" in name or "\\" in name or "\0" in name:
            raise UnsafePathError(self.path / name, "is not one plain folder name")
        path = self.path / name
        st = self.lstat(name)
        if st is None and create:
            where, fd = self._at(name)
            with contextlib.suppress(FileExistsError):
                os.mkdir(where, 0o777, dir_fd=fd)
            st = self.lstat(name)
        if st is None:
            raise FileNotFoundError(errno.ENOENT, f"{path} does not exist")
        if stat.S_ISLNK(st.st_mode):
            raise UnsafePathError(path, "is a symbolic link; gpupool does not follow links "
                                  "in the folders it writes")
        if not stat.S_ISDIR(st.st_mode):
            raise UnsafePathError(path, "is not a folder")
        if self.fd is None:
            return Dir(path, None)
        try:
            fd = self.open(name, os.O_RDONLY | _DIRECTORY)
        except UnsafePathError:
            raise UnsafePathError(path, "is a symbolic link; gpupool does not follow links "
                                  "in the folders it writes") from None
        return Dir(path, fd)

    def close(self) -> None:
        """Close the descriptor (the path stays usable for messages)."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


@contextlib.contextmanager
def open_dir(base: Path, parts: Sequence[str] = (), *, create: bool = False) -> Iterator[Dir]:
    """Hold ``base/parts[0]/.../parts[-1]`` open, reached without following a link below ``base``.

    Args:
        base: the folder the caller trusts (links in its own path are followed).
        parts: the components below it, each one plain name that must be a real folder.
        create: create ``base`` (with its parents) and every missing component.

    Raises:
        UnsafePathError: a component is a symbolic link or not a folder.
        OSError: a component is missing (without ``create``) or cannot be opened or made.

    """
    base = Path(base)
    if create:
        base.mkdir(parents=True, exist_ok=True)
    held = [Dir(base, os.open(base, os.O_RDONLY | _DIRECTORY | _CLOEXEC) if _AT else None)]
    try:
        for part in parts:
            held.append(held[-1].child(part, create=create))
        yield held[-1]
    finally:
        for d in held:
            d.close()


def read_regular(path: Path, limit: int, *, directory: Dir | None = None) -> bytes:
    """Return the bytes of the regular file ``path``, refusing anything else or more than ``limit``.

    What is opened must be a regular file: a FIFO (opened without blocking), a device such as
    ``/dev/zero`` or a folder is refused, and at most ``limit`` + 1 bytes are read whatever the
    file's size claims. Without ``directory`` a link is followed to its target (which must be a
    regular file); with it, ``path``'s name is opened in that folder and a link is refused.

    Raises:
        UnsafePathError: not a regular file, or a link inside ``directory``.
        TooLargeError: longer than ``limit`` bytes.
        OSError: it cannot be opened or read.

    """
    flags = os.O_RDONLY | _NONBLOCK
    if directory is None:
        fd = os.open(path, flags | _CLOEXEC)
    else:
        fd = directory.open(Path(path).name, flags)
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UnsafePathError(path, "is not a regular file")
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise TooLargeError(path, limit)
    return data


def _target(directory: Dir, name: str) -> None:
    """Refuse to write ``name`` when a link, folder, FIFO or device is there."""
    st = directory.lstat(name)
    if st is None or stat.S_ISREG(st.st_mode):
        return
    kind = "a symbolic link" if stat.S_ISLNK(st.st_mode) else "not a regular file"
    raise UnsafePathError(directory.path / name, f"is {kind}; gpupool does not write through it")


def _holds(directory: Dir, name: str, data: bytes) -> bool:
    """Return whether the regular file ``name`` already holds exactly ``data``."""
    try:
        fd = directory.open(name, os.O_RDONLY | _NONBLOCK)
    except OSError:
        return False
    with os.fdopen(fd, "rb") as fh:
        return stat.S_ISREG(os.fstat(fd).st_mode) and fh.read(len(data) + 1) == data


def write_atomic(
    path: Path,
    data: bytes,
    *,
    mode: int = 0o666,
    temp_prefix: str | None = None,
    temp_suffix: str = ".tmp",
    durable: bool = True,
    sweep: bool = True,
    directory: Dir | None = None,
    exact_mode: bool = False,
) -> bool:
    """Replace ``path`` with ``data`` so that readers see the old file or the new one.

    First removes the temporary files of writers that are gone (same prefix and suffix). When
    ``path`` already holds exactly ``data`` nothing is written. Otherwise ``data`` goes to a new
    temporary file beside ``path``, is fsynced (``durable``), renamed over ``path``
    (``os.replace`` is atomic on POSIX and Windows) and the directory is fsynced. On any failure
    the temporary file is removed and the error propagates; ``path`` is left as it was.

    Args:
        path: the file to replace; its directory must exist. With ``directory``, a bare name in it.
        data: the whole new content.
        mode: permission bits of a new file (the umask applies, unless ``exact_mode``).
        temp_prefix: how the temporary file's name starts (default ``.<file name>.``); a writer
            that owns a whole directory passes one prefix for all its files.
        temp_suffix: how the temporary file's name ends.
        durable: fsync the file before the rename and the directory after it, so the new file
            survives a power cut. A writer whose output is rebuilt on every use (a rendered
            program) passes False: a crash still leaves the old file or the new one.
        sweep: remove dead writers' temporary files first. A writer of many files in one
            directory passes False and calls ``remove_stale_temps`` once for the directory.
        directory: the folder, held open by ``open_dir``; by default ``path``'s parent, whose
            path is trusted.
        exact_mode: give the new file ``mode`` as it is (``fchmod`` before the rename), so a
            file replaced keeps the permission bits it had.

    Returns:
        True when the file was written, False when it already held ``data``.

    Raises:
        UnsafePathError: a link, folder, FIFO or device is where the file goes.
        OSError: the directory cannot be read or written, or the disk is full.

    """
    path = Path(path)
    if directory is None:
        with open_dir(path.parent) as parent:
            return write_atomic(path, data, mode=mode, temp_prefix=temp_prefix,
                                temp_suffix=temp_suffix, durable=durable, sweep=sweep,
                                directory=parent, exact_mode=exact_mode)  # fmt: skip
    name = path.name
    prefix = f".{name}." if temp_prefix is None else temp_prefix
    if sweep:
        remove_stale_temps(directory, prefix, temp_suffix)
    _target(directory, name)
    if _holds(directory, name, data):
        return False  # already whole and current (re-renders leave most files as they are)
    while True:  # O_EXCL: never through a file or link already there
        tmp = f"{prefix}{os.getpid()}.{next(_SERIAL)}{temp_suffix}"
        with contextlib.suppress(FileExistsError):
            fd = directory.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
            break
    try:
        with os.fdopen(fd, "wb") as fh:
            if exact_mode and hasattr(os, "fchmod"):
                os.fchmod(fh.fileno(), mode)
            fh.write(data)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        directory.replace(tmp, name)
    except BaseException:
        with contextlib.suppress(OSError):
            directory.unlink(tmp)
        raise
    if durable:
        directory.fsync()
    return True


def remove_stale_temps(directory: Dir | Path, prefix: str, suffix: str) -> None:
    """Remove the ``<prefix><pid>.<serial><suffix>`` files in ``directory`` whose writer is gone.

    A writer killed before its rename leaves its temporary file behind; the next writer removes
    it, never one whose pid still runs (nor its own).
    """
    if os.name == "nt":  # os.kill(pid, 0) would terminate the process there
        return
    if not isinstance(directory, Dir):
        with open_dir(directory) as held:
            remove_stale_temps(held, prefix, suffix)
        return
    for name in directory.listdir():
        if not (name.startswith(prefix) and name.endswith(suffix)):
            continue
        tail = _TEMP_TAIL.fullmatch(name[len(prefix) : len(name) - len(suffix)])
        if tail is None or int(tail.group(1)) == os.getpid():
            continue
        try:
            os.kill(int(tail.group(1)), 0)
        except ProcessLookupError:  # its writer is gone: the rename will never come
            with contextlib.suppress(OSError):
                directory.unlink(name)
        except (OSError, OverflowError):  # alive and owned by someone else, or not a pid
            continue
