"""GPU fragmentation as the FGD paper measures it: free GPU capacity the workload cannot use.

Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation
Gradient Descent" (USENIX ATC'23), measured by its simulator
(hkust-adsl/kubernetes-scheduler-simulator @ 8f3d6417, ``pkg/utils/frag.go``:
``NodeGpuShareFragAmount``, ``GetNodePodFrag``, ``CanNodeHostPodOnGpuMemory``,
``GetGpuFragMilliByNodeResAndPodRes``, ``GetTypicalPods``). This module owns that measure, as pure
functions of plain values:

- the workload's **typical pod shapes** (``typical_shapes``): each distinct (CPU, GPU share per
  GPU, GPUs per pod, GPU models) request with its share of the pods, the most popular first,
  keeping the fewest that cover ``threshold`` percent of the pods (the simulator's experiments
  use 95, with CPU-only pods included), their shares renormalised to 1;
- a **node's fragmentation** for those shapes (``node_fragmentation``): for each shape, the
  node's free GPU capacity is sorted into the paper's quadrants. A shape that fits (enough GPUs
  with that much free, and the CPU; ``q3_satisfied``) leaves as fragment only the GPUs with less
  free than it asks (``q2_lack_gpu``); a shape that does not fit makes all of the node's free GPU
  capacity fragment, filed by why: ``q1_lack_both``, ``q2_lack_gpu``, ``q4_lack_cpu``; a
  CPU-only shape cannot use a GPU at all (``xl_satisfied``, ``xr_lack_cpu``), and a shape asking
  for other GPU models has no access (``no_access``). Each part is weighted by the shape's
  share; the fragmented capacity is the sum of every part but ``q3_satisfied``.

Capacities are integers as the simulator keeps them: milli-GPU (1000 is one GPU) and milli-CPU.
The simulator looks at CPU only; a caller that gives a node's free host memory (``memory_mib``)
also has a shape lacking memory counted as lacking CPU (kube-scheduler would not place it), and
one that leaves it None gets the paper's measure exactly.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gpupool.simulate.jobs import Job

MILLI = 1000
#: The experiments' popularity threshold (``generate_config_and_run.py``
#: ``--pod-popularity-threshold`` default 95) and step (``--pod-increase-step`` default 1).
THRESHOLD_PERCENT = 95


@dataclass(frozen=True, order=True)
class PodShape:
    """What one pod asks for, as the FGD simulator sees it.

    Attributes:
        cpu_milli: CPU, in milli-CPU.
        gpu_milli: the share of each of its GPUs, in milli-GPU (1000 a whole GPU; 0 CPU-only).
        gpus: GPUs per pod (0 CPU-only).
        gpu_models: the GPU models it accepts; () any.
        memory_mib: host memory, counted only on nodes whose free memory is given.

    """

    cpu_milli: int
    gpu_milli: int
    gpus: int
    gpu_models: tuple[str, ...] = ()
    memory_mib: int = 0


@dataclass(frozen=True)
class NodeFree:
    """A node's free capacity: milli-GPU free on each GPU, milli-CPU, and optionally memory."""

    gpu_milli: tuple[int, ...]
    cpu_milli: int
    gpu_model: str | None = None  # None: a node without GPUs
    memory_mib: int | None = None  # None: not counted (the paper's measure)


@dataclass(frozen=True)
class Fragmentation:
    """A node's (or a cluster's) free GPU capacity split by the paper's quadrants, in milli-GPU."""

    q1_lack_both: float = 0.0
    q2_lack_gpu: float = 0.0
    q3_satisfied: float = 0.0
    q4_lack_cpu: float = 0.0
    xl_satisfied: float = 0.0
    xr_lack_cpu: float = 0.0
    no_access: float = 0.0

    @property
    def fragmented(self) -> float:
        """Free GPU capacity the typical pods cannot use (every part but ``q3_satisfied``)."""
        return (
            self.q1_lack_both + self.q2_lack_gpu + self.q4_lack_cpu + self.xl_satisfied
            + self.xr_lack_cpu + self.no_access
        )  # fmt: skip

    @property
    def idle(self) -> float:
        """All free GPU capacity, the sum of every part."""
        return self.fragmented + self.q3_satisfied

    def __add__(self, other: Fragmentation) -> Fragmentation:
        return Fragmentation(
            *(a + b for a, b in zip(_parts(self), _parts(other), strict=True))
        )  # fmt: skip


def _parts(f: Fragmentation) -> tuple[float, ...]:
    return (
        f.q1_lack_both, f.q2_lack_gpu, f.q3_satisfied, f.q4_lack_cpu, f.xl_satisfied,
        f.xr_lack_cpu, f.no_access,
    )  # fmt: skip


_Q1, _Q2, _Q3, _Q4, _XL, _XR, _NA = range(7)


def accessible(node: NodeFree, shape: PodShape) -> bool:
    """Whether the node's GPU model is one the shape accepts (``IsNodeAccessibleToPodByType``)."""
    if not shape.gpu_models:
        return True
    return node.gpu_model is not None and node.gpu_model in shape.gpu_models


