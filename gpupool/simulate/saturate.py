"""Capacity mode (``--saturate PERCENT``): how much of the pools the workload's pod shapes can use.

This module owns the method of the FGD paper's simulator (Weng et al., USENIX ATC'23;
hkust-adsl/kubernetes-scheduler-simulator at 8f3d6417), applied to the stack's pools at their
most nodes and under the stack's own scheduler:

1. the workload's pods, then copies of pods drawn at random (seeded) from it while the GPU
   requests stay within PERCENT of the pools' GPU capacity (``pkg/simulator/simulator.go``
   ``tuneUpPods``: a draw that would pass the target ends it; a workload already above the
   target loses random pods, ``tuneDownPods``);
2. the pods in a seeded random order (``SortClusterPods`` with ``--shuffle-pod``: sorted by
   name, then shuffled);
3. each pod submitted in turn, none ever leaving; a pod that fits nowhere fails and is not
   retried (``SchedulePods``), and the arrived GPU requests and the allocated GPUs are recorded
   after each;
4. per whole percent of arrived requests, the mean allocated share of the capacity over the
   records that round to it (``experiments/analysis/merge_alloc_discrete.py``; a percent no
   record rounds to takes the records within one percent of it).

GPU requests are whole-GPU equivalents (a pod of ``gpus: 2`` asks 2, ``fraction: 0.3`` asks
0.3), as the paper's ``num_gpu x gpu_milli``. Tenancy still applies: a pod its tenant's
ceilings or admission would not admit fails.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from gpupool.model import Stack
from gpupool.simulate.cluster import gpus_at
from gpupool.simulate.engine import Settings, Simulation
from gpupool.simulate.jobs import Job, Workload


@dataclass(frozen=True)
class Saturation:
    """The allocation curve of one capacity run.

    Attributes:
        capacity_gpus: the pools' GPUs at their most nodes.
        pods: pods submitted.
        failed: pods that fit nowhere.
        arrived_percent: 0, 1, ... PERCENT.
        allocated_percent: the allocated share of capacity at each arrived percent (None where
            no record is near it).

    """

    capacity_gpus: float
    pods: int
    failed: int
    arrived_percent: tuple[int, ...]
    allocated_percent: tuple[float | None, ...]


def _asks(job: Job) -> float:
    """Return the GPU request of one pod of ``job`` in whole GPUs (a MIG slice by g/7)."""
    if job.gpus:
        return float(job.gpus)
    if job.fraction is not None:
        return job.fraction
    if job.mig is not None:
        return int(job.mig.split("g", 1)[0]) / 7
    return 0.0


def _pods(workload: Workload) -> list[Job]:
    """One job per pod (a gang's pods arrive one by one here, as the paper's pods do)."""
    out = []
    for job in workload.jobs:
        out += [replace(job, pods=1, name=f"{job.name}-{i}") for i in range(job.pods)]
    return out


def tune(workload: Workload, capacity: float, percent: float, seed: int) -> list[Job]:
    """Return the pods drawn to ask ``percent`` of ``capacity`` GPUs, shuffled (steps 1, 2)."""
    rng = random.Random(seed)
    pods = _pods(workload)
    target = capacity * percent / 100
    asked = sum(_asks(p) for p in pods)
    if asked > target:
        while pods and asked > target:
            asked -= _asks(pods.pop(rng.randrange(len(pods))))
    elif pods and any(_asks(p) > 0 for p in pods):
        source = list(pods)
        i = 0
        while True:
            pick = source[rng.randrange(len(source))]
            if asked + _asks(pick) > target:
                break
            asked += _asks(pick)
            pods.append(replace(pick, name=f"{pick.name}-tuned-{i}"))
            i += 1
    pods.sort(key=lambda p: p.name)
    rng.shuffle(pods)
    return [replace(p, submit=0.0, line=p.line) for p in pods]


def saturate(stack: Stack, workload: Workload, percent: float, seed: int = 0) -> Saturation:
    """Fill the stack's pools with the workload's pod shapes up to ``percent`` (steps 1 to 4)."""
    sim0 = Simulation(stack, Workload(workload.source, ()), Settings(seed=seed))
    capacity = sum(gpus_at(pm, pm.nodes_max) for pm in sim0.cluster.pools)
    pods = tune(workload, capacity, percent, seed)
    sim = Simulation(stack, Workload(workload.source, tuple(pods)), Settings(seed=seed))
    sim.start_full()
    records: list[tuple[float, float]] = [(0.0, 0.0)]
    arrived = 0.0
    failed = 0
    for i, job in enumerate(pods):
        arrived += _asks(job)
        if not sim.place_now(i):
            failed += 1
        allocated = sim.allocated_gpus()
        records.append((100 * arrived / capacity, 100 * allocated / capacity))
    top = int(percent)
    curve: list[float | None] = []
    buckets: dict[int, list[float]] = {}
    for arr, alloc in records:
        buckets.setdefault(round(arr), []).append(alloc)
    for k in range(top + 1):
        near = buckets.get(k) or [v for j in (k - 1, k, k + 1) for v in buckets.get(j, [])]
        curve.append(round(sum(near) / len(near), 2) if near else None)
    return Saturation(capacity, len(pods), failed, tuple(range(top + 1)), tuple(curve))
