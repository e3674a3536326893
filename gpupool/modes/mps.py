"""MPS: the device plugin advertises each GPU ``replicas`` times behind an MPS control daemon.

MPS caps each client's memory and SMs, so its default QoS is ``guaranteed``. The device plugin
refuses to start MPS under MIG strategy ``mixed``. The MPS server serves a bounded number of
client contexts per GPU, fewer on older GPUs, so ``replicas`` is capped (``client_limit``): 48,
or 16 below compute capability 7.5, the version the plugin itself compares with (NVIDIA
k8s-device-plugin ``cmd/mps-control-daemon/mps/device.go`` ``maxClients``; so a V100, 7.0, gets
16 although the function is named ``isAtLeastVolta``). Upstream: NVIDIA k8s-device-plugin
``sharing.mps`` (README, "With CUDA MPS"); NVIDIA Multi-Process Service guide, "Limitations".
"""

from gpupool.modes.base import ClientLimit, SharingMode

MODE = SharingMode(
    name="mps",
    replicated=True,
    device_plugin_key="mps",
    isolates=True,
    mig_mixed_ok=False,
    client_limit=ClientLimit(clients=48, older_clients=16, older_below="7.5"),
)
