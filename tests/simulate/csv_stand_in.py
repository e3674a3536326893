"""A stand-in for ``gpupool.simulate.workload`` until the real readers are merged (a helper).

It reads the CSV columns the workload format names (``name, tenant, submit, duration, gpus,
fraction, mig, gpu_memory_gib, cpu, memory_gib, priority, pool, pods``; seconds only) and
checks only that tenants exist, placing each problem on its file line. ``install`` puts it in
``sys.modules`` where the real module is absent, so the command line's import finds it.
"""

from __future__ import annotations

import csv
import importlib.util
import sys
import types
from pathlib import Path

import pytest

from gpupool.model import Stack
from gpupool.simulate.jobs import Job, Workload
from gpupool.spec.diagnostics import Diagnostic, Pos, Range, error

_INTS = {"gpus", "pods"}
_FLOATS = {"submit", "duration", "fraction", "gpu_memory_gib", "cpu", "memory_gib"}


def read_workload(path: Path, fmt: str | None = None) -> Workload:
    """Read a workload CSV (``fmt`` ignored)."""
    jobs = []
    with Path(path).open(encoding="utf-8", newline="") as f:
        for line, row in enumerate(csv.DictReader(f), start=2):
            kw: dict[str, object] = {}
            for key, value in row.items():
                if value in ("", None):
                    continue
                kw[key] = int(value) if key in _INTS else float(value) if key in _FLOATS else value
            jobs.append(Job(line=line, **kw))  # type: ignore[arg-type]
    return Workload(str(path), tuple(sorted(jobs, key=lambda j: j.submit)))


def check_workload(stack: Stack, workload: Workload) -> list[Diagnostic]:
    """Report rows whose tenant the stack lacks, at their lines."""
    names = {t.name for t in stack.tenants}
    out = []
    for j in workload.jobs:
        if j.tenant is not None and j.tenant not in names:
            where = Range(workload.source, Pos(j.line, 1), Pos(j.line, 1))
            out.append(error("workload.unknown-tenant", f"tenant {j.tenant} is not in the stack")
                       .placed(where))
    return out


def install(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``gpupool.simulate.workload`` importable: the real one, else this stand-in."""
    if importlib.util.find_spec("gpupool.simulate.workload") is not None:
        return
    module = types.ModuleType("gpupool.simulate.workload")
    module.read_workload = read_workload  # type: ignore[attr-defined]
    module.check_workload = check_workload  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "gpupool.simulate.workload", module)
