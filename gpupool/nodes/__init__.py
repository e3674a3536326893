"""Node inspection: this machine's GPUs read through NVML, their faults, and the node report.

- ``nvml``: NVML, read only (the one import of ``pynvml``, lazy);
- ``faults``: which readings need an operator (uncorrected ECC errors, overheating, a GPU NVML
  cannot open);
- ``inventory``: :func:`inspect`, the report of this node;
- ``report``: the report as data, its JSON, and :meth:`NodeReport.from_json` for reading it back;
- ``text``: the report as text for people.
"""

from __future__ import annotations

from gpupool.nodes.inventory import inspect
from gpupool.nodes.nvml import NodeUnavailableError
from gpupool.nodes.report import NodeReport
from gpupool.nodes.text import format_text

__all__ = ["NodeReport", "NodeUnavailableError", "format_text", "inspect"]
