"""Rules on the files a stack names for ``plan`` and ``simulate`` (``simulation``).

The path is relative to the stack file's folder. A stack file can come from a pull request, and
CI then runs ``gpupool plan`` on it, which reads the workload and prints the problems it finds
with the cells they are in: a path that leaves the folder (absolute, ``~``, or ``..`` out of it)
would have CI read, and quote, a file the repository does not own. It is an error, so nothing
is read; a link inside the folder that leads out is refused when the file is opened
(``gpupool.usecases.simulate.prepare``).
"""

from __future__ import annotations

import re

from gpupool.model import Stack
from gpupool.spec.checks.state import leaves_folder
from gpupool.spec.diagnostics import Diagnostic, error

_PATH = ("simulation", "workload")


def run(stack: Stack) -> list[Diagnostic]:
    """Refuse a workload or request trace path outside the stack file's folder."""
    sim = stack.simulation
    if sim is None:
        return []
    found = [
        error(
            "simulation.requests-outside",
            "The request trace is outside the stack file's folder",
            f"simulation.requests {value!r} is an absolute path, starts with '~' or climbs out "
            "of the stack file's folder with '..'. gpupool reads only traces beside the stack "
            "file (a pull request could otherwise make CI read and quote any file); move it "
            "into the folder, or pass it with --requests.",
            ("simulation", "requests", i),
        )
        for i, value in enumerate(sim.requests)
        if leaves_folder(_trace_path(value))
    ]
    if not leaves_folder(sim.workload):
        return found
    return [*found,
        error(
            "simulation.workload-outside",
            "The workload is outside the stack file's folder",
            f"simulation.workload {sim.workload!r} is an absolute path, starts with '~' or climbs "
            "out of the stack file's folder with '..'. gpupool reads only a workload beside the "
            "stack file (a pull request could otherwise make CI read and quote any file); move "
            "it into the folder, or pass it with --workload.",
            _PATH,
        )]


def _trace_path(value: str) -> str:
    """Return the file of a ``simulation.requests`` entry (``SERVICE=FILE`` or ``FILE``).

    The same split as ``--requests`` (``gpupool.simulate.requests.split_option``): the part
    before the first ``=`` is a service only when it is a DNS label.
    """
    name, sep, rest = value.partition("=")
    if sep and rest and re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", name):
        return rest
    return value
