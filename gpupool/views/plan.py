"""Output of ``gpupool plan`` and ``gpupool preview``: one plan, in the format ``--format`` asks.

This module owns the choice of format and what goes to stdout (the plan) and what to stderr (a
note on how the base was chosen, for JSON, whose readers are scripts). The formats themselves are
``plan_text``, ``plan_json`` and ``plan_markdown``; the text plan ends with the services
section of ``plan_services``.
"""

from __future__ import annotations

from collections.abc import Callable

from gpupool.plan import PlanResult
from gpupool.views import Output, plan_json, plan_markdown, plan_services, plan_text


def render(result: PlanResult, fmt: str) -> Output:
    """Render a plan as ``text``, ``json`` or ``markdown``.

    Args:
        result: the plan.
        fmt: the output format.

    Returns:
        The plan for stdout and notes for stderr.

    """
    formats: dict[str, Callable[[PlanResult], str]] = {
        "text": _text,
        "json": plan_json.format_json,
        "markdown": plan_markdown.format_markdown,
    }
    # text and markdown say how the base was chosen in the plan itself; JSON says it in
    # ``base.note`` and, for people watching the terminal, on stderr
    note = f"note: {result.base.note}\n" if result.base.note and fmt == "json" else ""
    return Output(formats[fmt](result), note)


def _text(result: PlanResult) -> str:
    """Return the text plan, with the services section (``plan_services``) at its end."""
    services = plan_services.text_section(result)
    return plan_text.format_text(result) + "".join(f"{line}\n" for line in services)
