"""``gpupool advise --demo``: advise the bundled example stack from a generated cluster, offline.

The demo writes the bundled stack (``advise.demo.scenario.STACK``) to a temporary folder, serves
the scenario's 14 generated days on a loopback port as Prometheus's query API
(``advise.demo.server``), runs ``usecases.advise`` against it exactly as against a real server,
and stops the server and removes the folder before it returns. The window ends at the
scenario's fixed end, so the report is the same on every run.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from gpupool.advise.demo import scenario, server
from gpupool.advise.report import AdviseResult
from gpupool.errors import InputError
from gpupool.spec.validate import validate_text
from gpupool.usecases import advise

FILE = f"{scenario.NAME}.yaml"  # the name the demo's stack file has


def demo(
    since_seconds: float = scenario.DAYS * scenario.DAY,
    progress: Callable[[str], None] | None = None,
    export_requests: Path | None = None,
) -> AdviseResult:
    """Return advise's result for the bundled stack over the ``since_seconds`` before its end.

    ``export_requests`` writes the services' demand in the window (``--export-requests``).

    Raises:
        InputError: the bundled stack does not validate (a fault of this build).

    """
    checked = validate_text(scenario.STACK, FILE)
    if checked.stack is None:
        raise InputError(f"the demo's bundled stack {FILE} does not validate")
    with tempfile.TemporaryDirectory(prefix="gpupool-demo-") as folder:
        stack_file = Path(folder) / FILE
        stack_file.write_text(scenario.STACK, encoding="utf-8")
        if progress:
            progress(f"serving {scenario.DAYS} generated days of metrics of the bundled stack "
                     f"{scenario.NAME} on 127.0.0.1")
        with server.serving(scenario.series()) as url:
            return advise.advise(stack_file, checked.stack, url=url,
                                 since_seconds=since_seconds, end=scenario.END,
                                 progress=progress, export_requests=export_requests)
