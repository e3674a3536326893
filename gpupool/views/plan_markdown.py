"""Markdown output of ``gpupool plan``: a pull-request comment a CI bot posts and edits.

This module owns the comment's layout: a hidden first line (``marker``, one per stack file, the
same the bundled workflow writes) a bot finds its earlier comment by and edits in place (as
Infracost's hidden tag does), the counts line and the replacements a reviewer must not miss,
cost first, the stack file's warnings, then per-pool capacity, tenants and their cost (with a
Mermaid pie of cost by tenant), and every
resource change folded in ``<details>`` as a ``diff`` block. It keeps the comment under
``MARKDOWN_LIMIT`` characters (GitHub refuses comments over 65,536), cutting table rows and
change lines from the end and saying so.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from gpupool import escape
from gpupool.plan import HOURS_PER_MONTH, PlanResult
from gpupool.views import plan_checkpoint, plan_services
from gpupool.views.plan_numbers import ELSEWHERE, delta, elsewhere_mark, money, monthly
from gpupool.views.plan_summary import describe_base, where
from gpupool.views.plan_text import (
    CAPACITY_HEAD,
    TENANT_COST_HEAD,
    TENANT_COST_NOTE,
    TENANT_HEAD,
    WILL,
    advice_lines,
    capacity_rows,
    ceiling_lines,
    change_lines,
    price_notes,
    tenant_cost_rows,
    tenant_rows,
)

MARKDOWN_LIMIT = 65_000
"""Most characters of a comment (GitHub refuses comments over 65,536)."""
MAX_VALUE = 300
"""Most characters of one value (a name, a region, a table cell) before it is cut."""
MAX_NOTE = 2_000
"""Most characters of one note or reason (gpupool's sentence with values in it)."""


def marker(key: str) -> str:
    """Return the hidden first line a bot finds its own comment by: one per stack file.

    ``key`` is the stack file as the command was given it (``PlanResult.stack_file``; the stack's
    name where there is none), so the bundled workflow (templates/ci/github-plan-comment.yml),
    which knows only the file, writes the same line when the plan fails and finds this comment
    again: one comment per stack file, edited in place. ``%``, ``<``, ``>``, ``!``, ``#``,
    control and line-separator characters and bidirectional overrides are written ``%`` and their
    code point in hex (``%3E``, ``%202E``), as the workflow writes them, so no file name can end
    the HTML comment early, read as another marker or a workflow command (``##[``, anywhere in a
    log line), or reach a terminal raw.
    """
    return f"<!-- gpupool-plan: {_UNSAFE.sub(lambda m: f'%{ord(m[0]):02X}', key)} -->"


#: what the marker writes as ``%`` and hex; the workflow's script has the same class
_UNSAFE = re.compile("[%<>!#\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _md_table(
    head: Sequence[str], rows: Iterable[Sequence[str]], right: int = 0, *, values: bool = True
) -> list[str]:
    """Return a GitHub table whose last ``right`` columns are right-aligned.

    ``values``: the cells are values (escaped as literal text); otherwise gpupool's own markdown.
    """
    align = ["---"] * (len(head) - right) + ["---:"] * right
    out = ["| " + " | ".join(head) + " |", "|" + "|".join(align) + "|"]
    cell = (lambda c: text(c)) if values else (lambda c: c.replace("|", "\\|"))
    return out + ["| " + " | ".join(cell(c) for c in r) + " |" for r in rows]


def text(value: str) -> str:
    """Return a value (a name, a region, a reason) as literal markdown of bounded length."""
    return escape.markdown(value, MAX_VALUE)


def note(line: str) -> str:
    """Return one of gpupool's notes or reasons, which quote values, as literal markdown."""
    return escape.markdown(line, MAX_NOTE)


def code(value: str) -> str:
    """Return a value as a literal code span of bounded length."""
    return escape.code(value, MAX_VALUE)


def _md_head(result: PlanResult) -> list[str]:
    s, cost = result.summary, result.cost
    if result.has_changes:
        counts = f"**Plan: {s.add} to add, {s.change} to change, {s.destroy} to destroy.**"
        counts += f" {s.replace} replacement{'s' * (s.replace != 1)}." if s.replace else ""
    else:
        counts = "**No changes.** The GPU pools match the base."
    if n := len(result.warnings):
        counts += f" :warning: {n} warning{'s' * (n != 1)} (below)."
    key = result.stack_file or result.stack
    lines = [marker(key), f"### gpupool plan: {code(result.stack)}", "", counts, "",
             f"Base: {text(describe_base(result.base))}"
             + (f"; {text(result.base.note)}." if result.base.note else "."), ""]  # fmt: skip
    risky = [c for c in result.changes if c.action in ("replace", "delete")]
    for c in risky[:10]:
        why = note("; ".join(c.reasons) or c.action)
        lines.append(f"> :warning: {code(c.address)} {WILL[c.action]}: {why}<br>")
    if len(risky) > 10:
        lines.append(f"> :warning: and {len(risky) - 10} more replacements or deletions")
    month, cur = HOURS_PER_MONTH, cost.currency
    mark = "\\" + ELSEWHERE if elsewhere_mark(result) else ""  # a literal mark, not emphasis
    rows = [
        ["this plan", monthly(cost.monthly.min, cur) + mark, monthly(cost.monthly.max, cur) + mark],
        ["base", monthly(cost.base_hourly.scaled(month).min, cur),
         monthly(cost.base_hourly.scaled(month).max, cur)],
        ["**change**", f"**{delta(cost.delta_monthly.min, cur)}**{mark}",
         f"**{delta(cost.delta_monthly.max, cur)}**{mark}"],
        ["all on-demand", monthly(cost.on_demand_hourly.scaled(month).min, cur) + mark,
         monthly(cost.on_demand_hourly.scaled(month).max, cur) + mark],
    ]  # fmt: skip
    lines += [*([""] if risky else []), f"#### Cost ({cur} a month)", ""]
    lines += _md_table(["", "at nodes.min", "at nodes.max"], rows, right=2, values=False)
    return [*lines, "", "<br>".join(f"<sub>{note(n)}</sub>" for n in price_notes(result)), ""]


def pie_slices(result: PlanResult) -> tuple[str, list[tuple[str, float]]]:
    """Return the end the pie shows and its slices: each tenant's guarantee, then the remainder.

    The slices are monthly amounts at nodes.max (at nodes.min when the top end has an unknown
    price), rounded to the cent, the remainder being the pools' total at that end (each pool
    rounded to the cent, as the JSON document prints it) less the tenants' slices, so they add up
    to it to the cent. Slices of $0 are
    left out (Mermaid draws nothing for them). Empty when neither end is known.
    """
    tc = result.tenant_cost
    if tc is None or not tc.tenants:
        return "", []
    for end in ("max", "min"):
        amounts = [(t.tenant, getattr(t.guaranteed_monthly, end)) for t in tc.tenants]
        pools = [getattr(v.scaled(HOURS_PER_MONTH), end) for v in tc.pool_hourly.values()]
        if any(v is None for _, v in amounts) or any(v is None for v in pools):
            continue
        slices = [(name, round(v or 0.0, 2)) for name, v in amounts]
        total = round(sum(round(v or 0.0, 2) for v in pools), 2)  # each pool as JSON prints it
        slices.append(("unallocated", round(total - sum(v for _, v in slices), 2)))
        return f"nodes.{end}", [(name, v) for name, v in slices if v]
    return "", []


def pie(result: PlanResult) -> list[str]:
    """Return a Mermaid pie chart of monthly cost by tenant (GitHub renders it in comments)."""
    end, slices = pie_slices(result)
    if not slices:
        return []
    body = [f'    "{name}" : {value:.2f}' for name, value in slices]
    title = f"pie title Monthly cost by tenant at {end} ({result.cost.currency})"
    return ["```mermaid", title, *body, "```", ""]


def _fence(body: Sequence[str]) -> str:
    """Return a backtick fence longer than any run of backticks in ``body``."""
    longest, run = 0, 0
    for ch in "\n".join(body):
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    return "`" * max(3, longest + 1)


def _take(lines: Sequence[str], budget: int) -> tuple[list[str], int]:
    """Return the leading lines that fit in ``budget`` characters, and how many did not."""
    used = 0
    for i, line in enumerate(lines):
        used += len(line) + 1
        if used > budget:
            return list(lines[:i]), len(lines) - i
    return list(lines), 0


def _diff_line(line: str) -> str:
    """Move a change symbol to the first column so GitHub colours the ``diff`` block.

    As Atlantis does: ``  + x`` becomes ``+   x``, and ``~`` becomes ``!`` (GitHub's "changed").
    """
    stripped = line.lstrip(" ")
    if stripped[:2] in ("+ ", "- ", "~ ") or stripped.startswith(("-/+ ", "+/- ")):
        symbol = "!" if stripped[0] == "~" else stripped[0]
        return symbol + " " * (len(line) - len(stripped)) + stripped[1:]
    return line


# One block of the comment: lines before, cuttable lines, lines after, what the lines are.
_Block = tuple[list[str], list[str], list[str], str]


def _warnings(result: PlanResult) -> list[_Block]:
    """Return the block of the stack file's warnings, one item each (none without any)."""
    items = []
    for d in result.warnings:
        at = where(d)
        item = f"- {note(d.summary)} {code(d.code)}" + (f" at {code(at)}" if at else "")
        items.append(item + (f"<br><sub>{note(d.detail)}</sub>" if d.detail else ""))
    if not items:
        return []
    return [([f"#### Warnings ({len(items)})", ""], items, [""], "warnings")]


def _checkpoint_blocks(result: PlanResult) -> list[_Block]:
    """Return the checkpoint and downtime tables (``plan_checkpoint``); none without them."""
    if not result.checkpoints:
        return []
    out: list[_Block] = []
    intervals = plan_checkpoint.interval_rows(result)
    if intervals:
        table = _md_table(plan_checkpoint.INTERVAL_HEAD, intervals)
        out.append((["#### Checkpoints (interval against the optimum)", "", *table[:2]],
                    table[2:], [""], "checkpoint rows"))
    table = _md_table(plan_checkpoint.DOWNTIME_HEAD, plan_checkpoint.downtime_rows(result))
    out.append((["#### Downtime from an interruption to running again", "", *table[:2]],
                table[2:], ["", f"<sub>{text(plan_checkpoint.downtime_note(result))}</sub>", ""],
                "downtime rows"))
    return out


def _md_blocks(result: PlanResult, *, summary: bool = False) -> list[_Block]:
    """Return the comment's blocks; with ``summary``, its head and warnings only."""
    blocks: list[_Block] = [(_md_head(result), [], [], ""), *_warnings(result)]
    if summary:
        return blocks
    cur = result.cost.currency
    per_pool = {p.pool: money(p.monthly, monthly, cur) + elsewhere_mark(result, p.pool)
                for p in result.cost.pools}  # fmt: skip
    capacity = _md_table(
        [*CAPACITY_HEAD, "cost/month"],
        [[*row, per_pool.get(row[0], monthly(0.0, cur))] for row in capacity_rows(result)],
    )
    blocks.append((["#### Capacity", "", *capacity[:2]], capacity[2:], [""], "pools"))
    if result.tenants:
        tenants = _md_table(TENANT_HEAD, tenant_rows(result))
        blocks.append((["#### Tenants", "", *tenants[:2]], tenants[2:], [""], "tenants"))
        ceilings = [f"- {note(line)}" for line in ceiling_lines(result)]
        blocks.append((["#### Ceilings (what enforces each tenant's limit)", ""], ceilings, [""],
                       "ceiling lines"))
        costs = _md_table(TENANT_COST_HEAD, tenant_cost_rows(result))
        blocks.append(([f"#### Cost per tenant ({cur} a month)", "", *pie(result), *costs[:2]],
                       costs[2:], ["", f"<sub>{TENANT_COST_NOTE}</sub>", ""], "tenant rows"))
    if result.services:
        table = _md_table(plan_services.SERVICE_HEAD, plan_services.rows(result))
        notes = [f"- {note(line)}" for line in plan_services.tenant_lines(result)]
        blocks.append((["#### Services (KEDA, replicas.min to replicas.max)", "", *table[:2]],
                       table[2:], ["", *notes, ""], "service rows"))
    blocks += _checkpoint_blocks(result)
    if result.scheduler is not None:
        items = [f"- {note(line)}" for line in result.scheduler.lines()]
        blocks.append(([f"#### Scheduler ({result.scheduler.scheduler})", ""], items, [""],
                       "scheduler lines"))
    if result.advice:
        items = [f"- {note(line)}" for line in advice_lines(result)]
        blocks.append((["#### Advice (USD a month at nodes.min to nodes.max)", ""], items, [""],
                       "advice items"))
    changed = [c for c in result.changes if c.action != "no-op"]
    body = [_diff_line(line) for c in changed for line in (*change_lines(c), "")]
    body = body or ["No changes."]
    fence = _fence(body)
    summary = f"<details><summary>Resource changes ({len(changed)})</summary>"
    blocks.append(([summary, "", f"{fence}diff"], body, [fence, "</details>", ""], "lines"))
    return blocks


def format_markdown(result: PlanResult, limit: int = MARKDOWN_LIMIT, *,
                    summary: bool = False) -> str:
    """Render a plan as a pull-request comment: summary, cost and warnings first, details folded.

    The first line is a hidden marker (``marker``) a bot finds its earlier comment by. A
    comment longer than ``limit`` keeps its summary and cost, cuts the longest parts (warnings,
    table rows, then change lines, from the end of each) and says so at the end.

    Args:
        result: the plan.
        limit: the most characters to return.
        summary: only the summary, cost and warnings (``gpupool plan --summary``).

    Returns:
        The comment.

    """
    blocks = _md_blocks(result, summary=summary)
    whole = "\n".join(line for b, rows, a, _ in blocks for line in (*b, *rows, *a)) + "\n"
    if len(whole) <= limit:
        return whole
    fixed = sum(len(line) + 1 for b, _, a, _ in blocks for line in (*b, *a))
    budget = limit - fixed - 120 * len(blocks) - 400
    out: list[str] = []
    cut_total = 0
    for before, rows, after, what in blocks:
        taken, cut = _take(rows, budget)
        budget -= sum(len(line) + 1 for line in taken)
        cut_total += cut
        out += [*before, *taken]
        if cut and what == "lines":
            out.append(f"... {cut:,} more lines cut")
        elif cut:
            out += ["", f"_... and {cut:,} more {what} (cut)._"]
        out += after
    out.append(_truncated(limit, cut_total))
    cut = "\n".join(out) + "\n"
    if len(cut) <= limit:
        return cut
    return _head_only(blocks[0][0], limit)


def _truncated(limit: int, lines: int | None) -> str:
    left = f"{lines:,} lines were left out" if lines is not None else "only its summary is kept"
    return (
        f"> :scissors: **Truncated**: this comment was cut to stay under {limit:,} characters "
        f"(GitHub's limit is 65,536); {left}. Run `gpupool plan` on the stack file for the full "
        "plan."
    )


def _head_only(head: Sequence[str], limit: int) -> str:
    """Return the summary's leading whole lines that fit under ``limit``, and the notice.

    The cap holds for the whole body whatever is long: the summary itself (many long reasons
    or notes) when cutting tables and changes was not enough. Whole lines only, so no HTML tag,
    fence or fold is left open.
    """
    notice = _truncated(limit, None)
    budget = limit - len(notice) - 2
    taken, _ = _take(head, budget)
    return "\n".join([*taken, notice])[: limit - 1] + "\n"
