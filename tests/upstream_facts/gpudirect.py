"""GKE's GPUDirect-TCPX(O) installers and NCCL test pods: the facts gpupool's tests use.

Read from GoogleCloudPlatform/container-engine-accelerators at commit
992db81257553607f1477945f1b3219632991829 (the commit ``gpupool.sharing.gpudirect`` pins):
``gpudirect-tcpx/nccl-tcpx-installer.yaml``, ``gpudirect-tcpxo/nccl-tcpxo-installer.yaml``,
``gpudirect-tcpx/nccl-test-latest.yaml`` and ``gpudirect-tcpxo/nccl-test-latest.yaml``.
``tests/test_upstream_facts.py`` checks these facts against the unchanged files in
``../shared/reference/upstream/`` (``INSTALLER_FILES``, ``TEST_POD_FILES``) where that folder
exists.
"""

from __future__ import annotations

from dataclasses import dataclass

_REGISTRY = "us-docker.pkg.dev/gce-ai-infra"


@dataclass(frozen=True)
class Stack:
    """One GPUDirect stack (``tcpx`` or ``tcpxo``) as GKE's manifests run it."""

    installer_kind: str  # the installer manifest's one object
    installer_images: tuple[str, ...]  # its init containers' and containers' images
    daemon: str  # the RxDM sidecar's container name in the test pods
    daemon_image: str
    test_pods: int  # Pods in nccl-test-latest.yaml (each has the same daemon and annotations)
    default_interface: str  # networking.gke.io/default-interface
    #: networking.gke.io/interfaces, (interfaceName, network) in order
    interfaces: tuple[tuple[str, str], ...]


def _nics(count: int) -> tuple[tuple[str, str], ...]:
    return (("eth0", "default"), *((f"eth{i}", f"vpc{i}") for i in range(1, count + 1)))


_PAUSE = (
    "gke.gcr.io/pause:3.8@sha256:880e63f94b145e46f1b1082bb71b85e21f16b99b180b9996407d61240ceb9830"
)

STACKS: dict[str, Stack] = {
    "tcpx": Stack(
        installer_kind="DaemonSet",
        installer_images=(
            f"{_REGISTRY}/gpudirect-tcpx/nccl-plugin-gpudirecttcpx-dev:v3.1.9",
            _PAUSE,
        ),
        daemon="tcpx-daemon",
        daemon_image=f"{_REGISTRY}/gpudirect-tcpx/tcpgpudmarxd-dev:v2.0.12",
        test_pods=2,
        default_interface="eth0",
        interfaces=_nics(4),
    ),
    "tcpxo": Stack(
        installer_kind="DaemonSet",
        installer_images=(
            "ubuntu",
            f"{_REGISTRY}/gpudirect-tcpxo/nccl-plugin-gpudirecttcpx-dev:v1.0.15",
            _PAUSE,
        ),
        daemon="tcpxo-daemon",
        daemon_image=f"{_REGISTRY}/gpudirect-tcpxo/tcpgpudmarxd-dev:v1.0.21",
        test_pods=2,
        default_interface="eth0",
        interfaces=_nics(8),
    ),
}

_SHARED = "container-engine-accelerators-992db812"
#: the unchanged upstream files in ../shared/reference/upstream/, per stack
INSTALLER_FILES = {short: f"{_SHARED}-nccl-{short}-installer.yaml" for short in STACKS}
TEST_POD_FILES = {short: f"{_SHARED}-{short}-nccl-test-latest.yaml" for short in STACKS}
