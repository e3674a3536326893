"""How a pool becomes cloud node groups, and the sizes each group may reach.

This module owns ``capacity_groups``: the one rule every cloud builder renders, validation checks
names against, and the plan counts and prices (``reach``: the fewest and most nodes the groups
hold together). A spot pool that keeps on-demand nodes or may fall back to on-demand becomes two
groups where the cloud's node pools hold one kind of capacity each (EKS, GKE, AKS), and stays one
group that holds both where one node pool mixes them (VKE: ``Cloud.mixes_spot``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from gpupool.clouds import Cloud
from gpupool.model import Pool

ON_DEMAND_SUFFIX = "-od"
"""Logical-name suffix of the on-demand companion group of a split spot pool."""


@dataclass(frozen=True)
class CapacityGroup:
    """One node group a pool becomes.

    Attributes:
        part: last segment of the graph address (``node_group`` or ``on_demand_node_group``).
        suffix: appended to the pool name for the logical name ("" or ``-od``).
        capacity: ``spot`` or ``on-demand``.
        min: fewest nodes.
        max: most nodes (at least 1: no managed node-group API takes a maximum of 0).
        desired: nodes at creation.
        on_demand_base: nodes of a spot group that the cloud keeps on-demand (a mixed node
            pool's base; 0 where the base is a group of its own).
        on_demand_fallback: the cloud buys on-demand nodes into this spot group when it cannot
            buy spot ones (a mixed node pool's fallback).

    """

    part: str
    suffix: str
    capacity: str
    min: int
    max: int
    desired: int
    on_demand_base: int = 0
    on_demand_fallback: bool = False

    @property
    def spot(self) -> bool:
        """True for the spot group."""
        return self.capacity == "spot"


def capacity_groups(pool: Pool, cloud: Cloud) -> tuple[CapacityGroup, ...]:
    """Return the node groups a pool becomes on ``cloud``.

    An on-demand pool, or a spot pool with neither ``onDemandBase`` nor ``fallbackToOnDemand``,
    is one group with the pool's sizes. So is any spot pool where one node pool mixes spot and
    on-demand nodes (``cloud.mixes_spot``): the group keeps ``onDemandBase`` nodes on-demand
    and, with ``fallbackToOnDemand``, buys on-demand nodes when spot runs out, all within the
    pool's sizes; its minimum is at least the base, which always runs, as on the other clouds.
    Otherwise the pool splits (the sizes are gpupool's own rule; docs/stack-file.md, Spot
    capacity):

    - the spot group (address ``pool.<name>.node_group``) holds what is above the base:
      ``min = max(nodes.min - base, 0)``, ``max = max(nodes.max - base, 1)``;
    - the on-demand group (``pool.<name>.on_demand_node_group``) holds the base:
      ``min = desired = base``, and ``max = base`` or, with ``fallbackToOnDemand``, the pool's
      ``nodes.max`` so that it can replace every spot node the cloud cannot supply.

    The autoscaler bounds each group on its own and nothing bounds their sum, so with fallback
    the pool can hold ``(nodes.max - base) + nodes.max`` nodes: the on-demand group grows to
    ``nodes.max`` while spot is short, and once spot capacity returns the spot group can grow to
    its own maximum before the fallback nodes scale down (the cloud modules tell the autoscaler
    to prefer the spot group, which orders growth but caps nothing). gpupool keeps fallback whole
    and says so instead of capping it: ``reach`` is that ceiling, and the plan's capacity and
    cost at the top end count and price it (docs/stack-file.md, Spot capacity).
    """
    cap, n = pool.capacity, pool.nodes
    if not cap.spot or (cap.on_demand_base == 0 and not cap.fallback_to_on_demand):
        return (CapacityGroup("node_group", "", cap.type, n.min, max(n.max, 1), n.desired),)
    base = min(cap.on_demand_base, n.max)
    if cloud.mixes_spot:
        top = max(n.max, 1)
        low = max(n.min, base)
        mixed = CapacityGroup("node_group", "", "spot", low, top, min(max(n.desired, low), top))
        return (
            replace(mixed, on_demand_base=base, on_demand_fallback=cap.fallback_to_on_demand),
        )
    spot_max = max(n.max - base, 1)
    spot_min = min(max(n.min - base, 0), spot_max)
    spot_desired = min(max(n.desired - base, spot_min), spot_max)
    od_max = n.max if cap.fallback_to_on_demand else base
    return (
        CapacityGroup("node_group", "", "spot", spot_min, spot_max, spot_desired),
        CapacityGroup(
            "on_demand_node_group", ON_DEMAND_SUFFIX, "on-demand", base, max(od_max, 1), base
        ),
    )


def reach(pool: Pool, cloud: Cloud) -> tuple[int, int]:
    """Return the fewest and the most nodes the pool's groups hold together on ``cloud``.

    The sums of the groups' minima and maxima (``capacity_groups``): what the rendered node
    groups can really reach, which is more than ``nodes.max`` for a split spot pool with
    ``fallbackToOnDemand``, and at least 1 at the top because no group takes a maximum of 0.
    """
    groups = capacity_groups(pool, cloud)
    return sum(g.min for g in groups), sum(g.max for g in groups)
