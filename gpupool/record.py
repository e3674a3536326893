"""The record of what was last applied, and the bases a plan is compared against.

This module owns two things that answer "what is there now?" without an engine:

- the applied record: ``gpupool up`` writes the resource graph it applied to
  ``<stack file dir>/.gpupool/applied/<stack>.json`` (``write_applied``, atomically, so a crash
  never leaves half a record), and ``gpupool plan`` reads it back (``read_applied``);
- plan bases (``load_base``): the recorded graph by default, an empty base when nothing was
  applied yet, another stack file (``--base FILE``), or the same stack file at a git revision
  (``--base GIT-REF``, read with ``git show``). A base stack file is validated and built exactly
  like the desired one.

It does not diff anything; ``gpupool.plan`` does.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gpupool.errors import InputError, StateError
from gpupool.graph import ResourceGraph

if TYPE_CHECKING:
    from gpupool.spec.validate import ValidateResult

_GIT_TIMEOUT_S = 30


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
    check_name(stack_name)
    return Path(stack_file).parent / ".gpupool" / "applied" / f"{stack_name}.json"


def check_name(stack_name: str) -> None:
    """Refuse a stack name that would leave its directory as part of a path.

    Raises:
        StateError: the name is empty, ``.``/``..``, or holds a separator or a NUL.

    """
    if stack_name in ("", ".", "..") or any(c in stack_name for c in "/\\\0"):
        raise StateError(f"stack name {stack_name!r} cannot name a file")


def write_applied(path: Path, graph: ResourceGraph) -> None:
    """Record ``graph`` at ``path`` atomically: readers see the old record or the new one.

    The graph is written to a temporary file in the same directory, flushed to disk, renamed
    over ``path`` (``os.replace`` is atomic on POSIX and Windows) and the directory is synced
    so the rename itself survives a crash. The temporary file is named
    ``.<record>.<pid>.<random>.tmp``; readers never look at it, and a writer killed before the
    rename leaves one behind, which the next write removes once that pid is gone.

    Args:
        path: the record file (see ``record_path``); missing directories are created.
        graph: the applied resource graph.

    Raises:
        StateError: the record cannot be written.

    """
    path = Path(path)
    text = graph.dumps()
    tmp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_temps(path.parent, f".{path.name}.", ".tmp")
        fd, tmp = tempfile.mkstemp(
            prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent
        )
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        tmp = None
        _fsync_dir(path.parent)
    except OSError as exc:
        raise StateError(f"cannot write the applied record {path}: {exc.strerror or exc}") from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def remove_stale_temps(directory: Path, prefix: str, suffix: str) -> None:
    """Remove the ``<prefix><pid>.*<suffix>`` files in ``directory`` whose writer is gone.

    Writers name their temporary files this way; one killed before its rename leaves its file
    behind, and the next writer removes it (never one whose pid still runs).
    """
    if os.name == "nt":  # os.kill(pid, 0) would terminate the process there
        return
    for tmp in directory.glob(f"{glob.escape(prefix)}*{glob.escape(suffix)}"):
        pid = tmp.name[len(prefix) :].split(".", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:  # its writer is gone: the rename will never come
            with contextlib.suppress(OSError):
                tmp.unlink()
        except OSError:  # alive, owned by someone else
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


def read_applied(path: Path) -> ResourceGraph | None:
    """Read the applied record at ``path``.

    Args:
        path: the record file (see ``record_path``).

    Returns:
        The recorded graph, or None when nothing was recorded there yet.

    Raises:
        StateError: the file exists but cannot be read or is not a record this version knows.

    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise StateError(f"cannot read the applied record {path}: {reason}") from None
    try:
        data = json.loads(text)
        return ResourceGraph.from_json(data)
    except (ValueError, KeyError, TypeError, AttributeError, IndexError):
        raise StateError(
            f"the applied record {path} is corrupt or of an unknown format; restore it from "
            "backup, or delete it to plan against an empty base"
        ) from None


