"""The DCGM exporter's metrics list: the exporter's default list plus the fields gpupool reads.

This module owns the package data file ``dcgm-exporter-dcp-metrics-included.csv``, an unchanged
copy of dcgm-exporter's ``etc/dcp-metrics-included.csv`` (commit d5e5f510; its source is recorded
in ``tests/upstream/SOURCES.md``). It is the list the GPU Operator's exporter reads unless told
otherwise: gpu-operator v26.7.0 sets
``DCGM_EXPORTER_COLLECTORS=/etc/dcgm-exporter/dcp-metrics-included.csv``.

``metrics_list(fields)`` returns that file unchanged with a section appended: one row for each
of ``fields`` the file does not already export, in its format (``DCGM field, Prometheus type,
help``; ``#`` starts a comment line). A row the file keeps commented out is taken from there;
``DCGM_FI_DEV_ROW_REMAP_PENDING`` has no row in any of dcgm-exporter's lists, so its row is
written here (``ROWS_UPSTREAM_LACKS``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib.resources import files

from gpupool.errors import RenderError

DEFAULT_LIST_FILE = "dcgm-exporter-dcp-metrics-included.csv"

# Rows for fields no dcgm-exporter list carries, even commented out. The help is DCGM's own
# description of the field (go-dcgm pkg/dcgm/const_fields.go, "Whether remapping of rows is
# pending"); the value is a flag, not a count, so a gauge like DCGM_FI_DEV_ROW_REMAP_FAILURE's
# row in the default list.
ROWS_UPSTREAM_LACKS = {
    "DCGM_FI_DEV_ROW_REMAP_PENDING": ("gauge", "Whether remapping of rows is pending"),
}

ADDED_HEADING = "# Added by gpupool: fields its GPU alerts read that the list above leaves out"


@dataclass(frozen=True)
class Row:
    """One metric of a list: the DCGM field, its Prometheus type and its help text."""

    field: str
    prom_type: str
    help: str

    def line(self) -> str:
        """Return the row as a line of the list."""
        return f"{self.field}, {self.prom_type}, {self.help}"


@cache
def default_list() -> str:
    """Return the exporter's default list, as dcgm-exporter ships it."""
    return files("gpupool.sharing").joinpath(DEFAULT_LIST_FILE).read_text(encoding="utf-8")


def _row(text: str) -> Row | None:
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 3 or not parts[0].startswith("DCGM_FI_"):
        return None
    return Row(parts[0], parts[1], parts[2])


def exported(text: str) -> dict[str, Row]:
    """Return the rows a list exports (its lines that are not comments), by field."""
    out = {}
    for line in text.splitlines():
        if line.startswith("#") or (row := _row(line)) is None:
            continue
        out[row.field] = row
    return out


def commented_out(text: str) -> dict[str, Row]:
    """Return the rows a list keeps commented out (``# DCGM_FI_...``), by field."""
    out = {}
    for line in text.splitlines():
        if line.startswith("#") and (row := _row(line.lstrip("#"))) is not None:
            out[row.field] = row
    return out


def metrics_list(fields: Iterable[str]) -> str:
    """Return the default list with rows for those of ``fields`` it does not export.

    Raises:
        RenderError: a field has no row to take (a field gpupool's rules read was added without
            one: an internal error).

    """
    text = default_list()
    active, commented = exported(text), commented_out(text)
    added = []
    for field in fields:
        if field in active:
            continue
        if field in commented:
            added.append(commented[field])
        elif field in ROWS_UPSTREAM_LACKS:
            added.append(Row(field, *ROWS_UPSTREAM_LACKS[field]))
        else:
            raise RenderError(f"no DCGM exporter metrics row for {field} (internal error)")
    if not added:
        return text
    body = text if text.endswith("\n") else text + "\n"
    return body + "\n" + ADDED_HEADING + "\n" + "".join(r.line() + "\n" for r in added)
