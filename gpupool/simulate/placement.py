"""Nodes as the schedulers see them, and where each scheduler puts a pod.

This module owns a node's free state (CPU, memory, counted GPU units, and per-GPU state where a
scheduler places pods on single GPUs), taking and giving back a pod's request, and the three
schedulers' choice of node and GPUs, each emulated from its source at the version gpupool pins
(``gpupool/sharing/charts.json``), as the scheduler plug-in's ``Emulation`` says: its ``score``
picks ``choose``'s score, the pool's ``device_kind`` (set once per pool) how GPUs are kept:

* **kube-scheduler** with the device plugin (``SCORE_LEAST_ALLOCATED``, counted units): the
  filter is NodeResourcesFit (every requested resource within the node's free allocatable); the
  score is the default plugins' NodeResourcesFit LeastAllocated over cpu and memory (weight 1
  each: ``(free - request) / allocatable``, 0..100) plus NodeResourcesBalancedAllocation (``(1 -
  std(cpu, memory fractions)) x 100``); GPUs are not scored (kubernetes
  ``pkg/scheduler/framework/plugins/noderesources/least_allocated.go``,
  ``balanced_allocation.go``). The device plugin hands out counted units, so a node's GPUs are
  one integer per resource.
* **KAI** (``SCORE_GPU_BINPACK``, ``DEVICES_FRACTION``; v0.17.0, ``placementStrategy: binpack``
  in its chart's values): ``pkg/scheduler/plugins/nodeplacement/pack.go`` scores a fitting node
  ``9 x (1 - (nonAllocated - min) / (max - min))`` over the fitting nodes, so the node with the
  fewest non-allocated GPUs wins; ``spread.go`` scores ``nonAllocated / GPUs``; CPU-only pods
  are placed by the cpu strategy (also binpack) on non-allocated CPU.
  ``gpusharingorder/gpusharingorder.go`` adds 1000 to a node with a shared GPU the fraction fits
  on (binpack only), and ``gpupack/gpupack.go`` puts a fraction on the fullest shared GPU it
  fits (an empty GPU last).
* **HAMi** (``SCORE_NODE_BINPACK``, ``DEVICES_VGPU``; v2.10.0 scheduler extender, chart defaults
  ``nodeSchedulerPolicy: binpack``, ``gpuSchedulerPolicy: spread``):
  ``pkg/scheduler/policy/node_policy.go`` scores a node ``10 x (used/count +
  usedCores/totalCores + usedMem/totalMem)`` over its GPUs; ``pkg/scheduler/scheduler.go``
  Filter sorts ascending for binpack and takes the last (the highest score).
  ``policy/gpu_policy.go`` scores a GPU ``10 x ((req + used)/count + (cores +
  usedCores)/totalCores + (mem + usedMem)/totalMem)`` and ``pkg/device/nvidia/device.go`` Fit
  takes GPUs from the end of the sorted list: spread sorts descending, so the least used GPUs go
  first. Pods asking no HAMi resource are kube-scheduler's.

Ties go to the node with the lowest id (nodes are numbered in pool order, then creation), where
the real schedulers pick at random among equal scores; the simulation stays deterministic.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence

from gpupool.schedulers import Emulation
from gpupool.schedulers.base import (
    DEVICES_FRACTION,
    DEVICES_VGPU,
    SCORE_GPU_BINPACK,
    SCORE_NODE_BINPACK,
)
from gpupool.simulate.cluster import GroupModel, PoolModel
from gpupool.simulate.demand import Demand

_EPS = 1e-9

BINPACK = "binpack"
SPREAD = "spread"
KAI_PLACEMENT = BINPACK  # KAI v0.17.0 deployments/kai-scheduler values.yaml placementStrategy
HAMI_NODE_POLICY = BINPACK  # HAMi 2.10.0 charts/hami/values.yaml nodeSchedulerPolicy
HAMI_GPU_POLICY = SPREAD  # HAMi 2.10.0 charts/hami/values.yaml gpuSchedulerPolicy


class Node:
    """One node of a pool, with what is free on it."""

    __slots__ = (
        "allocs", "cpu_free", "cpu_indexed", "dev_cores", "dev_free", "dev_mem", "draining",
        "fmax", "gpus_used", "group", "id", "idle_since", "index", "indexed", "mem_free", "name",
        "pm", "pmax", "pool_no", "ready", "removed", "spot", "units", "up_since", "whole",
    )

    def __init__(
        self, node_id: int, pm: PoolModel, group: GroupModel, index: int, now: float
    ) -> None:
        self.id = node_id
        self.pm = pm
        self.pool_no = pm.number  # its pool's place in the stack (the node index's walk)
        self.group = group
        self.index = index
        self.spot = group.node_is_spot(index)
        self.cpu_free = pm.cpu
        self.mem_free = pm.memory_gib
        self.units = dict(pm.units)
        n = pm.gpus_per_node
        if pm.device_kind == DEVICES_FRACTION:
            self.dev_free = [1.0] * n
        elif pm.device_kind == DEVICES_VGPU:
            self.dev_free = [float(pm.slots_per_gpu)] * n
        else:
            self.dev_free = []
        self.dev_mem = [pm.hami_memory_gib or 0.0] * n if pm.device_kind == DEVICES_VGPU else []
        self.whole = 0  # GPUs wholly free, the largest free share, and that of a shared GPU
        self.fmax = self.pmax = float("-inf")
        self.summarise()
        self.dev_cores = [100.0] * n if pm.device_kind == DEVICES_VGPU else []
        # entry key -> (request, the GPUs its pod is on, pods): pods of one gang taken one
        # after another on the node with no GPUs of their own are one entry
        self.allocs: dict[int, tuple[Demand, tuple[int, ...], int]] = {}
        self.gpus_used = 0.0
        self.ready = False
        self.removed = False
        self.draining = False
        self.up_since = now
        self.idle_since = now
        self.name = f"{group.name}/{index}"  # the node's group and its place in it
        self.indexed: tuple[float, int] | None = None  # its entry in the engine's free index
        self.cpu_indexed: tuple[float, int] | None = None  # and in its free-CPU index

    @property
    def schedulable(self) -> bool:
        """Ready, not being drained, not removed."""
        return self.ready and not self.draining and not self.removed

    def summarise(self) -> None:
        """Keep what the fit and the GPU-sharing bonus read of the GPUs' free shares.

        ``whole``: the GPUs wholly free; ``fmax``: the largest free share; ``pmax``: the
        largest free share of a GPU that is shared (partly allocated); -inf where none.
        Called wherever ``dev_free`` changes.
        """
        free = self.dev_free
        self.whole = len([f for f in free if f >= 1.0 - _EPS])
        self.fmax = max(free) if free else float("-inf")
        shared = [f for f in free if 1.0 - f > _EPS]
        self.pmax = max(shared) if shared else float("-inf")

    def non_allocated_gpus(self) -> float:
        """GPUs (whole-GPU equivalents) not allocated on the node."""
        return self.pm.gpu_equivalents_per_node - self.gpus_used

    # -- fit, take, give back ------------------------------------------------------------
    def fits(self, d: Demand) -> bool:
        """Whether the pod's request fits the node's free resources (NodeResourcesFit)."""
        if d.cpu > self.cpu_free + _EPS or d.memory_gib > self.mem_free + _EPS:
            return False
        for res, count in d.units:
            if self.units.get(res, 0) < count:
                return False
        if d.devices:
            if self.pm.device_kind == DEVICES_FRACTION:
                # what _kai_devices would find, without building it: enough whole free GPUs,
                # or one GPU with the fraction free (``summarise`` keeps both)
                if not self.dev_free:
                    return False
                if d.share >= 1.0 - _EPS and d.devices > 1:
                    return self.whole >= d.devices
                return self.fmax >= min(d.share, 1.0) - _EPS
            return len(self._devices(d)) == d.devices
        return True

    def _devices(self, d: Demand) -> tuple[int, ...]:
        """Return the GPUs the pod would go on (fewer than asked: it does not fit)."""
        if self.pm.device_kind == DEVICES_FRACTION:
            return _kai_devices(self.dev_free, d)
        return _hami_devices(self, d)

    def take(self, key: int, d: Demand) -> None:
        """Allocate one pod of request ``d`` as entry ``key`` (one more pod if it exists)."""
        held = self.allocs.get(key)
        if held is not None:  # pods of no GPU of their own: counted, as many float steps
            self.cpu_free -= d.cpu
            self.mem_free -= d.memory_gib
            for res, count in d.units:
                self.units[res] -= count
            self.gpus_used += d.gpus
            self.allocs[key] = (d, (), held[2] + 1)
            return
        devices = self._devices(d) if d.devices else ()
        self.cpu_free -= d.cpu
        self.mem_free -= d.memory_gib
        for res, count in d.units:
            self.units[res] -= count
        if self.pm.device_kind == DEVICES_FRACTION:
            for i in devices:
                self.dev_free[i] -= d.share
        elif self.pm.device_kind == DEVICES_VGPU:
            for i in devices:
                self.dev_free[i] -= 1
                self.dev_mem[i] -= d.device_memory_gib
                self.dev_cores[i] -= d.device_cores
        if devices:
            self.summarise()
        self.gpus_used += d.gpus
        self.allocs[key] = (d, devices, 1)

    def give_back(self, key: int, now: float) -> tuple[Demand, int]:
        """Release entry ``key``'s pods, one by one; return its request and pods."""
        d, devices, pods = self.allocs.pop(key)
        for _ in range(0 if inert(d) else pods - 1):
            self.cpu_free += d.cpu
            self.mem_free += d.memory_gib
            for res, count in d.units:
                self.units[res] += count
            self.gpus_used = max(0.0, self.gpus_used - d.gpus)
        self.cpu_free += d.cpu
        self.mem_free += d.memory_gib
        for res, count in d.units:
            self.units[res] += count
        if self.pm.device_kind == DEVICES_FRACTION:
            for i in devices:
                self.dev_free[i] = min(1.0, self.dev_free[i] + d.share)
        elif self.pm.device_kind == DEVICES_VGPU:
            for i in devices:
                self.dev_free[i] += 1
                self.dev_mem[i] += d.device_memory_gib
                self.dev_cores[i] += d.device_cores
        if devices:
            self.summarise()
        self.gpus_used = max(0.0, self.gpus_used - d.gpus)
        if not self.allocs:
            self.idle_since = now
        return d, pods


