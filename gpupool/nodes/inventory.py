"""The inventory of this node: ``gpupool node inspect``'s report, put together.

Owns what the report holds besides NVML's reading (``gpupool.nodes.nvml``): the hostname, the
Kubernetes node name (``NODE_NAME``, set from the downward API when inspect runs as a DaemonSet
or Job, where the hostname is the pod's), and the faults judged on the GPUs
(``gpupool.nodes.faults``) at the moment they were read.
"""

from __future__ import annotations

import os
import socket
from typing import Any

from gpupool.nodes import faults
from gpupool.nodes.nvml import read as read_nvml
from gpupool.nodes.report import NodeReport


def inspect(nvml: Any | None = None) -> NodeReport:
    """Read this node's GPUs through NVML, without changing anything, and judge their faults.

    Args:
        nvml: An object with the ``pynvml`` module's functions, constants and ``NVMLError``
            classes; tests pass a stand-in. ``None`` imports the real ``pynvml``.

    Returns:
        The node report.

    Raises:
        NodeUnavailableError: ``pynvml`` is not installed, or NVML cannot start (no driver,
            no permission) or cannot count the GPUs.

    """
    reading = read_nvml(nvml)
    hostname = socket.gethostname()
    return NodeReport(
        hostname=hostname,
        node_name=os.environ.get("NODE_NAME") or hostname,
        driver_version=reading.driver_version,
        cuda_driver_version=reading.cuda_driver_version,
        nvml_version=reading.nvml_version,
        gpus=reading.gpus,
        faults=faults.detect(reading.gpus),
    )
