"""The published openb cluster as a stack, and its pod list as jobs (a helper, not collected).

gpupool's own reading of the Alibaba ``cluster-trace-gpu-v2023`` files for the conformance tests:
each group of nodes with the same GPU model, GPU count, CPUs and memory becomes a pool of
existing nodes under KAI with fractional sharing (KAI takes any fraction); a pod's
``num_gpu x gpu_milli`` becomes whole GPUs or one fraction, ``gpu_spec`` the GPU models it
accepts. Its GPU models are not in gpupool's catalog, so each pool declares its memory (the
values do not change placement, which is by share of a GPU).
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

from gpupool.model import Stack
from gpupool.simulate.jobs import Job, Workload
from tests.stacks import load_stack_text

_MEMORY_GIB = {"P100": 16, "V100M16": 16, "V100M32": 32, "T4": 16, "G2": 24, "G3": 32, "A10": 24}


def cluster_stack(nodes: Path, scheduler: str = "kai") -> Stack:
    """The node list as a stack of existing nodes, one pool per kind of node."""
    kinds: dict[tuple[str, int, int, int], list[str]] = defaultdict(list)
    with nodes.open(encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            key = (row["model"], int(row["gpu"]), int(row["cpu_milli"]), int(row["memory_mib"]))
            kinds[key].append(row["sn"])
    lines = [
        "apiVersion: gpupool.io/v1", "kind: GpuPoolStack", "metadata: {name: openb}",
        "provider: {cloud: kubernetes, settings: {context: openb}}",
        f"cluster: {{scheduler: {scheduler}}}", "pools:",
    ]
    for i, ((model, gpus, cpu, mem), names) in enumerate(sorted(kinds.items())):
        lines += [
            f"  - name: {model.lower()}-{gpus}g-{i}",
            f"    nodeNames: [{', '.join(names)}]",
            f"    gpu: {{model: OPENB-{model}, count: {gpus}, memoryGiB: {_MEMORY_GIB[model]}}}",
            f"    host: {{memoryGiB: {mem / 1024:g}, vcpus: {cpu // 1000}}}",
            "    sharing: {mode: fractional, fractional: {slotsPerGpu: 10}}",
        ]
    return load_stack_text("\n".join(lines) + "\n")


def pod_jobs(pods: Path) -> Workload:
    """The pod list as jobs: whole GPUs, one fraction, or CPU and memory only."""
    jobs = []
    with pods.open(encoding="utf-8", newline="") as f:
        for line, row in enumerate(csv.DictReader(f), start=2):
            gpus, milli = int(row["num_gpu"]), int(row["gpu_milli"])
            kw: dict[str, object] = {}
            if gpus == 1 and milli < 1000:
                kw["fraction"] = milli / 1000
            elif gpus >= 1:
                kw["gpus"] = gpus
            start = int(row.get("creation_time") or 0)
            end = int(row.get("deletion_time") or start + 1)
            jobs.append(Job(
                name=row["name"], line=line, submit=float(start),
                duration=float(max(end - start, 1)),
                cpu=int(row["cpu_milli"]) / 1000, memory_gib=int(row["memory_mib"]) / 1024,
                gpu_models=tuple(f"OPENB-{s}" for s in (row.get("gpu_spec") or "").split("|")
                                 if s),
                **kw,  # type: ignore[arg-type]
            ))
    return Workload(str(pods), tuple(sorted(jobs, key=lambda j: j.submit)))