def inert(d: Demand) -> bool:
    """Whether a pod of ``d`` takes nothing a node, a scheduler or a quota counts.

    Such pods change no node's score: once two of a gang went to one node, the rest follow.
    """
    return (d.cpu == 0 and d.memory_gib == 0 and not d.units and not d.devices
            and d.gpus == 0 and not d.quota_units and d.kai_gpus == 0)


def _kai_devices(free: list[float], d: Demand) -> tuple[int, ...]:
    if d.share >= 1.0 - _EPS:
        return tuple(i for i, f in enumerate(free) if f >= 1.0 - _EPS)[: d.devices]
    # gpupack: the fullest shared GPU the fraction fits on; an empty GPU only after them
    best = -1
    best_used = -1.0
    for i, f in enumerate(free):
        if f + _EPS < d.share:
            continue
        used = 1.0 - f
        if (KAI_PLACEMENT == SPREAD and (best < 0 or used < best_used)) or (
            KAI_PLACEMENT == BINPACK and used > best_used
        ):
            best, best_used = i, used
    return (best,) if best >= 0 else ()


def _hami_devices(node: Node, d: Demand) -> tuple[int, ...]:
    pm = node.pm
    slots = float(pm.slots_per_gpu)
    mem_total = pm.hami_memory_gib or 1.0
    scored = []
    for i in range(len(node.dev_free)):
        if (node.dev_free[i] < 1 - _EPS or node.dev_mem[i] + _EPS < d.device_memory_gib
                or node.dev_cores[i] + _EPS < d.device_cores):
            continue
        used = slots - node.dev_free[i]
        score = 10 * ((1 + used) / slots + (d.device_cores + 100 - node.dev_cores[i]) / 100
                      + (d.device_memory_gib + mem_total - node.dev_mem[i]) / mem_total)
        scored.append((score, i))
    # Fit takes from the end of the sorted list: spread sorts descending (least used first)
    scored.sort(key=lambda s: (s[0], -s[1]), reverse=HAMI_GPU_POLICY == SPREAD)
    return tuple(i for _, i in reversed(scored))[: d.devices]


