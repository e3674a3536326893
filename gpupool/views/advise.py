"""``gpupool advise`` in text, JSON and markdown."""

from __future__ import annotations

import json
from typing import Any

from gpupool import escape
from gpupool.advise.coverage import Coverage
from gpupool.advise.report import AdviseResult
from gpupool.advise.workload import (
    ALLOCATION_TOLERANCE,
    WAIT_TOLERANCE_SECONDS,
    Fidelity,
)
from gpupool.catalog import HOURS_PER_MONTH
from gpupool.formats import FORMAT_VERSION


def _who(tenant: str) -> str:
    return tenant or "(no tenant)"


def fidelity_json(f: Fidelity | None) -> dict[str, Any] | None:
    """Return the fidelity of the replay of today's stack as JSON (None: not measured)."""
    if f is None:
        return None
    return {
        "score": None if f.score is None else round(f.score, 4),
        "within_tolerance": f.within_tolerance,
        "off": f.off,
        "wait_p95_seconds": {_who(t): {"observed": round(o, 1), "simulated": round(v, 1)}
                             for t, (o, v) in f.waits.items()},
        "gpu_hours": {p: {"observed": round(o, 2), "simulated": round(v, 2)}
                      for p, (o, v) in f.gpu_hours.items()},
        "tolerance": {"wait_seconds": WAIT_TOLERANCE_SECONDS, "wait_share": 0.25,
                      "gpu_hours_share": ALLOCATION_TOLERANCE},
    }


def fidelity_line(f: Fidelity) -> str:
    """Return the fidelity in one line of text."""
    total = len(f.waits) + len(f.gpu_hours)
    within = total - len(f.off)
    score = "-" if f.score is None else f"{f.score:.2f}"
    figures = [f"wait p95 {_who(t)} {o / 60:.0f} min observed, {v / 60:.0f} min simulated"
               for t, (o, v) in f.waits.items()]
    figures += [f"{p} {o:,.0f} GPU-h observed, {v:,.0f} simulated"
                for p, (o, v) in f.gpu_hours.items()]
    return (f"Fidelity of today's stack replayed: {within} of {total} figures within tolerance "
            f"(score {score}): " + "; ".join(figures) + ".")


def _money(amount: float | None, currency: str) -> str:
    if amount is None:
        return "unknown"
    sign = "-" if amount < 0 else ""
    return f"{sign}{abs(amount):,.0f} {currency}/month"


def _confidence(c: Coverage) -> str:
    """Return a pool's confidence in words, with the reason where no rule judged it."""
    if c.confidence == "none":
        return "no GPU seen, not judged"
    if c.too_little_data:
        return f"{c.confidence} confidence (too little data to judge)"
    return f"{c.confidence} confidence"


def to_json(result: AdviseResult) -> dict[str, Any]:
    """Return the JSON document of an advise result."""
    ev = result.evidence
    return {
        "format_version": FORMAT_VERSION,
        "stack": result.stack,
        "window": {"seconds": ev.window_seconds, "end": ev.end, "queries": ev.queries},
        "currency": result.currency,
        "recommendations": [
            {
                "pool": r.pool,
                "tenant": r.tenant,
                "kind": r.kind,
                "summary": r.summary,
                "edit": {"path": r.path_text, "value": r.value},
                "saving_per_month": None if r.saving_per_month is None
                else round(r.saving_per_month, 2),
                "evidence": dict(r.evidence),
            }
            for r in result.recommendations
        ],
        "dropped": [
            {"kind": d.recommendation.kind, "pool": d.recommendation.pool,
             "edit": {"path": d.recommendation.path_text, "value": d.recommendation.value},
             "reason": d.reason}
            for d in result.dropped
        ],
        "gaps": list(result.gaps),
        "written": result.written,
        "replayed_workload": result.replayed,
        "fidelity": fidelity_json(result.fidelity),
        "workload": None if result.workload_file is None else {
            "file": result.workload_file, "pods": result.workload_pods,
            "observed_wait_p95_seconds": {t or "(no tenant)": round(w, 1)
                                          for t, w in result.observed_waits.items()},
        },
        "showback": {
            tenant: {"usd_per_hour": round(hourly, 4),
                     "usd_per_month": round(hourly * HOURS_PER_MONTH, 2)}
            for tenant, hourly in sorted(result.evidence.showback.items())
        },
        "coverage": {
            pool: {"gpus_seen": c.gpus_seen, "gpus_expected": c.gpus_expected,
                   "instances_seen": c.instances_seen, "samples": c.samples,
                   "hours": c.hours_seen, "window_hours": round(c.window_hours, 1),
                   "confidence": c.confidence}
            for pool, c in result.coverage.items()
        },
    }


