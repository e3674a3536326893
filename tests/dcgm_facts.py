"""Facts about DCGM fields and dcgm-exporter's default list that the tests check against.

A test helper module, not collected as tests. It holds facts read from two upstream files,
written here in gpupool's own format; the files themselves are not kept in the repository.

``FIELDS``: DCGM fields as go-dcgm names them, read from github.com/NVIDIA/go-dcgm
``pkg/dcgm/const_fields.go`` at commit ec245c09fe3e26c559b0021a6884dd1ce2ebb4ca (2026-04-22, the
version dcgm-exporter d5e5f510 pins in its go.mod). That file has two maps dcgm-exporter looks a
metrics list's names up in (``dcgm.GetFieldID``: ``dcgmFields`` first, then
``legacyDCGMFields``); a name in neither makes the exporter exit at start. Each row here gives a
name, its numeric field id, which map holds it (``kind``: ``current`` or ``legacy``; a legacy
name is an older alias of a current field with the same id) and the unit go-dcgm's description
of the field states, or None where it states none. Only the fields the tests need are here:
every field gpupool's list names, and the aliases the parser tests use. A field missing from
this table is reported as unknown by ``tests.manifests.parse_dcgm_metrics``: add its row from
go-dcgm rather than loosen the parser.

``EXPORTER_DEFAULT``: the fields dcgm-exporter's ``etc/dcp-metrics-included.csv`` at commit
d5e5f510a1b6b393f39a43293ccd9dc985defc79 exports, with the Prometheus type it gives each (the
list the GPU Operator's exporter reads unless told otherwise). ``EXPORTER_COMMENTED_OUT``: the
fields gpupool reads that the same file names only on a commented-out row, with that row's type.
``tests/sharing/test_dcgm.py`` holds both against the file where the upstream folder beside the
repository has it (``tests.paths.shared_upstream``, ``dcgm/``). Why that file and that commit:
gpu-operator v26.7.0 points its exporter at ``/etc/dcgm-exporter/dcp-metrics-included.csv``
(``assets/state-dcgm-exporter/0800_daemonset.yaml``), not ``etc/default-counters.csv``; it pins
dcgm-exporter 4.6.0-4.8.3, a tag that could not be read offline, and d5e5f510 is the newest main
commit that could (just after tag 4.5.3-4.8.2). The file's exported rows are the same from tag
4.4.2-4.7.1 to commit 7ad58324. Read the new tag's file when gpupool pins a newer operator.
"""

from __future__ import annotations

from typing import NamedTuple


class Field(NamedTuple):
    """One DCGM field as go-dcgm names it."""

    name: str
    id: int
    kind: str  # "current" (dcgmFields) or "legacy" (legacyDCGMFields)
    unit: str | None  # as go-dcgm's description of the field states it


CURRENT, LEGACY = "current", "legacy"

FIELDS: tuple[Field, ...] = (
    Field("DCGM_FI_DRIVER_VERSION", 1, CURRENT, None),
    Field("DCGM_FI_DEV_SM_CLOCK", 100, CURRENT, None),
    Field("DCGM_FI_DEV_MEM_CLOCK", 101, CURRENT, None),
    Field("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", 112, CURRENT, None),
    Field("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", 112, LEGACY, None),
    Field("DCGM_FI_DEV_MEMORY_TEMP", 140, CURRENT, None),
    Field("DCGM_FI_DEV_GPU_TEMP", 150, CURRENT, "C"),
    Field("DCGM_FI_DEV_POWER_USAGE", 155, CURRENT, "W"),
    Field("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", 156, CURRENT, "mJ"),
    Field("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", 202, CURRENT, None),
    Field("DCGM_FI_DEV_GPU_UTIL", 203, CURRENT, None),
    Field("DCGM_FI_DEV_MEM_COPY_UTIL", 204, CURRENT, None),
    Field("DCGM_FI_DEV_ENC_UTIL", 206, CURRENT, None),
    Field("DCGM_FI_DEV_DEC_UTIL", 207, CURRENT, None),
    Field("DCGM_FI_DEV_XID_ERRORS", 230, CURRENT, None),
    Field("DCGM_FI_DEV_POWER_VIOLATION", 240, CURRENT, "ns"),
    Field("DCGM_FI_DEV_THERMAL_VIOLATION", 241, CURRENT, "ns"),
    Field("DCGM_FI_DEV_FB_FREE", 251, CURRENT, "MB"),
    Field("DCGM_FI_DEV_FB_USED", 252, CURRENT, "MB"),
    Field("DCGM_FI_DEV_FB_RESERVED", 253, CURRENT, "MB"),
    Field("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", 311, CURRENT, None),
    Field("DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", 393, CURRENT, None),
    Field("DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", 394, CURRENT, None),
    Field("DCGM_FI_DEV_ROW_REMAP_FAILURE", 395, CURRENT, None),
    Field("DCGM_FI_DEV_ROW_REMAP_PENDING", 396, CURRENT, None),
    Field("DCGM_FI_DEV_NVLINK_THROUGHPUT_TOTAL", 449, CURRENT, None),
    Field("DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", 449, LEGACY, None),
    Field("DCGM_FI_DEV_VGPU_LICENSE_STATUS", 526, CURRENT, None),
    Field("DCGM_FI_PROF_GR_ENGINE_ACTIVE", 1001, CURRENT, None),
    Field("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", 1004, CURRENT, None),
    Field("DCGM_FI_PROF_DRAM_ACTIVE", 1005, CURRENT, None),
    Field("DCGM_FI_PROF_PCIE_TX_BYTES", 1009, CURRENT, None),
    Field("DCGM_FI_PROF_PCIE_RX_BYTES", 1010, CURRENT, None),
)