def _least_allocated(node: Node, d: Demand) -> float:
    pm = node.pm
    cpu = 1.0 if pm.cpu == float("inf") else (node.cpu_free - d.cpu) / pm.cpu
    mem = 1.0 if pm.memory_gib == float("inf") else (node.mem_free - d.memory_gib) / pm.memory_gib
    least = (cpu + mem) / 2 * 100
    balanced = (1 - abs((1 - cpu) - (1 - mem)) / 2) * 100
    return least + balanced


def _hami_node_score(node: Node) -> float:
    pm = node.pm
    n = len(node.dev_free)
    if not n:
        return 0.0
    slots = pm.slots_per_gpu * n
    used = slots - sum(node.dev_free)
    cores = 100.0 * n - sum(node.dev_cores)
    mem_total = (pm.hami_memory_gib or 1.0) * n
    mem = mem_total - sum(node.dev_mem)
    return 10 * (used / slots + cores / (100.0 * n) + mem / mem_total)


def choose(
    emulation: Emulation, nodes: Iterable[Node], d: Demand
) -> tuple[Node | None, tuple[float, float, int]]:
    """Return the node a scheduler puts a pod with request ``d`` on, and its score.

    ``emulation``: the scheduler plug-in's rules, whose ``score`` picks the node score
    (``SCORE_*``). The node is None when none fits; a higher score is better, and scores of
    one scheduler and request compare across calls (a job that may use several pools).
    """
    best: Node | None = None
    best_key: tuple[float, float, int] | None = None
    # the score, chosen once per call (plain comparisons in the loop over nodes)
    gpu_binpack = emulation.score == SCORE_GPU_BINPACK
    node_binpack = emulation.score == SCORE_NODE_BINPACK and not emulation.scores_as_default(
        d.devices)
    for node in nodes:
        if not node.schedulable or not node.fits(d):
            continue
        if gpu_binpack:
            k0, k1 = _kai_key(node, d)
        elif node_binpack:
            score = _hami_node_score(node)
            k0, k1 = (score if HAMI_NODE_POLICY == BINPACK else -score, 0.0)
        else:
            k0, k1 = _least_allocated(node, d), 0.0
        key = (k0, k1, -node.id)  # equal scores: the lowest node id
        if best_key is None or key > best_key:
            best, best_key = node, key
    return best, best_key if best_key is not None else (float("-inf"), 0.0, 0)


