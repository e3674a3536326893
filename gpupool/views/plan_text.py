"""Text output of ``gpupool plan`` and the tables and notes the markdown form shares with it.

This module owns how a ``PlanResult`` reads in a terminal: the header and the summary
(``plan_summary``: counts, cost a month and its change, warnings), then Terraform's
``+ ~ - +/- -/+`` symbols and legend (a replacement reads in the order Pulumi runs it: ``+/-``
creates the new resource first, ``-/+`` deletes the old one first), each changed input as
``old -> new`` (``# forces replacement`` on the ones behind a replace), the reasons, the closing
``Plan: X to add, Y to change, Z to destroy.`` line (or ``No changes.``), then the capacity (with
each unit's price), tenant and cost tables (with a note on each pool whose node groups can hold
more than its ``nodes.max``, and ``ELSEWHERE`` beside amounts priced at another region's list
prices, which the notes explain), the cost per tenant and the advice. The tables, rows and notes
here are shared with ``plan_markdown``; numbers and money are ``plan_numbers``';
``gpupool.views.plan`` dispatches on the format. It computes nothing: ``gpupool.plan`` does.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence

from gpupool import modes
from gpupool.escape import one_line
from gpupool.plan import (
    CEILING_QUEUE,
    HOURS_PER_MONTH,
    MISSING,
    CostReport,
    MinMax,
    PlanResult,
    PoolCapacity,
    ResourceChange,
    show_value,
    slot_prices,
)
from gpupool.views.plan_numbers import (
    ELSEWHERE,
    delta,
    elsewhere,
    elsewhere_mark,
    gib,
    hourly,
    low_high,
    money,
    monthly,
    num,
    span,
)
from gpupool.views.plan_summary import header, summary_lines

# Keyed by ``kind``: the action, with the two orders of a replacement apart.
SYMBOLS = {"create": "+", "update": "~", "delete": "-", "replace": "+/-", "replace-delete": "-/+"}
LEGEND = {
    "create": "create",
    "update": "update in-place",
    "delete": "destroy",
    "replace": "create replacement and then destroy",
    "replace-delete": "destroy and then create replacement",
}
WILL = {
    "create": "will be created",
    "update": "will be updated in-place",
    "delete": "will be destroyed",
    "replace": "must be replaced",
}


def kind(c: ResourceChange) -> str:
    """Return the key of a change's symbol and legend: its action, ``replace-delete`` apart."""
    return "replace-delete" if c.deletes_first else c.action


# -------------------------------------------------------------------------------- parts


def _multiline(a: object, b: object) -> bool:
    return isinstance(a, str) and isinstance(b, str) and ("\n" in a or "\n" in b)


def _text_diff(a: str, b: str, most: int = 12) -> list[str]:
    """Return the changed lines of a multi-line text input (a rendered config file)."""
    changed = [
        line for line in difflib.ndiff(a.splitlines(), b.splitlines()) if line[:2] in ("- ", "+ ")
    ]
    out = [f"          {line[0]} {line[2:]}" for line in changed[:most]]
    if len(changed) > most:
        out.append(f"          ... {len(changed) - most} more changed lines")
    return out


def change_lines(c: ResourceChange) -> list[str]:
    """Return one resource's block: comment, symbol line, changed inputs, reasons."""
    action = c.action
    symbol = SYMBOLS["replace-delete" if c.deletes_first else action]
    lines = [f"  # {c.address} {WILL[action]}", f'{symbol:>3} {c.type} "{c.name}"']
    if not c.changes:  # a create or a delete: its reasons alone
        lines += [f"      # {r}" for r in c.reasons if "changed inputs" not in r]
        return lines
    for ic in c.changes:
        if ic.before is MISSING:
            line = f"      + {ic.dotted}: {show_value(ic.after)}"
        elif ic.after is MISSING:
            line = f"      - {ic.dotted}: {show_value(ic.before)} -> (removed)"
        elif _multiline(ic.before, ic.after):
            lines.append(f"      ~ {ic.dotted}: (text)")
            lines += _text_diff(ic.before, ic.after)
            continue
        else:
            line = f"      ~ {ic.dotted}: {show_value(ic.before)} -> {show_value(ic.after)}"
        lines.append(line + ("  # forces replacement" if ic.forces_replacement else ""))
    # reasons that only restate a changed input (the fallback) are already on screen
    shown = tuple(f"{ic.dotted} " for ic in c.changes)
    lines += [
        f"      # {r}" for r in c.reasons if not r.startswith(shown) and "changed inputs" not in r
    ]
    return lines


