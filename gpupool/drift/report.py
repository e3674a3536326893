"""Drift report values and their text, JSON (SPEC 5.1) and markdown forms."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

FORMAT_VERSION = "1"
SOURCES = ("cloud", "cluster", "node")


@dataclass(frozen=True)
class DriftItem:
    """One difference between what is declared and what is observed.

    Attributes:
        source: ``cloud`` (cloud resources), ``cluster`` (Kubernetes objects and node state) or
            ``node`` (NVML reports).
        address: what drifted: a resource address, ``pool.<name>/node/<node>``, ...
        declared: the declared value (None when nothing was declared).
        observed: the observed value (None when absent).
        summary: one sentence a platform engineer can act on.
        kind: ``drift`` (differs from the file) or ``fault`` (hardware trouble).

    """

    source: str
    address: str
    declared: Any
    observed: Any
    summary: str
    kind: str = "drift"

    def to_json(self) -> dict[str, Any]:
        """Return the SPEC 5.1 item shape (plus ``kind``)."""
        return {
            "source": self.source,
            "address": self.address,
            "declared": self.declared,
            "observed": self.observed,
            "summary": self.summary,
            "kind": self.kind,
        }


@dataclass(frozen=True)
class SourceStatus:
    """Whether one drift source ran, and why not when it did not."""

    name: str  # engine | cluster | node
    checked: bool
    reason: str = ""


@dataclass(frozen=True)
class DriftReport:
    """Everything drift found for one stack."""

    stack: str
    items: tuple[DriftItem, ...]
    sources: tuple[SourceStatus, ...] = field(default_factory=tuple)

    @property
    def drifted(self) -> bool:
        """True when any item was found (drift or fault)."""
        return bool(self.items)

    def to_json(self) -> dict[str, Any]:
        """Return the SPEC 5.1 shape, with the sources that ran or were skipped."""
        return {
            "format_version": FORMAT_VERSION,
            "stack": self.stack,
            "drifted": self.drifted,
            "items": [i.to_json() for i in self.items],
            "sources": [
                {"name": s.name, "checked": s.checked, "reason": s.reason} for s in self.sources
            ],
        }


def _value(v: Any) -> str:
    if v is None:
        return "(none)"
    if isinstance(v, str):
        return v
    return json.dumps(v, sort_keys=True)


def format_text(report: DriftReport) -> str:
    """Render the report for a terminal or a CI log."""
    lines = []
    for s in report.sources:
        state = "checked" if s.checked else f"skipped: {s.reason}"
        lines.append(f"source {s.name}: {state}")
    lines.append("")
    if not report.items and not any(s.checked for s in report.sources):
        lines.append(f"Unknown: no source could be checked for stack {report.stack}.")
        return "\n".join(lines) + "\n"
    if not report.items:
        lines.append(f"No drift: stack {report.stack} matches what runs (in the sources checked).")
        return "\n".join(lines) + "\n"
    for source in SOURCES:
        items = [i for i in report.items if i.source == source]
        if not items:
            continue
        lines.append(f"{source}:")
        for i in items:
            mark = "!" if i.kind == "fault" else "~"
            lines.append(f"  {mark} {i.address}: {i.summary}")
            lines.append(f"      declared: {_value(i.declared)}")
            lines.append(f"      observed: {_value(i.observed)}")
    faults = sum(1 for i in report.items if i.kind == "fault")
    lines.append("")
    lines.append(
        f"Drift: {len(report.items) - faults} difference(s), {faults} fault(s) in stack "
        f"{report.stack}."
    )
    return "\n".join(lines) + "\n"


def format_json(report: DriftReport) -> str:
    """Render the SPEC 5.1 JSON."""
    return json.dumps(report.to_json(), indent=2, sort_keys=False, ensure_ascii=False) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def format_markdown(report: DriftReport) -> str:
    """Render the report for a CI job summary or an issue."""
    head = "no drift" if not report.items else f"{len(report.items)} finding(s)"
    out = [
        f"<!-- gpupool-drift: {report.stack} -->",
        f"### gpupool drift: `{report.stack}`: {head}",
    ]
    out.append("")
    out.append(
        "Sources: "
        + ", ".join(
            f"{s.name} ✓" if s.checked else f"{s.name} skipped ({_cell(s.reason)})"
            for s in report.sources
        )
    )
    if report.items:
        out += ["", "| source | what | finding | declared | observed |", "|---|---|---|---|---|"]
        for i in report.items:
            out.append(
                f"| {i.source}{' (fault)' if i.kind == 'fault' else ''} | `{_cell(i.address)}` | "
                f"{_cell(i.summary)} | {_cell(_value(i.declared))} | {_cell(_value(i.observed))} |"
            )
    return "\n".join(out) + "\n"


def render(report: DriftReport, fmt: str) -> str:
    """Render in ``text``, ``json`` or ``markdown``."""
    return {"json": format_json, "markdown": format_markdown}.get(fmt, format_text)(report)