def _kai_key(node: Node, d: Demand) -> tuple[float, float]:
    if d.gpus <= 0:  # CPU-only pods: the cpu strategy over non-allocated CPU
        free = node.cpu_free if node.cpu_free != float("inf") else 0.0
        return (0.0, -free if KAI_PLACEMENT == BINPACK else free)
    bonus = 0.0
    if KAI_PLACEMENT == BINPACK and d.devices and d.share < 1.0 - _EPS and (
            node.pmax + _EPS >= d.share):
        bonus = 1000.0  # gpusharingorder: a shared GPU the fraction fits on (pmax: the
        # largest free share of a shared GPU, ``Node.summarise``)
    free = node.non_allocated_gpus()
    if KAI_PLACEMENT == BINPACK:
        return (bonus, -free)
    return (bonus, free / max(node.pm.gpu_equivalents_per_node, _EPS))


class PackedPlan:
    """What KAI binpack's walk works out from a pod's options alone (kept per options list).

    Attributes:
        options: the pod's requests on its pools, the list the plan is for.
        by_pool: per pool (``PoolModel.number``), the pod's request there; None where it
            may not go or the walk does not cover it.
        gpu: the pod asks for GPUs: the walk is over the nodes by non-allocated GPUs (else by
            non-allocated CPU).
        start: the index entry the walk starts at (None: the first).
        top: the highest GPU-sharing bonus a node may earn (1000 where a fraction could).
        walked: the requests the walk covers, in the options' order (``options`` itself where
            it covers them all).
        scanned: those it does not (a pod asking no GPU, on a pool whose nodes do not say
            their CPU), which ``choose`` scores.

    """

    __slots__ = ("by_pool", "gpu", "options", "scanned", "start", "top", "walked")

    def __init__(self, options: Sequence[Demand], by_pool: Sequence[Demand | None], gpu: bool,
                 start: tuple[float, int] | None, top: float, walked: Sequence[Demand],
                 scanned: Sequence[Demand]) -> None:
        self.options = options
        self.by_pool = by_pool
        self.gpu = gpu
        self.start = start
        self.top = top
        self.walked = walked
        self.scanned = scanned


