"""What each tenant's share of the pools costs, and what no tenant is guaranteed.

This module owns the plan's per-tenant cost (showback). Like ``gpupool.plan.cost`` it reads only
a graph's facts (the node-pool resources' prices and sizes, the tenant Namespace's pools and the
ResourceQuota's ``quota_gpus`` and ``limit_gpus``), so a recorded base is priced the same way and
the delta per tenant needs no stack file.

The rules, at each end (nodes.min, nodes.max) of every pool:

- Existing nodes (``cloud: kubernetes``) have no catalog price, so their tenants' cost is unknown
  unless the pool declares a price (``pools[].price``), which is used like any other.
- A pool's cost per GPU is its cost at that end divided by the GPUs its node groups hold there
  (a split spot pool blends its spot and on-demand groups, as its cost does); at an end where
  it holds none (``nodes.min: 0``), what one GPU of the first node it would add costs, so a pool
  that scales from zero keeps its price per unit.
- A tenant's **guaranteed** GPUs are its ``quota.gpus``. A tenant on several pools has them split
  over its pools in proportion to the GPUs each holds at ``nodes.max`` (the quota is one number
  for all of them, and this is the split that keeps every pool's share within what it holds).
- Where the tenants' guarantees in a pool add up to more GPUs than it holds at that end (quotas
  that fit at nodes.max but not at nodes.min: validation warns), each is scaled down alike, so
  no GPU is paid twice.
- The **unallocated** remainder of a pool is its cost minus its tenants' guaranteed cost, so
  tenants and remainder add up to the pool's cost exactly.
- A tenant's **ceiling** is what its ``limit.gpus`` (without a limit: everything its pools hold)
  reaches, split the same way and capped at each pool's GPUs. Ceilings overlap between tenants
  and are not summed.

A pool without a price at an end makes its tenants' cost at that end unknown (None), never zero.
Amounts are in the plan's currency (``gpupool.plan.cost.price_currency``); a pool priced in
another one counts as unpriced.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gpupool.graph import ResourceGraph
from gpupool.plan.capacity import ZERO, MinMax, PoolCapacity
from gpupool.plan.cost import (
    HOURS_PER_MONTH,
    PoolCost,
    first_node_price,
    node_pools,
    pool_costs,
    price_currency,
)

__all__ = ["PoolShare", "TenantCost", "TenantCostReport", "slot_prices", "tenant_costs"]


@dataclass(frozen=True)
class PoolShare:
    """One tenant's share of one pool, hourly.

    Attributes:
        pool: the pool's name.
        guaranteed_gpus: the tenant's guaranteed GPUs in the pool at nodes.min and nodes.max.
        guaranteed_hourly: what those GPUs cost per hour.
        ceiling_gpus: the GPUs its limit reaches in the pool.
        ceiling_hourly: what those cost per hour.

    """

    pool: str
    guaranteed_gpus: MinMax
    guaranteed_hourly: MinMax
    ceiling_gpus: MinMax
    ceiling_hourly: MinMax


@dataclass(frozen=True)
class TenantCost:
    """A tenant's guaranteed cost and ceiling, per pool and in total, desired and base."""

    tenant: str
    shares: tuple[PoolShare, ...]
    base_guaranteed_hourly: MinMax = ZERO

    @property
    def guaranteed_hourly(self) -> MinMax:
        """What the tenant's guarantee costs per hour over all its pools."""
        return _sum(s.guaranteed_hourly for s in self.shares)

    @property
    def ceiling_hourly(self) -> MinMax:
        """What the tenant's ceiling reaches per hour over all its pools."""
        return _sum(s.ceiling_hourly for s in self.shares)

    @property
    def guaranteed_monthly(self) -> MinMax:
        """The guarantee per month (730 hours)."""
        return self.guaranteed_hourly.scaled(HOURS_PER_MONTH)

    @property
    def ceiling_monthly(self) -> MinMax:
        """The ceiling per month."""
        return self.ceiling_hourly.scaled(HOURS_PER_MONTH)

    @property
    def delta_monthly(self) -> MinMax:
        """Guaranteed cost, desired minus base, per month."""
        return (self.guaranteed_hourly - self.base_guaranteed_hourly).scaled(HOURS_PER_MONTH)


