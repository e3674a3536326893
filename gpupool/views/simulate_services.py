"""The services of a simulation as text, markdown (with a Mermaid chart) and JSON.

This module owns how ``gpupool simulate`` shows each traced service's counters
(``gpupool.simulate.services.actor``) after the batch report: without a base, one table row
per service; with ``--base``, per service a table of its figures side by side (base, head, the
change). The markdown adds, per service, a Mermaid ``xychart-beta`` of the demand and the ready
capacity (ready replicas x ``capacityPerReplica``) over simulated hours, the base's lines first.
The JSON's ``services[]`` is every counter and the timeline, each entry with the base's under
``base`` (None where the base has no such service or no base was given). Views compute nothing
the counters do not hold, except the capacity line (a product) and the chart's sampling.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gpupool.escape import markdown as md

CHART_POINTS = 25
Entry = Mapping[str, Any]


def _money(x: float | None, currency: str | None) -> str:
    if x is None:
        return "-"
    return f"{x:,.2f}" + (f" {currency}" if currency else "")


def _delay(s: Entry) -> str:
    mean = s["cold_start_delay_seconds"]["mean"]
    return str(s["cold_starts"]) + ("" if mean is None else f" ({mean:,.0f}s)")


def _blocked(s: Entry) -> str:
    causes = s["blocked_scale_ups"]
    if not causes:
        return "0"
    names = {"nodes_max": "pool nodes.max", "tenant_limit": "tenant limit"}
    return ", ".join(f"{n} {names.get(k, k)}" for k, n in causes.items())


#: (label, how a service's entry shows it, its number for the change, or None)
FIGURES: tuple[tuple[str, Callable[[Entry], str], Callable[[Entry], float | None] | None], ...] = (
    ("requests", lambda s: f"{s['requests']:,.0f}", lambda s: s["requests"]),
    ("served in time", lambda s: f"{s['served_in_slo']:,.0f}", lambda s: s["served_in_slo"]),
    ("not served in time", lambda s: f"{s['not_served_share']:.1%}",
     lambda s: s["not_served_share"]),
    ("minutes short", lambda s: f"{s['minutes_short']:,.1f}", lambda s: s["minutes_short"]),
    ("replicas min/mean/max (ready at peak)",
     lambda s: f"{s['replicas']['min']}/{s['replicas']['mean']:.1f}/{s['replicas']['max']} "
               f"({s['replicas']['at_peak']})", None),
    ("cold starts (mean delay)", _delay, lambda s: s["cold_starts"]),
    ("scale-ups blocked", _blocked, None),
    ("GPU-hours", lambda s: f"{s['gpu_hours']:,.2f}", lambda s: s["gpu_hours"]),
    ("cost", lambda s: _money(s["cost"], s.get("currency")), lambda s: s["cost"]),
    ("cost per million in time", lambda s: _money(s["cost_per_million"], s.get("currency")),
     lambda s: s["cost_per_million"]),
)


def _change(head: Entry, base: Entry, number: Callable[[Entry], float | None] | None) -> str:
    """Return head less base as the figure shows it (a share's in points)."""
    if number is None:
        return ""
    h, b = number(head), number(base)
    if h is None or b is None:
        return "-"
    diff = h - b
    if abs(diff) < 1e-9:
        return "="
    sign = "+" if diff > 0 else "-"
    if number is FIGURES[2][2]:
        return f"{sign}{abs(diff) * 100:.1f} pts"
    if float(diff).is_integer() and abs(diff) >= 1:
        return f"{sign}{abs(diff):,.0f}"
    return f"{sign}{abs(diff):,.2f}"


def _rows(services: Sequence[Entry], base: Sequence[Entry] | None
          ) -> list[tuple[str, list[str], list[list[str]]]]:
    """Return (title, header, rows) tables: one of every service, or one per service."""
    if base is None:
        header = ["service", *(label for label, _, _ in FIGURES)]
        rows = [[s["service"], *(show(s) for _, show, _ in FIGURES)] for s in services]
        return [("", header, rows)]
    by_name = {b["service"]: b for b in base}
    out = []
    for s in services:
        b = by_name.get(s["service"])
        rows = []
        for label, show, number in FIGURES:
            rows.append([label, "-" if b is None else show(b), show(s),
                         "" if b is None else _change(s, b, number)])
        out.append((s["service"], ["", "base", "head", "change"], rows))
    return out


def _refused(services: Sequence[Entry]) -> list[str]:
    return [f"{s['service']}: its replicas were refused: {s['refused']}"
            for s in services if s.get("refused")]


def text(services: Sequence[Entry], base: Sequence[Entry] | None) -> str:
    """Return the services' section of the text report."""
    out = ["", "Services (replicas beside the jobs, on the same pools and scheduler):"]
    for title, header, rows in _rows(services, base):
        if title:
            out.append(f"  {title}")
        table = [header, *rows]
        widths = [max(len(r[i]) for r in table) for i in range(len(header))]
        for row in table:
            cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:],
                                                                           strict=True)]
            out.append("  " + "  ".join(cells).rstrip())
    out += [f"  {line}" for line in _refused(services)]
    return "\n".join(out) + "\n"