def _start_key(d: Demand) -> tuple[float, int] | None:
    """Return the index entry below which no node can fit ``d`` (None: any may)."""
    pm = d.pool
    if d.gpus <= 0:
        # the cpu strategy: the least non-allocated CPU that fits, so the walk is over the
        # nodes by free CPU instead, and a node with less free CPU than asked cannot fit
        return (d.cpu - _EPS - 1e-6, -1)
    if pm.device_kind == DEVICES_FRACTION and d.devices and (
            pm.gpu_equivalents_per_node == pm.gpus_per_node):
        need = d.devices * (1.0 - _EPS) if d.share >= 1.0 - _EPS else min(d.share, 1.0) - _EPS
        return (need - 1e-6, -1)
    return None


def packed_plan(options: Sequence[Demand], pools: int) -> PackedPlan:
    """Return what ``choose_packed`` works out from a pod's requests on its pools alone.

    ``pools``: the cluster's pools. A pod's requests either all ask for GPUs or none does
    (``demand``); a mix, which ``demand`` does not make, would be scanned.
    """
    by_pool: list[Demand | None] = [None] * pools
    gpu = bool(options) and options[0].gpus > 0
    if any((d.gpus > 0) != gpu for d in options):
        return PackedPlan(options, tuple(by_pool), gpu, None, 0.0, (), options)
    walked: list[Demand] = []
    scanned: list[Demand] = []
    starts: list[tuple[float, int] | None] = []
    top = 0.0
    for d in options:
        if not gpu and d.pool.cpu == float("inf"):
            scanned.append(d)
            continue
        by_pool[d.pool.number] = d
        walked.append(d)
        starts.append(_start_key(d))
        if d.devices and d.share < 1.0 - _EPS:
            top = 1000.0
    # the lowest start of the pools': a node of a pool whose own start lies higher is
    # walked, but cannot fit there
    start = None if not starts or None in starts else min(k for k in starts if k is not None)
    return PackedPlan(options, tuple(by_pool), gpu, start, top,
                      tuple(walked) if scanned else options, tuple(scanned))