# dcgm-exporter d5e5f510 etc/dcp-metrics-included.csv: the fields it exports and their types
EXPORTER_DEFAULT: dict[str, str] = {
    "DCGM_FI_DEV_SM_CLOCK": "gauge",
    "DCGM_FI_DEV_MEM_CLOCK": "gauge",
    "DCGM_FI_DEV_MEMORY_TEMP": "gauge",
    "DCGM_FI_DEV_GPU_TEMP": "gauge",
    "DCGM_FI_DEV_POWER_USAGE": "gauge",
    "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION": "counter",
    "DCGM_FI_DEV_PCIE_REPLAY_COUNTER": "counter",
    "DCGM_FI_DEV_GPU_UTIL": "gauge",
    "DCGM_FI_DEV_MEM_COPY_UTIL": "gauge",
    "DCGM_FI_DEV_ENC_UTIL": "gauge",
    "DCGM_FI_DEV_DEC_UTIL": "gauge",
    "DCGM_FI_DEV_XID_ERRORS": "gauge",
    "DCGM_FI_DEV_FB_FREE": "gauge",
    "DCGM_FI_DEV_FB_USED": "gauge",
    "DCGM_FI_DEV_FB_RESERVED": "gauge",
    "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL": "counter",
    "DCGM_FI_DEV_VGPU_LICENSE_STATUS": "gauge",
    "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS": "counter",
    "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS": "counter",
    "DCGM_FI_DEV_ROW_REMAP_FAILURE": "gauge",
    "DCGM_FI_DRIVER_VERSION": "label",
    "DCGM_FI_PROF_GR_ENGINE_ACTIVE": "gauge",
    "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE": "gauge",
    "DCGM_FI_PROF_DRAM_ACTIVE": "gauge",
    "DCGM_FI_PROF_PCIE_TX_BYTES": "gauge",
    "DCGM_FI_PROF_PCIE_RX_BYTES": "gauge",
}

# The same file's commented-out rows for fields gpupool's alerts read, and their types. It names
# DCGM_FI_DEV_ROW_REMAP_PENDING nowhere, not even commented out.
EXPORTER_COMMENTED_OUT: dict[str, str] = {
    "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL": "counter",
    "DCGM_FI_DEV_POWER_VIOLATION": "counter",
    "DCGM_FI_DEV_THERMAL_VIOLATION": "counter",
}
EXPORTER_NAMES_NOWHERE = frozenset({"DCGM_FI_DEV_ROW_REMAP_PENDING"})


def names(kind: str) -> frozenset[str]:
    """Return the names of ``FIELDS`` of one kind (``CURRENT`` or ``LEGACY``)."""
    return frozenset(f.name for f in FIELDS if f.kind == kind)


def by_name() -> dict[str, Field]:
    """Return ``FIELDS`` by name."""
    return {f.name: f for f in FIELDS}
