"""Reading the Alibaba openb pod lists (gpupool/simulate/openb.py).

The mapping follows the FGD paper's simulator (hkust-adsl/kubernetes-scheduler-simulator @
8f3d6417, ``data/pod_csv_to_yaml.py``: ``cpu_milli`` as the CPU request in millicores,
``memory_mib`` in MiB, a GPU annotation only when ``num_gpu`` is not 0, ``gpu_milli`` per GPU,
``gpu_spec`` split on ``|``). The small lists here are made up in the trace's shape; the tests
on the published lists read them through ``tests.paths.shared_upstream`` and skip without them.
"""

from __future__ import annotations

import math
from pathlib import Path

from gpupool.simulate.openb import GPU_MODELS
from gpupool.simulate.workload import read_workload
from tests.paths import shared_upstream

HEADER = (
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time\n"
)


def _read(tmp_path: Path, text: str) -> dict[str, object]:
    path = tmp_path / "pods.csv"
    path.write_text(text, encoding="utf-8")
    return {j.name: j for j in read_workload(path, "openb").jobs}


def test_cpu_memory_and_each_gpu_shape(tmp_path: Path) -> None:
    jobs = _read(
        tmp_path,
        HEADER
        + "whole,2500,3072,2,1000,,LS,Running,10,110,10\n"
        + "shared,500,1024,1,300,,BE,Running,20,80,20\n"
        + "cpu-only,1000,2048,0,700,,BE,Running,30,90,30\n"
        + "pinned,4000,8192,1,1000,V100M16|T4|X9,Burstable,Pending,40,100,\n",
    )
    whole = jobs["whole"]
    assert (whole.cpu, whole.memory_gib, whole.gpus, whole.fraction) == (2.5, 3.0, 2, None)
    assert (whole.submit, whole.duration) == (10.0, 100.0)
    shared = jobs["shared"]
    assert (shared.gpus, shared.fraction, shared.duration) == (0, 0.3, 60.0)
    cpu_only = jobs["cpu-only"]  # num_gpu 0: its gpu_milli is not read, as the simulator does
    assert (cpu_only.gpus, cpu_only.fraction, cpu_only.gpu_models) == (0, None, ())
    pinned = jobs["pinned"]  # catalog names where gpupool knows the model, else the trace's
    assert pinned.gpu_models == ("V100-SXM2-16GB", "T4", "X9")
    assert all(j.priority is None and j.tenant is None for j in jobs.values())


def test_a_pod_never_deleted_runs_to_the_end_of_the_trace(tmp_path: Path) -> None:
    jobs = _read(
        tmp_path,
        HEADER
        + "early,1000,1024,1,1000,,LS,Running,5,,5\n"
        + "late,1000,1024,1,500,,LS,Running,300,250000,300\n"
        + "last,1000,1024,0,0,,LS,Running,400000,,400000\n",
    )
    assert jobs["early"].duration == 400000 - 5  # the latest time in the file
    assert jobs["last"].duration == 0


def test_a_list_without_times_submits_everything_at_once_forever(tmp_path: Path) -> None:
    jobs = _read(
        tmp_path,
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli\na,1000,1024,8,1000\nb,1000,1024,1,250\n",
    )
    assert [(j.submit, j.duration) for j in jobs.values()] == [(0.0, math.inf), (0.0, math.inf)]


def test_the_published_default_trace() -> None:
    """openb_pod_list_default.csv: 8,152 pods, 1,088 CPU-only, 75 with 2, 4 or 8 GPUs."""
    path = shared_upstream("fgd/openb_pod_list_default.csv")
    jobs = read_workload(path, "openb").jobs
    assert len(jobs) == 8152
    assert sum(1 for j in jobs if j.gpus == 0 and j.fraction is None) == 1088
    assert sum(1 for j in jobs if j.gpus > 1) == 75
    assert {j.gpus for j in jobs if j.gpus > 1} == {2, 4, 8}
    assert all(0 < j.fraction < 1 for j in jobs if j.fraction is not None)
    assert max(j.submit + j.duration for j in jobs) == 12902960
    assert [j.submit for j in jobs] == sorted(j.submit for j in jobs)


def test_the_published_gpu_spec_trace_names_catalog_models() -> None:
    path = shared_upstream("fgd/openb_pod_list_gpuspec33.csv")
    models = {m for j in read_workload(path, "openb").jobs for m in j.gpu_models}
    assert models and models <= set(GPU_MODELS.values())
    assert "V100-SXM2-32GB" in models


def test_the_published_multi_gpu_trace_has_no_times() -> None:
    path = shared_upstream("fgd/openb_pod_list_multigpu50.csv")
    jobs = read_workload(path, "openb").jobs
    assert len(jobs) == 9061
    assert all(j.submit == 0 and j.duration == math.inf for j in jobs)
