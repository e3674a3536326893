"""The folder ``gpupool render`` writes into: gpupool's own, checked before anything is written.

This module owns what render may do to a folder on disk, apart from what the program says:

- the folder is new, empty, or holds the index ``.gpupool-files`` of an earlier render, which is
  checked whole and may name only files render writes (a pattern the caller gives). A folder
  with other files (``--out .``, ``--out /``) and a file the index does not list are refused
  before anything is written or removed;
- every path must resolve inside the folder, and below ``.gpupool`` no folder or file is reached
  through a link (``gpupool.files.open_dir``);
- every file is replaced through ``gpupool.files.write_atomic`` (a complete temporary file
  renamed over it: a killed render leaves no torn file), the index is written first with old and
  new files, so a killed render leaves nothing unlisted, and files the old index lists that this
  render does not write are removed.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from gpupool.errors import InputError, RenderError
from gpupool.files import (
    Dir,
    UnsafePathError,
    anchored,
    open_dir,
    read_regular,
    remove_stale_temps,
    write_atomic,
)

INDEX = ".gpupool-files"
"""The index of what the last render wrote, one relative path a line."""
_MAX_INDEX_BYTES = 4 * 1024 * 1024
_TMP_PREFIX = ".gpupool-tmp."  # then "<pid>.<serial>": see files.write_atomic


def _inside(root: Path, rel: str) -> Path:
    """Return ``root / rel`` resolved, or raise when it would land outside ``root``."""
    if not rel or "\\" in rel or "\0" in rel or rel.startswith("/"):
        raise RenderError(f"refusing to write {rel!r}: not a relative path")
    path = (root / rel).resolve()
    if path == root or not path.is_relative_to(root):
        raise RenderError(f"refusing to write {rel!r}: it resolves outside {root}")
    return path


def _index_entries(directory: Dir, own: re.Pattern[str]) -> list[str] | None:
    """Return what the index of a previous render lists, checked whole before anything is used.

    Every line must name a file render writes (``own``) by a plain relative path: one
    planted line that names anything else (``../x``, ``/etc/passwd``, ``notes.txt``, a path
    through a link) refuses the whole index, before a file is removed.

    Returns:
        The listed paths, or None when there is no index.

    Raises:
        RenderError: the index is not a regular file, is not text, or names what render never
            writes.

    """
    where = directory.path / INDEX
    try:
        raw = read_regular(where, _MAX_INDEX_BYTES, directory=directory)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise RenderError(f"refusing to use the file index {where}: {exc.strerror or exc}; "
                          "remove it, or render into a new folder") from None
    try:
        lines = raw.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        raise RenderError(f"refusing to use the file index {where}: it is not text") from None
    entries = [rel for rel in lines if rel]
    for number, rel in enumerate(lines, 1):
        if rel and (own.fullmatch(rel) is None or any(
                part in ("", ".", "..") for part in rel.split("/"))):
            raise RenderError(
                f"refusing to write: the file index {where} line {number} names {rel[:80]!r}, "
                "which is not a file gpupool renders; remove the index, or render into a new "
                "folder"
            )
    return entries


def _check_owned(directory: Dir, listed: list[str] | None, files: Mapping[str, str]) -> None:
    """Refuse a folder that holds files gpupool did not write where render would write.

    Without an index the folder must be empty (temporary files of a killed render aside): a
    project folder (``--out .``) or ``/`` is refused whole. With one, a file render would write
    must be one the index lists, or not be there yet.
    """
    if listed is None:
        foreign = sorted(n for n in directory.listdir() if not n.startswith(_TMP_PREFIX))
        if foreign:
            raise RenderError(
                f"refusing to render into {directory.path}: it holds files gpupool did not write "
                f"({', '.join(foreign[:3])}{', ...' if len(foreign) > 3 else ''}) and no "
                f"{INDEX} index; give --out a new or empty folder"
            )
        return
    owned = set(listed)
    for rel in sorted(files):
        if rel in owned:
            continue
        parent, _, name = rel.rpartition("/")
        st = directory.lstat(rel) if not parent else _lstat_below(directory, parent, name)
        if st is not None:
            raise RenderError(
                f"refusing to overwrite {directory.path / rel}: gpupool did not write it (it is "
                f"not in {INDEX}); move it away, or render into a new folder"
            )


def _lstat_below(directory: Dir, parent: str, name: str) -> os.stat_result | None:
    """``lstat`` of ``parent/name`` below ``directory``; a missing ``parent`` holds nothing."""
    try:
        child = directory.child(parent, create=False)
    except FileNotFoundError:
        return None
    try:
        return child.lstat(name)
    finally:
        child.close()


def _remove_stale(folders: Mapping[str, Dir], rel: str) -> None:
    """Remove the regular file ``rel`` a previous render wrote; links and the rest stay."""
    parent, _, name = rel.rpartition("/")
    directory = folders.get(parent)
    if directory is None:
        return
    st = directory.lstat(name)
    if st is not None and stat.S_ISREG(st.st_mode):
        directory.unlink(name)


def _write(directory: Dir, name: str, data: bytes) -> None:
    """Write ``name`` by renaming a complete temporary file over it (``files.write_atomic``).

    A render killed part way leaves every file whole, old or new: a torn ``__main__.py`` can be
    valid Python that declares fewer resources, and ``pulumi up`` would delete the rest. Files that
    already hold ``data`` are left alone (re-renders leave most files unchanged). No fsync: a
    rendered program is rebuilt by every run that uses it. Dead writers' temporary files are
    swept once per directory by ``render``, not once per file.
    """
    write_atomic(Path(name), data, temp_prefix=_TMP_PREFIX, temp_suffix="", durable=False,
                 sweep=False, directory=directory)  # fmt: skip


def _index_text(rels: Iterable[str]) -> bytes:
    """Return the index listing ``rels``, one relative path a line, sorted."""
    return "".join(f"{rel}\n" for rel in sorted(set(rels))).encode("utf-8")


def write(out_dir: Path, files: Mapping[str, str], own: re.Pattern[str]) -> tuple[
        tuple[Path, ...], Path]:
    """Write ``files`` (relative path -> text) into ``out_dir``, gpupool's own folder.

    Args:
        out_dir: where to write (created if missing).
        files: every file of the render, by relative path (``/``-separated).
        own: what an index line may name: every file render can write.

    Returns:
        The files written (absolute paths, sorted) and the resolved output directory.

    Raises:
        RenderError: a path would escape ``out_dir`` or go through a link, the folder holds
            files gpupool did not write, or the index is not one render wrote.
        InputError: ``out_dir`` cannot be created or written.

    """
    try:
        with contextlib.ExitStack() as held:
            root = held.enter_context(open_dir(*anchored(out_dir), create=True))
            resolved = out_dir.resolve()
            targets = {rel: _inside(resolved, rel) for rel in files}
            _inside(resolved, INDEX)  # a symlink planted there must not redirect the write
            listed = _index_entries(root, own)
            _check_owned(root, listed, files)
            folders = {"": root}
            for parent in sorted({rel.rpartition("/")[0] for rel in [*files, *(listed or ())]}):
                if parent:
                    folders[parent] = held.enter_context(_closing(root.child(parent, create=True)))
            _write(root, INDEX, _index_text([*(listed or ()), *files]))
            for rel in listed or ():
                if rel not in files:
                    _remove_stale(folders, rel)
            for directory in folders.values():
                remove_stale_temps(directory, _TMP_PREFIX, "")
            for rel in sorted(files):
                parent, _, name = rel.rpartition("/")
                _write(folders[parent], name, files[rel].encode("utf-8"))
            _write(root, INDEX, _index_text(files))
    except UnsafePathError as exc:
        raise RenderError(f"refusing to write the program: {exc.strerror}") from None
    except OSError as exc:
        raise InputError(f"cannot write the program to {out_dir}: {exc.strerror or exc}") from exc
    return tuple(sorted(targets.values())), resolved




@contextlib.contextmanager
def _closing(directory: Dir) -> Iterator[Dir]:
    try:
        yield directory
    finally:
        directory.close()
