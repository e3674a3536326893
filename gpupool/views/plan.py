"""Output of ``gpupool plan`` and ``gpupool preview``: one plan, in the format ``--format`` asks.

This module owns the choice of format and what goes to stdout (the plan) and what to stderr (a
note on how the base was chosen, for JSON, whose readers are scripts). The formats themselves are
``plan_text``, ``plan_json`` and ``plan_markdown``, and ``plan_summary`` for ``--summary``;
the text plan ends with the services section of ``plan_services``.
"""

from __future__ import annotations

from collections.abc import Callable

from gpupool.plan import PlanResult
from gpupool.views import (
    Output,
    plan_checkpoint,
    plan_json,
    plan_markdown,
    plan_services,
    plan_summary,
    plan_text,
)


def render(result: PlanResult, fmt: str, *, summary: bool = False) -> Output:
    """Render a plan as ``text``, ``json`` or ``markdown``.

    Args:
        result: the plan.
        fmt: the output format.
        summary: only the summary (``gpupool plan --summary``): the header, counts, cost and
            warnings in text, the comment's head and warnings in markdown, the document's
            leading keys in JSON (``plan_summary.summary_json``).

    Returns:
        The plan for stdout and notes for stderr.

    """
    if summary:
        short = {"text": plan_summary.format_summary_text,
                 "json": plan_summary.format_summary_json,
                 "markdown": lambda r: plan_markdown.format_markdown(r, summary=True)}
        return Output(short[fmt](result), _note(result, fmt))
    formats: dict[str, Callable[[PlanResult], str]] = {
        "text": _text,
        "json": plan_json.format_json,
        "markdown": plan_markdown.format_markdown,
    }
    return Output(formats[fmt](result), _note(result, fmt))


def _note(result: PlanResult, fmt: str) -> str:
    """Say on stderr how the base was chosen, for JSON, whose readers are scripts.

    Text and markdown say it in the plan itself; JSON in ``base.note`` and, for people watching
    the terminal, here.
    """
    return f"note: {result.base.note}\n" if result.base.note and fmt == "json" else ""


def _text(result: PlanResult) -> str:
    """Return the text plan, with the services and checkpoint sections at its end."""
    services = plan_services.text_section(result) + plan_checkpoint.text_section(result)
    return plan_text.format_text(result) + "".join(f"{line}\n" for line in services)
