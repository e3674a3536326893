"""The one quantile of waits: the nearest-rank percentile that ``simulate`` and ``advise`` share.

``percentile(values, q)`` (and ``weighted_percentile`` of (value, times) pairs) is the
smallest value with at least ``q`` percent of the values at or below it: the value at rank
``ceil(q / 100 * n)`` of the ``n`` sorted values (rank 1 at least). It is always one of the
values, a wait some pod really had, which interpolation between two
pods' waits is not; it needs no rule for small samples (the p95 of one wait is that wait, of two
the longer); and it is the figure ``gpupool simulate`` has always printed, so its reports keep
their bytes. ``gpupool simulate``'s per-tenant "wait p95" and every p95 wait ``gpupool advise``
prints or checks (observed, replayed, and the queue-wait check's) come from here.

PromQL's ``quantile_over_time``, which interpolates between ranks, stays the quantile of the
memory and activity series (``advise.evidence``): those figures are the server's own.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def percentile(values: Sequence[float], q: float) -> float | None:
    """Return the nearest-rank ``q`` percentile (0 < q <= 100) of ``values``, None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def weighted_percentile(values: Sequence[tuple[float, int]], q: float) -> float | None:
    """Return ``percentile`` of ``values`` given as (value, times) pairs, None when empty.

    The same figure as ``percentile`` of each value repeated its times: a gang's pods all wait
    alike, so ``simulate`` keeps one pair a job instead of one value a pod.
    """
    total = sum(n for _, n in values)
    if not total:
        return None
    rank = max(1, math.ceil(q / 100 * total))
    seen = 0
    for value, n in sorted(values):
        seen += n
        if seen >= rank:
            return value
    return None  # not reached: the ranks end at ``total``


def p95(values: Sequence[float]) -> float:
    """Return the nearest-rank 95th percentile of ``values``, which must not be empty.

    Raises:
        ValueError: ``values`` is empty.

    """
    out = percentile(values, 95)
    if out is None:
        raise ValueError("the 95th percentile of no value")
    return out