def changes_section(result: PlanResult) -> list[str]:
    """Return the legend, every change, and the ``Plan:`` line (or ``No changes.``)."""
    changed = [c for c in result.changes if c.action != "no-op"]
    if not changed:
        return ["No changes. The GPU pools match the base."]
    used = {kind(c) for c in changed}
    lines = ["Resource actions are indicated with the following symbols:"]
    lines += [f"{SYMBOLS[a]:>3} {LEGEND[a]}" for a in LEGEND if a in used]
    lines += ["", "gpupool will perform the following actions:", ""]
    for c in changed:
        lines += [*change_lines(c), ""]
    s = result.summary
    return [*lines, f"Plan: {s.add} to add, {s.change} to change, {s.destroy} to destroy."]


def table(head: Sequence[str], rows: Iterable[Sequence[str]], indent: str = "  ") -> list[str]:
    """Return rows as left-aligned columns under ``head``."""
    grid = [list(head), *(list(r) for r in rows)]
    widths = [max(map(len, column)) for column in zip(*grid, strict=True)]
    # one format per table: each cell left-aligned in its column, two spaces between columns
    line = "  ".join(f"{{:<{w}}}" for w in widths).format
    return [indent + line(*r).rstrip() for r in grid]


CAPACITY_HEAD = ("pool", "GPU", "GPUs", "sharing", "slots/GPU", "memory/slot", "price/unit-hour",
                 "QoS", "BF16 TFLOPS")
TENANT_HEAD = ("tenant", "pools", "priority", "quota", "limit", "pools hold", "note")
COST_HEAD = ("pool", "per hour", "per month", "all on-demand/month", "change/month")


def capacity_rows(result: PlanResult) -> list[list[str]]:
    """Return one row per pool: GPUs at min-max, sharing, slots, memory per slot, QoS, TFLOPS."""
    rows = []
    for p in result.capacity:
        slots = ", ".join(f"{s.name} x{s.per_gpu}" for s in p.slot_profiles)
        whole = (kind := modes.find(p.mode)) is not None and kind.whole
        mode = p.mode if whole else f"{p.mode} ({slots})"
        qos = p.qos + (" (derived)" if p.qos_derived else "")
        tflops = "?" if p.bf16_tflops_max is None else f"{p.bf16_tflops_max:,.0f}"
        price = unit_price(result, p) + elsewhere_mark(result, p.pool)
        rows.append(
            [p.pool, p.gpu or "?", span(p.gpus), mode, str(p.slots_per_gpu),
             gib(p.slot_memory_gib), price, qos, tflops]
        )  # fmt: skip
    return rows


def unit_price(result: PlanResult, p: PoolCapacity) -> str:
    """Return what one unit of a pool costs an hour: per GPU, per slot, or per MIG profile.

    A unit's price can differ between the ends (a split spot pool's on-demand base costs more
    per GPU at nodes.min than its blend at nodes.max), so a range reads from the least to the
    most, whichever end that is at.
    """
    per_gpu = result.tenant_cost.gpu_hourly.get(p.pool) if result.tenant_cost else None
    prices = slot_prices(p, per_gpu) if per_gpu is not None else ()
    if not prices or not any(v.known for _, v in prices):
        return "?"
    cur = result.cost.currency
    if len(prices) > 1:
        return ", ".join(f"{name} {money(low_high(v), hourly, cur)}" for name, v in prices)
    whole = (kind := modes.find(p.mode)) is not None and kind.whole
    return f"{money(low_high(prices[0][1]), hourly, cur)}/{'GPU' if whole else 'slot'}"