def fits_gpus(node: NodeFree, shape: PodShape) -> bool:
    """Whether ``shape.gpus`` GPUs each have ``shape.gpu_milli`` free.

    (``CanNodeHostPodOnGpuMemory``)
    """
    enough = sum(1 for free in node.gpu_milli if free >= shape.gpu_milli)
    return enough >= shape.gpus


def _host_ok(node: NodeFree, shape: PodShape) -> bool:
    if node.cpu_milli < shape.cpu_milli:
        return False
    return node.memory_mib is None or node.memory_mib >= shape.memory_mib


def quadrant(node: NodeFree, shape: PodShape) -> int:
    """Which part of the measure the shape files the node under (``GetNodePodFrag``)."""
    host = _host_ok(node, shape)
    if shape.gpu_milli == 0:
        return _XL if host else _XR
    if not accessible(node, shape):
        return _NA
    if fits_gpus(node, shape):
        return _Q3 if host else _Q4
    return _Q2 if host else _Q1


def node_fragmentation(node: NodeFree, shapes: Sequence[tuple[PodShape, float]]) -> Fragmentation:
    """Return the node's free GPU capacity split by quadrant, each shape weighted by its share.

    ``shapes`` are (shape, share) pairs, the shares summing to 1 (``typical_shapes``).
    """
    idle = sum(node.gpu_milli)
    parts = [0.0] * 7
    if idle == 0:
        return Fragmentation()
    for shape, share in shapes:
        where = quadrant(node, shape)
        if where == _Q3:  # it fits: only the GPUs with too little free are fragment
            short = sum(free for free in node.gpu_milli if free < shape.gpu_milli)
            parts[_Q2] += share * short
            parts[_Q3] += share * (idle - short)
        else:
            parts[where] += share * idle
    return Fragmentation(*parts)


class Meter:
    """The measure for one workload's shapes, remembering each node state it has seen.

    The FGD simulator memoises the same way (``Simulator.NodeGpuFragAmount``, ``fragMemo``):
    a cluster has few distinct node states, so a cluster-wide figure costs little after the
    first.
    """

    def __init__(self, shapes: Sequence[tuple[PodShape, float]]) -> None:
        self.shapes = tuple(shapes)
        self._seen: dict[NodeFree, Fragmentation] = {}

    def node(self, node: NodeFree) -> Fragmentation:
        """Return ``node_fragmentation`` of this node."""
        found = self._seen.get(node)
        if found is None:
            found = self._seen[node] = node_fragmentation(node, self.shapes)
        return found

    def cluster(self, nodes: Iterable[NodeFree]) -> Fragmentation:
        """Return the sum over the nodes."""
        total = Fragmentation()
        for n in nodes:
            total = total + self.node(n)
        return total


def shape_of(job: Job) -> PodShape | None:
    """Return the shape of one pod of ``job``, or None for a MIG or GPU-memory-only request.

    Whole GPUs are ``gpus`` x 1000 milli, a fraction its share of one GPU (rounded to a milli);
    a MIG instance or a request of GPU memory alone is not a share of a GPU the measure knows.
    """
    cpu = round(job.cpu * MILLI)
    memory = round(job.memory_gib * 1024)
    if job.mig is not None:
        return None
    if job.gpus:
        return PodShape(cpu, MILLI, job.gpus, job.gpu_models, memory)
    if job.fraction is not None:
        milli = min(MILLI - 1, max(1, round(job.fraction * MILLI)))
        return PodShape(cpu, milli, 1, job.gpu_models, memory)
    if job.gpu_memory_gib is not None:
        return None
    return PodShape(cpu, 0, 0, (), memory)


def typical_shapes(
    jobs: Iterable[Job],
    threshold: float = THRESHOLD_PERCENT,
    *,
    cpu_only: bool = True,
    memory: bool = False,
) -> list[tuple[PodShape, float]]:
    """Return the workload's typical pod shapes and their shares (``GetTypicalPods``).

    Shapes are counted per pod (a job of ``pods`` pods counts that many), the most popular
    first (ties in shape order, where the simulator's order is a map's), and kept until they
    cover ``threshold`` percent of the pods; the kept shares are renormalised to sum to 1.

    Args:
        jobs: the workload's jobs; MIG and GPU-memory-only jobs are left out (``shape_of``).
        threshold: the percent of pods the shapes must cover (0 < threshold <= 100).
        cpu_only: count CPU-only pods (the experiments' ``isInvolvedCpuPods: true``).
        memory: keep each shape's host memory (the paper's shapes have none).

    """
    if not 0 < threshold <= 100:
        raise ValueError(f"threshold must be in (0, 100], not {threshold}")
    counts: Counter[PodShape] = Counter()
    for job in jobs:
        shape = shape_of(job)
        if shape is None or (not cpu_only and shape.gpus == 0):
            continue
        if not memory:
            shape = PodShape(shape.cpu_milli, shape.gpu_milli, shape.gpus, shape.gpu_models)
        counts[shape] += job.pods
    total = sum(counts.values())
    if not total:
        return []
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    wanted = threshold * total / 100
    kept: list[tuple[PodShape, int]] = []
    covered = 0
    for shape, count in ranked:
        if covered >= wanted:
            break
        kept.append((shape, count))
        covered += count
    return [(shape, count / covered) for shape, count in kept]
