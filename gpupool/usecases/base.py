"""Choosing and loading what a plan is compared against (``--base``).

This module owns the four bases of ``gpupool plan`` (and of ``gpupool preview``, which uses the
default): the applied record (``gpupool.record``) by default, an empty base when nothing was
applied yet, another stack file (``--base FILE``), or the same stack file at a git revision
(``--base GIT-REF``, read with ``git show``). A base stack file is validated and built exactly like
the desired one, and must be the same stack (the same ``metadata.name``) unless forced. The result
is a ``gpupool.plan.Base``: plain data the plan compares against. ``base_stack`` resolves the
same file or git ref to a validated stack, the base ``gpupool simulate`` replays a workload on.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from gpupool import record
from gpupool.assemble import build
from gpupool.errors import InputError
from gpupool.graph import ResourceGraph
from gpupool.model import Stack
from gpupool.plan import Base
from gpupool.spec.validate import ValidateResult, validate_file, validate_text

_GIT_TIMEOUT_S = 30


class InvalidBaseError(InputError):
    """The base stack file is invalid; ``result`` carries its diagnostics."""

    def __init__(self, message: str, result: ValidateResult) -> None:
        super().__init__(message)
        self.result = result


def load_base(stack_file: Path, stack_name: str, base: str | None, *,
              force: bool = False) -> Base:
    """Resolve the base of a plan.

    Args:
        stack_file: the desired stack file.
        stack_name: its ``metadata.name`` (names the applied record).
        base: ``--base`` as given: None for the applied record, an existing file path for
            another stack file, anything else a git ref of the repository holding ``stack_file``.
        force: accept a base stack file whose ``metadata.name`` is another stack's
            (``--force-base``). Without it such a base is an error: its resources are another
            Pulumi stack's, so the plan would show that stack's resources being replaced.

    Returns:
        The base, with its graph (None for an empty base).

    Raises:
        InvalidBaseError: the base stack file is invalid.
        InputError: git, the repository, or the ref is missing; the base is another stack.
        StateError: the applied record is unreadable.

    """
    stack_file = Path(stack_file)
    if base is None:
        path = record.record_path(stack_file, stack_name)
        graph = record.read_applied(path)
        if graph is None:
            note = f"no applied record at {path} yet (gpupool up writes it)"
            return Base("empty", None, None, note)
        return Base("recorded", str(path), graph)
    if Path(base).is_dir():
        raise InputError(f"--base {base}: is a directory; give a stack file or a git ref")
    if Path(base).is_file():
        graph = _build(validate_file(Path(base), base), f"base file {base}")
        return Base("file", base, _same_stack(graph, stack_name, base, force))
    found = _git_base(stack_file, base)
    if found.graph is not None:
        _same_stack(found.graph, stack_name, base, force)
    return found


def _same_stack(graph: ResourceGraph, stack_name: str, base: str, force: bool) -> ResourceGraph:
    """Return the base graph, or raise InputError when it is another stack's (unless forced)."""
    if graph.stack != stack_name and not force:
        raise InputError(
            f"--base {base} is stack '{graph.stack}', not '{stack_name}' (metadata.name "
            "differs): a plan against it shows another stack's resources; pass --force-base "
            "to compare anyway"
        )
    return graph


def _build(result: ValidateResult, what: str) -> ResourceGraph:
    """Build the graph of a validated base, or raise InvalidBaseError."""
    return build(_valid(result, what, "plan against another base with --base"))


def _valid(result: ValidateResult, what: str, instead: str) -> Stack:
    """Return the stack of a validated base, or raise InvalidBaseError saying what to do."""
    if result.stack is None:
        errors = sum(1 for d in result.diagnostics if d.is_error)
        raise InvalidBaseError(
            f"the {what} is invalid ({errors} error{'s' * (errors != 1)}); fix it or {instead}",
            result,
        )
    return result.stack


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
    text, rel = _git_text(stack_file, ref)
    if text is None:
        return Base("git", ref, None, f"{rel} did not exist at {ref}")
    result = validate_text(text, f"{ref}:{rel}")
    return Base("git", ref, _build(result, f"stack file {rel} at {ref}"))


def _git_text(stack_file: Path, ref: str) -> tuple[str | None, str]:
    """Return the stack file's text at git revision ``ref``, and its path in the repository.

    The text is None where the file did not exist at ``ref``.
    """
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
        return None, rel
    show = _git(directory, "show", f"{commit}:{rel}")
    if show.returncode != 0:
        raise InputError(f"--base {ref}: git cannot read {rel} there: {show.stderr.strip()}")
    return show.stdout, rel


def base_stack(stack_file: Path, base: str) -> Stack:
    """Return the validated stack ``--base`` names: another stack file, or this one at a git ref.

    ``gpupool simulate`` replays one workload on it and on the stack file, so unlike a plan's
    base it may be another stack, and there is no applied or empty base.

    Raises:
        InvalidBaseError: the base stack file is invalid.
        InputError: the file or ref is missing, or the stack file did not exist at the ref.

    """
    if Path(base).is_dir():
        raise InputError(f"--base {base}: is a directory; give a stack file or a git ref")
    if Path(base).is_file():
        result = validate_file(Path(base), base)
        what = f"base file {base}"
    else:
        text, rel = _git_text(Path(stack_file), base)
        if text is None:
            raise InputError(f"--base {base}: {rel} did not exist at {base}")
        result = validate_text(text, f"{base}:{rel}")
        what = f"stack file {rel} at {base}"
    return _valid(result, what, "give another --base")
