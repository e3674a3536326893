"""Output of ``gpupool preview``, ``up`` and ``destroy`` while the engine runs, and after.

``progress_line`` turns one engine progress event into the lines shown on stderr (resource by
resource, with the elapsed time); ``summary`` is the closing line of ``up`` and ``destroy``, and
``format_json`` their JSON document (with the plan ``up`` applied). What ``preview`` finds reads
like a plan (``gpupool.views.plan``).

Messages are shown whole: a diagnostic or policy message that spans several lines (Pulumi's
"cannot be deleted / because it is protected ... `pulumi state unprotect ...`") keeps every
line, the later ones indented under the resource they are about. The line that marks a
resource as failed repeats only the first line of that message.
"""

from __future__ import annotations

import json

from gpupool.engine.results import EngineResult, ProgressEvent
from gpupool.formats import FORMAT_VERSION
from gpupool.plan import PlanResult
from gpupool.views import plan_json

#: Where the continuation lines of a message start: under the text after the elapsed time.
_INDENT = " " * 14
_STACK_TYPE = "pulumi:pulumi:Stack"


def progress_line(event: ProgressEvent) -> str | None:
    """Return the stderr line(s) for one progress event, or None for events not shown."""
    if event.kind == "summary":
        return None
    name = event.urn.rsplit("::", 1)[-1] if event.urn else ""
    if event.kind == "resource-start":
        line = f"  {event.op:<10} {event.type} {name} ..."
    elif event.kind == "resource-done":
        line = f"  {event.op:<10} {event.type} {name} done"
    elif event.kind == "resource-failed":
        line = f"  failed     {event.type} {name}: {_headline(event.message)}"
    elif event.severity in ("error", "warning") and event.kind in ("diagnostic", "policy"):
        about = (f"{event.type} {name}: " if name and event.type and event.type != _STACK_TYPE
                 else "")
        line = _message(f"  {event.severity}: {about}", event.message)
    else:
        return None
    return f"[{event.elapsed_s:7.1f}s]{line}\n"


def _headline(message: str) -> str:
    """Return a failure reason's first line, marked when more follows.

    A failure's reason is the resource's error diagnostic, which was shown whole (and so
    indented) just before the failure; repeating every line of it would only add noise.
    """
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()] or [""]
    return lines[0] + (" (more above)" if len(lines) > 1 else "")


def _message(head: str, message: str) -> str:
    """Return ``head`` and the message's first line, each later line indented below."""
    lines = [line.rstrip() for line in message.strip().splitlines()] or [""]
    rest = "".join(f"\n{_INDENT}{line}" for line in lines[1:] if line)
    return f"{head}{lines[0]}{rest}"


def summary(verb: str, result: EngineResult) -> str:
    """Return the closing line of ``up`` (verb ``Apply``) or ``destroy`` (``Destroy``)."""
    counts = ", ".join(f"{n} {op}" for op, n in sorted(result.summary.items()) if n)
    return f"{verb} complete: {counts or 'nothing to do'}.\n"


def format_json(operation: str, stack: str, result: EngineResult | None,
                applied_plan: PlanResult | None = None) -> str:
    """Return the JSON document of ``up`` or ``destroy`` (docs/commands.md, up --format json).

    ``plan`` is the engine's preview that ``up`` showed and applied (the plan document without
    its own ``format_version``), null for ``destroy``. ``result`` is None when ``up`` stopped
    after a preview without changes: nothing ran, nothing is counted.
    """
    shown = None
    if applied_plan is not None:
        shown = plan_json.to_json(applied_plan)
        del shown["format_version"]
    doc = {
        "format_version": FORMAT_VERSION,
        "stack": stack,
        "operation": operation,
        "plan": shown,
        "summary": dict(sorted(result.summary.items())) if result else {},
        "changes": result.change_count if result else 0,
        "outputs": dict(result.outputs) if result else {},
    }
    return json.dumps(doc, indent=2, ensure_ascii=False, default=str) + "\n"
