"""Stack edits written back into the stack file, keeping its comments, key order and layout.

The file is read with a round-trip YAML library (ruamel.yaml), the edits are applied to the
nodes they name, and the result is dumped again: comments, key order, flow or block style of
untouched mappings and the document's other lines stay as they were, so ``gpupool plan --base``
on the written file shows only the reviewable change. An edit is checked before anything is
written: the edited text must validate (``gpupool validate``'s rules) and the write is atomic
(``gpupool.files``), so a failed step leaves the file as it was.

Writing back (``read_source`` then ``write_back``) loses nothing made meanwhile: right before
the write the stack file is read again, and any change since it was read (its content, size,
modification time or inode) refuses the write, as does a target that is read-only (to the
user, or to everyone) or has more than one hard link (replacing it would leave the other names
on the old file, and writing through it in place is not atomic). A file replaced keeps its
permission bits (a 0640 stack stays 0640); a new ``--write`` file gets the umask's.
"""

from __future__ import annotations

import io
import os
import stat
import time
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpupool.errors import InputError
from gpupool.files import read_regular, write_atomic


class EditError(InputError):
    """An edit does not apply to the stack file (the path is not there)."""


def _yaml() -> Any:
    from ruamel.yaml import YAML  # imported here: only advise --write needs it

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096  # never fold a long line the user wrote on one
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


def _plain(value: Any, flow: bool) -> Any:
    """Return the value as ruamel nodes, in flow style where the replaced node was (``{a: 1}``)."""
    from ruamel.yaml.comments import CommentedMap

    if isinstance(value, Mapping):
        out = CommentedMap()
        for k, v in value.items():
            out[k] = _plain(v, flow)
        if flow:
            out.fa.set_flow_style()
        return out
    return value


# (mapping indent, sequence indent, dash offset) layouts stack files are written in: the first
# one whose unedited round trip gives the file back is used.
_LAYOUTS = ((2, 4, 2), (2, 2, 0), (4, 6, 4), (4, 4, 0))


def _loaded(text: str) -> tuple[Any, Any]:
    """Return the round-trip YAML emitter set to the file's layout, and the file's data."""
    best: tuple[int, Any, Any] | None = None
    for mapping, sequence, offset in _LAYOUTS:
        yaml = _yaml()
        yaml.indent(mapping=mapping, sequence=sequence, offset=offset)
        data = yaml.load(text)
        out = io.StringIO()
        yaml.dump(data, out)
        lines = zip(out.getvalue().splitlines(), text.splitlines(), strict=False)
        differing = sum(a != b for a, b in lines)
        if best is None or differing < best[0]:
            best = (differing, yaml, data)
        if differing == 0:
            break
    assert best is not None
    return best[1], best[2]


def _merge(node: MutableMapping[Any, Any], value: Mapping[str, Any]) -> None:
    """Make ``node`` hold ``value`` in place: keys it lacks go, the others are set."""
    for key in [k for k in node if k not in value]:
        del node[key]
    for key, new in value.items():
        old = node.get(key)
        if isinstance(old, MutableMapping) and isinstance(new, Mapping):
            _merge(old, new)
        else:
            flow = bool(getattr(getattr(node, "fa", None), "flow_style", lambda: False)())
            node[key] = _plain(new, flow)


def apply(text: str, edits: Sequence[tuple[Sequence[str | int], Any]]) -> str:
    """Return ``text`` with each (path, value) edit applied, comments and layout kept.

    Raises:
        EditError: a path's parent is not in the file.

    """
    yaml, data = _loaded(text)
    for path, value in edits:
        node = data
        for part in path[:-1]:
            try:
                node = node[part]
            except (KeyError, IndexError, TypeError) as err:
                shown = ".".join(str(p) for p in path)
                raise EditError(
                    f"the stack file has no {shown}: it changed since it was read"
                ) from err
        last = path[-1]
        try:
            old = node[last]
        except (KeyError, IndexError, TypeError):
            old = None
        if isinstance(old, MutableMapping) and isinstance(value, Mapping):
            _merge(old, value)  # the mapping the file had: its style and comments stay
            continue
        flow = bool(getattr(getattr(old, "fa", None), "flow_style", lambda: False)())
        if old is None and hasattr(node, "fa"):
            flow = bool(node.fa.flow_style())
        node[last] = _plain(value, flow)
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()


@dataclass(frozen=True)
class Source:
    """The stack file as it was read: its bytes and what identified it then."""

    path: Path
    data: bytes
    identity: tuple[int, int, int, int]  # device, inode, size, modification time (ns)
    read_at: float  # unix seconds

    @property
    def text(self) -> str:
        """The file's text (UTF-8)."""
        return self.data.decode("utf-8")


def _identity(st: os.stat_result) -> tuple[int, int, int, int]:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def read_source(path: Path, limit: int) -> Source:
    """Read the stack file to edit (a regular file of at most ``limit`` bytes).

    Raises:
        OSError: it cannot be read, is not a regular file or is larger than ``limit``.

    """
    data = read_regular(path, limit)
    return Source(path, data, _identity(os.stat(path)), time.time())


def _unchanged(source: Source, limit: int) -> None:
    """Refuse when the stack file changed since ``source`` was read."""
    try:
        data = read_regular(source.path, limit)
        now = _identity(os.stat(source.path))
    except OSError as err:
        raise EditError(
            f"cannot read {source.path} again before writing: {err.strerror or err}; "
            "nothing written"
        ) from None
    if data != source.data or now != source.identity:
        read = time.strftime("%H:%M:%S", time.localtime(source.read_at))
        raise EditError(
            f"{source.path} changed since advise read it at {read}: nothing written, so the "
            "change is kept; run advise again on the file as it is now"
        )


def _target_mode(target: Path) -> int | None:
    """Return the permission bits a write to ``target`` keeps (None: a new file), or refuse."""
    try:
        st = os.stat(target, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None  # a link or not a file: write_atomic refuses it and says so
    mode = stat.S_IMODE(st.st_mode)
    if not mode & 0o222 or not os.access(target, os.W_OK):
        raise EditError(
            f"{target} is read-only (mode {mode:04o}): advise does not replace a file you "
            "cannot write; make it writable first, or --write another file"
        )
    if st.st_nlink > 1:
        raise EditError(
            f"{target} has {st.st_nlink} hard links: replacing it would leave the other names "
            "on the old text; nothing written (--write another file and copy it over)"
        )
    return mode


def write_back(source: Source, target: Path, data: bytes, limit: int) -> None:
    """Write ``data`` to ``target`` atomically unless the stack file changed since it was read.

    Raises:
        EditError: the stack file changed, or ``target`` is read-only or hard-linked.
        OSError: the write failed (a link or FIFO where the file goes, a full disk).

    """
    mode = _target_mode(target)
    _unchanged(source, limit)
    if mode is None:
        write_atomic(target, data)
    else:
        write_atomic(target, data, mode=mode, exact_mode=True)
