"""What the pods and GPU daemons on a pool ask for and tolerate.

This module owns what one slot of a fractional pool is as a pod asks for it (``slot``; under
KAI the one annotation that asks for it, ``kai_annotation``, which the snippets render and the
showback rules and pending-pod alert read back) and the tolerations pods and GPU daemons need
for a pool's taints (``toleration``, ``daemon_tolerations``). What a pool's nodes advertise,
and which taints they carry, are GPU facts (``gpupool.facts``).
"""

from __future__ import annotations

from dataclasses import dataclass

from gpupool import facts
from gpupool.errors import RenderError
from gpupool.facts.names import KAI_GPU_FRACTION, KAI_GPU_MEMORY
from gpupool.model import Pool, Stack, Taint


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
        RenderError: the pool is not fractional, or its fraction is not in (0, 1).

    """
    f = pool.sharing.fractional
    if not pool.sharing.kind.scheduler_slots or f is None:
        raise RenderError(f"pool {pool.name} is not fractional")
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
        raise RenderError(
            f"pool {pool.name}: a slot is {fraction:g} of a GPU; it must be strictly between 0 "
            "and 1 (validation should have rejected this)"
        )
    return Slot(round(fraction, 4), memory_mib, percent, f.cores_percent)


def kai_annotation(pool: Pool) -> tuple[str, str]:
    """Return the annotation (key, value) by which a pod asks KAI for one slot of ``pool``.

    ``gpu-memory`` in MiB where the pool fixes a slot's memory, else ``gpu-fraction``, the slot's
    share of a GPU (KAI v0.17.0 ``pkg/common/constants/constants.go``; KAI reads the fraction
    with ``strconv.ParseFloat``, ``pkg/common/resources/gpu_sharing.go``).

    Raises:
        RenderError: the pool is not fractional, or its fraction is not in (0, 1).

    """
    sl = slot(pool)
    if sl.memory_mib is not None:
        return KAI_GPU_MEMORY, str(sl.memory_mib)
    return KAI_GPU_FRACTION, f"{sl.fraction:g}"


def toleration(taint: Taint) -> dict[str, str]:
    """Return the Kubernetes toleration (camelCase) that tolerates exactly ``taint``."""
    if taint.value:
        return {"key": taint.key, "operator": "Equal", "value": taint.value, "effect": taint.effect}
    return {"key": taint.key, "operator": "Exists", "effect": taint.effect}


def daemon_tolerations(stack: Stack, base: list[dict[str, str]]) -> list[dict[str, str]]:
    """Return ``base`` plus a toleration for every taint on any pool (for GPU daemons)."""
    out = list(base)
    for pool in stack.pools:
        for t in facts.pool_facts(stack, pool).taints:
            tol = toleration(t)
            if tol not in out:
                out.append(tol)
    return out