def _sampled(entry: Entry, hours: float, capacity: float | None) -> tuple[list[float], list[float]]:
    """Return demand and ready capacity (rps) at ``CHART_POINTS`` instants over ``hours``."""
    timeline = entry["timeline"]
    demand, ready = [], []
    i = 0
    for k in range(CHART_POINTS):
        t = hours * 3600 * k / (CHART_POINTS - 1)
        while i + 1 < len(timeline) and timeline[i + 1]["seconds"] <= t:
            i += 1
        point = timeline[i] if timeline else {"demand_rps": 0.0, "ready_replicas": 0}
        demand.append(round(float(point["demand_rps"]), 1))
        ready.append(round(point["ready_replicas"] * (capacity or 0.0), 1))
    return demand, ready


def chart(entry: Entry, base: Entry | None, capacity: float | None) -> list[str]:
    """Return a Mermaid chart of one service's demand and ready capacity (base lines first)."""
    runs = [e for e in (base, entry) if e is not None and e["timeline"]]
    if not runs:
        return []
    hours = max(e["timeline"][-1]["seconds"] for e in runs) / 3600
    if hours <= 0:
        return []
    xs = ", ".join(f"{hours * k / (CHART_POINTS - 1):.1f}" for k in range(CHART_POINTS))
    which = " (base, then head)" if len(runs) > 1 else ""
    title = f"{entry['service']}: demand and ready capacity, requests per second{which}"
    out = ["```mermaid", "xychart-beta", f'    title "{title}"',  # a DNS label: nothing to escape
           f'    x-axis "hours" [{xs}]', '    y-axis "requests per second"']
    for run in runs:
        demand, ready = _sampled(run, hours, capacity)
        out.append(f"    line [{', '.join(f'{v:g}' for v in demand)}]")
        out.append(f"    line [{', '.join(f'{v:g}' for v in ready)}]")
    return [*out, "```"]


def markdown(services: Sequence[Entry], base: Sequence[Entry] | None,
             capacities: Mapping[str, float | None]) -> str:
    """Return the services' section of the pull-request comment, charts included."""
    out = ["", "**Services**", ""]
    for title, header, rows in _rows(services, base):
        if title:
            out += [f"*{md(title, 80)}*", ""]
        out.append("| " + " | ".join(md(h) for h in header) + " |")
        out.append("|" + "---|" * len(header))
        out += ["| " + " | ".join(md(c, 200) for c in row) + " |" for row in rows]
        out.append("")
    out += [f"- {md(line, 300)}" for line in _refused(services)]
    by_name = {b["service"]: b for b in base or ()}
    for s in services:
        graph = chart(s, by_name.get(s["service"]), capacities.get(s["service"]))
        if graph:
            out += [*([""] if out[-1] else []), *graph, ""]
    return "\n".join(out).rstrip("\n") + "\n"


def entries(services: Sequence[Entry], base: Sequence[Entry] | None) -> list[dict[str, Any]]:
    """Return the JSON's ``services[]``: each service's counters, the base's under ``base``."""
    by_name = {b["service"]: b for b in base or ()}
    return [{**s, "base": by_name.get(s["service"])} for s in services]
