"""``gpupool node inspect``: this node's GPUs, read through NVML (read only)."""

from __future__ import annotations

from gpupool import nodes
from gpupool.nodes import NodeReport


def inspect() -> NodeReport:
    """Return the inventory of the local GPUs.

    Raises:
        NodeUnavailableError: NVML (or its Python binding) is not available here.

    """
    return nodes.inspect()