def format_text(result: AdviseResult) -> str:
    """Return the text report: recommendations with their evidence, then drops and gaps."""
    ev = result.evidence
    lines = [
        f"Advice for stack {result.stack} from {ev.window_seconds / 86400:g} days of metrics "
        f"({ev.queries} queries):",
        "",
    ]
    if not result.recommendations:
        lines.append("No recommendation: nothing the evidence supports would save or protect.")
    for r in result.recommendations:
        lines.append(f"  [{r.kind}] {escape.one_line(r.summary)}")
        lines.append(f"    edit: {r.path_text} = {json.dumps(r.value)}")
        lines.append(f"    saving: {_money(r.saving_per_month, result.currency)}")
        figures = ", ".join(f"{k} {v}" for k, v in r.evidence.items())
        lines.append(f"    evidence: {escape.one_line(figures)}")
    if result.dropped:
        lines += ["", "Dropped (failed their check):"]
        lines += [f"  [{d.recommendation.kind}] {escape.one_line(d.recommendation.summary)}: "
                  f"{escape.one_line(d.reason)}"
                  for d in result.dropped]
    if result.gaps:
        lines += ["", "Not judged:"]
        lines += [f"  {escape.one_line(g)}" for g in result.gaps]
    if result.evidence.showback:
        lines += ["", "Observed cost (gpupool's showback rule, mean over the window):"]
        lines += [f"  {escape.one_line(t)}: ${h:,.2f}/h, ${h * HOURS_PER_MONTH:,.0f}/month"
                  for t, h in sorted(result.evidence.showback.items())]
    lines += ["", "Coverage:"]
    for pool, c in result.coverage.items():
        expected = "?" if c.gpus_expected is None else c.gpus_expected
        lines.append(f"  {pool}: {c.gpus_seen} of {expected} GPUs, {c.samples} samples over "
                     f"{c.hours_seen} of {c.window_hours:g} h: {_confidence(c)}")
    if result.workload_file:
        waits = ", ".join(f"{t or '(no tenant)'} {w / 60:.0f} min"
                          for t, w in result.observed_waits.items())
        lines += ["", f"Wrote the workload of {result.workload_pods} pods to "
                      f"{result.workload_file} (observed p95 waits: {waits or 'none'})."]
    elif result.replayed is not None or result.fidelity is not None:
        lines.append("")
    if result.fidelity is not None:
        lines.append(escape.one_line(fidelity_line(result.fidelity)))
    if result.replayed is not None:
        lines.append(f"Queue waits checked by replaying {escape.one_line(result.replayed)} "
                     "before and after each edit.")
    if result.written:
        lines += ["", f"Wrote {result.written}: review it with "
                      f"`gpupool plan {result.written} --base {result.file}`."]
    return "\n".join(lines) + "\n"


_MAX_VALUE = 500  # characters of one value in a markdown cell


def _cell(text: str) -> str:
    """Return a value as literal markdown in a table cell (a label from the server included)."""
    return escape.markdown(text, _MAX_VALUE)  # pipes escaped too


def _code(text: str) -> str:
    return escape.code(text, _MAX_VALUE).replace("|", "\\|")


def format_markdown(result: AdviseResult) -> str:
    """Return the report as a pull-request comment section."""
    out = [f"### gpupool advise: {_code(result.stack)}", ""]
    if result.recommendations:
        out += ["| kind | pool or tenant | edit | saving | why |", "|---|---|---|---|---|"]
        for r in result.recommendations:
            who = r.pool or r.tenant or ""
            edit = f"{_code(r.path_text)} = {_code(json.dumps(r.value))}"
            out.append(f"| {r.kind} | {_cell(who)} | {edit} | "
                       f"{_money(r.saving_per_month, result.currency)} | {_cell(r.summary)} |")
    else:
        out.append("No recommendation.")
    if result.dropped:
        out += ["", "**Dropped** (failed their check):", ""]
        for d in result.dropped:
            r = d.recommendation
            out.append(f"- {r.kind} {_cell(r.pool or r.tenant or '')}: {_cell(d.reason)}")
    if result.replayed is not None:
        out += ["", f"Queue waits checked by replaying {_code(result.replayed)} before and "
                    "after each edit."]
    if result.fidelity is not None:
        out += ["", _cell(fidelity_line(result.fidelity))]
    if result.gaps:
        out += ["", "<details><summary>Not judged</summary>", ""]
        out += [f"- {_cell(g)}" for g in result.gaps]
        out += ["", "</details>"]
    return "\n".join(out) + "\n"


def render(result: AdviseResult, fmt: str) -> str:
    """Return the result in ``fmt`` (text, json, markdown)."""
    if fmt == "json":
        return json.dumps(to_json(result), indent=2, sort_keys=False) + "\n"
    if fmt == "markdown":
        return format_markdown(result)
    return format_text(result)
