"""The GPUDirect network rules of ``gpupool.spec.checks.clouds`` beyond what the fixtures mark.

The fixtures ``tests/fixtures/invalid/clouds-gpudirect-*.yaml`` pin each code on a GKE stack;
these tests take the rules to the other clouds and to the schema's naming rules.
"""

from __future__ import annotations

import dataclasses

import yaml

from gpupool.model import GpuNetwork, Stack
from gpupool.spec.checks import clouds
from gpupool.spec.validate import validate_text
from tests.stacks import load_stack, stack_file

TCPX = tuple(GpuNetwork(f"tcpx-net-{i}", f"tcpx-sub-{i}") for i in range(1, 5))


def _codes(stack: Stack) -> list[str]:
    return sorted(d.code for d in clouds.run(stack) if d.code.startswith("clouds.gpudirect"))


def test_gpu_networks_only_on_gpudirect_machine_types_of_any_cloud() -> None:
    aws = load_stack("aws-training-compact.yaml")  # p5.48xlarge: EFA, no GPUDirect-TCPX(O)
    pool = dataclasses.replace(aws.pools[0], gpu_networks=TCPX)
    diags = clouds.run(dataclasses.replace(aws, pools=(pool,)))
    [diag] = [d for d in diags if d.code.startswith("clouds.gpudirect")]
    assert diag.code == "clouds.gpudirect-networks-unsupported"
    assert diag.summary == "p5.48xlarge has no GPUDirect NICs"
    assert diag.path == ("pools", 0, "placement", "gpuNetworks")
    onprem = load_stack("onprem-hami.yaml")  # existing nodes: gpupool attaches nothing
    nodes = dataclasses.replace(onprem.pools[0], gpu_networks=TCPX)
    [diag] = clouds.run(dataclasses.replace(onprem, pools=(nodes,)))
    assert diag.summary == "An existing node has no GPUDirect NICs"


def test_an_unknown_machine_type_is_left_to_the_catalog_check() -> None:
    gke = load_stack("gpudirect-networks.yaml")
    unknown = dataclasses.replace(gke.pools[0], instance_type="a9-futuregpu-8g")
    assert _codes(dataclasses.replace(gke, pools=(unknown,))) == []


def test_count_names_the_protocol_and_every_nic_counts() -> None:
    # GKE docs gpu-bandwidth-gpudirect-tcpx: A3 Mega runs GPUDirect-TCPXO over 8 NICs
    gke = load_stack("gpudirect-networks.yaml")
    mega = gke.pools[2]
    short = dataclasses.replace(mega, gpu_networks=mega.gpu_networks[:4])
    [diag] = clouds.run(dataclasses.replace(gke, pools=(short,)))
    assert diag.code == "clouds.gpudirect-network-count"
    assert diag.summary == "a3-megagpu-8g takes 8 GPUDirect networks, not 4"
    assert "GPUDirect-TCPXO runs over all 8 secondary NICs" in diag.detail
    assert _codes(gke) == []


def test_a_network_twice_in_one_pool_is_a_conflict() -> None:
    # gke-networking-api DeviceModeVPCAlreadyInUse: one device-mode parameter set per VPC
    gke = load_stack("gpudirect-networks.yaml")
    twice = (*TCPX[:3], GpuNetwork("tcpx-net-1", "tcpx-sub-4"))
    pool = dataclasses.replace(gke.pools[0], gpu_networks=twice)
    diags = clouds.run(dataclasses.replace(gke, pools=(pool,)))
    assert [(d.code, d.path[-1]) for d in diags] == [("clouds.gpudirect-network-conflict", 3)]
    assert "network tcpx-net-1 with subnet tcpx-sub-1 (pool a3-high) and tcpx-sub-4" in (
        diags[0].detail
    )


def test_the_schema_keeps_gke_pod_network_names_and_invalid_vpc_names_out() -> None:
    # gke-networking-api apis/network/v1/network_types.go: "default" and "pod-network" name the
    # pod network; Compute Engine names are RFC 1035 labels, [a-z]([-a-z0-9]*[a-z0-9])?, 1-63.
    text = stack_file("gpudirect-networks.yaml").read_text(encoding="utf-8")
    for bad in ("default", "pod-network", "Net-1", "net_1", "1net", "net-", "n" * 64):
        data = yaml.safe_load(text)
        data["pools"][0]["placement"]["gpuNetworks"][0]["network"] = bad
        result = validate_text(yaml.safe_dump(data), "s.yaml")
        assert not result.valid, bad
        assert {d.code for d in result.diagnostics} == {"schema.pattern"}, bad
    data = yaml.safe_load(text)
    data["pools"][0]["placement"]["gpuNetworks"][0]["network"] = "default-gpu-1"
    assert validate_text(yaml.safe_dump(data), "s.yaml").valid
