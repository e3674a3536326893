"""Numbers and money as every form of a plan writes them, and which amounts are another region's.

This module owns the formatting the text, markdown and summary forms share: counts (``num``,
``span``), amounts in the plan's currency (``usd``, ``hourly``, ``monthly``, ``delta``,
``money``; unknown reads ``unknown``, never $0), memory (``gib``), a range put low to high
(``low_high``), and ``ELSEWHERE``, the mark beside an amount priced at another region's list
prices than the stack's (``elsewhere``), which the price notes explain.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from gpupool.plan import MinMax, PlanResult


def num(v: float | None) -> str:
    """Format a count or quantity: ``8``, ``0.5``, ``?`` when unknown."""
    return "?" if v is None else f"{round(v, 2):g}"


def span(mm: MinMax, one: Callable[[float | None], str] = num, sep: str = "-") -> str:
    """Format ``min<sep>max``, or one value when both ends read the same."""
    lo, hi = one(mm.min), one(mm.max)
    return lo if lo == hi else f"{lo}{sep}{hi}"


# usd is pure and sees the same few amounts thousands of times (4,000 tenants' rows on pools of a
# few shapes): each text is made once. Numbers that compare equal read the same here (1 and 1.0,
# 0.0 and -0.0: the sign of a zero is dropped), so they may share a text. (num may not: it writes
# -0.0 as "-0".)
@functools.lru_cache(maxsize=4096)
def usd(v: float | None, cents: bool = False, sign: bool = False, currency: str = "USD") -> str:
    """Format dollars (``$1,234``; ``$0.98`` with cents); ``unknown`` when unknown.

    Args:
        v: the amount.
        cents: keep two decimals (hourly prices) instead of whole dollars.
        sign: prefix ``+`` on increases (deltas).
        currency: the amount's ISO 4217 code; another than USD is written before it
            (``CNY 1,234``).

    Returns:
        The amount as text.

    """
    if v is None:
        return "unknown"
    shown = round(v, 2 if cents else 0)
    unit = "$" if currency == "USD" else f"{currency} "
    text = f"{unit}{abs(shown):,.2f}" if cents else f"{unit}{abs(shown):,.0f}"
    if shown == 0:
        return text
    return ("+" if sign and shown > 0 else "-" if shown < 0 else "") + text


def hourly(v: float | None, currency: str = "USD") -> str:
    """Format an hourly amount (with cents)."""
    return usd(v, cents=True, currency=currency)


def monthly(v: float | None, currency: str = "USD") -> str:
    """Format a monthly amount (whole dollars)."""
    return usd(v, currency=currency)


def delta(v: float | None, currency: str = "USD") -> str:
    """Format a monthly change, signed."""
    return usd(v, sign=True, currency=currency)


def money(mm: MinMax, one: Callable[..., str], currency: str = "USD") -> str:
    """Format an amount at nodes.min and nodes.max in ``currency``: ``$1 to $2``."""
    return span(mm, lambda v: one(v, currency=currency), " to ")


def gib(v: float | None) -> str:
    """Format GiB: ``6 GiB``, ``2.7 GiB``, ``?``."""
    return "?" if v is None else f"{round(v, 1):g} GiB"


ELSEWHERE = "*"
"""Marks an amount priced from another region's list prices than the stack's (``elsewhere``)."""


def elsewhere(result: PlanResult) -> dict[str, str]:
    """Return the pools priced at another region's list prices than the stack's, with that region.

    The catalog prices an instance type for its own region (the cloud's reference region, or
    the one a ``catalog refresh --region`` overlay was made for); a stack elsewhere pays its own
    region's price, which may differ. A declared price has no region and is never marked.
    """
    if not result.region:
        return {}
    return {p.pool: p.price_region for p in result.cost.pools
            if p.price_region and p.price_region != result.region}  # fmt: skip


def elsewhere_mark(result: PlanResult, pool: str | None = None) -> str:
    """Return ``ELSEWHERE`` for an amount of ``pool`` (any pool: a total) priced elsewhere."""
    found = elsewhere(result)
    return ELSEWHERE if (pool in found if pool is not None else found) else ""


def low_high(mm: MinMax) -> MinMax:
    """Return a range with its smaller end first (unchanged where an end is unknown)."""
    if mm.min is None or mm.max is None or mm.min <= mm.max:
        return mm
    return MinMax(mm.max, mm.min)
