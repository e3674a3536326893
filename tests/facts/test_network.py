"""Which pools get fabric interfaces (EFA) and which lack GPUDirect NICs (gpupool.facts.network)."""

from __future__ import annotations

import dataclasses

from gpupool.facts import network
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
