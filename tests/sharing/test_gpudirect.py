"""GKE's multi-networking objects for GPUDirect NICs, their needs, and the workload snippets.

Upstream facts (``tests/upstream_facts``): the GoogleCloudPlatform/gke-networking-api@34c617f2
CRDs' fields (``crds/gke-network*.json``) and the GoogleCloudPlatform/
container-engine-accelerators@992db812 GPUDirect-TCPX(O) installers' and test pods' images,
sidecars and interfaces (``gpudirect.py``), at the commit ``gpupool.sharing.gpudirect`` pins.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
import yaml

from gpupool import assemble, sharing
from gpupool.errors import RenderError
from gpupool.facts.network import DEFAULT_INTERFACE_ANNOTATION, INTERFACES_ANNOTATION
from gpupool.graph import CloudResult
from gpupool.model import GpuNetwork
from gpupool.sharing import gpudirect
from tests.stacks import load_stack
from tests.upstream_facts import gpudirect as gke


def _objects(name: str) -> dict[str, Any]:
    return {
        r.address: r
        for r in assemble.build(load_stack(name)).resources
        if r.type.startswith("kubernetes:networking.gke.io/")
    }


def test_one_param_set_and_one_device_network_per_vpc_network() -> None:
    # GKE docs gpu-bandwidth-gpudirect-tcpx, "Create the GKE network objects": per GPU NIC a
    # GKENetworkParamSet {vpc, vpcSubnet, deviceMode: NetDevice} and a Network {type: Device,
    # parametersRef: that GKENetworkParamSet}; both cluster-scoped (gke-networking-api CRDs).
    objs = _objects("gpudirect-networks")
    stack = load_stack("gpudirect-networks")
    nets = {n for p in stack.pools for n in p.gpu_networks}
    assert len(nets) == 12  # 4 TCPX networks shared by two pools, 8 TCPXO
    assert len(objs) == 24
    for net in nets:
        gnp = objs[f"k8s.gkenetworkparamset.{net.network}"].manifest
        assert gnp["spec"] == {
            "vpc": net.network,
            "vpcSubnet": net.subnetwork,
            "deviceMode": "NetDevice",
        }
        network = objs[f"k8s.network.{net.network}"]
        assert network.manifest["spec"] == {
            "type": "Device",
            "parametersRef": {
                "group": "networking.gke.io",
                "kind": "GKENetworkParamSet",
                "name": gnp["metadata"]["name"],
            },
        }
        assert network.depends_on == (f"k8s.gkenetworkparamset.{net.network}",)
        assert "namespace" not in network.manifest["metadata"]
    shared = objs["k8s.gkenetworkparamset.tcpx-net-1"]
    assert shared.facts["pools"] == ["a3-high", "a3-high-spot"]


def test_stacks_without_gpudirect_networks_render_no_network_objects() -> None:
    assert _objects("clouds-gpudirect-not-configured") == {}
    assert _objects("aws-training-compact") == {}


@pytest.mark.cloud_sdks
def test_network_objects_pass_the_crd_schemas() -> None:
    pytest.importorskip("kubernetes_validate")
    from tests.manifests import validate_manifests

    for name in ("gpudirect-networks", "gcp-training-h100-mig"):
        manifests = [r.manifest for r in _objects(name).values()]
        assert manifests
        assert validate_manifests(manifests) == []


def test_conflicting_networks_are_refused_when_validation_was_skipped() -> None:
    stack = load_stack("gpudirect-networks")
    mega = stack.pools[2]
    bent = (GpuNetwork("tcpx-net-1", "other-sub"), *mega.gpu_networks[1:])
    bad = dataclasses.replace(
        stack, pools=(*stack.pools[:2], dataclasses.replace(mega, gpu_networks=bent))
    )
    with pytest.raises(RenderError, match="tcpx-net-1 are given several subnets"):
        gpudirect.build(bad, CloudResult((), "cluster.k8s_provider", {}))


def test_needs_name_the_cluster_settings_the_networks_and_the_pinned_manifests() -> None:
    stack = load_stack("gpudirect-networks")
    needs = gpudirect.needs(stack)
    first = _objects("gpudirect-networks")["k8s.gkenetworkparamset.tcpx-net-1"]
    assert first.facts["needs"] == needs
    text = "\n".join(needs)
    assert "--enable-dataplane-v2 --enable-multi-networking" in text
    assert "tcpx-net-1/tcpx-sub-1" in text and "tcpxo-net-8/tcpxo-sub-8" in text
    assert "region us-central1" in text
    for path in (
        "gpudirect-tcpx/nccl-tcpx-installer.yaml",
        "gpudirect-tcpxo/nccl-tcpxo-installer.yaml",
        "nri_device_injector/nri-device-injector.yaml",
    ):
        assert f"{gpudirect.UPSTREAM_REPO}/{gpudirect.UPSTREAM_COMMIT}/{path}" in text
    assert gpudirect.needs(load_stack("clouds-gpudirect-not-configured")) == []
    # an A3 High stack needs only TCPX's installer
    tcpx = gpudirect.needs(load_stack("gcp-training-h100-mig"))
    assert any("nccl-tcpx-installer" in n for n in tcpx)
    assert not any("tcpxo" in n for n in tcpx)


@pytest.mark.parametrize("protocol", sorted(gpudirect.RELEASES))
def test_pinned_images_are_those_of_the_upstream_installer_and_test_pod(protocol: str) -> None:
    # container-engine-accelerators@992db812 gpudirect-tcpx(o)/nccl-tcpx(o)-installer.yaml runs
    # the NCCL plugin image; nccl-test-latest.yaml runs the RxDM sidecar of the same release.
    rel = gpudirect.RELEASES[protocol]
    short = rel.installer.split("/")[0].removeprefix("gpudirect-")  # tcpx, tcpxo
    assert rel.installer == f"gpudirect-{short}/nccl-{short}-installer.yaml"
    upstream = gke.STACKS[short]
    assert upstream.installer_kind == "DaemonSet"
    assert rel.plugin_image in upstream.installer_images
    assert upstream.test_pods > 0
    assert (rel.daemon, rel.daemon_image) == (upstream.daemon, upstream.daemon_image)


def _upstream_interfaces(short: str) -> list[dict[str, str]]:
    upstream = gke.STACKS[short]
    assert upstream.default_interface == "eth0"
    return [{"interfaceName": name, "network": net} for name, net in upstream.interfaces]


@pytest.mark.parametrize(("pool", "short"), [("a3-high", "tcpx"), ("a3-high-spot", "tcpx")])
def test_whole_node_snippets_take_every_gpu_and_nic_as_gke_test_pods_do(
    pool: str, short: str
) -> None:
    # container-engine-accelerators@992db812 gpudirect-tcpx/nccl-test-latest.yaml: eth0 on the
    # default pod network, eth1..eth4 on the Device networks vpc1..vpc4, all 8 GPUs; gpupool's
    # networks are named after the VPC networks of placement.gpuNetworks instead of vpcN.
    stack = load_stack("gpudirect-networks")
    text = sharing.workload_snippets(stack)[f"snippets/llm--{pool}.yaml"]
    doc = yaml.safe_load(text)
    annotations = doc["metadata"]["annotations"]
    assert annotations[DEFAULT_INTERFACE_ANNOTATION] == "eth0"
    got = json.loads(annotations[INTERFACES_ANNOTATION])
    upstream = _upstream_interfaces(short)
    assert [i["interfaceName"] for i in got] == [i["interfaceName"] for i in upstream]
    assert got[0] == upstream[0] == {"interfaceName": "eth0", "network": "default"}
    nets = [n.network for n in stack.pool(pool).gpu_networks]  # type: ignore[union-attr]
    assert [i["network"] for i in got[1:]] == nets
    assert doc["spec"]["containers"][0]["resources"]["limits"] == {"nvidia.com/gpu": 8}
    rel = gpudirect.RELEASES["GPUDirect-TCPX"]
    assert rel.daemon_image.rsplit("/", 1)[1] in text and gpudirect.url(rel.example) in text


def test_tcpxo_interfaces_follow_the_upstream_test_pod() -> None:
    # gpudirect-tcpxo/nccl-test-latest.yaml: eth1..eth8 on the eight Device networks
    upstream = _upstream_interfaces("tcpxo")
    stack = load_stack("gpudirect-networks")
    whole = dataclasses.replace(stack.pools[2], sharing=stack.pools[0].sharing)
    solo = dataclasses.replace(stack, pools=(*stack.pools[:2], whole))
    text = sharing.workload_snippets(solo)["snippets/llm--a3-mega.yaml"]
    got = json.loads(yaml.safe_load(text)["metadata"]["annotations"][INTERFACES_ANNOTATION])
    assert [i["interfaceName"] for i in got] == [i["interfaceName"] for i in upstream]
    assert len(got) == 9


def test_a_shared_pool_names_its_nics_in_a_comment_only() -> None:
    # a Device NIC moves into one pod's network namespace, so a pod per GPU slot cannot each
    # take them: the time-sliced A3 Mega pool's snippet asks for one slot and no interfaces
    text = sharing.workload_snippets(load_stack("gpudirect-networks"))["snippets/llm--a3-mega.yaml"]
    doc = yaml.safe_load(text)
    assert "annotations" not in doc["metadata"]
    assert doc["spec"]["containers"][0]["resources"]["limits"] == {"nvidia.com/gpu": 1}
    assert "8 GPUDirect-TCPXO NICs" in text and "only one pod per node" in text
