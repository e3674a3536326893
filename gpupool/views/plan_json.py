"""JSON output of ``gpupool plan``: the document of docs/commands.md (plan --format json).

This module owns the stable machine-readable shape: ``format_version``, ``stack``,
``resource_changes`` (Terraform's ``actions`` vocabulary and ``replace_paths``), ``summary``,
``capacity``, ``cost``, ``diagnostics`` (the stack file's warnings and advice, as ``validate``
writes them), ``acknowledged`` (the stack file's acknowledged warnings, each with its reason) and
``pins`` (what ``up --expect`` holds the file applied to). Fields may be added (``base``,
``tenants``, per-pool cost, slot profiles, ``changed_paths``, ``owner``, ``pins``,
``diagnostics``, ``acknowledged``), never renamed; a breaking change bumps
``format_version``. Unknown amounts are ``null``, never 0.
"""

from __future__ import annotations

from typing import Any

from gpupool.formats import FORMAT_VERSION
from gpupool.plan import (
    HOURS_PER_MONTH,
    MinMax,
    PlanResult,
    TenantCostReport,
    slot_prices,
)
from gpupool.plan import pins as plan_pins
from gpupool.views import json_text, plan_checkpoint, plan_services, plan_summary


def _mm(mm: MinMax, digits: int = 4) -> dict[str, float | None]:
    def one(v: float | None) -> float | None:
        return None if v is None else round(v, digits)

    return {"min": one(mm.min), "max": one(mm.max)}


def _count(mm: MinMax) -> dict[str, float | int | None]:
    """GPU counts: whole numbers as integers (``8``), fractions as they are (``0.5``)."""

    def one(v: float | None) -> float | int | None:
        return None if v is None else int(v) if float(v).is_integer() else round(v, 4)

    return {"min": one(mm.min), "max": one(mm.max)}


def to_json(result: PlanResult) -> dict[str, Any]:
    """Return the plan as its JSON document (docs/commands.md, plan --format json)."""
    s = result.summary
    return {
        "format_version": FORMAT_VERSION,
        "stack": result.stack,
        "base": {"kind": result.base.kind, "ref": result.base.ref, "note": result.base.note},
        "resource_changes": _changes(result),
        "summary": {"add": s.add, "change": s.change, "destroy": s.destroy, "replace": s.replace},
        "capacity": _capacity(result),
        "tenants": _tenants(result),
        "cost": _cost(result),
        "advice": _advice(result),
        "diagnostics": plan_summary.diagnostics_json(result),
        "pins": None if result.pins is None else plan_pins.to_json(result.pins),
        "scheduler": _scheduler(result),
        "acknowledged": [a.to_json() for a in result.acknowledged],
        **plan_services.to_json(result),
        **plan_checkpoint.to_json(result),
    }


def _changes(result: PlanResult) -> list[dict[str, Any]]:
    """Return ``resource_changes``: each change with its actions, reasons and paths."""
    return [
        {
            "address": c.address,
            "type": c.type,
            "actions": list(c.actions),
            "replace_paths": [list(p) for p in c.replace_paths],
            "reasons": list(c.reasons),
            "owner": c.owner,
            "changed_paths": [list(ic.path) for ic in c.changes],
        }
        for c in result.changes
    ]


def _capacity(result: PlanResult) -> list[dict[str, Any]]:
    """Return ``capacity``: each pool's GPUs, nodes, slots and unit prices."""
    return [
        {
            "pool": p.pool,
            "gpu": p.gpu,
            "gpus": _count(p.gpus),
            "nodes": _count(p.nodes),
            "nodesMax": p.nodes_max,
            "slotsPerGpu": p.slots_per_gpu,
            "slotMemoryGiB": None if p.slot_memory_gib is None else round(p.slot_memory_gib, 2),
            "qos": p.qos,
            "mode": p.mode,
            "gpuMemoryGiB": p.gpu_memory_gib,
            "slots": [
                {"profile": sp.name, "perGpu": sp.per_gpu, "memoryGiB": sp.memory_gib}
                for sp in p.slot_profiles
            ],
            "policy": p.policy,
            "bf16TflopsMax": None if p.bf16_tflops_max is None else round(p.bf16_tflops_max, 1),
            "unitPrices": [
                {"profile": name, "hourly": _mm(price)}
                for name, price in (
                    slot_prices(p, result.tenant_cost.gpu_hourly[p.pool])
                    if result.tenant_cost and p.pool in result.tenant_cost.gpu_hourly else ()
                )
            ],
        }
        for p in result.capacity
    ]


def _tenants(result: PlanResult) -> list[dict[str, Any]]:
    """Return ``tenants``: each tenant's pools, quotas and the ceiling that holds it."""
    return [
        {
            "tenant": t.tenant,
            "pools": list(t.pools),
            "priority": t.priority,
            "quotaGpus": t.quota_gpus,
            "limitGpus": t.limit_gpus,
            "poolGpus": _count(t.pool_gpus),
            "resourceQuota": [
                {"resource": q.resource, "units": q.units, "gpusPerPool": q.gpus}
                for q in t.quota_lines
            ],
            "ceiling": {
                "enforcedBy": t.ceiling.by,
                "queue": t.ceiling.queue,
                "queueGpuLimit": t.ceiling.queue_limit,
                "queueGpuQuota": t.ceiling.queue_quota if t.ceiling.queue else None,
                "resourceQuota": t.ceiling.resource_quota,
            },
        }
        for t in result.tenants
    ]


