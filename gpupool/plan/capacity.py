"""What the desired pools hold: GPUs, slots, memory per slot, QoS, TFLOPS, tenant quotas.

This module owns ``MinMax`` (a quantity at nodes.min and nodes.max, None when unknown) and the
capacity view of a plan, computed from the desired ``Stack`` and its GPU facts
(``gpupool.facts``, never from a graph): per pool the nodes and GPUs its rendered node groups
hold at their fewest and most (``facts.groups.reach``: for a spot pool with on-demand fallback
the top end is above ``nodes.max``; GPUs in whole-GPU equivalents, so fractional instance sizes
count their share), what one GPU is split into and how much memory each slot gets, the resources
its nodes advertise, the QoS tier and dense BF16 TFLOPS at the top end; per tenant its quota and
limit beside what its pools hold, its ResourceQuota line by line, and what enforces its limit
(``Ceiling``: the scheduler's queue or the ResourceQuota).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gpupool import facts, schedulers
from gpupool.facts.groups import capacity_groups, reach
from gpupool.facts.tenancy import QuotaLine, quota_lines
from gpupool.model import Pool, Stack, Tenant
from gpupool.sharing import kai
from gpupool.sharing.tenants import QUOTA_NAME

#: What enforces a tenant's ``limit.gpus`` (``Ceiling.by``).
CEILING_QUEUE = "queue"  # the scheduler's queue limit (``Scheduler.queue_limits``)
CEILING_RESOURCE_QUOTA = "resource-quota"  # the namespace's ResourceQuota lines


@dataclass(frozen=True)
class MinMax:
    """A quantity at nodes.min and at nodes.max; None means unknown."""

    min: float | None
    max: float | None

    def __add__(self, other: MinMax) -> MinMax:
        return MinMax(_add(self.min, other.min), _add(self.max, other.max))

    def __sub__(self, other: MinMax) -> MinMax:
        neg = MinMax(_neg(other.min), _neg(other.max))
        return self + neg

    def scaled(self, factor: float) -> MinMax:
        """Return both ends multiplied by ``factor`` (unknown stays unknown)."""
        return MinMax(_mul(self.min, factor), _mul(self.max, factor))

    @property
    def known(self) -> bool:
        """Whether both ends are known."""
        return self.min is not None and self.max is not None


ZERO = MinMax(0.0, 0.0)


def _add(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a + b


def _neg(a: float | None) -> float | None:
    return None if a is None else -a


def _mul(a: float | None, factor: float) -> float | None:
    return None if a is None else a * factor


@dataclass(frozen=True)
class SlotProfile:
    """One kind of slot a pool's GPUs offer (a MIG profile, or the single slot kind)."""

    name: str
    per_gpu: int
    memory_gib: float | None


@dataclass(frozen=True)
class GroupNodes:
    """The nodes one node group of a pool holds (``facts.groups.capacity_groups``)."""

    capacity: str
    min: int
    max: int


@dataclass(frozen=True)
class PoolCapacity:
    """What one pool offers at its fewest and most nodes.

    Attributes:
        pool: the pool's name.
        gpu: GPU model name, or None when the catalog does not know it.
        gpu_memory_gib: memory of one GPU (a fractional instance's share), or None.
        gpus: GPUs (whole-GPU equivalents) the node groups hold at their fewest and most nodes.
        mode: sharing mode.
        slots_per_gpu: schedulable units per GPU.
        slot_memory_gib: memory of one slot (the smallest, for a mixed MIG layout), or None.
        slot_profiles: the slot kinds (several for a mixed MIG layout).
        resources: the extended resources the pool's nodes advertise, with units per GPU.
        qos: the pool's QoS tier (declared or derived).
        qos_derived: whether the tier was derived from the sharing mode.
        policy: compute policy.
        bf16_tflops_max: dense BF16 TFLOPS of all GPUs at the top end, or None when unknown.
        nodes: the nodes the node groups hold together at their fewest and most
            (``facts.groups.reach``).
        nodes_max: the pool's declared ``nodes.max`` (below ``nodes.max`` of ``nodes`` when
            on-demand fallback can add nodes).
        groups: the node groups, spot first.

    """

    pool: str
    gpu: str | None
    gpu_memory_gib: float | None
    gpus: MinMax
    mode: str
    slots_per_gpu: int
    slot_memory_gib: float | None
    slot_profiles: tuple[SlotProfile, ...]
    resources: Mapping[str, int]
    qos: str
    qos_derived: bool
    policy: str
    bf16_tflops_max: float | None
    nodes: MinMax = MinMax(0.0, 0.0)
    nodes_max: int = 0
    groups: tuple[GroupNodes, ...] = ()

    @property
    def above_nodes_max(self) -> bool:
        """Whether the node groups can hold more nodes than the declared ``nodes.max``."""
        return self.nodes.max is not None and self.nodes.max > self.nodes_max


