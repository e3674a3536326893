"""How one job's story reads (``gpupool simulate --explain JOB``): its events in words.

The story is ``simulate.records.Story``: the job's events in order (submitted, each reason it
waited for, started, preempted, interrupted, finished) and its record. Each stretch of waiting
is told with its seconds and, for a tenant's ceiling, the jobs of the same tenant holding it
then. JSON gives the record and the events as they are.
"""

from __future__ import annotations

import json
from typing import Any

from gpupool.simulate.records import Story
from gpupool.views import Output

WHY = {
    "quota": "its KAI queue's quota (a non-preemptible job beyond the GPUs its queue deserves)",
    "limit": "its tenant's limit (the KAI queue's limit)",
    "resource-quota": "its tenant's ResourceQuota",
    "capacity": "capacity (no node had room, and its pools were at their most nodes)",
    "scale-up": "a node being added (scale-up)",
    "fragmentation": "fragmentation (the GPUs were free in total, but on no one node)",
    "gang": "its whole gang to fit (one pod would have fit, not all of them)",
    "min-runtime": "a job it may evict to reach its minimum runtime",
    "preempted": "a new start after it was preempted",
    "interrupted": "a new start after its spot node was taken back",
}
"""Each reason of a wait, as the story says it."""

HOLDERS_SHOWN = 5


def _at(seconds: float) -> str:
    s = round(seconds)
    return f"{seconds:,.0f} s ({s // 3600}h{(s % 3600) // 60:02d}m{s % 60:02d}s)"


def _secs(seconds: float) -> str:
    return f"{seconds:,.0f} s" if seconds >= 1 or seconds == 0 else f"{seconds:.3f} s"


def _names(names: list[str]) -> str:
    shown = ", ".join(names[:HOLDERS_SHOWN])
    more = len(names) - HOLDERS_SHOWN
    return f"{shown} and {more} more" if more > 0 else shown


def _wait_line(t: float, until: float, details: dict[str, Any], tenant: str | None) -> str:
    why = details["reason"]
    line = f"  waited {_secs(until - t)} for {WHY.get(why, why)}, from {_at(t)}"
    holders = details.get("holders")
    if holders:
        line += f", taken by jobs {_names(holders)} of the same tenant ({tenant})"
    elif holders is not None:
        line += " (no other job of the tenant was running)"
    return line


def _lines(story: Story) -> list[str]:
    rec = story.record or {}
    head = f"job {story.job}"
    if rec:
        head += (f" (line {rec['line']}, tenant {rec['tenant'] or '-'}, {rec['pods']} "
                 f"pod{'s' if rec['pods'] != 1 else ''})")
    out = [head]
    events = story.events
    end = rec.get("finished")
    for i, (t, what, details) in enumerate(events):
        nxt = events[i + 1][0] if i + 1 < len(events) else None
        if what == "submitted":
            out.append(f"  submitted at {_at(t)}")
        elif what == "waits":
            until = nxt if nxt is not None else (rec.get("submitted", t) + rec.get("wait", 0))
            if until > t:
                out.append(_wait_line(t, until, details, rec.get("tenant")))
        elif what == "started":
            nodes = details["nodes"]
            where = "; ".join(f"node {n} of pool {p}" + (f" ({k} pods)" if k > 1 else "")
                              for p, n, k in nodes)
            out.append(f"  started at {_at(t)} on {where}")
        elif what == "preempted":
            out.append(f"  preempted by job {details['by']} at {_at(t)}"
                       + (f"; waited {_secs(nxt - t)} to start again" if nxt is not None else ""))
        elif what == "interrupted":
            if details.get("gave_up"):
                out.append(f"  interrupted at {_at(t)} and given up (not resubmitted)")
            else:
                out.append(f"  its spot node was interrupted at {_at(t)}"
                           + (f"; waited {_secs(nxt - t)} to start again"
                              if nxt is not None else ""))
        elif what == "finished":
            out.append(f"  finished at {_at(t)}")
    if rec:
        if end is None and rec.get("state") != "done":
            reason = rec.get("reason")
            out.append(f"  never finished ({rec['state']}" + (f": {reason})" if reason else ")"))
        parts = ", ".join(f"{r} {_secs(s)}" for r, s in rec["reasons"].items())
        out.append(f"  in all: waited {_secs(rec['wait'])}" + (f" ({parts})" if parts else "")
                   + f", {rec['gpu_hours']:.4f} GPU-hours")
    return out


def render(story: Story, fmt: str) -> Output:
    """Render the story as ``text`` (its lines) or ``json`` (the record and the events)."""
    if fmt == "json":
        doc = {"job": story.job, "record": story.record,
               "events": [{"seconds": t, "event": what, **details}
                          for t, what, details in story.events]}
        return Output(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", "")
    return Output("\n".join(_lines(story)) + "\n", "")