def _cost(result: PlanResult) -> dict[str, Any]:
    """Return ``cost``: the stack's and each pool's, and the tenants' shares."""
    cost = result.cost
    return {
        "currency": cost.currency,
        "hourly": _mm(cost.hourly),
        "monthly": _mm(cost.monthly, 2),
        "onDemandEquivalentHourly": _mm(cost.on_demand_hourly),
        "deltaMonthly": _mm(cost.delta_monthly, 2),
        "baseMonthly": _mm(cost.base_hourly.scaled(HOURS_PER_MONTH), 2),
        "hoursPerMonth": HOURS_PER_MONTH,
        "pricesAsOf": list(cost.prices_as_of),
        "priceRegion": cost.price_region,
        "unpriced": list(cost.unpriced),
        "pools": [
            {
                "pool": p.pool,
                "hourly": _mm(p.hourly),
                "monthly": _mm(p.monthly, 2),
                "onDemandEquivalentHourly": _mm(p.on_demand_hourly),
                "deltaMonthly": _mm(p.delta_monthly, 2),
                "fallsBackToOnDemand": p.falls_back,
                "existingNodes": p.existing_nodes,
                "declaredPrice": None if p.declared is None else {
                    "source": p.declared, "currency": p.price_currency,
                },
                "priceRegion": p.price_region,
            }
            for p in cost.pools
        ],
        **_tenant_cost(result.tenant_cost),
    }


def _advice(result: PlanResult) -> list[dict[str, Any]]:
    """Return ``advice``: each piece of the plan's advice, with its monthly amount."""
    return [
        {
            "code": a.code,
            "pool": a.pool,
            "summary": a.summary,
            "detail": a.detail,
            "path": list(a.path),
            "monthly": _mm(MinMax(*a.monthly), 2),
        }
        for a in result.advice
    ]


def _scheduler(result: PlanResult) -> dict[str, Any] | None:
    """Where KAI or HAMi runs (``sharing.scheduler_ha.Placement``); None under kube-scheduler."""
    p = result.scheduler
    if p is None:
        return None
    return {
        "scheduler": p.scheduler,
        "highAvailability": p.ha,
        "replicas": p.replicas,
        "deployments": [
            {"namespace": d.namespace, "name": d.name, "replicas": d.replicas}
            for d in p.deployments
        ],
        "spreadOverZones": p.spread_zones,
        "avoidsSpotLabels": [{"key": k, "value": v} for k, v in p.spot_labels],
        "priorityClassName": p.priority_class,
        "podDisruptionBudgets": [{"deployment": d, "by": who} for d, who in p.pdbs],
        "summary": p.lines(),
    }


def _cents(v: float | None) -> int | None:
    """Return an amount in whole cents, rounded as ``_mm(..., 2)`` prints it."""
    return None if v is None else round(round(v, 2) * 100)


def _dollars(cents: int | None) -> float | None:
    return None if cents is None else cents / 100


def _monthly(mm: MinMax) -> dict[str, float | None]:
    """Return a monthly amount rounded to the cent."""
    return _mm(mm.scaled(HOURS_PER_MONTH), 2)


def _tenant_cost(tc: TenantCostReport | None) -> dict[str, Any]:
    """Each tenant's cost and each pool's remainder, monthly, in cents that add up.

    The remainder is the pool's monthly cost in cents minus its tenants' guaranteed amounts in
    cents, so the document reconciles to the cent as printed.
    """
    if tc is None:
        return {}
    taken: dict[str, list[int | None]] = {}
    for t in tc.tenants:
        for s in t.shares:
            month = s.guaranteed_hourly.scaled(HOURS_PER_MONTH)
            for i, v in enumerate((month.min, month.max)):
                ends = taken.setdefault(s.pool, [0, 0])
                cents = _cents(v)
                ends[i] = None if ends[i] is None or cents is None else ends[i] + cents
    unallocated = []
    for pool, hourly in tc.pool_hourly.items():
        month = hourly.scaled(HOURS_PER_MONTH)
        used = taken.get(pool, [0, 0])
        ends = [_dollars(None if c is None or u is None else c - u)
                for c, u in zip((_cents(month.min), _cents(month.max)), used, strict=True)]
        unallocated.append({"pool": pool, "monthly": {"min": ends[0], "max": ends[1]}})
    return {
        "tenants": [
            {
                "tenant": t.tenant,
                "guaranteedMonthly": _monthly(t.guaranteed_hourly),
                "ceilingMonthly": _monthly(t.ceiling_hourly),
                "deltaMonthly": _mm(t.delta_monthly, 2),
                "pools": [
                    {
                        "pool": s.pool,
                        "guaranteedGpus": _count(s.guaranteed_gpus),
                        "guaranteedMonthly": _monthly(s.guaranteed_hourly),
                        "ceilingGpus": _count(s.ceiling_gpus),
                        "ceilingMonthly": _monthly(s.ceiling_hourly),
                    }
                    for s in t.shares
                ],
            }
            for t in tc.tenants
        ],
        "unallocated": unallocated,
    }


def format_json(result: PlanResult) -> str:
    """Render a plan as its JSON document (docs/commands.md, plan --format json)."""
    return json_text.dumps(to_json(result), indent=2) + "\n"
