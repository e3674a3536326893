"""What the pools cost, desired and base, priced from the node-pool facts of each graph.

This module owns the cost view of a plan. Prices come from the ``facts`` the cloud modules put on
every node-pool resource (per node and hour at its capacity type, with the catalog's date), so a
recorded base is priced as it was recorded and needs no stack file. Amounts are hourly and
monthly (``HOURS_PER_MONTH``) with every node-pool resource at its own fewest and most nodes, so
the top end is what the rendered groups can really reach (for a split spot pool with on-demand
fallback, more than ``nodes.max``: ``facts.groups.capacity_groups``); a mixed spot node pool
(VKE) has its on-demand base, and with fallback its whole top end, priced on-demand. A missing
price makes that end unknown (None), never zero, except where the resource has no nodes.

Declared prices: a pool whose stack file states its price (``pools[].price``, a chargeback or
negotiated rate) has that price in its facts instead of the catalog's, marked with its source
(``price_declared``) and without a catalog date; it is priced like any other, existing nodes
included, and the report names it (``PoolCost.declared``) so no view passes it off as a list
price.

Currency: every price fact names its currency (``price_currency``; a fact recorded before
currencies were recorded is USD). A plan is in one currency, ``price_currency``: the one its
priced resources share, USD when none is priced. Nothing converts currencies, so a resource
priced in another currency than the plan's is not added: it is unknown, named with its currency.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from gpupool.catalog import HOURS_PER_MONTH
from gpupool.graph import Resource, ResourceGraph
from gpupool.plan.capacity import ZERO, MinMax

UNKNOWN = MinMax(None, None)

DEFAULT_CURRENCY = "USD"
"""The currency of the bundled catalog, of facts recorded without one, and of unpriced plans."""


@dataclass(frozen=True)
class PoolCost:
    """Hourly cost of one pool, desired and base, at nodes.min and nodes.max.

    Attributes:
        pool: the pool's name.
        hourly: desired cost per hour (spot nodes at spot, on-demand nodes at on-demand).
        on_demand_hourly: desired cost per hour if every node were on-demand.
        base_hourly: the base's cost per hour (zero when the pool is new).
        unpriced: what has no catalog price, e.g. ``g6.2xlarge spot price``.
        falls_back: on-demand nodes can stand in for spot nodes (``fallbackToOnDemand``: the
            on-demand group grows past its base, or a mixed node pool buys them itself);
            ``hourly`` at the top end prices those nodes too.
        existing_nodes: the pool names existing nodes (``cloud: kubernetes``): not priced
            unless the pool declares a price.
        declared: the source of the pool's declared price (``pools[].price``) in the desired
            graph; None where its prices are the catalog's.
        price_currency: the currency of the pool's prices in the desired graph (None unpriced),
            which is not the plan's where ``unpriced`` says so.
        price_region: the region its catalog prices are for (None for a declared price or
            none), which may not be the stack's: a view says so beside the amounts.

    """

    pool: str
    hourly: MinMax
    on_demand_hourly: MinMax
    base_hourly: MinMax
    unpriced: tuple[str, ...] = ()
    falls_back: bool = False
    existing_nodes: bool = False
    declared: str | None = None
    price_currency: str | None = None
    price_region: str | None = None

    @property
    def monthly(self) -> MinMax:
        """Desired cost per month (730 hours)."""
        return self.hourly.scaled(HOURS_PER_MONTH)

    @property
    def delta_monthly(self) -> MinMax:
        """Desired minus base, per month."""
        return (self.hourly - self.base_hourly).scaled(HOURS_PER_MONTH)


@dataclass(frozen=True)
class CostReport:
    """Cost of the stack with its provenance.

    Attributes:
        currency: the ISO 4217 code every amount is in (``price_currency``).
        pools: per pool, desired pools first, then pools only the base has.
        prices_as_of: catalog dates of the desired graph's prices.
        base_prices_as_of: catalog dates of the base graph's prices.
        price_region: region the catalog's prices are for, or None.

    """

    currency: str
    pools: tuple[PoolCost, ...]
    prices_as_of: tuple[str, ...]
    base_prices_as_of: tuple[str, ...]
    price_region: str | None

    def _total(self, attr: str) -> MinMax:
        total = ZERO
        for p in self.pools:
            total = total + getattr(p, attr)
        return total

    @property
    def hourly(self) -> MinMax:
        """Desired total per hour."""
        return self._total("hourly")

    @property
    def monthly(self) -> MinMax:
        """Desired total per month."""
        return self.hourly.scaled(HOURS_PER_MONTH)

    @property
    def on_demand_hourly(self) -> MinMax:
        """Desired total per hour if every node were on-demand."""
        return self._total("on_demand_hourly")

    @property
    def base_hourly(self) -> MinMax:
        """Base total per hour."""
        return self._total("base_hourly")

    @property
    def delta_monthly(self) -> MinMax:
        """Desired minus base, per month."""
        return (self.hourly - self.base_hourly).scaled(HOURS_PER_MONTH)

    @property
    def unpriced(self) -> tuple[str, ...]:
        """Everything without a catalog price, as ``pool: what``."""
        return tuple(f"{p.pool}: {u}" for p in self.pools for u in p.unpriced)

    @property
    def declared(self) -> dict[str, tuple[str, ...]]:
        """The pools priced from a declared price, by the source it states (in pool order)."""
        out: dict[str, tuple[str, ...]] = {}
        for p in self.pools:
            if p.declared is not None:
                out[p.declared] = (*out.get(p.declared, ()), p.pool)
        return out


#: the node pools of the graphs asked about last (a plan asks about its base and its desired
#: graph a dozen times, each a scan of 21,345 resources at 1,000 pools); a graph is frozen, so
#: the same object always has the same node pools
_SEEN: list[tuple[ResourceGraph, tuple[Resource, ...]]] = []


def node_pools(graph: ResourceGraph) -> list[Resource]:
    """Return the node-pool resources of a graph (their ``facts["kind"]`` is ``node-pool``)."""
    for seen, found in _SEEN:
        if seen is graph:
            return list(found)
    found = tuple(r for r in graph.resources if r.facts.get("kind") == "node-pool")
    _SEEN[:] = [(graph, found), *_SEEN[:1]]
    return list(found)


# ---------------------------------------------------------------------------------- cost


def _times(nodes: Any, price: Any) -> float | None:
    """Nodes times a price; no nodes cost nothing even at an unknown price."""
    if not isinstance(nodes, (int, float)) or isinstance(nodes, bool):
        return None
    if nodes == 0:
        return 0.0
    return None if not isinstance(price, (int, float)) else nodes * float(price)


def _currency(f: Mapping[str, Any]) -> str:
    """Return the currency of a resource's prices (USD where the fact predates currencies)."""
    return str(f.get("price_currency") or DEFAULT_CURRENCY)