TENANT_COST_HEAD = ("tenant", "pool", "guaranteed GPUs", "guaranteed/month", "ceiling/month",
                    "change/month")


def tenant_cost_rows(result: PlanResult) -> list[list[str]]:
    """Return each tenant's guaranteed cost and ceiling per pool, then each pool's remainder.

    A tenant on several pools gets a row per pool and a total row; the change (against the
    base) is on the tenant's last row. The ``unallocated`` rows are what no tenant is
    guaranteed, so a pool's tenants and its remainder add up to its cost.
    """
    tc = result.tenant_cost
    if tc is None:
        return []
    month, cur = HOURS_PER_MONTH, result.cost.currency
    rows = []
    for t in tc.tenants:
        for s in t.shares:
            rows.append([t.tenant, s.pool, span(s.guaranteed_gpus),
                         money(s.guaranteed_hourly.scaled(month), monthly, cur),
                         money(s.ceiling_hourly.scaled(month), monthly, cur), ""])  # fmt: skip
        if len(t.shares) != 1:
            pools = "all its pools" if t.shares else "(no longer in the stack)"
            rows.append([t.tenant, pools, "", money(t.guaranteed_monthly, monthly, cur),
                         money(t.ceiling_monthly, monthly, cur), ""])  # fmt: skip
        rows[-1][-1] = money(t.delta_monthly, delta, cur)
    for pool, amount in tc.unallocated_monthly.items():
        rows.append(["unallocated", pool, "", money(amount, monthly, cur), "", ""])
    return rows


def tenant_rows(result: PlanResult) -> list[list[str]]:
    """Return one row per tenant: quota and limit against what its pools hold."""
    rows = []
    for t in result.tenants:
        note = ""
        if t.quota_gpus is not None and t.pool_gpus.known:
            if t.quota_gpus > (t.pool_gpus.max or 0):
                note = "quota above what its pools hold at nodes.max"
            elif t.quota_gpus > (t.pool_gpus.min or 0):
                note = "quota holds only after scale-up"
        limit = "none" if t.limit_gpus is None else num(t.limit_gpus)
        rows.append(
            [t.tenant, ", ".join(t.pools), t.priority, num(t.quota_gpus), limit,
             span(t.pool_gpus), note]
        )  # fmt: skip
    return rows


def _gpus(n: float) -> str:
    return f"{num(n)} GPU" if n == 1 else f"{num(n)} GPUs"


def ceiling_lines(result: PlanResult) -> list[str]:
    """Return one line per tenant: what enforces its limit (and, under a queue, its quota)."""
    out = []
    for t in result.tenants:
        c = t.ceiling
        limit = f"limit {_gpus(t.limit_gpus)}" if t.limit_gpus is not None else "no limit:"
        if c.by != CEILING_QUEUE:
            where = f"ResourceQuota {c.resource_quota}" if c.resource_quota else "nothing"
            said = (f"enforced by {where}" if t.limit_gpus is not None
                    else f"{where} caps it at what its pools hold")
            out.append(f"{t.tenant}: {limit} {said}")
            continue
        sched = "the " + (c.scheduler or "scheduler").removeprefix("The ")
        queue = f"{sched}'s queue {c.queue}"
        said = (f"enforced by {queue}'s limit ({num(c.queue_limit)} of its GPU units)"
                if c.queue_limit is not None
                else f"{queue} has limit -1, so only its pools bound it")
        if t.quota_gpus:
            said += (f"; quota {_gpus(t.quota_gpus)} guaranteed by its quota "
                     f"({num(c.queue_quota)} units)")
        fences = (f" (ResourceQuota {c.resource_quota} keeps only the 0 lines on GPU resources "
                  "its pools do not offer)" if c.resource_quota else "")
        out.append(f"{t.tenant}: {limit} {said}; no ResourceQuota on its pools' GPUs: it would "
                   f"block {sched}'s preemption and reclaim{fences}")
    return out


QUOTA_HEAD = ["tenant", "resource", "units", "admits"]


