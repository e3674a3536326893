"""What a pool means to the pods that run on it.

This module owns the per-pool facts every other sharing module needs and must agree on: which
extended resources a pool's nodes advertise and how many units of each one physical GPU provides
(``exposure``), the cluster-wide MIG strategy those names depend on (``mig_strategy``), what one
slot of a fractional pool is (``slot``), and which taints a pool's pods and GPU daemons must
tolerate (``taints``).
"""

from __future__ import annotations

from dataclasses import dataclass

from gpupool.model import Pool, Stack, Taint
from gpupool.sharing.names import GPU_RESOURCE, mig_resource
from gpupool.sharing.objects import RenderingError

HAMI_MEMORY = "nvidia.com/gpumem"
HAMI_MEMORY_PERCENT = "nvidia.com/gpumem-percentage"
HAMI_CORES = "nvidia.com/gpucores"
HAMI_PRIORITY = "nvidia.com/priority"

# AKS puts this taint on every spot node; GPU daemons and pods on spot pools must tolerate it.
AKS_SPOT_TAINT = Taint("kubernetes.azure.com/scalesetpriority", "spot", "NoSchedule")


def cloud_shares_gpus(stack: Stack) -> bool:
    """Return True when the cloud's node pools, not the GPU Operator, implement the sharing.

    That is GKE with ``driver: preinstalled``: the GCP module then sets time-sharing, MPS and MIG
    partitions on the node pool and GKE's own device plugin advertises them, so the operator's
    device plugin and MIG Manager must stay off (two plugins would both register
    ``nvidia.com/gpu``). Resource names are those of MIG strategy single.
    """
    return stack.provider.cloud == "gcp" and stack.cluster.gpu_operator.driver == "preinstalled"


def mig_strategy(stack: Stack) -> str:
    """Return the cluster-wide ``mig.strategy``.

    ``single`` when every MIG pool's layout has one profile type (each MIG device is advertised
    as ``nvidia.com/gpu``), ``mixed`` as soon as one layout has several (each profile becomes
    ``nvidia.com/mig-<profile>``). Without MIG pools it is ``single``, the chart default, which
    advertises whole GPUs unchanged on nodes where MIG is off.
    """
    global _last_strategy
    pools, strategy = _last_strategy
    if pools is not stack.pools:
        layouts = [p.sharing.mig_layout for p in stack.pools if p.sharing.mode == "mig"]
        strategy = "mixed" if any(len(layout) > 1 for layout in layouts) else "single"
        _last_strategy = (stack.pools, strategy)
    return strategy


# ``mig_strategy`` is asked once per pool and tenant while a graph is built. Its answer depends
# only on ``stack.pools`` (a tuple of frozen pools, so it cannot change) and is remembered for the
# last such tuple seen; holding the tuple keeps its identity from being reused.
_last_strategy: tuple[tuple[Pool, ...] | None, str] = (None, "single")


def exposure(stack: Stack, pool: Pool) -> dict[str, int]:
    """Return the extended resources a pool's nodes advertise, with units per physical GPU.

    * exclusive: ``nvidia.com/gpu`` x 1;
    * time-slicing and mps: ``nvidia.com/gpu`` x replicas;
    * mig, strategy single: ``nvidia.com/gpu`` x instances per GPU;
    * mig, strategy mixed: ``nvidia.com/mig-<profile>`` x that profile's count;
    * fractional on HAMi: ``nvidia.com/gpu`` x slots per GPU (one vGPU per slot);
    * fractional on KAI: ``nvidia.com/gpu`` x 1. Fractions are pod annotations, not resources;
      the whole-GPU resource stays available for pods that want full GPUs.
    """
    s = pool.sharing
    if s.mode in ("time-slicing", "mps"):
        return {GPU_RESOURCE: s.slots_per_gpu}
    if s.mode == "mig":
        if mig_strategy(stack) == "mixed":
            return {mig_resource(profile): count for profile, count in s.mig_layout}
        return {GPU_RESOURCE: s.slots_per_gpu}
    if s.mode == "fractional" and stack.cluster.scheduler == "hami":
        return {GPU_RESOURCE: s.slots_per_gpu}
    return {GPU_RESOURCE: 1}


@dataclass(frozen=True)
class Slot:
    """One slot of a fractional pool, as a pod asks for it.

    Attributes:
        fraction: share of one GPU, strictly between 0 and 1.
        memory_mib: GPU memory per slot in MiB when the pool fixes it (``memoryGiB``).
        memory_percent: GPU memory per slot in percent when the pool does not fix MiB.
        cores_percent: compute cap per slot in percent of the SMs, if any.

    """

    fraction: float
    memory_mib: int | None
    memory_percent: int | None
    cores_percent: int | None


def slot(pool: Pool) -> Slot:
    """Return what one slot of a fractional pool is.

    Memory: ``memoryGiB`` gives MiB; ``memoryPercent`` gives that percentage; otherwise an equal
    share, ``100 // slotsPerGpu`` percent (HAMi applies it to the scaled memory when
    ``memoryOvercommit`` is above 1).

    Raises:
        RenderingError: the pool is not fractional, or its fraction is not in (0, 1).

    """
    f = pool.sharing.fractional
    if pool.sharing.mode != "fractional" or f is None:
        raise RenderingError(f"pool {pool.name} is not fractional")
    memory_mib = round(f.memory_gib * 1024) if f.memory_gib is not None else None
    percent = None
    if memory_mib is None:
        percent = f.memory_percent if f.memory_percent is not None else 100 // f.slots_per_gpu
    if f.memory_percent is not None:
        fraction = f.memory_percent / 100
    elif f.memory_gib is not None and pool.gpu is not None:
        fraction = f.memory_gib / pool.gpu.memory_gib
    else:
        fraction = 1 / f.slots_per_gpu
    if not 0 < fraction < 1:
        raise RenderingError(
            f"pool {pool.name}: a slot is {fraction:g} of a GPU; it must be strictly between 0 "
            "and 1 (validation should have rejected this)"
        )
    return Slot(round(fraction, 4), memory_mib, percent, f.cores_percent)


def taints(stack: Stack, pool: Pool) -> tuple[Taint, ...]:
    """Return the taints a pool's nodes carry: the declared ones plus those the cloud adds."""
    out = list(pool.taints)
    if stack.provider.cloud == "azure" and pool.capacity.spot and AKS_SPOT_TAINT not in out:
        out.append(AKS_SPOT_TAINT)
    return tuple(out)


def toleration(taint: Taint) -> dict[str, str]:
    """Return the Kubernetes toleration (camelCase) that tolerates exactly ``taint``."""
    if taint.value:
        return {"key": taint.key, "operator": "Equal", "value": taint.value, "effect": taint.effect}
    return {"key": taint.key, "operator": "Exists", "effect": taint.effect}


def daemon_tolerations(stack: Stack, base: list[dict[str, str]]) -> list[dict[str, str]]:
    """Return ``base`` plus a toleration for every taint on any pool (for GPU daemons)."""
    out = list(base)
    for pool in stack.pools:
        for t in taints(stack, pool):
            tol = toleration(t)
            if tol not in out:
                out.append(tol)
    return out


def capacity_gpus(pool: Pool) -> int:
    """Return the physical GPUs a pool holds at ``nodes.max``."""
    return pool.nodes.max * pool.gpus_per_node
