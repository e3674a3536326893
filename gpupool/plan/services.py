"""The services in a plan: what KEDA may ask of each pool, what it costs, and why it changed.

This module owns ``ServicePlan`` (per service: the slots and GPUs it takes at ``replicas.min``
and at ``replicas.max``, counted as validation counts them, ``gpupool.facts.services``, beside
what its pool holds at ``nodes.max``, and its cost an hour at both ends), ``tenant_services``
(the services' cost per tenant, the part of the tenant's spend the autoscaler moves) and
``reasons`` (a ScaledObject's changes in service terms: "replicas.max 8 -> 20: KEDA may now ask
for 12 more slots ..."). A service's cost is its GPUs times its pool's price of one GPU an hour
(``TenantCostReport.gpu_hourly``): at ``replicas.min`` the price at ``nodes.min``, at
``replicas.max`` the price at ``nodes.max``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gpupool.facts.services import replica_demand
from gpupool.model import Stack
from gpupool.plan.capacity import MinMax
from gpupool.service_model import Service


@dataclass(frozen=True)
class ServicePlan:
    """One service as the plan shows it.

    Attributes:
        service, tenant, pool: the service and where it runs.
        replicas: ``replicas.min`` and ``replicas.max``.
        slot: what one slot of its pool is (``whole GPU``, ``1/4 GPU``, ``3g.40gb``).
        slots: slots its replicas take at both ends.
        gpus: whole-GPU equivalents at both ends.
        pool_slots: slots of that kind the pool holds at ``nodes.max``.
        hourly: its cost an hour at both ends, or None where the pool has no price.
        slo: the objective it states, for people (``p95 latency 0.2 s``), or None.
        metrics: what it scales on.

    """

    service: str
    tenant: str
    pool: str
    replicas: tuple[int, int]
    slot: str
    slots: tuple[int, int]
    gpus: MinMax
    pool_slots: int
    hourly: MinMax | None
    slo: str | None
    metrics: tuple[str, ...]


def _slo(s: Service) -> str | None:
    if s.slo is None:
        return None
    if s.slo.queue_seconds is not None:
        return f"queue {s.slo.queue_seconds:g} s"
    return f"p95 latency {s.slo.p95_latency_seconds:g} s"


def _hourly(price: MinMax | None, low: float, high: float) -> MinMax | None:
    """Return GPUs times the pool's price of one GPU an hour, at both ends.

    A pool of no GPU at one end (nodes.min 0) has no price there, so the other end's stands in.
    """
    if price is None or (price.min is None and price.max is None):
        return None
    lo = price.min if price.min is not None else price.max
    hi = price.max if price.max is not None else price.min
    return MinMax(low * float(lo or 0), high * float(hi or 0))


def service_plans(stack: Stack, gpu_hourly: Mapping[str, MinMax]) -> tuple[ServicePlan, ...]:
    """Return every service of ``stack`` that validation could count, in file order."""
    out = []
    for s in stack.services:
        d = replica_demand(stack, s)
        if d is None:
            continue
        (lo_slots, lo_gpus), (hi_slots, hi_gpus) = d.at(s.replicas_min), d.at(s.replicas_max)
        hourly = _hourly(gpu_hourly.get(s.pool), lo_gpus, hi_gpus)
        out.append(ServicePlan(
            service=s.name, tenant=s.tenant, pool=s.pool, replicas=(s.replicas_min,
                                                                    s.replicas_max),
            slot=d.kind, slots=(lo_slots, hi_slots), gpus=MinMax(lo_gpus, hi_gpus),
            pool_slots=d.capacity, hourly=hourly, slo=_slo(s),
            metrics=tuple(t.metric for t in s.triggers),
        ))
    return tuple(out)


def tenant_services(plans: tuple[ServicePlan, ...]) -> dict[str, MinMax | None]:
    """Return each tenant's services' cost an hour at both ends (None: a pool has no price)."""
    out: dict[str, MinMax | None] = {}
    for p in plans:
        have = out.get(p.tenant, MinMax(0.0, 0.0))
        out[p.tenant] = None if have is None or p.hourly is None else have + p.hourly
    return out


def _more(n: int, old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    per, slot, pool = new.get("slots_per_replica"), new.get("slot"), new.get("pool")
    if not isinstance(per, int) or slot is None:
        return ""
    word = "more" if n > 0 else "fewer"
    text = f": the ScaledObject may now ask for {abs(n) * per} {word} {slot} slots"
    if isinstance(new.get("pool_slots"), int):
        text += f"; pool {pool} holds {new['pool_slots']} at nodes.max"
    return text


def reasons(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """Explain a ScaledObject's update in service terms."""
    out = []
    a, b = old.get("replicas") or [None, None], new.get("replicas") or [None, None]
    if a[0] != b[0]:
        out.append(f"replicas.min {a[0]} -> {b[0]}" + (
            ": the service may now scale to zero" if b[0] == 0 else ""))
    if a[1] != b[1] and isinstance(a[1], int) and isinstance(b[1], int):
        out.append(f"replicas.max {a[1]} -> {b[1]}{_more(b[1] - a[1], old, new)}")
    if old.get("metrics") != new.get("metrics"):
        before = ", ".join(old.get("metrics") or []) or "nothing"
        out.append(f"scales on {', '.join(new.get('metrics') or [])} (was {before})")
    for key in ("pool", "deployment", "slot"):
        if old.get(key) != new.get(key):
            out.append(f"{key} {old.get(key)} -> {new.get(key)}")
    return out


def created(new: Mapping[str, Any]) -> list[str]:
    """Say what a new ScaledObject may ask for."""
    lo, hi = new.get("replicas") or [None, None]
    per, slot = new.get("slots_per_replica"), new.get("slot")
    text = f"KEDA scales {new.get('deployment')} between {lo} and {hi} replicas"
    if isinstance(per, int) and isinstance(hi, int) and slot is not None:
        text += f", up to {hi * per} {slot} slots of pool {new.get('pool')}"
    return [text]
