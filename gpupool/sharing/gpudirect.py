"""GKE multi-networking for GPUDirect: the ``GKENetworkParamSet`` and ``Network`` objects.

This module owns the in-cluster half of the GPUDirect NICs of GKE A3 pools
(``gpupool.facts.network``; the node-pool half is ``gpupool.providers.gcp``). For every VPC
network the pools name in ``placement.gpuNetworks``, once, it renders what GKE's GPUDirect guide
applies per NIC (GKE docs ``gpu-bandwidth-gpudirect-tcpx``, "Create the GKE network objects"):

- a ``GKENetworkParamSet`` (``networking.gke.io/v1``, cluster-scoped) naming the VPC network
  (``vpc``) and its subnet (``vpcSubnet``), ``deviceMode: NetDevice``: the NIC is handed to the
  pod as a kernel network device;
- a ``Network`` of ``type: Device`` whose ``parametersRef`` is that parameter set; pods select
  it by name in their ``networking.gke.io/interfaces`` annotation (``gpupool.sharing.snippets``).

Both are named after the VPC network (a VPC name is a DNS label; the schema keeps ``default`` and
``pod-network``, GKE's names for the pod network, out). Their shapes are checked against the
CRDs of GoogleCloudPlatform/gke-networking-api in the tests.

What gpupool does not install, and the README and the plan list (the first parameter set's
``facts["needs"]``): the cluster's multi-networking and GKE Dataplane V2 (cluster settings), the
VPC networks themselves, the NCCL plugin installer of each GPUDirect stack and GKE's NRI device
injector. The installers are left to the user on purpose: the NCCL plugin they install and the
RxDM sidecar in the workload's pods are released together, and pods of one job must run the same
plugin version (container-engine-accelerators ``gpudirect-tcpx(o)/README.md``), so their upgrades
belong with the workloads. The needs name the manifests at the pinned commit ``UPSTREAM_COMMIT``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpupool.errors import RenderError
from gpupool.facts.network import (
    GKE_NETWORK_GROUP,
    gke_networks,
    gpudirect_networks,
    gpudirect_pools,
)
from gpupool.graph import CloudResult, Resource
from gpupool.model import GpuNetwork, Pool, Stack
from gpupool.sharing.objects import k8s_object

API_VERSION = f"{GKE_NETWORK_GROUP}/v1"
PARAM_SET = "GKENetworkParamSet"
NETWORK = "Network"
DEVICE_MODE = "NetDevice"
"""GKE's GPUDirect guide gives every GPU NIC's parameter set ``deviceMode: NetDevice``."""

UPSTREAM_REPO = "GoogleCloudPlatform/container-engine-accelerators"
UPSTREAM_COMMIT = "992db81257553607f1477945f1b3219632991829"
"""The container-engine-accelerators commit whose manifests the needs and snippets name."""
_IMAGES = "us-docker.pkg.dev/gce-ai-infra"
_RAW = f"https://raw.githubusercontent.com/{UPSTREAM_REPO}/{UPSTREAM_COMMIT}"
NRI_INJECTOR = "nri_device_injector/nri-device-injector.yaml"
"""GKE's NRI device injector: it gives the RxDM sidecar the devices its pod annotation lists."""


@dataclass(frozen=True)
class GpuDirectRelease:
    """What one GPUDirect stack needs at ``UPSTREAM_COMMIT`` (container-engine-accelerators paths).

    Attributes:
        installer: the NCCL plugin installer DaemonSet manifest.
        plugin_image: the NCCL plugin image that installer runs.
        daemon: the RxDM sidecar's container name in GKE's test pods (the device annotation
            ``devices.gke.io/container.<daemon>`` names it).
        daemon_image: the RxDM image of that release.
        example: GKE's test pod manifest, which shows the sidecar, volumes and NCCL settings.

    """

    installer: str
    plugin_image: str
    daemon: str
    daemon_image: str
    example: str


RELEASES: dict[str, GpuDirectRelease] = {
    "GPUDirect-TCPX": GpuDirectRelease(
        installer="gpudirect-tcpx/nccl-tcpx-installer.yaml",
        plugin_image=f"{_IMAGES}/gpudirect-tcpx/nccl-plugin-gpudirecttcpx-dev:v3.1.9",
        daemon="tcpx-daemon",
        daemon_image=f"{_IMAGES}/gpudirect-tcpx/tcpgpudmarxd-dev:v2.0.12",
        example="gpudirect-tcpx/nccl-test-latest.yaml",
    ),
    "GPUDirect-TCPXO": GpuDirectRelease(
        installer="gpudirect-tcpxo/nccl-tcpxo-installer.yaml",
        plugin_image=f"{_IMAGES}/gpudirect-tcpxo/nccl-plugin-gpudirecttcpx-dev:v1.0.15",
        daemon="tcpxo-daemon",
        daemon_image=f"{_IMAGES}/gpudirect-tcpxo/tcpgpudmarxd-dev:v1.0.21",
        example="gpudirect-tcpxo/nccl-test-latest.yaml",
    ),
}