def quota_rows(result: PlanResult) -> list[list[str]]:
    """Return one row per tenant and GPU resource with a non-zero ceiling, in GPUs per pool."""
    rows = []
    for t in result.tenants:
        for q in t.quota_lines:
            if not q.units:
                continue
            admits = ", ".join(f"{num(g)} GPUs on {p}" for p, g in sorted(q.gpus.items()))
            rows.append([t.tenant, q.resource, str(q.units), admits])
    return rows


def cost_rows(cost: CostReport, marked: Iterable[str] = ()) -> list[list[str]]:
    """Return one row per pool and a total: hourly, monthly, all on-demand, change.

    The pools in ``marked`` (``elsewhere``), and the total when there are any, have
    ``ELSEWHERE`` after each amount.
    """
    marked = set(marked)
    rows = []
    for p in cost.pools:
        if p.existing_nodes and p.declared is None:
            rows.append([p.pool, "existing nodes: not priced", "", "", ""])
        else:
            rows.append(_cost_row(p.pool, p.hourly, p.on_demand_hourly, p.delta_monthly,
                                  cost.currency, p.pool in marked))  # fmt: skip
    return [*rows, _cost_row("total", cost.hourly, cost.on_demand_hourly, cost.delta_monthly,
                             cost.currency, bool(marked))]  # fmt: skip


def _cost_row(
    name: str, per_hour: MinMax, on_demand: MinMax, change: MinMax, cur: str, mark: bool
) -> list[str]:
    month, tail = HOURS_PER_MONTH, ELSEWHERE if mark else ""
    cells = [money(per_hour, hourly, cur), money(per_hour.scaled(month), monthly, cur),
             money(on_demand.scaled(month), monthly, cur), money(change, delta, cur)]  # fmt: skip
    return [name, *(cell + tail for cell in cells)]


def price_notes(result: PlanResult) -> list[str]:
    """Return where the prices come from, what spot saves, and what has no price."""
    cost = result.cost
    where = f" for {cost.price_region}" if cost.price_region else ""
    if cost.prices_as_of:
        source = f"gpupool catalog list prices{where} as of {', '.join(cost.prices_as_of)}"
    else:
        source = "the gpupool catalog has no prices for these instance types"
    existing = [p.pool for p in cost.pools if p.existing_nodes and p.declared is None]
    listed = [p for p in cost.pools if not p.existing_nodes and p.declared is None]
    sources = [source] if listed else []
    if cost.declared:
        stated = ", ".join(f"{_names(pools)} from \"{one_line(said)}\""
                           for said, pools in cost.declared.items())  # fmt: skip
        sources.append(f"declared in the stack file (pools[].price), not list prices: {stated}")
    out = []
    if sources:
        out.append(
            f"Prices: {'; '.join(sources)}; {HOURS_PER_MONTH} h a month; at the fewest and the "
            "most nodes the node groups hold, spot nodes at spot and on-demand nodes at "
            "on-demand."
        )
    if existing:
        out.append(
            f"{', '.join(existing)}: existing nodes, which gpupool does not provision or price "
            "(pools[].price declares a price for them)."
        )
    if cost.base_prices_as_of and cost.base_prices_as_of != cost.prices_as_of:
        out.append(f"The base is priced as recorded, as of {', '.join(cost.base_prices_as_of)}.")
    out += elsewhere_notes(result)
    saving = (cost.on_demand_hourly - cost.hourly).scaled(HOURS_PER_MONTH)
    if saving.max:
        out.append(
            f"Spot saves {money(saving, monthly, cost.currency)} a month against all on-demand."
        )
    out += ceiling_notes(result)
    if cost.unpriced:
        out.append("Unknown (no price, not counted as 0): " + "; ".join(cost.unpriced))
    return out