def _priced(f: Mapping[str, Any]) -> bool:
    return f.get("price_hourly") is not None or f.get("on_demand_price_hourly") is not None


def price_currency(*graphs: ResourceGraph) -> str:
    """Return the one currency the priced node-pool resources of ``graphs`` share.

    The first graph's currency wins when they differ (the desired graph's, passed first); the
    resources priced in another currency are then not added (``pool_costs``). USD when nothing
    is priced.
    """
    for graph in graphs:
        found = sorted({_currency(r.facts) for r in node_pools(graph) if _priced(r.facts)})
        if found:
            return DEFAULT_CURRENCY if DEFAULT_CURRENCY in found else found[0]
    return DEFAULT_CURRENCY


def _mixed(nodes: Any, on_demand: int, price: Any, od: Any) -> float | None:
    """Price ``nodes`` of a spot node pool of which ``on_demand`` (at most all) are on-demand."""
    if not isinstance(nodes, (int, float)) or isinstance(nodes, bool):
        return None
    held = min(on_demand, int(nodes))
    return _sum_known(_times(held, od), _times(nodes - held, price))


def _sum_known(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a + b


def _count(value: Any) -> int:
    """Return a fact that counts nodes, 0 when absent (records from before the fact existed)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _node_pool_cost(f: Mapping[str, Any], currency: str) -> tuple[MinMax, MinMax, list[str]]:
    """Hourly cost, on-demand equivalent and what lacks a price, of one node-pool resource.

    A price in another currency than ``currency`` is not added (nothing converts currencies):
    the resource counts as unpriced, and what is missing names the currency it has. A spot node
    pool that mixes in on-demand nodes itself (VKE: ``on_demand_base``, ``on_demand_fallback``)
    has its base priced on-demand at both ends; with fallback, every node at the top end is
    priced on-demand, the most the pool can cost when no spot instance can be bought (as a split
    pool's top end prices its full on-demand group).
    """
    lo, hi = f.get("nodes_min"), f.get("nodes_max")
    price, od = f.get("price_hourly"), f.get("on_demand_price_hourly")
    other = _currency(f) != currency and _priced(f)
    why = f" (priced in {_currency(f)}, not {currency})" if other else ""
    if other:
        price = od = None
    spot = f.get("capacity") == "spot"
    base = _count(f.get("on_demand_base")) if spot else 0
    fallback = spot and bool(f.get("on_demand_fallback"))
    if base or fallback:
        top = _count(hi) if fallback else base
        hourly = MinMax(_mixed(lo, base, price, od), _mixed(hi, top, price, od))
    else:
        hourly = MinMax(_times(lo, price), _times(hi, price))
    equivalent = MinMax(_times(lo, od), _times(hi, od))
    what = f.get("instance_type") or "existing nodes"
    if f.get("price_declared") is not None:
        what += " declared"
    missing = []
    if not hourly.known and not isinstance(price, (int, float)):
        missing.append(f"{what} {f.get('capacity')} price{why}")
    if not equivalent.known:
        missing.append(f"{what} on-demand price{why}")
    return hourly, equivalent, missing


def first_node_price(members: list[Mapping[str, Any]], currency: str) -> float | None:
    """Return what one GPU of a pool's first node costs an hour, whatever its node count.

    The price of a unit does not depend on how many nodes run: a pool that scales from zero
    (``nodes.min: 0``) still has one. Its first node is one of its spot group where it has one
    (a split pool's on-demand group holds only its base, which is no node here), bought
    on-demand where a mixed spot node pool keeps an on-demand base (its first nodes). None where
    that price is unknown, in another currency than ``currency``, or the GPUs per node are.
    """
    if not members:
        return None
    f = next((m for m in members if m.get("capacity") == "spot"), members[0])
    on_demand = f.get("capacity") != "spot" or _count(f.get("on_demand_base")) > 0
    price = f.get("on_demand_price_hourly" if on_demand else "price_hourly")
    per = f.get("gpus_per_node")
    if _currency(f) != currency or not isinstance(price, (int, float)) or isinstance(price, bool):
        return None
    if not isinstance(per, (int, float)) or isinstance(per, bool) or per <= 0:
        return None
    return float(price) / float(per)


def _pool_cost(pool: str, members: list[Mapping[str, Any]], currency: str) -> PoolCost:
    """Price the node-pool resources of one pool (its base amount left at zero).

    Every resource is priced at its own ``nodes_min`` and ``nodes_max``: the autoscaler bounds
    each group alone, so a split pool's top end is the spot group full and the on-demand group
    full, which with ``fallbackToOnDemand`` is more nodes than ``nodes.max`` (the on-demand group
    grows to ``nodes.max`` while spot is short, and the spot group can still fill when spot
    returns). Existing nodes (no instance type: ``cloud: kubernetes``) have no catalog price:
    gpupool does not provision them, but they cost what they cost, so unless the pool declares
    a price their amount is unknown (never $0), and so is every total they are part of.
    """
    existing = all(f.get("instance_type") is None for f in members)
    declared = next((str(f["price_declared"]) for f in members
                     if f.get("price_declared") is not None), None)  # fmt: skip
    priced = [_currency(f) for f in members if _priced(f)]
    money = priced[0] if priced else None
    region = min((str(f["price_region"]) for f in members if f.get("price_region")), default=None)
    if existing and not priced:
        return PoolCost(pool, UNKNOWN, UNKNOWN, ZERO, existing_nodes=True, declared=declared)
    spot = [f.get("capacity") == "spot" for f in members]
    split = any(spot) and not all(spot)
    hourly, equivalent, fallback = ZERO, ZERO, False
    missing: list[str] = []
    for f, is_spot in zip(members, spot, strict=True):
        if split and not is_spot:
            fallback = fallback or f.get("nodes_max") != f.get("nodes_min")
        fallback = fallback or (is_spot and bool(f.get("on_demand_fallback")))
        h, e, m = _node_pool_cost(f, currency)
        hourly, equivalent, missing = hourly + h, equivalent + e, [*missing, *m]
    return PoolCost(pool, hourly, equivalent, ZERO, tuple(dict.fromkeys(missing)), fallback,
                    existing, declared, money, region)  # fmt: skip


def pool_costs(graph: ResourceGraph, currency: str | None = None) -> dict[str, PoolCost]:
    """Price each pool of a graph from its node-pool resources (base amounts left at zero).

    Args:
        graph: the graph.
        currency: the plan's currency (default: the graph's own, ``price_currency``); prices in
            another one are not added.

    """
    money = currency or price_currency(graph)
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for r in node_pools(graph):
        groups.setdefault(str(r.facts.get("pool")), []).append(r.facts)
    return {pool: _pool_cost(pool, members, money) for pool, members in groups.items()}


def _as_of(graph: ResourceGraph) -> tuple[str, ...]:
    return tuple(sorted({str(r.facts["price_as_of"]) for r in node_pools(graph)
                         if r.facts.get("price_as_of")}))  # fmt: skip


def price_regions(graph: ResourceGraph) -> tuple[str, ...]:
    """Return the regions the graph's catalog prices are for (a refresh may price another)."""
    return tuple(sorted({str(r.facts["price_region"]) for r in node_pools(graph)
                         if r.facts.get("price_region")}))  # fmt: skip


def cost(base: ResourceGraph, desired: ResourceGraph, price_region: str | None) -> CostReport:
    """Price both graphs from their node-pool facts and compare them.

    Each node-pool resource is priced at its own capacity type (a spot pool's on-demand base is
    a separate resource priced on-demand, or, in a mixed VKE node pool, its nodes priced
    on-demand). A resource without a price makes its pool's cost and the totals unknown at that
    end (None), never zero, unless it has no nodes there; so does one priced in another currency
    than the plan's (``price_currency``).

    Args:
        base: the base graph (empty for a first apply).
        desired: the desired graph.
        price_region: the region the catalog prices are for.

    Returns:
        The cost report.

    """
    currency = price_currency(desired, base)
    new, old = pool_costs(desired, currency), pool_costs(base, currency)
    pools = []
    for name in [*new, *(n for n in old if n not in new)]:
        mine = new.get(name, PoolCost(name, ZERO, ZERO, ZERO))
        was = old.get(name, PoolCost(name, ZERO, ZERO, ZERO))
        unpriced = mine.unpriced
        if not was.hourly.known:
            unpriced += tuple(f"{m} (base)" for m in was.unpriced if m not in unpriced)
        pools.append(replace(mine, base_hourly=was.hourly, unpriced=unpriced))
    return CostReport(currency, tuple(pools), _as_of(desired), _as_of(base), price_region)
