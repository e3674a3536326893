"""Rules on how GPUs are shared.

Replica limits, fractional arithmetic, the scheduler each mode needs, compute policy against mode
and scheduler (docs/stack-file.md, Compute policies) and QoS against mode (QoS tiers).
"""

from __future__ import annotations

from collections.abc import Mapping

from gpupool import modes, schedulers
from gpupool.model import Pool, Stack, Tenant
from gpupool.modes import QOS_EXCLUSIVE, QOS_GUARANTEED
from gpupool.schedulers import Scheduler
from gpupool.spec.diagnostics import Diagnostic, error, warning

#: GPU memory a replica needs at least to be useful (``_slot_memory``).
MIN_SLOT_GIB = 1.0


def _replicas(pool: Pool) -> list[Diagnostic]:
    s = pool.sharing
    if s.replicas is None or not s.kind.replicated:
        return []
    path = (*pool.path, "sharing", "replicas")
    if s.replicas < 2:
        return [
            error(
                "sharing.replicas-too-low",
                "replicas must be at least 2",
                f"The device plugin rejects fewer than 2 replicas; for whole GPUs use mode "
                f"{modes.default().name}. ({s.mode} replicas: {s.replicas})",
                path,
            )
        ]
    limit = s.kind.client_limit
    if limit is not None:
        gpu = pool.gpu
        cap = limit.clients
        why = ""
        if gpu is not None and gpu.compute_capability and not gpu.cc_at_least(limit.older_below):
            cap, why = (
                limit.older_clients,
                f" ({gpu.name} has compute capability {gpu.compute_capability}, below "
                f"{limit.older_below})",
            )
        if s.replicas > cap:
            return [
                error(
                    "sharing.mps-too-many",
                    f"MPS allows at most {cap} clients per GPU",
                    f"replicas {s.replicas} exceeds the MPS client limit of {cap}{why}.",
                    path,
                )
            ]
    return _slot_memory(pool, s.replicas, path)


def _slot_memory(pool: Pool, slots: int, path: tuple[str | int, ...]) -> list[Diagnostic]:
    """Warn when a replica's share of GPU memory is too small to run anything useful.

    A process's CUDA context alone takes a few hundred MiB of GPU memory (287 MB with lazy
    module loading, 667 MB without, measured in pytorch/pytorch#86509), so a share under
    ``MIN_SLOT_GIB`` leaves next to nothing for the workload's own data.
    """
    gpu = pool.gpu
    if gpu is None or gpu.memory_gib / slots >= MIN_SLOT_GIB:
        return []
    share = gpu.memory_gib / slots
    return [
        warning(
            "sharing.slot-memory-small",
            f"Each replica gets {share:.2f} GiB of GPU memory",
            f"{slots} replicas share the {gpu.memory_gib:g} GiB of a {gpu.name}: each pod's "
            f"share is under {MIN_SLOT_GIB:g} GiB, and a CUDA context alone takes a few "
            "hundred MiB. Use fewer replicas, or a GPU with more memory.",
            path,
        )
    ]


def _fractional(pool: Pool, scheduler: Scheduler) -> list[Diagnostic]:
    f = pool.sharing.fractional
    kind = pool.sharing.kind
    if not kind.scheduler_slots or f is None:
        return []
    fp = (*pool.path, "sharing", kind.section or "")
    out = []
    if not scheduler.enforces_fractions:
        out.append(
            error(
                "fractional.needs-scheduler",
                "Fractional GPUs need scheduler hami or kai",
                "Nothing enforces fractional slots under the default scheduler. Set "
                "cluster.scheduler: hami (memory and core limits) or kai (gpu-fraction), or use "
                "time-slicing.",
                (*pool.path, "sharing", "mode"),
            )
        )
    if f.memory_overcommit != 1.0 and not scheduler.virtualises_memory:
        out.append(
            error(
                "fractional.overcommit-needs-hami",
                "memoryOvercommit needs scheduler hami",
                "Only HAMi virtualises GPU memory (deviceMemoryScaling); remove memoryOvercommit "
                "or set cluster.scheduler: hami.",
                (*fp, "memoryOvercommit"),
            )
        )
    if f.cores_percent is not None and scheduler.uncapped_fractions:
        out.append(
            warning(
                "fractional.cores-not-enforced",
                "coresPercent is not enforced by kai",
                "KAI places pods by the fraction they ask for but caps neither memory nor compute "
                "(KAI v0.17.0 docs/gpu-sharing/README.md); use scheduler hami to enforce "
                "coresPercent.",
                (*fp, "coresPercent"),
            )
        )
    gpu = pool.gpu
    if gpu is None:
        return out
    total = gpu.memory_gib * f.memory_overcommit
    if f.memory_gib is not None:
        per_slot, key = f.memory_gib, "memoryGiB"
    elif f.memory_percent is not None:
        per_slot, key = gpu.memory_gib * f.memory_percent / 100, "memoryPercent"
    else:
        per_slot, key = total / f.slots_per_gpu, "slotsPerGpu"
    if per_slot * f.slots_per_gpu > total + 1e-9:
        out.append(
            error(
                "fractional.memory-overflow",
                "Slots need more memory than the GPU has",
                f"{f.slots_per_gpu} slots x {per_slot:g} GiB = {per_slot * f.slots_per_gpu:g} GiB "
                f"> {gpu.name}'s {gpu.memory_gib:g} GiB x overcommit {f.memory_overcommit:g}. "
                "Lower the slots or the memory per slot.",
                (*fp, key),
            )
        )
    elif per_slot < 1.0:
        out.append(
            error(
                "fractional.slot-too-small",
                "Each slot needs at least 1 GiB",
                f"{f.slots_per_gpu} slots on {gpu.name} leave {per_slot:.2f} GiB per slot; use "
                "fewer slots.",
                (*fp, key),
            )
        )
    return out


