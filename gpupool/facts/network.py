"""How a pool's nodes reach each other across nodes: the fabric interfaces they get.

This module owns the rule the AWS builder renders (launch-template network interfaces, a
self-referencing security group), the sharing builders follow (the EFA device plugin, the
``vpc.amazonaws.com/efa`` request in the workload snippets) and validation warns by: a
``topology: compact`` pool, the stack's multi-node training island, gets every EFA interface its
instance type takes (the catalog's ``efa_interfaces``, EC2's ``EfaInfo.MaximumEfaInterfaces``) on
a cloud whose node groups attach them (``Cloud.attaches_efa``). EFA interfaces can only be
attached when an instance launches (AWS EC2 user guide ``efa-working-with.md``), so a pool that
is not compact gets none. GPUDirect NICs (GKE A3) are not rendered: the stack cannot say which
VPC networks they join (``gpupool.spec.checks.clouds`` warns).
"""

from __future__ import annotations

from gpupool.model import Pool, Stack

EFA_RESOURCE = "vpc.amazonaws.com/efa"
"""The extended resource AWS's EFA device plugin advertises, one per EFA interface (EKS user
guide, "Manage EFA devices on Amazon EKS")."""


def efa_interfaces(stack: Stack, pool: Pool) -> int:
    """Return how many EFA interfaces each node of ``pool`` gets (0: none)."""
    inst = pool.instance
    if not stack.cloud.attaches_efa or pool.topology != "compact" or inst is None:
        return 0
    return inst.interconnect.efa_interfaces


def efa_pools(stack: Stack) -> tuple[Pool, ...]:
    """Return the pools whose nodes get EFA interfaces, in the file's order."""
    return tuple(p for p in stack.pools if efa_interfaces(stack, p))


def gpudirect_unconfigured(stack: Stack, pool: Pool) -> tuple[str, int] | None:
    """Return ``(GPUDirect stack, NICs)`` a compact pool's machine type needs but lacks.

    A compact pool on a machine type whose GPU traffic runs over secondary NICs (GKE A3 High:
    GPUDirect-TCPX over 4, A3 Mega: GPUDirect-TCPXO over 8) gets only the primary NIC, because
    the stack names no VPC networks for the others. None when that does not apply.
    """
    inst = pool.instance
    if pool.topology != "compact" or inst is None or not inst.interconnect.gpudirect:
        return None
    return inst.interconnect.gpudirect, inst.interconnect.gpudirect_nics
