"""KAI Scheduler's division of a cluster's GPUs into queues' fair shares, as pure arithmetic.

This module owns one rule of KAI v0.17.0 (commit f218c69),
``pkg/scheduler/plugins/proportion/resource_division/resource_division.go``, restated for the
GPU resource of flat queues (``gpupool.sharing.kai`` renders each tenant's leaf queue under one
parent queue that holds every child's quota and no limit; a lone top queue's share is all the
cluster its children ask for, so the children divide the cluster's GPUs as below):

1. **Deserved first.** Each queue gets its quota, but no more than it can ask for: the smaller
   of its quota and its *requestable* share (what its pods hold and wait for, capped at its
   limit). A queue with nothing to run gets nothing, quota or not.
2. **Over quota, by priority.** What is left goes to the queues of the highest priority first,
   in rounds. In a round each queue still short of what it asks for (and below its limit) is
   offered the round's amount times its ``overQuotaWeight`` over the weights of the queues still
   asking; it takes all it still asks for when that is no more than the offer, else the offer
   rounded *down to whole GPUs*, and keeps the fraction it was not given. Another round follows
   while a queue took less than it was offered. A weight of 0 gets nothing over quota.
3. **The remainder one GPU at a time.** Per priority, highest first, what rounding held back
   goes one GPU (or what is left, if less) to each queue that kept a fraction, the largest
   fraction first, ties to the queue created first (here: the tenant listed first).

The usage-decay term of the weights (``kValue`` times weight minus usage) is 0 without a usage
database, which gpupool renders none of, so weights divide as they are.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class QueueAsk:
    """One queue as the division sees it (GPU units KAI counts).

    Attributes:
        name: the queue's name.
        deserved: its quota.
        limit: its limit, None for unlimited.
        weight: its ``overQuotaWeight``.
        priority: its priority (higher divides first).
        request: what its pods hold plus what its pending pods ask for.
        created: its rank in creation order (the remainder's last tie-break).

    """

    name: str
    deserved: float
    limit: float | None
    weight: float
    priority: int
    request: float
    created: int = 0

    @property
    def requestable(self) -> float:
        """What it may ask for: its request, capped at its limit."""
        return self.request if self.limit is None else min(self.limit, self.request)


def fair_shares(total: float, queues: Sequence[QueueAsk]) -> dict[str, float]:
    """Return each queue's fair share of ``total`` GPUs (steps 1 to 3 of the module)."""
    share = {q.name: 0.0 for q in queues}
    left = total
    for q in queues:
        amount = min(q.deserved, q.requestable)
        share[q.name] += amount
        left -= amount
    if left <= 0:
        return share
    by_priority: dict[int, list[QueueAsk]] = {}
    for q in queues:
        by_priority.setdefault(q.priority, []).append(q)
    priorities = sorted(by_priority, reverse=True)
    kept: dict[int, dict[str, tuple[QueueAsk, float]]] = {}
    for prio in priorities:
        left, kept[prio] = _rounds(left, by_priority[prio], share)
    for prio in priorities:
        if left <= 0:
            break
        left = _remainder(left, kept[prio], share)
    return share


def _satisfied(q: QueueAsk, fair: float) -> bool:
    """Whether a queue needs no more: its whole request is met, or its limit is reached."""
    return q.request <= fair or (q.limit is not None and q.limit <= fair)


def _still_asks(q: QueueAsk, fair: float) -> float:
    """Return what a queue still asks for beyond ``fair`` (0 when nothing)."""
    return max(q.requestable - fair, 0.0)


def _rounds(left: float, group: list[QueueAsk], share: dict[str, float],
            ) -> tuple[float, dict[str, tuple[QueueAsk, float]]]:
    """Divide ``left`` among one priority's queues in rounds (step 2).

    Returns what is left, and the fraction each queue was offered but not given.
    """
    kept: dict[str, tuple[QueueAsk, float]] = {}
    while True:
        asking = sum(q.weight for q in group if _still_asks(q, share[q.name]) > 0)
        if asking == 0:
            break
        weights = {q.name: q.weight / asking for q in group if not _satisfied(q, share[q.name])}
        weight_sum = sum(weights.values())
        if weight_sum == 0:
            break
        offered_total = left
        again = False
        for q in group:
            if left == 0:
                break
            if _satisfied(q, share[q.name]) or q.weight == 0:
                continue
            wants = _still_asks(q, share[q.name])
            offer = offered_total * weights[q.name] / weight_sum
            if wants <= offer:
                give = wants
                kept.pop(q.name, None)
            else:
                give = max(math.floor(offer), 0.0)
                if offer - give > 0:
                    kept[q.name] = (q, offer - give)
            if give == 0:
                continue
            share[q.name] += give
            left -= give
            again = again or wants < offer
        if not again or left == 0:
            break
    return left, kept


def _remainder(left: float, kept: dict[str, tuple[QueueAsk, float]],
               share: dict[str, float]) -> float:
    """Give what rounding held back, one GPU a queue, the largest fraction first (step 3)."""
    order = sorted(kept.values(), key=lambda item: (-item[1], item[0].created, item[0].name))
    for q, _ in order:
        if left == 0:
            break
        give = min(1.0, left)
        share[q.name] += give
        left -= give
    return left
