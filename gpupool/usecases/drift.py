"""``gpupool drift``: every drift source the stack has access to (see ``gpupool.drift.run``)."""

from __future__ import annotations

from pathlib import Path

from gpupool.drift.items import DriftReport
from gpupool.drift.run import DriftInputs, run
from gpupool.engine import pulumi as engine
from gpupool.engine.results import EngineResult
from gpupool.model import Stack
from gpupool.usecases.engine import OnEvent, prepare


def drift(
    stack_file: Path,
    stack: Stack,
    node_reports: Path | None,
    require: frozenset[str],
    on_event: OnEvent | None = None,
) -> DriftReport:
    """Run every drift source for the stack; those in ``require`` must run.

    The cloud source renders the program (as ``preview`` does) and asks the engine for a refresh
    preview, only when ``gpupool.drift.run`` gets to it.

    Raises:
        RequiredSourceError: a source in ``require`` could not be checked.

    """

    def refresh() -> EngineResult:
        return engine.refresh_preview(prepare(stack_file, stack).target, on_event)

    return run(
        stack,
        stack_file,
        DriftInputs(node_reports_dir=node_reports),
        require,
        engine_runner=refresh,
    )