def elsewhere_notes(result: PlanResult) -> list[str]:
    """Return the legend of ``ELSEWHERE``: whose list prices the marked amounts are."""
    found = elsewhere(result)
    if not found or not result.region:
        return []
    regions = _names(sorted({one_line(r) for r in found.values()}))
    return [
        f"{ELSEWHERE} priced at {regions} list prices: the stack runs in "
        f"{one_line(result.region)}, where they may differ (`gpupool catalog refresh --cloud "
        f"{result.cloud} --region {one_line(result.region)}` prices them there)."
    ]


def _names(names: Sequence[str]) -> str:
    """Return names as prose: ``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def ceiling_notes(result: PlanResult) -> list[str]:
    """Say which pools' node groups can hold more nodes than their ``nodes.max``, and why.

    A spot pool with on-demand fallback: its spot group and its on-demand group are each bounded
    by the autoscaler, not their sum (``facts.groups.capacity_groups``); the capacity and cost at
    the top end count every node they can hold.
    """
    out = []
    for p in result.capacity:
        if not p.above_nodes_max:
            continue
        groups = " and ".join(f"{g.capacity} up to {g.max}" for g in p.groups)
        out.append(
            f"{p.pool}: its node groups ({groups}) can hold {num(p.nodes.max)} nodes together, "
            f"above nodes.max {p.nodes_max}: on-demand fallback grows while spot is short, and "
            "spot can fill again before the fallback nodes go. The top end of capacity and cost "
            "counts all of them."
        )
    return out


def format_text(result: PlanResult) -> str:
    """Render a plan for a terminal: its summary, Terraform-style changes, capacity and cost."""
    lines = [*header(result), "", *summary_lines(result), "", *changes_section(result), ""]
    lines += ["Capacity:", *table(CAPACITY_HEAD, capacity_rows(result)), ""]
    if result.tenants:
        lines += ["Tenants:", *table(TENANT_HEAD, tenant_rows(result)), ""]
        lines += ["Ceilings (what enforces each tenant's limit):"]
        lines += [*(f"  {line}" for line in ceiling_lines(result)), ""]
        if quota_rows(result):
            lines += ["ResourceQuota per tenant (each line in its resource's own units):"]
            lines += [*table(QUOTA_HEAD, quota_rows(result)), ""]
    cur = result.cost.currency
    lines += [f"Cost ({cur}):", *table(COST_HEAD, cost_rows(result.cost, elsewhere(result)))]
    lines += [f"  {note}" for note in price_notes(result)]
    if result.tenants and result.tenant_cost is not None:
        lines += ["", f"Cost per tenant ({cur} a month; guaranteed = quota.gpus, "
                  "ceiling = limit.gpus):"]
        lines += [*table(TENANT_COST_HEAD, tenant_cost_rows(result))]
        lines += [f"  {TENANT_COST_NOTE}"]
    if result.scheduler is not None:
        lines += ["", f"Scheduler ({result.scheduler.scheduler}):"]
        lines += [f"  {line}" for line in result.scheduler.lines()]
    if result.advice:
        lines += ["", "Advice (what would save money, USD a month at nodes.min to nodes.max):"]
        lines += [f"  {line}" for line in advice_lines(result)]
    return "\n".join(lines) + "\n"


def advice_lines(result: PlanResult) -> list[str]:
    """Return one line per piece of advice: pool, what, and its money effect."""
    out = []
    declared = {p for pools in result.cost.declared.values() for p in pools}
    for a in result.advice:
        amount = money(MinMax(*a.monthly), monthly)
        if a.code == "advice.idle-floor":
            effect = f"the floor costs {amount}"
        elif max(a.monthly) < 0:
            effect = f"costs {money(MinMax(-a.monthly[0], -a.monthly[1]), monthly)} more"
        else:
            effect = f"saves {amount}"
        if a.pool in declared:  # advice compares the catalog's list prices only
            effect += " at catalog list prices, not the pool's declared price"
        out.append(f"{a.pool}: {a.summary} ({effect}) [{a.code}]")
    return out


TENANT_COST_NOTE = (
    "A tenant on several pools has its quota split over them by the GPUs each holds at "
    "nodes.max; a pool's cost per GPU at each end is its cost there over its GPUs there; "
    "ceilings overlap and are not added up."
)
