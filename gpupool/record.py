"""The record of what was last applied: where it lives, writing it, reading it back.

``gpupool up`` and ``gpupool destroy`` write the resource graph they applied to
``<stack file dir>/.gpupool/applied/<stack>.json`` (``write_applied``, atomically through
``gpupool.files``, so a crash never leaves half a record); ``gpupool plan`` and ``preview`` read it
back (``read_applied``) as their default base. Choosing a plan's base (this record, another stack
file, a git revision) is ``gpupool.usecases.base``'s job; diffing is ``gpupool.plan``'s.
"""

from __future__ import annotations

import json
from pathlib import Path

from gpupool.errors import StateError
from gpupool.files import anchored, check_name, open_dir, read_regular, write_atomic
from gpupool.graph import ResourceGraph

#: the largest record read back (a 1,000-pool stack records about 6 MiB)
MAX_RECORD_BYTES = 256 * 1024 * 1024


def record_path(stack_file: Path, stack_name: str) -> Path:
    """Return where the applied graph of ``stack_name`` is recorded.

    Args:
        stack_file: the stack file (the record lives beside it).
        stack_name: ``metadata.name`` of the stack.

    Returns:
        ``<stack file dir>/.gpupool/applied/<stack>.json``.

    Raises:
        StateError: the name is not one plain file name (the schema makes it a DNS label).

    """
    check_name(stack_name, StateError)
    return Path(stack_file).parent / ".gpupool" / "applied" / f"{stack_name}.json"


def write_applied(path: Path, graph: ResourceGraph) -> None:
    """Record ``graph`` at ``path`` atomically: readers see the old record or the new one.

    Written through ``gpupool.files.write_atomic`` (temporary file beside it, fsync, rename,
    fsync of the directory); the temporary file is named ``.<record>.<pid>.<serial>.tmp`` and
    is readable by its owner only. The folders from ``.gpupool`` down are reached without
    following a link (``gpupool.files.open_dir``), and a link at the record itself is refused.

    Args:
        path: the record file (see ``record_path``); missing directories are created.
        graph: the applied resource graph.

    Raises:
        StateError: the record cannot be written.

    """
    path = Path(path)
    try:
        with open_dir(*anchored(path.parent), create=True) as directory:
            write_atomic(path, graph.dumps().encode("utf-8"), mode=0o600, directory=directory)
    except OSError as exc:
        raise StateError(f"cannot write the applied record {path}: {exc.strerror or exc}") from None


def read_applied(path: Path) -> ResourceGraph | None:
    """Read the applied record at ``path``.

    Args:
        path: the record file (see ``record_path``).

    Returns:
        The recorded graph, or None when nothing was recorded there yet.

    Raises:
        StateError: the file exists but cannot be read (a FIFO, a device, a link in gpupool's
            folders, larger than ``MAX_RECORD_BYTES``) or is not a record this version knows
            (any JSON of another shape, however deeply nested).

    """
    path = Path(path)
    try:
        with open_dir(*anchored(path.parent)) as directory:
            raw = read_regular(path, MAX_RECORD_BYTES, directory=directory)
        text = raw.decode("utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise StateError(f"cannot read the applied record {path}: {reason}") from None
    try:
        data = json.loads(text)
        return ResourceGraph.from_json(data)
    except (ValueError, RecursionError):
        raise StateError(
            f"the applied record {path} is corrupt or of an unknown format; restore it from "
            "backup, or delete it to plan against an empty base"
        ) from None