def _policy(pool: Pool, stack: Stack, weighted: Mapping[str, Tenant]) -> list[Diagnostic]:
    """Check a pool's compute policy; ``weighted`` is ``_first_weighted(stack)``."""
    mode, sched, policy = pool.sharing.mode, schedulers.of(stack), pool.policy
    kind = pool.sharing.kind
    path = (*pool.path, "compute", "policy")
    if policy == "priority" and not sched.priority_preemption:
        return [
            error(
                "policy.unachievable",
                "policy priority needs scheduler kai or hami",
                "Preemption by tenant priority on shared GPUs is done by KAI (PriorityClasses and "
                "preemption) or HAMi (nvidia.com/priority); set cluster.scheduler.",
                path,
            )
        ]
    if policy == "strict":
        # whole GPUs and isolating modes cap compute themselves; fractional slots need HAMi
        ok = kind.whole or kind.isolates or (kind.scheduler_slots and sched.caps_fractions)
        if not ok:
            return [
                error(
                    "policy.unachievable",
                    f"policy strict on {mode}: use mps, mig, or fractional with scheduler hami",
                    "strict caps each slot's compute; "
                    + (
                        f"{mode} shares time with no caps."
                        if kind.replicated
                        else "KAI's gpu-fraction caps neither memory nor compute."
                    ),
                    path,
                )
            ]
        f = pool.sharing.fractional
        if kind.scheduler_slots and f is not None and f.cores_percent is None:
            return [
                error(
                    "policy.strict-needs-cores",
                    "policy strict needs fractional.coresPercent",
                    "HAMi caps a slot's compute only when coresPercent is set (e.g. "
                    f"{100 // f.slots_per_gpu} for {f.slots_per_gpu} slots).",
                    path,
                )
            ]
    if policy == "fair" and not sched.queues:
        t = weighted.get(pool.name)
        if t is not None:
            return [
                error(
                    "policy.weights-need-kai",
                    "fairShare weights need scheduler kai",
                    f"Tenant {t.name} sets fairShare.weight on pool {pool.name}; only KAI divides "
                    "capacity beyond quotas by weight (queue overQuotaWeight). Set "
                    "cluster.scheduler: kai or drop the weights.",
                    (*t.path, "fairShare", "weight"),
                )
            ]
    return []


def _qos(pool: Pool, scheduler: Scheduler) -> list[Diagnostic]:
    if not pool.qos_declared:
        return []
    mode, f = pool.sharing.mode, pool.sharing.fractional
    kind = pool.sharing.kind
    path = (*pool.path, "qos")
    if pool.qos == QOS_EXCLUSIVE and not kind.whole:
        return [
            error(
                "qos.mismatch",
                f"qos {QOS_EXCLUSIVE} needs mode {modes.default().name}, not {mode}",
                "A shared GPU cannot be exclusive; use qos guaranteed (mig, mps) or shared.",
                path,
            )
        ]
    if pool.qos == QOS_GUARANTEED:
        if kind.scheduler_slots and scheduler.uncapped_fractions:
            # KAI v0.17.0 docs/gpu-sharing/README.md: "KAI Scheduler does not enforce memory
            # allocation limit or performs memory isolation between processes"
            return [
                error(
                    "qos.mismatch",
                    "qos guaranteed is not possible with KAI fractions",
                    "KAI places fractional pods by the memory they ask for but caps neither "
                    "memory nor compute: a pod can take the whole GPU. Use qos shared, "
                    "scheduler hami with coresPercent, or mig/mps.",
                    path,
                )
            ]
        ok = kind.isolates or (kind.scheduler_slots and f is not None and f.cores_percent)
        if not ok:
            why = (
                f"set {kind.section}.coresPercent so each slot's compute is capped"
                if kind.scheduler_slots
                else "it gives no memory or fault isolation"
                if kind.replicated
                else f"use qos {QOS_EXCLUSIVE} for whole GPUs"
            )
            return [
                error(
                    "qos.mismatch",
                    f"qos guaranteed is not possible with {mode}",
                    f"guaranteed needs mig, mps, or fractional with coresPercent; {why}.",
                    path,
                )
            ]
    return []


def _first_weighted(stack: Stack) -> dict[str, Tenant]:
    """Return, per pool name, the first tenant that names it and sets a fairShare weight."""
    out: dict[str, Tenant] = {}
    for t in stack.tenants:
        if t.fair_share_weight is not None:
            for name in t.pools:
                out.setdefault(name, t)
    return out


def run(stack: Stack) -> list[Diagnostic]:
    """Check sharing limits, fractional arithmetic, compute policy and QoS for every pool."""
    out: list[Diagnostic] = []
    weighted = _first_weighted(stack)
    for pool in stack.pools:
        out += _replicas(pool)
        out += _fractional(pool, schedulers.of(stack))
        out += _policy(pool, stack, weighted)
        out += _qos(pool, schedulers.of(stack))
    return out
