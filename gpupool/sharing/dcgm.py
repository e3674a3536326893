"""The DCGM exporter's metrics list gpupool renders: gpupool's own table of DCGM fields.

This module owns ``METRICS``, the DCGM fields gpupool has the GPU Operator's exporter export
where it sets the exporter's list (``alerts.metrics_config_values``: gpupool installs the
operator, the exporter is on and the GPU alerts are rendered), and ``metrics_list``, which writes
them in the exporter's list format. That format is dcgm-exporter's
(``internal/pkg/counters/counter_config.go`` reads it with Go's ``encoding/csv``): one row per
metric, ``DCGM field, Prometheus type, help``, and a line starting with ``#`` is a comment. Every
comma splits a field, so no help text here has a comma (or a quote).

Which fields, and why:

- every DCGM field gpupool's GPU alerts and its Grafana dashboard read (``alerts.read_metrics``).
  Four of them dcgm-exporter's default list (``etc/dcp-metrics-included.csv``, the one the GPU
  Operator's exporter reads unless told otherwise) does not export: the double-bit ECC count and
  the thermal and power violation times, which it keeps commented out, and
  ``DCGM_FI_DEV_ROW_REMAP_PENDING``, which it does not name. Showback reads no DCGM field (it
  prices kube-state-metrics' resource requests);
- every field that default list exports, with the same type, so that turning gpupool's alerts
  on takes away no series a dashboard of the user's own may read (clocks, temperatures, power
  and energy, PCIe replays, engine utilisation, framebuffer, NVLink traffic, vGPU licence, row
  remapping, the driver version label, and the profiling ratios and PCIe rates). The NVLink row
  keeps the exporter's name for it, ``DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL`` (an alias DCGM still
  accepts for its ``NVLINK_THROUGHPUT_TOTAL``), so its series keeps its name.

The help texts are gpupool's own; a unit DCGM reports in is named in brackets.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from gpupool.errors import RenderError

GAUGE, COUNTER, LABEL = "gauge", "counter", "label"


@dataclass(frozen=True)
class Metric:
    """One row of the list: the DCGM field, its Prometheus type and gpupool's help text."""

    field: str
    kind: str  # GAUGE, COUNTER or LABEL (a label on every other series)
    help: str

    def line(self) -> str:
        """Return the row as a line of the list."""
        return f"{self.field}, {self.kind}, {self.help}"


