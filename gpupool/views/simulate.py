"""Output of ``gpupool simulate``: a run's figures as text, JSON or a pull-request section.

Capacity mode (``--saturate``) reads as the allocation curve, with ``render_capacity``.

This module owns how a ``simulate.report.Report`` reads: per tenant (pods, waits, preemptions,
spot interruptions, GPU-hours, cost) and per pool (allocation, fragmentation, idle GPU-hours,
node-hours, peak nodes, cost), the reasons pods did not run, and, with a base run, every
figure beside its change from the base.
Where the run followed checkpoints, a section splits the GPU-hours lost and shows intervals and
downtime (``simulate_checkpoints``).
The markdown form adds a Mermaid chart of queued pods and allocated GPUs over time (base and
head). JSON is ``simulate.report.document``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gpupool.escape import markdown as md
from gpupool.formats import FORMAT_VERSION
from gpupool.simulate import autoscaler
from gpupool.simulate.report import PoolFigures, Report, TenantFigures, document
from gpupool.simulate.saturate import Saturation
from gpupool.views import Output, simulate_services
from gpupool.views import simulate_checkpoints as ckpt

Number = float | int | None


def _duration(seconds: Number) -> str:
    if seconds is None:
        return "-"
    s = round(float(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{(s % 3600) // 60:02d}m"


def _num(x: Number, digits: int = 1) -> str:
    if x is None:
        return "-"
    if isinstance(x, int):
        return str(x)
    return f"{x:,.{digits}f}"


def _pct(x: Number) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _money(x: Number, currency: str) -> str:
    return "-" if x is None else f"{x:,.2f} {currency}"


def _delta(head: Number, base: Number, show: Callable[[Number], str]) -> str:
    """``head`` shown, and its change from ``base`` when there is a base."""
    if base is None and head is None:
        return "-"
    if head is None:
        return f"- (was {show(base)})"
    if base is None:
        return show(head)
    diff = head - base
    if abs(diff) < 1e-9:
        return f"{show(head)} (=)"
    sign = "+" if diff > 0 else "-"
    return f"{show(head)} ({sign}{show(abs(diff))})"


def _cell(head: Number, base: Number, show: Callable[[Number], str], has_base: bool) -> str:
    return _delta(head, base, show) if has_base else show(head)


def _tenant_rows(r: Report, base: Report | None) -> tuple[list[str], list[list[str]]]:
    header = ["tenant", "submitted", "started", "rejected", "never started", "wait p50",
              "wait p95", "wait max", "preempted", "interrupted", "GPU-h lost", "GPU-h", "cost"]
    before = {t.tenant: t for t in base.tenants} if base else {}
    rows = []
    names = [t.tenant for t in r.tenants] + [n for n in before if n not in
                                             {t.tenant for t in r.tenants}]
    own = {t.tenant: t for t in r.tenants}
    for name in names:
        h, b = own.get(name), before.get(name)
        rows.append([name, *_tenant_cells(h, b, r.currency, base is not None)])
    return header, rows


def _tenant_cells(h: TenantFigures | None, b: TenantFigures | None, currency: str,
                  has_base: bool) -> list[str]:
    def get(t: TenantFigures | None, f: Callable[[TenantFigures], Number]) -> Number:
        return None if t is None else f(t)

    def money(x: Number) -> str:
        return _money(x, currency)

    fields: list[tuple[Callable[[TenantFigures], Number], Callable[[Number], str]]] = [
        (lambda t: t.submitted, _num), (lambda t: t.started, _num),
        (lambda t: t.rejected, _num), (lambda t: t.never_started, _num),
        (lambda t: t.wait.p50, _duration), (lambda t: t.wait.p95, _duration),
        (lambda t: t.wait.max, _duration), (lambda t: t.preemptions, _num),
        (lambda t: t.interruptions, _num), (lambda t: t.gpu_hours_lost, _num),
        (lambda t: t.gpu_hours, _num),
        (lambda t: t.cost, money),
    ]
    return [_cell(get(h, f), get(b, f), show, has_base) for f, show in fields]


def _pool_rows(r: Report, base: Report | None) -> tuple[list[str], list[list[str]]]:
    header = ["pool", "allocation", "fragmentation", "GPU-h", "idle GPU-h", "node-h",
              "peak nodes", "cost"]
    before = {p.pool: p for p in base.pools} if base else {}
    own = {p.pool: p for p in r.pools}
    names = [p.pool for p in r.pools] + [n for n in before if n not in own]
    rows = []

    def money(x: Number) -> str:
        return _money(x, r.currency)

    fields: list[tuple[Callable[[PoolFigures], Number], Callable[[Number], str]]] = [
        (lambda p: p.allocation_ratio, _pct), (lambda p: p.fragmentation, _pct),
        (lambda p: p.gpu_hours, _num), (lambda p: p.idle_gpu_hours, _num),
        (lambda p: p.node_hours, _num), (lambda p: p.peak_nodes, _num), (lambda p: p.cost, money),
    ]
    for name in names:
        h, b = own.get(name), before.get(name)
        cells = [name]
        for f, show in fields:
            hv = None if h is None else f(h)
            bv = None if b is None else f(b)
            cells.append(_cell(hv, bv, show, base is not None))
        rows.append(cells)
    return header, rows


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(header[i]), *(len(r[i]) for r in rows)) if rows else len(header[i])
              for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        first = cells[0].ljust(widths[0])
        rest = [c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
        return "  ".join([first, *rest]).rstrip()

    return [line(header), *(line(r) for r in rows)]


def _reasons(r: Report) -> list[tuple[str, int, str]]:
    out = []
    for t in r.tenants:
        for reason, pods in t.reasons.items():
            out.append((t.tenant, pods, reason))
    return out


def _headline(r: Report, base: Report | None) -> list[str]:
    p = r.pods
    lines = [
        f"Simulation of stack {r.stack} with workload {r.workload} (seed {r.seed}, scheduler "
        f"{r.scheduler}): {r.hours:,.1f} simulated hours",
        f"Pods: {p['submitted']} submitted, {p['started']} started, {p['rejected']} rejected, "
        f"{p['never_started']} never started",
    ]
    if base is not None:
        b = base.pods
        lines.append(
            f"Base: stack {base.stack}: {b['submitted']} submitted, {b['started']} started, "
            f"{b['rejected']} rejected, {b['never_started']} never started; figures below "
            "are the head's, with (change from the base)"
        )
    return lines


def _shortages(r: Report, base: Report | None) -> list[str]:
    """One line per pool whose spot nodes the cloud could not always fill (head, and base)."""
    out = []
    for label, rep in (("", r), ("base: ", base)):
        if rep is None:
            continue
        for p in rep.pools:
            if p.spot_unfilled:
                out.append(
                    f"{label}{p.pool}: {p.spot_unfilled} spot node{'s' * (p.spot_unfilled != 1)} "
                    f"asked for could not be had; the autoscaler waited "
                    f"{autoscaler.MAX_NODE_PROVISION_SECONDS / 60:.0f}m for each, then backed "
                    "the spot group off (on-demand fallback grows meanwhile)"
                )
    return out


def _fallbacks(r: Report, base: Report | None) -> list[str]:
    """One line per pool that grew on-demand nodes in place of spot ones (head, and base)."""
    out = []
    for label, rep in (("", r), ("base: ", base)):
        if rep is None:
            continue
        for p in rep.pools:
            if not p.fallback_nodes:
                continue
            why = []
            if p.fallback_at_max:
                why.append(f"{p.fallback_at_max} at its nodes.max, counting draining and "
                           "provisioning spot nodes")
            if p.fallback_backed_off:
                why.append(f"{p.fallback_backed_off} backed off")
            share = f" of {_num(p.gpu_hours)}" if p.gpu_hours else ""
            out.append(
                f"{label}{p.pool}: {p.fallback_nodes} on-demand "
                f"node{'s' * (p.fallback_nodes != 1)} grown because the spot group could not "
                f"grow ({'; '.join(why)}); {_num(p.fallback_gpu_hours)}{share} GPU-hours ran "
                "on them, at the on-demand price, never interrupted"
            )
    return out


def _unshared(r: Report, base: Report | None) -> list[str]:
    """One line per pool where ``fraction`` pods ran though it shares no GPU by fraction."""
    out = []
    for label, rep in (("", r), ("base: ", base)):
        if rep is None:
            continue
        for p in rep.pools:
            n = p.fraction_unshared_pods
            if n:
                out.append(
                    f"{label}{p.pool} shares no GPU by fraction, yet {n} "
                    f"pod{'s' * (n != 1)} of fraction rows ran on it: each was given and "
                    f"billed {p.fraction_given}")
    return out


def _checkpoint_lines(r: Report, base: Report | None, title: str,
                      table: Callable[[Sequence[str], Sequence[Sequence[str]]], list[str]],
                      note: Callable[[str], str]) -> list[str]:
    """Return the checkpoint section (``views.simulate_checkpoints``); none without one."""
    if not ckpt.present(r, base):
        return []
    tables = ckpt.sections(r, base, _cell, lambda x: _num(x, 2), _duration, _pct)
    return ["", title, "", *ckpt.lines(tables, table, note)]


def format_text(r: Report, base: Report | None = None) -> str:
    """Render a run (and its base) as text tables."""
    lines = [*_headline(r, base), "", "Tenants"]
    lines += _table(*_tenant_rows(r, base))
    lines += ["", "Pools"]
    lines += _table(*_pool_rows(r, base))
    lines += _checkpoint_lines(r, base, "Checkpoints", _table, lambda text: text)
    short = _shortages(r, base)
    if short:
        lines += ["", "Spot capacity short", *(f"  {line}" for line in short)]
    fell = _fallbacks(r, base)
    if fell:
        lines += ["", "On-demand fallback", *(f"  {line}" for line in fell)]
    unshared = _unshared(r, base)
    if unshared:
        lines += ["", "Fractions on unshared pools", *(f"  {line}" for line in unshared)]
    reasons = _reasons(r)
    if reasons:
        lines += ["", "Pods that did not run"]
        lines += [f"  {tenant}: {pods} pod{'s' * (pods != 1)}: {why}"
                  for tenant, pods, why in reasons]
    return "\n".join(lines) + "\n"


def _md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    align = ["---", *("---:" for _ in header[1:])]
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    for row in rows:
        out.append("| " + " | ".join([md(row[0], 60), *row[1:]]) + " |")
    return out


CHART_POINTS = 25
"""Points of each line in the markdown charts (the JSON timeline keeps more)."""


def _sampled(rep: Report, index: int, hours: float) -> list[float]:
    """Return the timeline column ``index`` at ``CHART_POINTS`` instants over ``hours`` hours."""
    out = []
    points = rep.timeline
    i = 0
    last = 0.0
    for k in range(CHART_POINTS):
        t = hours * 3600 * k / (CHART_POINTS - 1)
        while i < len(points) and points[i][0] <= t + 1e-6:
            last = float(points[i][index])
            i += 1
        out.append(round(last, 2))
    return out


def chart(r: Report, base: Report | None = None) -> list[str]:
    """Return Mermaid xycharts of allocated GPUs and queued pods over time (base and head).

    Each line is the run's step values at ``CHART_POINTS`` instants over the longer run's
    simulated hours; with a base, its line comes first. Empty when the run has no timeline.
    """
    if len(r.timeline) < 2:
        return []
    hours = max(r.hours, base.hours if base else 0.0)
    if hours <= 0:
        return []
    xs = ", ".join(f"{hours * k / (CHART_POINTS - 1):.1f}" for k in range(CHART_POINTS))
    runs = [base, r] if base is not None and len(base.timeline) >= 2 else [r]
    out: list[str] = []
    for index, what, axis in ((2, "Allocated GPUs", "GPUs"), (1, "Queued pods", "pods")):
        title = f"{what} over simulated hours" + (" (base, then head)" if len(runs) > 1 else "")
        out += ["```mermaid", "xychart-beta", f'    title "{title}"',
                f'    x-axis "hours" [{xs}]', f'    y-axis "{axis}"']
        for run in runs:
            assert run is not None
            values = ", ".join(f"{v:g}" for v in _sampled(run, index, hours))
            out.append(f"    line [{values}]")
        out += ["```", ""]
    return out[:-1]


def format_markdown(r: Report, base: Report | None = None) -> str:
    """Render a run (and its base) as a pull-request comment section."""
    title = f"### Simulation: {md(r.stack, 80)}" + (f" against {md(base.stack, 80)}"
                                                    if base else "")
    lines = [title, ""]
    lines += [md(line) for line in _headline(r, base)]
    lines += ["", "**Tenants**", ""]
    lines += _md_table(*_tenant_rows(r, base))
    lines += ["", "**Pools**", ""]
    lines += _md_table(*_pool_rows(r, base))
    lines += _checkpoint_lines(r, base, "**Checkpoints**", _md_table, md)
    short = _shortages(r, base)
    if short:
        lines += ["", "**Spot capacity short**", "", *(f"- {md(line, 300)}" for line in short)]
    fell = _fallbacks(r, base)
    if fell:
        lines += ["", "**On-demand fallback**", "", *(f"- {md(line, 300)}" for line in fell)]
    unshared = _unshared(r, base)
    if unshared:
        lines += ["", "**Fractions on unshared pools**", "",
                  *(f"- {md(line, 300)}" for line in unshared)]
    reasons = _reasons(r)
    if reasons:
        lines += ["", "<details><summary>Pods that did not run</summary>", ""]
        lines += [f"- {md(t, 60)}: {n} pod{'s' * (n != 1)}: {md(why, 300)}"
                  for t, n, why in reasons]
        lines += ["", "</details>"]
    graph = chart(r, base)
    if graph:
        lines += ["", *graph]
    return "\n".join(lines) + "\n"


def format_json(r: Report, base: Report | None = None,
                jobs: Mapping[str, object] | None = None) -> str:
    """Render a run (and its base under ``base``) as its JSON document.

    ``jobs``: the per-job records' summary (``--jobs``), under ``jobs``.
    """
    doc = document(r, base)
    if jobs is not None:
        doc["jobs"] = dict(jobs)
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def render(r: Report, fmt: str, base: Report | None = None,
           services: Sequence[Mapping[str, Any]] | None = None,
           base_services: Sequence[Mapping[str, Any]] | None = None,
           capacities: Mapping[str, float | None] | None = None,
           jobs: Mapping[str, object] | None = None) -> Output:
    """Render a run as ``text``, ``json`` or ``markdown``; its services after the batch report.

    ``services``: the traced services' counters (None: no trace, nothing shown);
    ``capacities``: each service's ``capacityPerReplica``, for the chart's capacity line;
    ``jobs``: the per-job records' summary (see ``format_json``), noted on standard error.
    """
    side = base_services if base is not None else None
    if fmt == "json":
        doc = document(r, base)
        if jobs is not None:
            doc["jobs"] = dict(jobs)
        if services is not None:
            doc["services"] = simulate_services.entries(services, side)
        return Output(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", "")
    formats: dict[str, Callable[[Report, Report | None], str]] = {
        "text": format_text, "markdown": format_markdown,
    }
    out = formats[fmt](r, base)
    if services is not None:
        out += (simulate_services.markdown(services, side, capacities or {}) if fmt == "markdown"
                else simulate_services.text(services, side))
    notes = ""
    if jobs is not None:
        notes = f"wrote {jobs['records']:,} job records to {jobs['file']}\n"
    return Output(out, notes)


CAPACITY_STEP = 10
"""Text and markdown show the capacity curve every this many percent (JSON: every percent)."""


def _saturation_json(stack: str, workload: str, seed: int, s: Saturation) -> dict[str, object]:
    return {
        "format_version": FORMAT_VERSION,
        "stack": stack,
        "workload": workload,
        "seed": seed,
        "capacity_gpus": round(s.capacity_gpus, 4),
        "pods": s.pods,
        "failed": s.failed,
        "saturation": {"arrived_percent": list(s.arrived_percent),
                       "allocated_percent": list(s.allocated_percent)},
    }


def _steps(s: Saturation) -> list[int]:
    top = s.arrived_percent[-1]
    steps = list(range(0, top + 1, CAPACITY_STEP))
    return steps if steps[-1] == top else [*steps, top]


def render_capacity(stack: str, workload: str, seed: int, head: Saturation, fmt: str,
                    base: Saturation | None = None, base_stack: str | None = None) -> Output:
    """Render capacity mode's curve (and the base's) as ``text``, ``json`` or ``markdown``."""
    if fmt == "json":
        doc = _saturation_json(stack, workload, seed, head)
        if base is not None:
            doc["base"] = _saturation_json(base_stack or "", workload, seed, base)
        return Output(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", "")
    has_base = base is not None
    header = ["GPU requests arrived", "allocated"]
    rows = []
    for k in _steps(head):
        b = base.allocated_percent[k] if base is not None and k < len(base.allocated_percent) \
            else None
        h = head.allocated_percent[k]
        rows.append([f"{k}%", _cell(h, b, lambda x: "-" if x is None else f"{x:.1f}%",
                                    has_base)])
    intro = (f"Capacity of stack {stack} for the pod shapes of {workload} (seed {seed}): "
             f"{head.capacity_gpus:,.0f} GPUs at the pools' most nodes; {head.pods} pods "
             f"drawn, {head.failed} fit nowhere")
    extra = []
    if base is not None:
        extra.append(f"Base: stack {base_stack}: {base.capacity_gpus:,.0f} GPUs; {base.pods} "
                     f"pods drawn, {base.failed} fit nowhere; allocation is the head's, with "
                     "(change from the base)")
    if fmt == "markdown":
        lines = [f"### Capacity: {md(stack, 80)}", "", md(intro), *(md(e) for e in extra), ""]
        lines += _md_table(header, rows)
        xs = ", ".join(str(k) for k in _steps(head))
        lines += ["", "```mermaid", "xychart-beta",
                  '    title "Allocated share of GPUs by share of GPU requests arrived'
                  + (' (base, then head)"' if has_base else '"'),
                  f'    x-axis "arrived %" [{xs}]', '    y-axis "allocated %" 0 --> 100']
        for run in ([base] if base is not None else []) + [head]:
            vals = [run.allocated_percent[k] if k < len(run.allocated_percent) else None
                    for k in _steps(head)]
            lines.append("    line [" + ", ".join(f"{v or 0:g}" for v in vals) + "]")
        lines.append("```")
        return Output("\n".join(lines) + "\n", "")
    return Output("\n".join([intro, *extra, "", *_table(header, rows)]) + "\n", "")


def with_plan(plan_output: str, fmt: str, head: Report, base: Report | None = None, *,
              services: Sequence[Mapping[str, Any]] | None = None,
              base_services: Sequence[Mapping[str, Any]] | None = None,
              capacities: Mapping[str, float | None] | None = None) -> str:
    """Return a plan's output with the simulated section after it (``plan --workload``).

    Text and markdown append the section, its services after the batch report as ``render``
    writes them; JSON adds the simulation's document to the plan's under ``simulation``, with
    ``services`` in it where a trace ran.
    """
    if fmt == "json":
        doc = json.loads(plan_output)
        section_doc = json.loads(render(head, fmt, base, services, base_services).result)
        doc["simulation"] = section_doc
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    section = render(head, fmt, base, services, base_services, capacities).result
    return plan_output.rstrip("\n") + "\n\n" + section
