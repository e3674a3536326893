"""The Alibaba ``cluster-trace-gpu-v2023`` pod lists (``openb_pod_list_*.csv``) as workloads.

This module owns reading the trace as it is published (alibaba/clusterdata,
``cluster-trace-gpu-v2023/csv/``), one pod per row, and the names its GPU models have in
gpupool's catalog (``GPU_MODELS``, which ``bench/openb_stack.py`` also uses to write the trace's
node list as a stack). The mapping follows the FGD paper's simulator
(hkust-adsl/kubernetes-scheduler-simulator @ 8f3d6417, ``data/pod_csv_to_yaml.py`` and
``pkg/utils/utils.go`` ``GetPodResource``), which reads ``cpu_milli``, ``memory_mib``,
``num_gpu``, ``gpu_milli`` and ``gpu_spec`` (docs/workload.md has the table):

- ``cpu_milli`` / 1000 is ``cpu`` (cores), ``memory_mib`` / 1024 is ``memory_gib``;
- ``num_gpu`` 0 is a CPU-only pod (CPU and memory only; ``gpu_milli`` is then ignored, as the
  simulator writes no GPU annotation for it); ``num_gpu`` N with ``gpu_milli`` 1000 is N whole
  GPUs; ``num_gpu`` 1 with ``gpu_milli`` below 1000 is ``fraction`` ``gpu_milli`` / 1000;
- ``gpu_spec`` (``|``-separated models, empty for any) becomes ``gpu_models``, each in the
  catalog's name where ``GPU_MODELS`` knows it;
- ``creation_time`` (seconds from the trace's start) is ``submit``, ``deletion_time`` minus it
  is ``duration``; a pod with no deletion time runs to the end of the trace (the latest time
  in the file); in a list without ``deletion_time`` (``openb_pod_list_multigpu50.csv`` has only
  the first five columns) pods never end (``duration`` is infinite) and are all submitted at 0;
- ``qos`` must be one of the trace's four classes but sets no priority: the simulator ignores
  it, and a trace pod has no tenant whose priority ladder it could be placed on;
  ``pod_phase`` and ``scheduled_time`` record what happened in Alibaba's cluster and are not
  read.

Every number is a whole number of digits within the bounds of gpupool's own columns (cores,
memory, GPUs; times at most ``MAX_SECONDS``, docs/workload.md, Bounds). Rows the simulator's
converter would bend (``gpu_milli`` above 1000 clipped, several GPUs each
shared) are errors here: the published lists have none.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterator
from pathlib import Path

from gpupool.simulate.columns import MAX_CPU, MAX_GPUS, MAX_MEMORY_GIB, MAX_SECONDS
from gpupool.simulate.jobs import Job
from gpupool.simulate.source import Problems, lines
from gpupool.spec.diagnostics import clip, error

#: The trace's GPU model names and gpupool's catalog names for them. P100, G2 and G3 are not in
#: the catalog (G2 and G3 are Alibaba's anonymised models) and keep their trace names; a stack
#: declares them (bench/openb_stack.py).
GPU_MODELS = {
    "T4": "T4",
    "A10": "A10",
    "P100": "P100",
    "V100M16": "V100-SXM2-16GB",
    "V100M32": "V100-SXM2-32GB",
    "G2": "G2",
    "G3": "G3",
}
#: The columns of the published pod lists; the first five are required.
REQUIRED = ("name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli")
OPTIONAL = ("gpu_spec", "qos", "pod_phase", "creation_time", "deletion_time", "scheduled_time")
QOS = ("LS", "BE", "Burstable", "Guaranteed")
MILLI = 1000
#: The latest creation or deletion time read (seconds from the trace's start): the bound of a
#: gpupool workload's submit times and durations (docs/workload.md, Bounds).
_MAX_TIME = int(MAX_SECONDS)


class _Bad(ValueError):
    pass


def _whole(text: str, what: str, most: int) -> int:
    """Read a whole number from 0 to ``most`` (digits only: no sign, no ``_``, no exponent)."""
    digits = text.strip()
    if digits.startswith("-") and digits[1:].isascii() and digits[1:].isdigit():
        raise _Bad(f"{what} must be 0 or more, not {clip(digits, 40)}")
    if not (digits.isascii() and digits.isdigit()):
        raise _Bad(f"{what} must be a whole number, not {clip(text, 40)!r}")
    if len(digits.lstrip("0")) > len(str(most)) or int(digits) > most:
        raise _Bad(f"{what} must be at most {most:,}, not {clip(digits, 40)}")
    return int(digits)


def read_pods(path: Path, problems: Problems) -> list[Job]:
    """Read an openb pod list into jobs (file order), recording bad rows in ``problems``."""
    at = [0]  # the line the reader took last
    reader = csv.reader(_texts(path, problems, at), strict=True)
    try:
        header = [cell.strip() for cell in next(reader)]
    except StopIteration:
        return []
    except csv.Error as exc:
        problems.add(error("workload.bad-csv", f"not CSV: {exc}"), at[0])
        return []
    if not _header_ok(header, at[0], problems):
        return []
    index = {name: i for i, name in enumerate(header)}
    jobs: list[Job] = []
    ends: list[int | None] = []  # each job's deletion time (None: never deleted)
    names: dict[str, int] = {}
    specs: dict[str, tuple[str, ...]] = {}
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            problems.add(error("workload.bad-csv", f"not CSV: {exc}"), at[0])
            continue
        line = at[0]
        if not row or row == [""]:
            continue
        if len(row) != len(header):
            problems.add(
                error(
                    "workload.cell-count", f"{len(row)} cells where the header has {len(header)}"
                ),
                line,
            )
            continue
        try:
            job, end = _pod(row, index, line, specs)
        except _Bad as exc:
            problems.add(
                error(
                    "workload.bad-value",
                    str(exc),
                    "docs/workload.md says how openb columns are read.",
                ),
                line,
            )
            continue
        if job.name in names:
            problems.add(
                error(
                    "workload.duplicate-name",
                    f"pod name {job.name!r} is also on line {names[job.name]}",
                ),
                line,
            )
            continue
        names[job.name] = line
        if not problems:
            jobs.append(job)
            ends.append(end)
    if "deletion_time" not in index:
        return [_with_duration(j, math.inf) for j in jobs]
    last = max([j.submit for j in jobs] + [e for e in ends if e is not None], default=0.0)
    return [
        _with_duration(j, (last if e is None else e) - j.submit)
        for j, e in zip(jobs, ends, strict=True)
    ]


def _texts(path: Path, problems: Problems, at: list[int]) -> Iterator[str]:
    for number, text in lines(path, problems):
        at[0] = number
        yield text


def _header_ok(header: list[str], line: int, problems: Problems) -> bool:
    ok = True
    for name in header:
        if name not in REQUIRED and name not in OPTIONAL:
            problems.add(
                error(
                    "workload.unknown-column",
                    f"unknown openb column {name!r}",
                    f"An openb pod list has {', '.join(REQUIRED + OPTIONAL)}.",
                ),
                line,
            )
            ok = False
    for name in REQUIRED:
        if name not in header:
            problems.add(
                error(
                    "workload.missing-column",
                    f"no {name!r} column",
                    f"An openb pod list has at least {', '.join(REQUIRED)}.",
                ),
                line,
            )
            ok = False
    if len(set(header)) != len(header):
        problems.add(error("workload.duplicate-column", "a column appears twice"), line)
        ok = False
    return ok


def _pod(
    row: list[str], index: dict[str, int], line: int, specs: dict[str, tuple[str, ...]]
) -> tuple[Job, int | None]:
    def cell(name: str) -> str:
        return row[index[name]].strip() if name in index else ""

    name = cell("name")
    if not name:
        raise _Bad("name is empty")
    cpu = _whole(cell("cpu_milli"), "cpu_milli", int(MAX_CPU) * MILLI) / MILLI
    memory = _whole(cell("memory_mib"), "memory_mib", int(MAX_MEMORY_GIB) * 1024) / 1024
    count = _whole(cell("num_gpu"), "num_gpu", MAX_GPUS)
    milli = _whole(cell("gpu_milli"), "gpu_milli", MAX_GPUS * MILLI)
    gpus, fraction = 0, None
    if count:
        if milli > MILLI or milli == 0:
            raise _Bad(f"gpu_milli must be 1 to {MILLI} for a GPU pod, not {milli}")
        if milli == MILLI:
            gpus = count
        elif count == 1:
            fraction = milli / MILLI
        else:
            raise _Bad(
                f"num_gpu {count} with gpu_milli {milli}: gpupool shares one GPU a pod "
                "at most (gpu_milli below 1000 needs num_gpu 1)"
            )
    qos = cell("qos")
    if qos and qos not in QOS:
        raise _Bad(f"qos must be one of {', '.join(QOS)}, not {qos!r}")
    spec = cell("gpu_spec")
    models = specs.get(spec)
    if models is None:
        models = specs.setdefault(
            spec, tuple(GPU_MODELS.get(m, m) for m in (p.strip() for p in spec.split("|")) if m)
        )
    when = cell("creation_time")
    created = _whole(when, "creation_time", _MAX_TIME) if when else 0
    deleted = cell("deletion_time")
    end = _whole(deleted, "deletion_time", _MAX_TIME) if deleted else None
    if end is not None and end < created:
        raise _Bad(f"deletion_time {end} is before creation_time {created}")
    job = Job(
        name=name,
        line=line,
        submit=float(created),
        duration=0.0,
        gpus=gpus,
        fraction=fraction,
        cpu=cpu,
        memory_gib=memory,
        gpu_models=models if count else (),
    )
    return job, end


def _with_duration(job: Job, duration: float) -> Job:
    return Job(
        name=job.name,
        line=job.line,
        submit=job.submit,
        duration=float(duration),
        gpus=job.gpus,
        fraction=job.fraction,
        cpu=job.cpu,
        memory_gib=job.memory_gib,
        gpu_models=job.gpu_models,
    )
