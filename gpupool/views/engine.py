"""Output of ``gpupool preview``, ``up`` and ``destroy`` while the engine runs, and after.

``progress_line`` turns one engine progress event into the line shown on stderr (resource by
resource, with the elapsed time); ``summary`` is the closing line of ``up`` and ``destroy``.
What ``preview`` finds reads like a plan (``gpupool.views.plan``).
"""

from __future__ import annotations

from gpupool.engine.results import EngineResult, ProgressEvent


def progress_line(event: ProgressEvent) -> str | None:
    """Return the stderr line for one progress event, or None for events not shown."""
    if event.kind == "summary":
        return None
    name = event.urn.rsplit("::", 1)[-1] if event.urn else ""
    if event.kind == "resource-start":
        line = f"  {event.op:<10} {event.type} {name} ..."
    elif event.kind == "resource-done":
        line = f"  {event.op:<10} {event.type} {name} done"
    elif event.kind == "resource-failed":
        line = f"  failed     {event.type} {name}: {event.message}"
    elif event.severity in ("error", "warning"):
        line = f"  {event.severity}: {event.message.strip()}"
    else:
        return None
    return f"[{event.elapsed_s:7.1f}s]{line}\n"


def summary(verb: str, result: EngineResult) -> str:
    """Return the closing line of ``up`` (verb ``Apply``) or ``destroy`` (``Destroy``)."""
    counts = ", ".join(f"{n} {op}" for op, n in sorted(result.summary.items()) if n)
    return f"{verb} complete: {counts or 'nothing to do'}.\n"
