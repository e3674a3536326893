"""How a plan shows its inference services: the rows of the text and markdown sections, and JSON.

This module owns the services section the plan views add after the tenants (the plan's other
views call it; nothing here changes theirs): per service its tenant, pool, replicas, the slots
KEDA may ask for at ``replicas.min`` and ``replicas.max`` beside what the pool holds at
``nodes.max``, and its cost a month at both ends; per tenant, the services' share of its spend.
"""

from __future__ import annotations

from typing import Any

from gpupool.plan import HOURS_PER_MONTH, MinMax, PlanResult
from gpupool.plan.services import ServicePlan, tenant_services
from gpupool.views.plan_text import money, monthly, num, table

SERVICE_HEAD = ("service", "tenant", "pool", "replicas", "slots at min-max", "pool holds",
                "GPUs", "cost/month", "objective")


def _month(mm: MinMax | None, currency: str) -> str:
    return "unpriced" if mm is None else money(mm.scaled(HOURS_PER_MONTH), monthly, currency)


def rows(result: PlanResult) -> list[list[str]]:
    """Return one row per service (``SERVICE_HEAD``)."""
    cur = result.cost.currency
    return [
        [p.service, p.tenant, p.pool, f"{p.replicas[0]}-{p.replicas[1]}",
         f"{p.slots[0]}-{p.slots[1]} x {p.slot}", str(p.pool_slots),
         f"{num(p.gpus.min)}-{num(p.gpus.max)}", _month(p.hourly, cur), p.slo or "-"]
        for p in result.services
    ]


def tenant_lines(result: PlanResult) -> list[str]:
    """Return one line per tenant with services: their cost a month at both ends."""
    cur = result.cost.currency
    return [f"{tenant}: services {_month(mm, cur)} a month at replicas.min to replicas.max"
            for tenant, mm in tenant_services(result.services).items()]


def text_section(result: PlanResult) -> list[str]:
    """Return the text plan's services section (empty without services)."""
    if not result.services:
        return []
    lines = ["", "Services (KEDA scales each between replicas.min and replicas.max):"]
    lines += table(SERVICE_HEAD, rows(result))
    lines += [f"  {line}" for line in tenant_lines(result)]
    return lines


def _mm(mm: MinMax | None, digits: int) -> dict[str, float | None] | None:
    if mm is None:
        return None
    return {"min": None if mm.min is None else round(mm.min, digits),
            "max": None if mm.max is None else round(mm.max, digits)}


def _service_json(p: ServicePlan) -> dict[str, Any]:
    return {
        "service": p.service, "tenant": p.tenant, "pool": p.pool,
        "replicas": {"min": p.replicas[0], "max": p.replicas[1]},
        "slot": p.slot, "slots": {"min": p.slots[0], "max": p.slots[1]},
        "gpus": _mm(p.gpus, 4), "poolSlotsAtNodesMax": p.pool_slots,
        "hourly": _mm(p.hourly, 4),
        "monthly": _mm(None if p.hourly is None else p.hourly.scaled(HOURS_PER_MONTH), 2),
        "objective": p.slo, "metrics": list(p.metrics),
    }


def to_json(result: PlanResult) -> dict[str, Any]:
    """Return the JSON document's ``services`` and ``serviceCost`` (per tenant) entries."""
    return {
        "services": [_service_json(p) for p in result.services],
        "serviceCost": [
            {"tenant": tenant, "hourly": _mm(mm, 4),
             "monthly": _mm(None if mm is None else mm.scaled(HOURS_PER_MONTH), 2)}
            for tenant, mm in tenant_services(result.services).items()
        ],
    }
