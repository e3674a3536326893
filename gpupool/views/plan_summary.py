"""The summary a plan leads with, and all ``gpupool plan --summary`` prints.

This module owns what a reviewer reads first, in every format: how the stack and its base are
named (``header``, ``describe_base``), the counts of changes (and of
replacements), what the stack costs a month at nodes.min and nodes.max and how much that
changes against the base, and the stack file's warnings (its advice counted, listed further
down). ``summary_lines`` is the text form (``plan_text`` puts it under the header),
``summary_json`` the JSON document of ``--summary --format json`` and ``diagnostics_json`` the
plan document's ``diagnostics`` list (``validate --format json``'s shape). The markdown comment
leads with the same figures in its own layout (``plan_markdown``).
"""

from __future__ import annotations

from typing import Any

from gpupool.escape import one_line
from gpupool.formats import FORMAT_VERSION
from gpupool.plan import HOURS_PER_MONTH, Base, MinMax, PlanResult
from gpupool.spec.diagnostics import Diagnostic
from gpupool.views import json_text
from gpupool.views.plan_numbers import delta, elsewhere_mark, money, monthly


def describe_base(base: Base) -> str:
    """Return a short phrase naming the base, for the plan's header."""
    if base.kind == "recorded":
        return f"last applied graph ({base.ref})"
    if base.kind == "file":
        return f"stack file {base.ref}"
    if base.kind == "git" and base.graph is None:
        return f"git revision {base.ref}: empty"
    if base.kind == "git":
        return f"git revision {base.ref}"
    return "empty (every resource is new)"


def header(result: PlanResult) -> list[str]:
    """Return the lines naming the stack and the base."""
    where = f"{result.cloud}, {one_line(result.region)}" if result.region else result.cloud
    base = f"Base: {one_line(describe_base(result.base))}"
    if result.base.note:
        base += f"; {one_line(result.base.note)}"
    return [f"gpupool plan: stack {result.stack} ({where})", base]


def counts(result: PlanResult) -> str:
    """Return Terraform's counts (``10 to add, 0 to change, 0 to destroy.``), or no changes."""
    if not result.has_changes:
        return "No changes. The GPU pools match the base."
    s = result.summary
    line = f"{s.add} to add, {s.change} to change, {s.destroy} to destroy."
    return line + (f" {s.replace} replacement{'s' * (s.replace != 1)}." if s.replace else "")


def where(d: Diagnostic) -> str:
    """Return a diagnostic's ``file:line:col``, or an empty text where it has no source."""
    r = d.range
    return "" if r is None else f"{one_line(r.filename)}:{r.start.line}:{r.start.column}"


def one_diagnostic(d: Diagnostic) -> str:
    """Return a diagnostic on one line, as compilers write it: ``file:line:col: summary [code]``."""
    at = where(d)
    return f"{at + ': ' if at else ''}{one_line(d.summary)} [{d.code}]"


def summary_lines(result: PlanResult) -> list[str]:
    """Return the ``Summary:`` block: changes, cost a month and its change, warnings, advice."""
    cost, cur = result.cost, result.cost.currency
    mark = elsewhere_mark(result)
    lines = ["Summary:", f"  Changes: {counts(result)}"]
    lines.append(
        f"  Cost a month ({cur}, at nodes.min to nodes.max): "
        f"{money(cost.monthly, monthly, cur)}{mark}, "
        f"a change of {money(cost.delta_monthly, delta, cur)}{mark} against the base."
    )
    warnings = result.warnings
    if warnings:
        lines.append(f"  Warnings: {len(warnings)}")
        lines += [f"    {one_diagnostic(d)}" for d in warnings]
    else:
        lines.append("  Warnings: none")
    if result.advice:
        n = len(result.advice)
        lines.append(f"  Advice: {n} item{'s' * (n != 1)} that would save money, listed at the end")
    return lines


def format_summary_text(result: PlanResult) -> str:
    """Render only the header and the summary (``gpupool plan --summary``)."""
    return "\n".join([*header(result), "", *summary_lines(result)]) + "\n"


def diagnostics_json(result: PlanResult) -> list[dict[str, Any]]:
    """Return the stack file's warnings and advice as ``validate --format json`` writes them."""
    return [d.to_json() for d in result.diagnostics]


def _mm(mm: MinMax) -> dict[str, float | None]:
    """Return an amount at both ends rounded to the cent (``null`` where unknown)."""
    return {end: None if v is None else round(v, 2) for end, v in (("min", mm.min),
                                                                    ("max", mm.max))}


def summary_json(result: PlanResult) -> dict[str, Any]:
    """Return the ``--summary --format json`` document: the plan document's leading keys.

    ``format_version``, ``stack``, ``base``, ``summary`` and ``diagnostics`` as the whole
    document has them, and ``cost`` with its totals only (no pools, tenants or pins).
    """
    cost, s = result.cost, result.summary
    return {
        "format_version": FORMAT_VERSION,
        "stack": result.stack,
        "base": {"kind": result.base.kind, "ref": result.base.ref, "note": result.base.note},
        "summary": {"add": s.add, "change": s.change, "destroy": s.destroy, "replace": s.replace},
        "cost": {
            "currency": cost.currency,
            "monthly": _mm(cost.monthly),
            "deltaMonthly": _mm(cost.delta_monthly),
            "baseMonthly": _mm(cost.base_hourly.scaled(HOURS_PER_MONTH)),
            "priceRegion": cost.price_region,
            "unpriced": list(cost.unpriced),
        },
        "diagnostics": diagnostics_json(result),
    }


def format_summary_json(result: PlanResult) -> str:
    """Render the ``--summary --format json`` document."""
    return json_text.dumps(summary_json(result), indent=2) + "\n"