@dataclass(frozen=True)
class TenantCostReport:
    """Every tenant's cost and every pool's unallocated remainder (desired graph).

    Attributes:
        tenants: per tenant of the desired graph, then tenants only the base has.
        unallocated_hourly: per pool, its cost per hour that no tenant is guaranteed.
        pool_hourly: per pool, its whole cost per hour (tenants plus remainder).
        gpu_hourly: per pool, its cost per GPU and hour at nodes.min and nodes.max.

    """

    tenants: tuple[TenantCost, ...]
    unallocated_hourly: Mapping[str, MinMax]
    pool_hourly: Mapping[str, MinMax]
    gpu_hourly: Mapping[str, MinMax]

    @property
    def unallocated_monthly(self) -> dict[str, MinMax]:
        """Per pool, the unallocated remainder per month."""
        return {p: v.scaled(HOURS_PER_MONTH) for p, v in self.unallocated_hourly.items()}


@dataclass(frozen=True)
class _Pool:
    gpus: MinMax
    cost: PoolCost
    first_gpu_hourly: float | None = None  # one GPU of its first node (``first_node_price``)


@dataclass(frozen=True)
class _Tenant:
    name: str
    pools: tuple[str, ...]
    quota: float
    limit: float | None


def _sum(items: Any) -> MinMax:
    total = ZERO
    for item in items:
        total = total + item
    return total


def _pools(graph: ResourceGraph, currency: str) -> dict[str, _Pool]:
    gpus: dict[str, MinMax] = {}
    members: dict[str, list[Mapping[str, Any]]] = {}
    for r in node_pools(graph):
        f = r.facts
        members.setdefault(str(f.get("pool")), []).append(f)
        per = f.get("gpus_per_node")
        per = float(per) if isinstance(per, (int, float)) and not isinstance(per, bool) else 0.0
        lo, hi = f.get("nodes_min"), f.get("nodes_max")
        held = MinMax(float(lo or 0) * per, float(hi or 0) * per)
        name = str(f.get("pool"))
        gpus[name] = gpus.get(name, ZERO) + held
    costs = pool_costs(graph, currency)
    return {name: _Pool(gpus[name], costs[name], first_node_price(members[name], currency))
            for name in gpus}  # fmt: skip


def _hourly(pool: _Pool) -> MinMax:
    """Return a pool's cost per hour (unknown for existing nodes without a declared price)."""
    return pool.cost.hourly


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _tenants(graph: ResourceGraph) -> list[_Tenant]:
    """Read tenants from their Namespace (pools) and ResourceQuota (quota, limit) facts."""
    pools: dict[str, tuple[str, ...]] = {}
    amounts: dict[str, tuple[float, float | None]] = {}
    for r in graph.resources:
        f, name = r.facts, r.facts.get("tenant")
        if not isinstance(name, str):
            continue
        if isinstance(f.get("pools"), list):
            pools[name] = tuple(str(p) for p in f["pools"])
        if "quota_gpus" in f or "limit_gpus" in f:
            amounts[name] = (_number(f.get("quota_gpus")) or 0.0, _number(f.get("limit_gpus")))
    return [_Tenant(name, members, *amounts.get(name, (0.0, None)))
            for name, members in pools.items()]


def _split(amount: float, members: list[str], pools: Mapping[str, _Pool]) -> dict[str, float]:
    """Split GPUs over pools in proportion to what each holds at nodes.max."""
    weights = {p: pools[p].gpus.max or 0.0 for p in members}
    total = sum(weights.values())
    if total <= 0:
        return {p: 0.0 for p in members}
    return {p: amount * w / total for p, w in weights.items()}


def _share_cost(gpus: MinMax, pool: _Pool) -> MinMax:
    """Return what ``gpus`` of ``pool`` cost per hour at each end (unknown without a price)."""
    ends = []
    for g, held, cost in ((gpus.min, pool.gpus.min, _hourly(pool).min),
                          (gpus.max, pool.gpus.max, _hourly(pool).max)):
        if not g:
            ends.append(0.0)
        elif cost is None or not held:
            ends.append(None)
        else:
            ends.append(cost * g / held)
    return MinMax(ends[0], ends[1])


def _per_gpu(pool: _Pool) -> MinMax:
    """Return a pool's cost per GPU-hour at each end; where it holds no GPU, its first node's.

    A pool that scales from zero still has a price per unit (its instance's over its GPUs): an
    end with no GPUs is priced as the first node the pool would add (``first_node_price``).
    """
    ends = []
    hourly = _hourly(pool)
    for held, cost in ((pool.gpus.min, hourly.min), (pool.gpus.max, hourly.max)):
        if not held:
            ends.append(pool.first_gpu_hourly)
        else:
            ends.append(None if cost is None else cost / held)
    return MinMax(ends[0], ends[1])


