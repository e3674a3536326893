"""Rules on where the stack keeps its Pulumi state (``state.backend``).

A stack file can come from a pull request, and CI then runs ``gpupool preview`` with the backend
the file names. A ``file://`` backend is a directory the Pulumi CLI creates and writes (Pulumi's
DIY backend keeps ``.pulumi/`` there: https://www.pulumi.com/docs/iac/concepts/state-and-backends/
"Local filesystem"); one outside the stack file's folder (an absolute path, ``~``, or a relative
path that climbs out with ``..``) makes a run write somewhere the repository does not own. The
warning names where, so a reviewer sees it in the pull request's plan. gpupool resolves a
relative ``file://`` path from the stack file's folder (``gpupool.usecases.engine.backend_url``).
"""

from __future__ import annotations

from pathlib import PurePosixPath

from gpupool.model import Stack
from gpupool.spec.diagnostics import Diagnostic, warning

_FILE = "file://"
_PATH = ("state", "backend")


def leaves_folder(path: str) -> bool:
    """Return whether ``path`` (relative to the stack file's folder) ends up outside it."""
    if path.startswith("~") or PurePosixPath(path).is_absolute():
        return True
    depth = 0
    for part in PurePosixPath(path).parts:
        depth += -1 if part == ".." else 0 if part == "." else 1
        if depth < 0:
            return True
    return False


def run(stack: Stack) -> list[Diagnostic]:
    """Warn when a ``file://`` backend lies outside the stack file's folder."""
    if not stack.backend.startswith(_FILE) or not leaves_folder(stack.backend[len(_FILE):]):
        return []
    where = stack.backend[len(_FILE):]
    return [
        warning(
            "state.backend-outside",
            "The state backend is outside the stack file's folder",
            f"Pulumi will create and write its state in {where!r}, outside the folder of this "
            "stack file (an absolute path, '~' or '..' out of it). If this file comes from a pull "
            "request, check that this is meant; the default, file://.gpupool/state, stays beside "
            "the stack file.",
            _PATH,
        )
    ]
