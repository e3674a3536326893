"""GKE node pools of GPUDirect machine types get their extra node networks (providers.gcp)."""

from __future__ import annotations

import dataclasses

from gpupool import assemble, plan, providers
from gpupool.model import GpuNetwork
from gpupool.providers import gcp
from tests.stacks import load_stack

NODE_POOL_NETWORKS = "network_config.additional_node_network_configs"


def _node_pools(name: str) -> dict:
    return {r.address: r for r in providers.build(load_stack(name)).resources}


def test_gpudirect_pools_get_one_additional_node_network_per_nic_in_order() -> None:
    # GKE docs gpu-bandwidth-gpudirect-tcpx, "Create a node pool": one --additional-node-network
    # network=...,subnetwork=... per GPU NIC (4 on A3 High, 8 on A3 Mega) and --enable-gvnic;
    # pulumi-gcp NodePool network_config.additional_node_network_configs [{network, subnetwork}]
    # and node_config.gvnic {enabled}.
    stack = load_stack("gpudirect-networks")
    res = _node_pools("gpudirect-networks")
    for pool in stack.pools:
        want = [{"network": n.network, "subnetwork": n.subnetwork} for n in pool.gpu_networks]
        addresses = [a for a in res if a.startswith(f"pool.{pool.name}.")]
        assert addresses
        for address in addresses:  # a split spot pool's on-demand companion too
            inputs = res[address].inputs
            got = inputs["network_config"]["additional_node_network_configs"]
            assert got == want, address
            assert inputs["node_config"]["gvnic"] == {"enabled": True}
    high = res["pool.a3-high.node_group"].inputs["network_config"]
    assert [n["network"] for n in high["additional_node_network_configs"]] == [
        "tcpx-net-1", "tcpx-net-2", "tcpx-net-3", "tcpx-net-4"
    ]  # fmt: skip
    assert len(res["pool.a3-mega.node_group"].inputs["network_config"][
        "additional_node_network_configs"]) == 8  # fmt: skip


def test_pools_without_gpudirect_networks_keep_their_one_nic() -> None:
    res = _node_pools("clouds-gpudirect-not-configured")  # compact A3 pools naming no networks
    for address, r in res.items():
        if r.type == gcp.NODE_POOL:
            assert "network_config" not in r.inputs, address
            assert "gvnic" not in r.inputs["node_config"], address
    example = _node_pools("gcp-training-h100-mig")
    assert "network_config" not in example["pool.exp-a100-mig.node_group"].inputs
    assert len(example["pool.train-h100.node_group"].inputs["network_config"][
        "additional_node_network_configs"]) == 4  # fmt: skip


def test_changing_a_gpudirect_network_replaces_the_node_pool() -> None:
    # GKE cannot add or remove a node pool's node networks once it exists (GKE docs, "Set up
    # multi-network support for Pods", limitations): the Terraform Google provider's
    # resource_container_node_pool.go marks network_config.additional_node_network_configs (and
    # network, subnetwork) ForceNew.
    assert NODE_POOL_NETWORKS in gcp.REPLACE_ON
    stack = load_stack("gpudirect-networks")
    *others, mega = stack.pools
    moved = (*mega.gpu_networks[:7], GpuNetwork("tcpxo-net-8", "tcpxo-sub-8b"))
    desired = dataclasses.replace(
        stack, pools=(*others, dataclasses.replace(mega, gpu_networks=moved))
    )
    changes = {c.address: c for c in plan.diff(assemble.build(stack), assemble.build(desired))}
    node_pool = changes["pool.a3-mega.node_group"]
    assert "delete" in node_pool.actions and "create" in node_pool.actions
    assert node_pool.replace_paths == (tuple(NODE_POOL_NETWORKS.split(".")),)
    # the parameter set of that network changes in place; the other pools are untouched
    assert changes["k8s.gkenetworkparamset.tcpxo-net-8"].actions == ("update",)
    assert changes["pool.a3-high.node_group"].actions == ("no-op",)
