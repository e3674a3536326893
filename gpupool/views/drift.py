"""Output of ``gpupool drift``: a ``DriftReport`` as text, JSON or markdown.

Text is for a terminal or a CI log (each source's status, then the findings by source, then the
counts); JSON is the drift document (plus each item's ``kind`` and the ``sources`` that ran or
were skipped); markdown is a CI job summary or an issue body, starting with a hidden marker line
and capped at ``MARKDOWN_LIMIT`` characters (GitHub refuses an issue body over 65,536 and drops a
job summary over 1 MiB): findings that do not fit are cut, faults kept first, and the cut said.
"""

from __future__ import annotations

import json
from typing import Any

from gpupool import escape
from gpupool.drift.items import DriftItem, DriftReport
from gpupool.formats import FORMAT_VERSION

SOURCES = ("cloud", "cluster", "node")
_MAX_VALUE = 300  # characters of one value in markdown before it is cut
MARKDOWN_LIMIT = 65_000
"""Most characters of the markdown report: under GitHub's 65,536 for an issue body."""


def item_to_json(item: DriftItem) -> dict[str, Any]:
    """Return one item's JSON shape (with ``kind``)."""
    return {
        "source": item.source,
        "address": item.address,
        "declared": item.declared,
        "observed": item.observed,
        "summary": item.summary,
        "kind": item.kind,
    }


def to_json(report: DriftReport) -> dict[str, Any]:
    """Return the JSON document, with the sources that ran or were skipped."""
    return {
        "format_version": FORMAT_VERSION,
        "stack": report.stack,
        "status": report.status,
        # null, not false, when nothing was checked: "unknown" must not read as "no drift"
        "drifted": None if report.status == "unknown" else report.drifted,
        "items": [item_to_json(i) for i in report.items],
        "sources": [
            {"name": s.name, "checked": s.checked, "reason": s.reason} for s in report.sources
        ],
        # how something was read (a 2020 GFD's MIG labels), never drift
        "notes": [{"address": n.address, "summary": n.summary} for n in report.notes],
    }


def _value(v: Any) -> str:
    """Return a declared or observed value for people: ``missing`` where the node has none."""
    if v is None:
        return "(none)"
    if isinstance(v, str):
        return v
    if isinstance(v, dict) and v and all(isinstance(k, str) for k in v):
        # one label or resource per key: a None value is one the node does not have
        return ", ".join(
            f"{k}: missing" if x is None else f"{k}: {json.dumps(x)}" for k, x in sorted(v.items())
        )
    return json.dumps(v, sort_keys=True)


def format_text(report: DriftReport) -> str:
    """Render the report for a terminal or a CI log."""
    lines = []
    for s in report.sources:
        state = "checked" if s.checked else f"skipped: {escape.one_line(s.reason)}"
        lines.append(f"source {s.name}: {state}")
    lines.append("")
    if report.status == "unknown":
        lines.append(f"Unknown: no source could be checked for stack {report.stack}.")
        return "\n".join(lines) + "\n"
    notes = [f"  note: {escape.one_line(n.address)}: {escape.one_line(n.summary)}"
             for n in report.notes]
    if not report.items:
        lines.append(f"No drift: stack {report.stack} matches what runs (in the sources checked).")
        return "\n".join([*lines, *notes]) + "\n"
    for source in SOURCES:
        items = [i for i in report.items if i.source == source]
        if not items:
            continue
        lines.append(f"{source}:")
        for i in items:
            mark = "!" if i.kind == "fault" else "~"
            lines.append(f"  {mark} {escape.one_line(i.address)}: {escape.one_line(i.summary)}")
            lines.append(f"      declared: {escape.one_line(_value(i.declared))}")
            lines.append(f"      observed: {escape.one_line(_value(i.observed))}")
    faults = sum(1 for i in report.items if i.kind == "fault")
    lines += notes
    lines.append("")
    lines.append(
        f"Drift: {len(report.items) - faults} difference(s), {faults} fault(s) in stack "
        f"{report.stack}."
    )
    return "\n".join(lines) + "\n"


def format_json(report: DriftReport) -> str:
    """Render the JSON document."""
    return json.dumps(to_json(report), indent=2, sort_keys=False, ensure_ascii=False) + "\n"


def _cell(text: str) -> str:
    """Return a value (a reason, an address, a label) as literal markdown text."""
    return escape.markdown(text, _MAX_VALUE)


def _code_cell(text: str) -> str:
    """Return a value as a code span in a table cell (a ``|`` would end the cell)."""
    return escape.code(text, _MAX_VALUE).replace("|", "\\|")


def _row(i: DriftItem) -> str:
    return (f"| {i.source}{' (fault)' if i.kind == 'fault' else ''} | {_code_cell(i.address)} | "
            f"{_cell(i.summary)} | {_cell(_value(i.declared))} | {_cell(_value(i.observed))} |")


def format_markdown(report: DriftReport, limit: int = MARKDOWN_LIMIT) -> str:
    """Render the report for a CI job summary or an issue, in at most ``limit`` characters.

    When the findings do not all fit, faults come first, the rows that fit are kept whole and
    a closing line says how many findings (and faults) were cut and where to read them all.
    """
    head = {
        "drift": f"{len(report.items):,} finding(s)",
        "no-drift": "no drift (in the sources checked)",
        "unknown": "unknown: no source could be checked",
    }[report.status]
    out = [
        f"<!-- gpupool-drift: {report.stack} -->",
        f"### gpupool drift: {escape.code(report.stack)}: {head}",
    ]
    out.append("")
    out.append(
        "Sources: "
        + ", ".join(
            f"{s.name} ✓" if s.checked else f"{s.name} skipped ({_cell(s.reason)})"
            for s in report.sources
        )
    )
    notes = (
        ["", *(f"- Note: {_code_cell(n.address)}: {_cell(n.summary)}" for n in report.notes)]
        if report.notes else []
    )
    if not report.items:
        return "\n".join([*out, *notes]) + "\n"
    out += ["", "| source | what | finding | declared | observed |", "|---|---|---|---|---|"]
    rows = [_row(i) for i in report.items]
    fixed = sum(len(line) + 1 for line in out) + sum(len(line) + 1 for line in notes)
    if sum(len(r) + 1 for r in rows) + fixed <= limit:
        return "\n".join([*out, *rows, *notes]) + "\n"
    # faults first (a GPU that fails matters more than a label), each group in report order
    ordered = sorted(report.items, key=lambda i: i.kind != "fault")
    budget = limit - fixed - 600
    kept = 0
    for item in ordered:
        row = _row(item)
        if len(row) + 1 > budget:
            break
        out.append(row)
        budget -= len(row) + 1
        kept += 1
    cut = ordered[kept:]
    faults = sum(1 for i in cut if i.kind == "fault")
    out += ["", (
        f"> :scissors: **Truncated**: {len(cut):,} of {len(report.items):,} findings "
        f"({faults:,} of them faults) were cut to keep this report under {limit:,} characters "
        "(GitHub's limit for an issue body is 65,536). Run `gpupool drift --format json` for "
        "all of them."
    )]
    out += notes
    return "\n".join(out) + "\n"


def render(report: DriftReport, fmt: str) -> str:
    """Render in ``text``, ``json`` or ``markdown``."""
    return {"json": format_json, "markdown": format_markdown}.get(fmt, format_text)(report)
