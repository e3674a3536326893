"""What one replica of an inference service takes of its pool, in the pool's own slots.

This module owns ``replica_demand``: a service's per-replica request (``gpus``, ``fraction``,
``mig``, ``gpuMemoryGiB``) turned into slots of the pool's slot kind and into whole-GPU
equivalents, the unit of tenants' quotas and limits ("fractions add up"). Validation, the plan
and the rendered snippets all count a service this way, so they cannot disagree:

* ``gpus: n`` takes n slots where a slot is a GPU or a replica of one (exclusive, time-slicing,
  MPS: ``nvidia.com/gpu: n``), and n whole GPUs on a fractional pool;
* ``fraction: f`` takes the slots of a fractional pool that hold it (``ceil(f x slots per GPU)``);
  ``gpuMemoryGiB`` alone takes the slots whose memory holds it;
* ``mig: profile`` takes one instance of that profile.

A request that does not fit the pool's sharing mode has no demand (None); the services' checks
say why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gpupool.facts import PoolFacts, SlotKind, pool_facts
from gpupool.model import Stack, Tenant
from gpupool.service_model import Service

#: Slack for float rounding when a fraction is counted in slots (0.25 x 4 is one slot).
_EPSILON = 1e-9


@dataclass(frozen=True)
class Demand:
    """One replica's share of its pool.

    Attributes:
        kind: the slot kind it takes (``whole GPU``, ``1/4 GPU``, ``3g.40gb``).
        slots: slots of that kind per replica.
        per_gpu: slots of that kind per physical GPU.
        capacity: slots of that kind the pool holds at ``nodes.max``.

    """

    kind: str
    slots: int
    per_gpu: int
    capacity: int

    @property
    def gpus(self) -> float:
        """Whole-GPU equivalents per replica."""
        return self.slots / self.per_gpu

    def at(self, replicas: int) -> tuple[int, float]:
        """Slots and GPU equivalents ``replicas`` replicas take."""
        return replicas * self.slots, replicas * self.gpus


def tenant_of(stack: Stack, service: Service) -> Tenant | None:
    """Return the tenant a service names (an index kept with the stack: 2,000 services ask)."""
    index = stack.memo("gpupool.facts.services.tenants",
                       lambda: {t.name: t for t in reversed(stack.tenants)})
    return index.get(service.tenant)


def _kind(f: PoolFacts, name: str | None) -> SlotKind | None:
    if name is None:
        return f.slot_kinds[0] if f.slot_kinds else None
    return next((k for k in f.slot_kinds if k.name == name), None)


def replica_demand(stack: Stack, service: Service) -> Demand | None:
    """Return what one replica of ``service`` takes of its pool, or None when it cannot ask so.

    None also when the pool is unknown or its GPUs are (no slot kind).
    """
    pool = stack.pool(service.pool)
    if pool is None:
        return None
    f = pool_facts(stack, pool)
    mode = pool.sharing.kind
    r = service.request
    kind = _kind(f, r.mig if mode.partitioned else None)
    if kind is None or len(r.shapes) > 1:
        return None
    if mode.partitioned:
        slots = 1 if r.mig is not None and r.gpu_memory_gib is None else 0
    elif r.mig is not None:
        slots = 0
    elif r.fraction is not None or (r.gpus is None and r.gpu_memory_gib is not None):
        slots = _fractional_slots(kind, r.fraction, r.gpu_memory_gib) if mode.scheduler_slots else 0
    elif r.gpus is not None:
        slots = r.gpus * (kind.per_gpu if mode.scheduler_slots else 1)
    else:
        slots = 0
    if slots <= 0:
        return None
    return Demand(kind.name, slots, kind.per_gpu, pool.nodes.max * f.gpus_per_node * kind.per_gpu)


def _fractional_slots(kind: SlotKind, fraction: float | None, memory: float | None) -> int:
    by_share = math.ceil(fraction * kind.per_gpu - _EPSILON) if fraction is not None else 0
    by_memory = 0
    if memory is not None:
        by_memory = math.ceil(memory / kind.memory_gib - _EPSILON) if kind.memory_gib else 1
    return max(by_share, by_memory, 1)
