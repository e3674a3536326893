"""Where a pool's nodes go: the subnets, and so the zones, of its node groups.

This module owns the rule the AWS builder renders and validation checks: an EKS node group
launches its nodes in the subnets it is given, so the subnets decide the zones. A stack that
lists ``settings.subnets`` with their zones gives each pool the subnets of its
``placement.zones`` (all of them when it names none); a stack that lists only ``subnetIds``
gives every pool every subnet, and gpupool cannot tell their zones.
"""

from __future__ import annotations

from gpupool.model import Pool, Stack


def zones_known(stack: Stack) -> bool:
    """Whether the stack says which zone each of its subnets is in (``settings.subnets``)."""
    return bool(stack.provider.settings.subnet_zones)


def subnet_zones(stack: Stack) -> dict[str, str]:
    """Map each subnet the stack lists with a zone to that zone, in the file's order."""
    return dict(stack.provider.settings.subnet_zones)


def pool_subnets(stack: Stack, pool: Pool) -> tuple[str, ...]:
    """Return the subnets of a pool's node groups.

    With subnet zones known and ``placement.zones`` given: the subnets in those zones (in the
    file's order). Otherwise every subnet of the stack (``subnets`` or ``subnetIds``).
    """
    zones = subnet_zones(stack)
    if not zones:
        return tuple(stack.provider.settings.subnet_ids)
    if not pool.zones:
        return tuple(zones)
    return tuple(subnet for subnet, zone in zones.items() if zone in pool.zones)


def pool_subnet_zones(stack: Stack, pool: Pool) -> tuple[str, ...]:
    """Return the zones a pool's subnets are in (empty when the stack does not say)."""
    zones = subnet_zones(stack)
    return tuple(dict.fromkeys(zones[s] for s in pool_subnets(stack, pool) if s in zones))