@dataclass(frozen=True)
class Ceiling:
    """What enforces a tenant's ``limit.gpus`` (and, under a queue, holds its ``quota.gpus``).

    Under a scheduler whose queues enforce the limit (``Scheduler.queue_limits``: KAI) the
    tenant's queue does, and its ResourceQuota has no line on its pools' GPUs, which would refuse
    the pods the scheduler preempts and reclaims for (``gpupool.facts.tenancy.quota_lines``);
    otherwise the ResourceQuota's lines do.

    Attributes:
        by: ``CEILING_QUEUE`` or ``CEILING_RESOURCE_QUOTA``.
        scheduler: the title of the scheduler whose queue holds it (None: a ResourceQuota).
        queue: the queue's name (None: no queue).
        queue_limit: the queue's GPU ``limit`` in the scheduler's units, None for none (-1).
        queue_quota: the queue's GPU ``quota`` in the scheduler's units.
        resource_quota: ``namespace/name`` of the tenant's ResourceQuota, None when none is
            rendered.

    """

    by: str
    scheduler: str | None = None
    queue: str | None = None
    queue_limit: float | None = None
    queue_quota: float = 0.0
    resource_quota: str | None = None


def ceiling(stack: Stack, tenant: Tenant, lines: Sequence[QuotaLine]) -> Ceiling:
    """Return what enforces the tenant's limit, from the rendered queue and ResourceQuota."""
    quota = f"{tenant.namespace}/{QUOTA_NAME}" if lines else None
    sched = schedulers.of(stack)
    if not sched.queue_limits:
        return Ceiling(CEILING_RESOURCE_QUOTA, resource_quota=quota)
    gpu = kai.queue_spec(stack, tenant)["resources"]["gpu"]
    limit = None if gpu["limit"] == kai.NO_LIMIT else float(gpu["limit"])
    return Ceiling(CEILING_QUEUE, sched.title, tenant.name, limit, float(gpu["quota"]), quota)


@dataclass(frozen=True)
class TenantCapacity:
    """A tenant's quota and limit against what its pools hold.

    ``quota_lines`` is the tenant's rendered ResourceQuota, one line per resource in that
    resource's own units, with what each admits per pool in GPUs (``facts.tenancy``); under KAI
    only its 0 fences. ``ceiling`` says what enforces the limit.
    """

    tenant: str
    pools: tuple[str, ...]
    priority: str
    quota_gpus: float | None
    limit_gpus: float | None
    pool_gpus: MinMax
    quota_lines: tuple[QuotaLine, ...] = ()
    ceiling: Ceiling = Ceiling(CEILING_RESOURCE_QUOTA)


def capacity(stack: Stack) -> tuple[PoolCapacity, ...]:
    """Return what each pool of ``stack`` offers, from the model and the catalog."""
    return tuple(_pool_capacity(stack, p) for p in stack.pools)


def _pool_capacity(stack: Stack, pool: Pool) -> PoolCapacity:
    pf = facts.pool_facts(stack, pool)
    model = pf.gpu
    inst = pool.instance
    per_node = inst.gpus if inst is not None else float(pool.gpus_per_node)
    memory = pf.gpu_memory_gib
    profiles = tuple(SlotProfile(k.name, k.per_gpu, k.memory_gib) for k in pf.slot_kinds)
    slot_mems = [p.memory_gib for p in profiles]
    lo, hi = reach(pool, stack.cloud)
    gpus = MinMax(lo * per_node, hi * per_node)
    tflops = model.bf16_tflops if model is not None else None
    return PoolCapacity(
        pool=pool.name,
        gpu=model.name if model is not None else None,
        gpu_memory_gib=memory,
        gpus=gpus,
        mode=pool.sharing.mode,
        slots_per_gpu=pf.slots_per_gpu,
        slot_memory_gib=None if None in slot_mems else min(m for m in slot_mems if m is not None),
        slot_profiles=profiles,
        resources=pf.exposure,
        qos=pool.qos,
        qos_derived=not pool.qos_declared,
        policy=pool.policy,
        bf16_tflops_max=None if tflops is None or gpus.max is None else tflops * gpus.max,
        nodes=MinMax(float(lo), float(hi)),
        nodes_max=pool.nodes.max,
        groups=tuple(
            GroupNodes(g.capacity, g.min, g.max) for g in capacity_groups(pool, stack.cloud)
        ),
    )


def tenant_capacity(stack: Stack, pools: Sequence[PoolCapacity]) -> tuple[TenantCapacity, ...]:
    """Return each tenant's quota and limit beside the GPUs its pools hold."""
    by_name = {p.pool: p for p in pools}
    out = []
    for t in stack.tenants:
        held = ZERO
        for name in t.pools:
            if name in by_name:
                held = held + by_name[name].gpus
        lines = quota_lines(stack, t)
        out.append(
            TenantCapacity(t.name, t.pools, t.priority, t.quota_gpus, t.limit_gpus, held, lines,
                           ceiling(stack, t, lines))
        )
    return tuple(out)