def url(path: str) -> str:
    """Return the raw URL of a container-engine-accelerators file at ``UPSTREAM_COMMIT``."""
    return f"{_RAW}/{path}"


def release(stack: Stack, pool: Pool) -> GpuDirectRelease | None:
    """Return the GPUDirect release ``pool``'s nodes need; None when they get no GPUDirect NICs."""
    inst = pool.instance
    if inst is None or not gpudirect_networks(stack, pool):
        return None
    return RELEASES.get(inst.interconnect.gpudirect or "")


def needs(stack: Stack) -> list[str]:
    """Return what the GPUDirect NICs need of the cluster that gpupool neither sets up nor checks.

    One sentence each, for the plan and the rendered README; empty without GPUDirect pools.
    """
    pools = gpudirect_pools(stack)
    if not pools:
        return []
    pairs = ", ".join(f"{n.network}/{n.subnetwork}" for n in gke_networks(stack))
    out = [
        "a cluster created with GKE Dataplane V2 and multi-networking (`gcloud container clusters "
        "create --enable-dataplane-v2 --enable-multi-networking`; Dataplane V2 cannot be turned "
        "on later): without them GKE refuses the GPUDirect node pools' additional networks and "
        "the Network objects",
        f"the VPC networks and subnets of `placement.gpuNetworks` in region "
        f"{stack.provider.region} (network/subnet: {pairs}), none of them the cluster's own VPC: "
        "as GKE's GPUDirect guide creates them, one VPC network per NIC (`--subnet-mode=custom "
        "--mtu=8244`), one subnet in it, and a firewall rule admitting TCP, UDP and ICMP from "
        "the subnets' ranges",
    ]
    protocols = dict.fromkeys(
        p.instance.interconnect.gpudirect for p in pools if p.instance is not None
    )
    for protocol in protocols:
        rel = RELEASES.get(protocol or "")
        if rel is None:
            continue
        out.append(
            f"{protocol}'s NCCL plugin installer DaemonSet: `kubectl apply -f "
            f"{url(rel.installer)}` (installs {rel.plugin_image.rsplit('/', 1)[1]} on every "
            f"node of its machine type; the pods of one job must run the same plugin version, "
            f"so upgrade it between jobs)"
        )
    out.append(
        "GKE's NRI device injector DaemonSet, which gives a pod's RxDM sidecar the GPU devices "
        f"its `devices.gke.io/container.*` annotation lists: `kubectl apply -f {url(NRI_INJECTOR)}`"
    )
    return out


def objects(net: GpuNetwork) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return the ``GKENetworkParamSet`` and ``Network`` manifests of one GPUDirect network."""
    name = net.network
    param_set = {
        "apiVersion": API_VERSION,
        "kind": PARAM_SET,
        "metadata": {"name": name},
        "spec": {"vpc": net.network, "vpcSubnet": net.subnetwork, "deviceMode": DEVICE_MODE},
    }
    network = {
        "apiVersion": API_VERSION,
        "kind": NETWORK,
        "metadata": {"name": name},
        "spec": {
            "type": "Device",
            "parametersRef": {"group": GKE_NETWORK_GROUP, "kind": PARAM_SET, "name": name},
        },
    }
    return param_set, network


def build(stack: Stack, cloud: CloudResult) -> list[Resource]:
    """Return a ``GKENetworkParamSet`` and a ``Network`` per GPUDirect network, or nothing."""
    out: list[Resource] = []
    pools = gpudirect_pools(stack)
    networks = gke_networks(stack)
    names = [n.network for n in networks]
    if len(set(names)) != len(names):  # validation's clouds.gpudirect-network-conflict
        twice = sorted({n for n in names if names.count(n) > 1})
        raise RenderError(f"GPUDirect networks {', '.join(twice)} are given several subnets")
    for i, net in enumerate(networks):
        users = [p.name for p in pools if net in gpudirect_networks(stack, p)]
        param_set, network = objects(net)
        facts: dict[str, Any] = {"pools": users}
        gnp = k8s_object(
            stack,
            param_set,
            provider=cloud.k8s_provider,
            facts={**facts, "needs": needs(stack)} if i == 0 else facts,
        )
        out += [
            gnp,
            k8s_object(
                stack, network, provider=cloud.k8s_provider, depends_on=(gnp.address,), facts=facts
            ),
        ]
    return out
