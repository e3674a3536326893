"""Rules on the workload a stack names for ``plan`` and ``simulate`` (``simulation.workload``).

The path is relative to the stack file's folder. A stack file can come from a pull request, and
CI then runs ``gpupool plan`` on it, which reads the workload and prints the problems it finds
with the cells they are in: a path that leaves the folder (absolute, ``~``, or ``..`` out of it)
would have CI read, and quote, a file the repository does not own. It is an error, so nothing
is read; a link inside the folder that leads out is refused when the file is opened
(``gpupool.usecases.simulate.prepare``).
"""

from __future__ import annotations

from gpupool.model import Stack
from gpupool.spec.checks.state import leaves_folder
from gpupool.spec.diagnostics import Diagnostic, error

_PATH = ("simulation", "workload")


def run(stack: Stack) -> list[Diagnostic]:
    """Refuse a workload path outside the stack file's folder."""
    sim = stack.simulation
    if sim is None or not leaves_folder(sim.workload):
        return []
    return [
        error(
            "simulation.workload-outside",
            "The workload is outside the stack file's folder",
            f"simulation.workload {sim.workload!r} is an absolute path, starts with '~' or climbs "
            "out of the stack file's folder with '..'. gpupool reads only a workload beside the "
            "stack file (a pull request could otherwise make CI read and quote any file); move "
            "it into the folder, or pass it with --workload.",
            _PATH,
        )
    ]
