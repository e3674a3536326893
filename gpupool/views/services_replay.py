"""The standalone services replay as text, JSON or markdown (``gpupool simulate --requests``).

This module owns how the per-service counters of ``gpupool.simulate.services.run`` are shown:
a table in text and markdown (one row per service), and the JSON document ``{"stack",
"services": [...]}`` with every counter and the timeline (docs/services-simulation.md, What is
counted).
"""

from __future__ import annotations

import json
from typing import Any

from gpupool.escape import markdown

FORMAT_VERSION = 1
_HEAD = ("service", "requests", "in time", "not in time", "minutes short", "replicas",
         "cold starts", "GPU-h", "cost", "cost per million in time")


def _row(s: dict[str, Any]) -> tuple[str, ...]:
    r = s["replicas"]
    unit = f" {s['currency']}" if s.get("currency") else ""
    cost = "-" if s["cost"] is None else f"{s['cost']:,.2f}{unit}"
    per = "-" if s["cost_per_million"] is None else f"{s['cost_per_million']:,.2f}{unit}"
    return (s["service"], f"{s['requests']:,.0f}", f"{s['served_in_slo']:,.0f}",
            f"{s['not_served_share']:.1%}", f"{s['minutes_short']:,.1f}",
            f"{r['min']}/{r['mean']:.1f}/{r['max']}", str(s["cold_starts"]),
            f"{s['gpu_hours']:,.2f}", cost, per)


def render(stack: str, services: list[dict[str, Any]], fmt: str) -> str:
    """Return the replay's report in ``fmt`` (``text``, ``json`` or ``markdown``)."""
    if fmt == "json":
        return json.dumps({"format_version": FORMAT_VERSION, "stack": stack,
                           "mode": "standalone", "services": services},
                          indent=2, sort_keys=True) + "\n"
    rows = [_HEAD, *(_row(s) for s in services)]
    if fmt == "markdown":
        lines = [f"### Services of {markdown(stack)} (standalone replay)", "",
                 "| " + " | ".join(_HEAD) + " |", "|" + "---|" * len(_HEAD)]
        lines += ["| " + " | ".join(markdown(c) for c in row) + " |" for row in rows[1:]]
        return "\n".join(lines) + "\n"
    widths = [max(len(row[i]) for row in rows) for i in range(len(_HEAD))]
    out = [f"Services of {stack}, replayed alone (unlimited capacity; replicas min/mean/max):"]
    for row in rows:
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:],
                                                                       strict=True)]
        out.append("  " + "  ".join(cells).rstrip())
    return "\n".join(out) + "\n"