def choose_packed(
    index: list[tuple[float, int]], nodes: Mapping[int, Node], empty: Mapping[str, list[int]],
    plan: PackedPlan,
) -> tuple[Node | None, Demand | None, tuple[float, float, int]]:
    """KAI binpack's node for a pod over all its pools: ``choose``'s answer, without a scan.

    Returns the node, the pod's request on its pool, and its score (the node None when none
    fits). ``index`` holds every pool's nodes that hold pods as (non-allocated GPUs, id),
    ascending (for a pod asking no GPU: (non-allocated CPU, id), over the pools whose nodes
    say their CPU); ``empty``, per pool, the ids of its empty schedulable nodes (every empty
    node of a pool scores alike, so only the first counts). The score, ``(bonus, -free,
    -id)``, compares across pools, so one walk answers for all of them: the first node of
    the walk that fits the pod's request on its own pool wins, or, where a fraction could
    earn the GPU-sharing bonus, the first fitting node that earns it. Whole GPUs cannot fit a
    node with fewer non-allocated GPUs than asked, so the walk starts there (the per-GPU
    shares and the node's count agree to within float rounding, far below the margin).
    """
    by_pool = plan.by_pool
    start = bisect_left(index, plan.start) if plan.start is not None else 0
    bonus_possible = plan.top > 0
    best: Node | None = None
    best_d: Demand | None = None
    found_key: tuple[float, float] | None = None
    for i in range(start, len(index)):
        node = nodes[index[i][1]]
        d = by_pool[node.pool_no]
        # what ``fits`` reads first, here, since most nodes the walk passes fail it
        if d is None or d.cpu > node.cpu_free + _EPS or d.memory_gib > node.mem_free + _EPS:
            continue
        if best is not None and not (d.devices and d.share < 1.0 - _EPS
                                     and node.pmax + _EPS >= d.share):
            continue  # past the fallback only a node earning the bonus can win (``_kai_key``)
        if not node.schedulable or not node.fits(d):
            continue
        if not bonus_possible:
            best, best_d = node, d
            break
        k = _kai_key(node, d)
        if k[0] > 0:
            best, best_d, found_key = node, d, k
            break
        if best is None:  # the fallback: the first fitting node, where none earns the bonus
            best, best_d, found_key = node, d, k
    best_key: tuple[float, float, int] | None = None
    if best is not None and best_d is not None:
        k0, k1 = found_key if found_key is not None else _kai_key(best, best_d)
        best_key = (k0, k1, -best.id)
    for d in plan.walked:
        ids = empty[d.pool.name]
        if not ids:
            continue
        first = nodes[ids[0]]
        if not first.schedulable:
            continue
        # the empty node's score is at most (top, -its free, -id): where that cannot beat the
        # best so far, it is not scored
        if plan.gpu:
            bound = (plan.top, -first.non_allocated_gpus(), -first.id)
        else:
            cpu = first.cpu_free
            bound = (0.0, -(cpu if cpu != float("inf") else 0.0), -first.id)
        if (best_key is not None and bound <= best_key) or not first.fits(d):
            continue
        k0, k1 = _kai_key(first, d)
        key = (k0, k1, -first.id)
        if best_key is None or key > best_key:
            best, best_d, best_key = first, d, key
    return best, best_d, best_key if best_key is not None else (float("-inf"), 0.0, 0)


def retake(node: Node, key: int, d: Demand, devices: tuple[int, ...], pods: int) -> None:
    """Put a released entry of ``pods`` pods back exactly where it was (same GPUs).

    The inverse of ``Node.give_back`` for an entry taken before: the run gives pods back to
    try whether a gang would fit without them, then puts them back with this.
    """
    for _ in range(0 if inert(d) else pods - 1):
        node.cpu_free -= d.cpu
        node.mem_free -= d.memory_gib
        for res, count in d.units:
            node.units[res] -= count
        node.gpus_used += d.gpus
    node.cpu_free -= d.cpu
    node.mem_free -= d.memory_gib
    for res, count in d.units:
        node.units[res] -= count
    if devices:
        if node.dev_mem:
            for i in devices:
                node.dev_free[i] -= 1
                node.dev_mem[i] -= d.device_memory_gib
                node.dev_cores[i] -= d.device_cores
        else:
            for i in devices:
                node.dev_free[i] -= d.share
        node.summarise()
    node.gpus_used += d.gpus
    node.allocs[key] = (d, devices, pods)