@dataclass(frozen=True)
class Base:
    """What a plan is compared against.

    Attributes:
        kind: ``recorded`` (the applied record), ``file`` (another stack file), ``git`` (the
            same stack file at a git revision) or ``empty`` (nothing: every resource is new).
        ref: the record path, base file path or git ref; None for a plain empty base.
        graph: the base graph; None for an empty base.
        note: one sentence on how the base was chosen, when that is worth saying.

    """

    kind: str
    ref: str | None
    graph: ResourceGraph | None
    note: str | None = None

    def describe(self) -> str:
        """Return a short phrase naming the base, for the plan's header."""
        if self.kind == "recorded":
            return f"last applied graph ({self.ref})"
        if self.kind == "file":
            return f"stack file {self.ref}"
        if self.kind == "git" and self.graph is None:
            return f"git revision {self.ref}: empty"
        if self.kind == "git":
            return f"git revision {self.ref}"
        return "empty (every resource is new)"


class InvalidBaseError(InputError):
    """The base stack file is invalid; ``result`` carries its diagnostics."""

    def __init__(self, message: str, result: ValidateResult) -> None:
        super().__init__(message)
        self.result = result


def load_base(stack_file: Path, stack_name: str, base: str | None) -> Base:
    """Resolve the base of a plan.

    Args:
        stack_file: the desired stack file.
        stack_name: its ``metadata.name`` (names the applied record).
        base: ``--base`` as given: None for the applied record, an existing file path for
            another stack file, anything else a git ref of the repository holding ``stack_file``.

    Returns:
        The base, with its graph (None for an empty base).

    Raises:
        InvalidBaseError: the base stack file is invalid.
        InputError: git, the repository, or the ref is missing.
        StateError: the applied record is unreadable.

    """
    stack_file = Path(stack_file)
    if base is None:
        path = record_path(stack_file, stack_name)
        graph = read_applied(path)
        if graph is None:
            note = f"no applied record at {path} yet (gpupool up writes it)"
            return Base("empty", None, None, note)
        return Base("recorded", str(path), graph)
    if Path(base).is_dir():
        raise InputError(f"--base {base}: is a directory; give a stack file or a git ref")
    if Path(base).is_file():
        from gpupool.spec.validate import validate_file

        return Base("file", base, _build(validate_file(Path(base), base), f"base file {base}"))
    return _git_base(stack_file, base)


def _build(result: ValidateResult, what: str) -> ResourceGraph:
    """Build the graph of a validated base, or raise InvalidBaseError."""
    if result.stack is None:
        errors = sum(1 for d in result.diagnostics if d.is_error)
        raise InvalidBaseError(
            f"the {what} is invalid ({errors} error{'s' * (errors != 1)}); fix it or plan "
            "against another base with --base",
            result,
        )
    from gpupool.graph import build

    return build(result.stack)


def _git(repo_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run one git command in ``repo_dir`` and capture its output."""
    git = shutil.which("git")
    if git is None:
        raise InputError("--base with a git ref needs git, which is not installed")
    try:
        return subprocess.run(
            [git, "-C", str(repo_dir), *args],
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=_GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InputError(f"git failed to run: {exc}") from None


def _git_base(stack_file: Path, ref: str) -> Base:
    """Read and build the same stack file at git revision ``ref``."""
    if ref.startswith("-"):
        raise InputError(f"--base {ref}: not a file, and a git ref cannot start with '-'")
    directory = stack_file.resolve().parent
    top = _git(directory, "rev-parse", "--show-toplevel")
    if top.returncode != 0:
        why = top.stderr.strip().splitlines()[0] if top.stderr.strip() else ""
        if "not a git repository" in why or not why:
            why = f"{stack_file} is not inside a git repository"
        raise InputError(f"--base {ref}: no such file, and {why}")
    root = Path(top.stdout.strip()).resolve()
    try:
        rel = stack_file.resolve().relative_to(root).as_posix()
    except ValueError:
        raise InputError(f"--base {ref}: {stack_file} is outside the repository {root}") from None
    verify = _git(directory, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if verify.returncode != 0:
        raise InputError(f"--base {ref}: no such file, and no such git revision in {root}")
    commit = verify.stdout.strip()
    if _git(directory, "cat-file", "-e", f"{commit}:{rel}").returncode != 0:
        return Base("git", ref, None, f"{rel} did not exist at {ref}")
    show = _git(directory, "show", f"{commit}:{rel}")
    if show.returncode != 0:
        raise InputError(f"--base {ref}: git cannot read {rel} there: {show.stderr.strip()}")
    from gpupool.spec.validate import validate_text

    result = validate_text(show.stdout, f"{ref}:{rel}")
    return Base("git", ref, _build(result, f"stack file {rel} at {ref}"))
