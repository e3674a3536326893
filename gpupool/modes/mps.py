"""MPS: the device plugin advertises each GPU ``replicas`` times behind an MPS control daemon.

MPS caps each client's memory and SMs, so its default QoS is ``guaranteed``. The device plugin
refuses to start MPS under MIG strategy ``mixed``. Upstream: NVIDIA k8s-device-plugin
``sharing.mps`` (README, "With CUDA MPS").
"""

from gpupool.modes.base import SharingMode

MODE = SharingMode(
    name="mps", replicated=True, device_plugin_key="mps", isolates=True, mig_mixed_ok=False
)