METRICS: tuple[Metric, ...] = (
    # clocks and temperatures
    Metric("DCGM_FI_DEV_SM_CLOCK", GAUGE, "Streaming multiprocessor clock (MHz)."),
    Metric("DCGM_FI_DEV_MEM_CLOCK", GAUGE, "Memory clock (MHz)."),
    Metric("DCGM_FI_DEV_MEMORY_TEMP", GAUGE, "Temperature of the GPU's memory (C)."),
    Metric("DCGM_FI_DEV_GPU_TEMP", GAUGE, "Temperature of the GPU (C)."),
    # power
    Metric("DCGM_FI_DEV_POWER_USAGE", GAUGE, "Power the GPU draws now (W)."),
    Metric(
        "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
        COUNTER,
        "Energy the GPU has used since its driver was loaded (mJ).",
    ),
    Metric(
        "DCGM_FI_DEV_POWER_VIOLATION",
        COUNTER,
        "Time the GPU ran slowed down to keep under its power limit (ns).",
    ),
    Metric(
        "DCGM_FI_DEV_THERMAL_VIOLATION",
        COUNTER,
        "Time the GPU ran slowed down to keep under its temperature limit (ns).",
    ),
    # PCIe
    Metric("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", COUNTER, "PCIe transfers the link had to resend."),
    # engine utilisation over the driver's sample period
    Metric("DCGM_FI_DEV_GPU_UTIL", GAUGE, "Share of time a kernel was running on the GPU (%)."),
    Metric(
        "DCGM_FI_DEV_MEM_COPY_UTIL",
        GAUGE,
        "Share of time the GPU's memory was being read or written (%).",
    ),
    Metric("DCGM_FI_DEV_ENC_UTIL", GAUGE, "Share of time the video encoder was busy (%)."),
    Metric("DCGM_FI_DEV_DEC_UTIL", GAUGE, "Share of time the video decoder was busy (%)."),
    # faults
    Metric(
        "DCGM_FI_DEV_XID_ERRORS",
        GAUGE,
        "Number of the last XID error the driver reported for the GPU.",
    ),
    Metric(
        "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL",
        COUNTER,
        "Uncorrectable (double-bit) ECC errors since the driver was loaded.",
    ),
    # framebuffer
    Metric("DCGM_FI_DEV_FB_FREE", GAUGE, "GPU memory free for new allocations (MiB)."),
    Metric("DCGM_FI_DEV_FB_USED", GAUGE, "GPU memory allocated (MiB)."),
    Metric("DCGM_FI_DEV_FB_RESERVED", GAUGE, "GPU memory the driver keeps for itself (MiB)."),
    # NVLink and vGPU
    Metric(
        "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL",
        COUNTER,
        "NVLink traffic of the GPU summed over all its links.",
    ),
    Metric("DCGM_FI_DEV_VGPU_LICENSE_STATUS", GAUGE, "vGPU licence state (1 when licensed)."),
    # row remapping: a memory row with errors swapped for a spare one at the next reset
    Metric(
        "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
        COUNTER,
        "Memory rows remapped after uncorrectable errors.",
    ),
    Metric(
        "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS",
        COUNTER,
        "Memory rows remapped after correctable errors.",
    ),
    Metric(
        "DCGM_FI_DEV_ROW_REMAP_FAILURE",
        GAUGE,
        "1 when a memory row could not be remapped (no spare rows left).",
    ),
    Metric(
        "DCGM_FI_DEV_ROW_REMAP_PENDING",
        GAUGE,
        "1 when a memory row remap waits for the GPU to be reset.",
    ),
    # static information, a label on the other series
    Metric("DCGM_FI_DRIVER_VERSION", LABEL, "Version of the NVIDIA driver on the node."),
    # profiling (DCP): ratios from 0 to 1 and PCIe rates
    Metric(
        "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
        GAUGE,
        "Share of time the graphics or compute engine was busy (0 to 1).",
    ),
    Metric(
        "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
        GAUGE,
        "Share of cycles the tensor core pipes were busy (0 to 1).",
    ),
    Metric(
        "DCGM_FI_PROF_DRAM_ACTIVE",
        GAUGE,
        "Share of cycles the memory interface was sending or receiving (0 to 1).",
    ),
    Metric(
        "DCGM_FI_PROF_PCIE_TX_BYTES",
        GAUGE,
        "Bytes the GPU sends over PCIe per second (headers included).",
    ),
    Metric(
        "DCGM_FI_PROF_PCIE_RX_BYTES",
        GAUGE,
        "Bytes the GPU receives over PCIe per second (headers included).",
    ),
)

HEADER = (
    "# DCGM exporter metrics list written by gpupool (gpupool/sharing/dcgm.py).\n"
    "# One metric a row: DCGM field, Prometheus type, help. A line starting with # is a comment.\n"
)
READ_HEADING = "# Read by gpupool's GPU alerts and dashboard"
KEPT_HEADING = "# Also in dcgm-exporter's default list: kept so that no series goes away"


def by_field() -> dict[str, Metric]:
    """Return the table by DCGM field."""
    return {m.field: m for m in METRICS}


def metrics_list(read: Iterable[str]) -> str:
    """Return the list: the fields gpupool reads (``read``) first, then the rest of the table.

    Raises:
        RenderError: a field of ``read`` has no row in the table (a field gpupool's rules read
            was added without one: an internal error).

    """
    table = by_field()
    wanted = set(read)
    if missing := sorted(wanted - set(table)):
        raise RenderError(f"no DCGM exporter metrics row for {', '.join(missing)} (internal error)")
    sections = [
        (READ_HEADING, [m for m in METRICS if m.field in wanted]),
        (KEPT_HEADING, [m for m in METRICS if m.field not in wanted]),
    ]
    body = "".join(
        f"\n{heading}\n" + "".join(m.line() + "\n" for m in rows)
        for heading, rows in sections
        if rows
    )
    return HEADER + body
