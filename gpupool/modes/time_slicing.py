"""Time-slicing: the device plugin advertises each GPU ``replicas`` times; no isolation.

Upstream: NVIDIA k8s-device-plugin ``sharing.timeSlicing`` (README, "Shared Access to GPUs").
"""

from gpupool.modes.base import SharingMode

MODE = SharingMode(name="time-slicing", replicated=True, device_plugin_key="timeSlicing")
