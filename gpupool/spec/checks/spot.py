"""Spot and preemptible rules.

Which clouds take spot bids, the on-demand base a mixed spot node pool takes (VKE), drain time
against the cloud's notice, checkpointing for training, and all-spot production pools. Every
cloud that provisions machines has spot node pools (the catalog's ``spot_node_pools``), so none
is refused here; existing nodes cannot be spot (``gpupool.spec.checks.structure``).
"""

from __future__ import annotations

from gpupool import catalog
from gpupool.model import Pool, Stack
from gpupool.spec.diagnostics import Diagnostic, error, warning


def _pool(pool: Pool, stack: Stack) -> list[Diagnostic]:
    if not pool.capacity.spot or not stack.cloud.provisions:
        return []  # existing nodes: structure reports spot.not-for-existing-nodes
    facts = catalog.cloud(stack.provider.cloud)
    cap = (*pool.path, "capacity")
    out = []
    if pool.capacity.max_price_per_hour is not None and not facts.spot_bid:
        out.append(
            error(
                "spot.bid-unsupported",
                f"{facts.name} node pools take no spot bid",
                f"{facts.name} charges the current spot price with no cap; remove "
                "maxPricePerHour (only Azure AKS takes one).",
                (*cap, "maxPricePerHour"),
            )
        )
    limit = stack.cloud.on_demand_base_max
    if limit is not None and pool.capacity.on_demand_base > limit:
        out.append(
            error(
                "spot.base-above-cloud-limit",
                f"{facts.name} keeps at most {limit} on-demand nodes in a spot node pool",
                f"A spot {stack.cloud.node_pool_noun} holds its on-demand base itself, and "
                f"{stack.cloud.display} takes a base of 0 to {limit} nodes; lower onDemandBase "
                f"to at most {limit}, or make the on-demand nodes a pool of their own.",
                (*cap, "onDemandBase"),
            )
        )
    drain = pool.interruption.drain_seconds
    notice = facts.spot_notice_seconds
    if drain is not None and notice is not None and drain > notice:
        out.append(
            error(
                "spot.drain-too-long",
                f"drainSeconds exceeds {facts.name}'s {notice} s notice",
                f"The cloud reclaims the node {notice} s after its notice; a {drain} s drain "
                f"cannot finish. Use at most {notice}.",
                (*pool.path, "interruption", "drainSeconds"),
            )
        )
    if pool.workload == "training" and pool.interruption.checkpoint != "required":
        out.append(
            warning(
                "spot.training-without-checkpoint",
                "Spot training without required checkpoints",
                "Spot nodes are reclaimed at short notice; training that cannot resume loses its "
                "progress. Set interruption.checkpoint: required.",
                (*pool.path, "workload"),
            )
        )
    if (
        stack.environment == "production"
        and pool.capacity.on_demand_base == 0
        and not pool.capacity.fallback_to_on_demand
    ):
        out.append(
            warning(
                "spot.all-spot-production",
                "Every node of a production pool is spot",
                "A spot shortage can take the whole pool away. Set capacity.onDemandBase or "
                "capacity.fallbackToOnDemand: true.",
                (*cap, "type"),
            )
        )
    return out


def run(stack: Stack) -> list[Diagnostic]:
    """Check bids, the on-demand base, drain time, checkpoints and all-spot production pools."""
    out: list[Diagnostic] = []
    for pool in stack.pools:
        out += _pool(pool, stack)
    return out
