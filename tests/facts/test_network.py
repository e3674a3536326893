"""Which pools get fabric interfaces: EFA, and GKE A3 GPUDirect NICs (gpupool.facts.network)."""

from __future__ import annotations

import dataclasses

from gpupool.facts import network
from gpupool.model import GpuNetwork
from tests.stacks import load_stack


def test_efa_interfaces_follow_compact_placement_on_a_cloud_that_attaches_them() -> None:
    # AWS EC2 UG efa-working-with.md: EFAs attach only at launch, so the launch template of the
    # pool meant for multi-node jobs (topology: compact) carries them; counts are the catalog's
    # EfaInfo.MaximumEfaInterfaces (p5.48xlarge 32).
    stack = load_stack("aws-training-compact.yaml")
    h100, mig = stack.pools
    assert network.efa_interfaces(stack, h100) == 32
    assert network.efa_interfaces(stack, mig) == 0  # p4de takes 4, but the pool is not compact
    assert network.efa_pools(stack) == (h100,)
    spread = dataclasses.replace(h100, topology=None)
    assert network.efa_interfaces(stack, spread) == 0


def test_gke_a3_compact_pools_lack_their_gpudirect_nics() -> None:
    # GKE docs gpu-bandwidth-gpudirect-tcpx: A3 High carries GPUDirect-TCPX over 4 secondary NICs,
    # A3 Mega GPUDirect-TCPXO over 8; gpupool renders neither, and GKE attaches no EFA.
    stack = load_stack("clouds-gpudirect-not-configured.yaml")
    got = {p.name: network.gpudirect_unconfigured(stack, p) for p in stack.pools}
    assert got == {
        "a3-high": ("GPUDirect-TCPX", 4),
        "a3-mega": ("GPUDirect-TCPXO", 8),
        "a3-single": None,
        "a2": None,
    }
    assert network.efa_pools(stack) == ()


def test_gke_a3_pools_with_gpu_networks_get_them_compact_or_not() -> None:
    # GKE docs gpu-bandwidth-gpudirect-tcpx: GPUDirect needs the NICs, not compact placement; a
    # pool that names its networks is no longer "unconfigured".
    stack = load_stack("gpudirect-networks.yaml")
    high, spot, mega = stack.pools
    assert [n.network for n in network.gpudirect_networks(stack, high)] == [
        "tcpx-net-1", "tcpx-net-2", "tcpx-net-3", "tcpx-net-4"
    ]  # fmt: skip
    assert spot.topology != "compact" and network.gpudirect_networks(stack, spot) == (
        high.gpu_networks
    )
    assert len(network.gpudirect_networks(stack, mega)) == 8
    assert [network.gpudirect_unconfigured(stack, p) for p in stack.pools] == [None] * 3
    assert network.gpudirect_pools(stack) == stack.pools
    # shared networks become one object each, in the order first named
    assert network.gke_networks(stack) == (*high.gpu_networks, *mega.gpu_networks)


def test_gpu_networks_on_a_machine_type_without_gpudirect_give_no_nics() -> None:
    stack = load_stack("gpudirect-networks.yaml")
    a2 = dataclasses.replace(stack.pools[0], instance_type="a2-ultragpu-8g")
    assert network.gpudirect_networks(stack, a2) == ()
    assert network.gpudirect_pools(dataclasses.replace(stack, pools=(a2,))) == ()


def test_pod_interfaces_keep_eth0_on_the_pod_network() -> None:
    # gke-networking-api apis/network/v1 annotations.go: the interfaces annotation is a JSON list
    # of InterfaceRef {interfaceName, network}; "default" is the pod network
    # (DefaultPodNetworkName). GKE's GPUDirect test pods put eth1.. on the GPU NICs in order.
    nets = (GpuNetwork("a", "a-sub"), GpuNetwork("b", "b-sub"))
    assert network.pod_interfaces(nets) == (
        '[{"interfaceName":"eth0","network":"default"},{"interfaceName":"eth1","network":"a"},'
        '{"interfaceName":"eth2","network":"b"}]'
    )