def _guarantees(
    tenants: list[_Tenant], pools: Mapping[str, _Pool]
) -> dict[tuple[str, str], MinMax]:
    """Guaranteed GPUs per (tenant, pool), scaled down where a pool is oversubscribed at an end."""
    wanted: dict[tuple[str, str], float] = {}
    for t in tenants:
        members = [p for p in t.pools if p in pools]
        for pool, gpus in _split(t.quota, members, pools).items():
            wanted[(t.name, pool)] = gpus
    demand: dict[str, float] = {}
    for (_, pool), gpus in wanted.items():
        demand[pool] = demand.get(pool, 0.0) + gpus
    out = {}
    for (tenant, pool), gpus in wanted.items():
        held, asked = pools[pool].gpus, demand[pool]
        scale = [1.0 if asked <= (h or 0.0) else (h or 0.0) / asked for h in (held.min, held.max)]
        out[(tenant, pool)] = MinMax(gpus * scale[0], gpus * scale[1])
    return out


def _ceiling(t: _Tenant, pools: Mapping[str, _Pool]) -> dict[str, MinMax]:
    members = [p for p in t.pools if p in pools]
    if t.limit is None:
        return {p: pools[p].gpus for p in members}
    split = _split(t.limit, members, pools)
    return {p: MinMax(min(g, pools[p].gpus.min or 0.0), min(g, pools[p].gpus.max or 0.0))
            for p, g in split.items()}


def _costs(graph: ResourceGraph, currency: str) -> tuple[dict[str, TenantCost], dict[str, _Pool]]:
    pools = _pools(graph, currency)
    tenants = _tenants(graph)
    guaranteed = _guarantees(tenants, pools)
    out = {}
    for t in tenants:
        ceiling = _ceiling(t, pools)
        shares = tuple(
            PoolShare(
                pool=p,
                guaranteed_gpus=guaranteed[(t.name, p)],
                guaranteed_hourly=_share_cost(guaranteed[(t.name, p)], pools[p]),
                ceiling_gpus=ceiling[p],
                ceiling_hourly=_share_cost(ceiling[p], pools[p]),
            )
            for p in t.pools if p in pools
        )
        out[t.name] = TenantCost(t.name, shares)
    return out, pools


def tenant_costs(base: ResourceGraph, desired: ResourceGraph) -> TenantCostReport:
    """Price every tenant's guarantee and ceiling in ``desired``, with its base for the delta.

    Args:
        base: the base graph (empty for a first apply).
        desired: the desired graph.

    Returns:
        The tenants' costs and each pool's unallocated remainder.

    """
    currency = price_currency(desired, base)  # the plan's, as ``cost`` prices it
    new, pools = _costs(desired, currency)
    old, _ = _costs(base, currency)
    tenants = []
    for name in [*new, *(n for n in old if n not in new)]:
        mine = new.get(name, TenantCost(name, ()))
        was = old.get(name)
        base_hourly = was.guaranteed_hourly if was is not None else ZERO
        tenants.append(TenantCost(mine.tenant, mine.shares, base_hourly))
    taken: dict[str, MinMax] = {}
    for t in new.values():
        for s in t.shares:
            taken[s.pool] = taken.get(s.pool, ZERO) + s.guaranteed_hourly
    unallocated = {name: _hourly(pool) - taken.get(name, ZERO) for name, pool in pools.items()}
    return TenantCostReport(
        tenants=tuple(tenants),
        unallocated_hourly=unallocated,
        pool_hourly={name: _hourly(pool) for name, pool in pools.items()},
        gpu_hourly={name: _per_gpu(pool) for name, pool in pools.items()},
    )


def slot_prices(pool: PoolCapacity, gpu_hourly: MinMax) -> tuple[tuple[str, MinMax], ...]:
    """Return the price per hour of one unit of each slot kind a pool's GPUs offer.

    A GPU's price is split over the units it yields: equally between the slots of a shared GPU
    (a quarter each for four time-slicing replicas), and between MIG instances by their compute
    slices (the ``g`` of ``3g.40gb``, as KAI counts them), so that the units of one GPU add up
    to its price. Whole GPUs: one unit is the GPU.
    """
    kinds = [(s.name, s.per_gpu, _compute_slices(s.name)) for s in pool.slot_profiles]
    total = sum(per * weight for _, per, weight in kinds)
    if not kinds or total <= 0:
        return ()
    return tuple((name, gpu_hourly.scaled(weight / total)) for name, _, weight in kinds)


def _compute_slices(name: str) -> int:
    """Return the ``g`` of a MIG profile name (``3g.40gb`` gives 3); 1 for other slot kinds."""
    head, _, rest = name.partition("g.")
    return int(head) if head.isdigit() and rest else 1
