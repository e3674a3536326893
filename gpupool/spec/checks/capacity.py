"""Tenant quotas against pool capacity (docs/stack-file.md, Tenants).

The quotas of the tenants sharing a set of pools must fit what those pools hold at nodes.max
(error) and should at nodes.min (warning). The diagnostic sits on the quota of the tenant, in file
order, whose quota takes the sum past the capacity: the part that overflows.

Pools are grouped by the tenants that span them, so a tenant allowed on two pools is checked
against both together; when every tenant names one pool this is exactly the per-pool rule.
"""

from __future__ import annotations

from gpupool.model import Pool, Stack, Tenant
from gpupool.spec.diagnostics import Diagnostic, error, warning


def _groups(stack: Stack) -> list[tuple[set[str], list[Tenant]]]:
    parent: dict[str, str] = {p.name: p.name for p in stack.pools}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for t in stack.tenants:
        known = [p for p in t.pools if p in parent]
        for other in known[1:]:
            parent[find(other)] = find(known[0])
    groups: dict[str, tuple[set[str], list[Tenant]]] = {}
    for name in parent:
        groups.setdefault(find(name), (set(), []))[0].add(name)
    for t in stack.tenants:
        known = [p for p in t.pools if p in parent]
        if known and t.quota_gpus:
            groups[find(known[0])][1].append(t)
    return [g for g in groups.values() if g[1]]


def _first_over(tenants: list[Tenant], capacity: int) -> Tenant:
    """Return the tenant (in file order) whose quota takes the running sum past ``capacity``."""
    total = 0.0
    for t in tenants:
        total += t.quota_gpus or 0
        if total > capacity:
            return t
    return tenants[-1]


def run(stack: Stack) -> list[Diagnostic]:
    """Check that tenant quotas fit their pools at max (error) and at min (warning)."""
    out: list[Diagnostic] = []
    groups = _groups(stack)
    group_of = {name: i for i, (pools, _) in enumerate(groups) for name in pools}
    members_of: list[list[Pool]] = [[] for _ in groups]
    for p in stack.pools:  # in file order
        if p.name in group_of:
            members_of[group_of[p.name]].append(p)
    for (pools, tenants), members in zip(groups, members_of, strict=True):
        if any(p.gpus_per_node == 0 for p in members):
            continue  # unknown instance type: already an error
        at_max = sum(p.nodes.max * p.gpus_per_node for p in members)
        at_min = sum(p.nodes.min * p.gpus_per_node for p in members)
        total = sum(t.quota_gpus or 0 for t in tenants)
        names = ", ".join(sorted(pools))
        who = ", ".join(f"{t.name} {t.quota_gpus:g}" for t in tenants)
        if total > at_max:
            over = _first_over(tenants, at_max)
            out.append(
                error(
                    "capacity.quota-exceeds-max",
                    "Quotas exceed pool capacity",
                    f"Quotas on {names} add up to {total:g} GPUs ({who}) but the pools hold at "
                    f"most {at_max} GPUs at nodes.max; tenant {over.name}'s quota is where they "
                    "pass it. Lower the quotas or raise nodes.max.",
                    (*over.path, "quota", "gpus"),
                )
            )
        elif total > at_min:
            over = _first_over(tenants, at_min)
            out.append(
                warning(
                    "capacity.quota-exceeds-min",
                    "Quotas exceed capacity at nodes.min",
                    f"Quotas on {names} add up to {total:g} GPUs ({who}) but the pools hold "
                    f"{at_min} GPUs at nodes.min (passed at tenant {over.name}'s quota); "
                    "guarantees hold only after scale-up.",
                    (*over.path, "quota", "gpus"),
                )
            )
    return out
