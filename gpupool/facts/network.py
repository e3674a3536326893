"""How a pool's nodes reach each other across nodes: the fabric interfaces they get.

This module owns the rule the AWS builder renders (launch-template network interfaces, a
self-referencing security group), the sharing builders follow (the EFA device plugin, the
``vpc.amazonaws.com/efa`` request in the workload snippets) and validation warns by: a
``topology: compact`` pool, the stack's multi-node training island, gets every EFA interface its
instance type takes (the catalog's ``efa_interfaces``, EC2's ``EfaInfo.MaximumEfaInterfaces``) on
a cloud whose node groups attach them (``Cloud.attaches_efa``). EFA interfaces can only be
attached when an instance launches (AWS EC2 user guide ``efa-working-with.md``), so a pool that
is not compact gets none.

GKE A3 machine types carry their GPU traffic between nodes over secondary NICs (the catalog's
``gpudirect``: A3 High GPUDirect-TCPX over 4, A3 Mega GPUDirect-TCPXO over 8), each in a VPC
network of its own that the user creates and names in ``placement.gpuNetworks``. Such a pool's
node pools get one additional node network per entry, the cluster one ``GKENetworkParamSet`` and
``Network`` per VPC network (named after it), and its pods the interface annotations that move
the NICs into them (GKE docs ``gpu-bandwidth-gpudirect-tcpx``; gke-networking-api
``apis/network/v1``). A compact pool that names none gets only its primary NIC, and validation
warns (``gpupool.spec.checks.clouds``).
"""

from __future__ import annotations

import json

from gpupool.model import GpuNetwork, Pool, Stack

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


GKE_NETWORK_GROUP = "networking.gke.io"
"""The API group of GKE's multi-networking objects (``GKENetworkParamSet``, ``Network``)."""
DEFAULT_INTERFACE_ANNOTATION = "networking.gke.io/default-interface"
INTERFACES_ANNOTATION = "networking.gke.io/interfaces"
"""Pod annotations of GKE multi-networking (gke-networking-api ``apis/network/v1/annotations.go``:
``DefaultInterfaceAnnotationKey``, ``InterfaceAnnotationKey``)."""
POD_NETWORK = "default"
"""The cluster's pod network, which the pod's primary interface ``eth0`` stays on
(``DefaultPodNetworkName``)."""


def gpudirect_unconfigured(stack: Stack, pool: Pool) -> tuple[str, int] | None:
    """Return ``(GPUDirect stack, NICs)`` a compact pool's machine type needs but lacks.

    A compact pool on a machine type whose GPU traffic runs over secondary NICs (GKE A3 High:
    GPUDirect-TCPX over 4, A3 Mega: GPUDirect-TCPXO over 8) and that names no networks for them
    in ``placement.gpuNetworks`` gets only the primary NIC. None when that does not apply.
    """
    inst = pool.instance
    if pool.topology != "compact" or inst is None or not inst.interconnect.gpudirect:
        return None
    if pool.gpu_networks:
        return None
    return inst.interconnect.gpudirect, inst.interconnect.gpudirect_nics


def gpudirect_networks(stack: Stack, pool: Pool) -> tuple[GpuNetwork, ...]:
    """Return the secondary NICs ``pool``'s nodes get for GPUDirect, in NIC order (none: ``()``).

    They are the pool's ``placement.gpuNetworks`` on a machine type with a GPUDirect stack, on a
    cloud that provisions node pools; compact or not (GPUDirect does not need compact placement).
    """
    inst = pool.instance
    if not stack.cloud.provisions or inst is None or not inst.interconnect.gpudirect:
        return ()
    return pool.gpu_networks


def gpudirect_pools(stack: Stack) -> tuple[Pool, ...]:
    """Return the pools whose nodes get GPUDirect NICs, in the file's order."""
    return tuple(p for p in stack.pools if gpudirect_networks(stack, p))


def gke_networks(stack: Stack) -> tuple[GpuNetwork, ...]:
    """Return every network the GPUDirect pools name, once each, in the order first named.

    Each becomes one ``GKENetworkParamSet`` and one ``Network`` object named after its VPC
    network: GKE lets a device-mode parameter set have a VPC and a subnet no other uses
    (gke-networking-api ``DeviceModeVPCAlreadyInUse``, ``DeviceModeSubnetAlreadyInUse``), which
    validation holds the stack to.
    """
    seen: dict[GpuNetwork, None] = {}
    for pool in gpudirect_pools(stack):
        for net in gpudirect_networks(stack, pool):
            seen.setdefault(net, None)
    return tuple(seen)


def interface_name(nic: int) -> str:
    """Return the pod interface of secondary NIC ``nic`` (0-based): ``eth1``, ``eth2``, ..."""
    return f"eth{nic + 1}"


def pod_interfaces(networks: tuple[GpuNetwork, ...]) -> str:
    """Return the ``networking.gke.io/interfaces`` value giving a pod these NICs.

    ``eth0`` stays on the pod network and each secondary NIC becomes ``eth1``... in order, as in
    GKE's GPUDirect-TCPX(O) test pods (container-engine-accelerators
    ``gpudirect-tcpx(o)/nccl-test-latest.yaml``); the value is a JSON list of ``{interfaceName,
    network}`` (gke-networking-api ``InterfaceRef``).
    """
    refs = [{"interfaceName": "eth0", "network": POD_NETWORK}]
    refs += [
        {"interfaceName": interface_name(i), "network": net.network}
        for i, net in enumerate(networks)
    ]
    return json.dumps(refs, separators=(",", ":"))
