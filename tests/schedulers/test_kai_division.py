"""KAI's fair-share division (``gpupool.schedulers.kai_division``), on hand-worked cases.

Each case restates, in this project's words, an entry of KAI v0.17.0 (commit f218c69)
``pkg/scheduler/plugins/proportion/resource_division/resource_division_test.go`` (named in the
case's comment), or works one by hand from ``resource_division.go``.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpupool.schedulers.kai_division import QueueAsk, fair_shares


def _two(total: float, *, w1: float = 2, w2: float = 2, r1: float = 6, r2: float = 6,
         l1: float | None = None, p1: int = 0, p2: int = 0) -> dict[str, float]:
    # the table "two queues": both deserve 2 GPUs and ask for 6, weights 2 and 2
    return fair_shares(total, [QueueAsk("1", 2, l1, w1, p1, r1, 0),
                               QueueAsk("2", 2, None, w2, p2, r2, 1)])


@pytest.mark.parametrize(("total", "kw", "want"), [
    (15, {}, {"1": 6, "2": 6}),  # "allocates many available gpus": each gets what it asks
    (12, {}, {"1": 6, "2": 6}),  # "allocates exact requested amount gpus"
    (8, {"w1": 1, "w2": 3}, {"1": 3, "2": 5}),  # "allocates GPUs proportionally": 4 over, 1:3
    (12, {"l1": 5}, {"1": 5, "2": 6}),  # "doesn't allocate more than allowed": the limit caps
    # "distributes remainder between queues based on largest remaining": 7 over quota at 1:4
    # offers 1.4 and 5.6, rounded down to 1 and 5; the one GPU left goes to the 0.6
    (11, {"w1": 1, "w2": 4, "r1": 10, "r2": 10}, {"1": 3, "2": 8}),
    # "distributes remainder between queues based on creation time": 7 over at 1:1 offers 3.5
    # each, 3 each given, the last GPU to the queue created first
    (11, {}, {"1": 6, "2": 5}),
    (4, {"p1": 1, "p2": 2}, {"1": 2, "2": 2}),  # "priority doesn't affect deserved"
    (6, {"p1": 1, "p2": 2}, {"1": 2, "2": 4}),  # "priority does affect over-quota"
    # "priority does affect over-quota, even when overQuotaWeight is set"
    (6, {"p1": 1, "p2": 2, "w1": 100, "w2": 1}, {"1": 2, "2": 4}),
])
def test_two_queues_table(total: float, kw: dict[str, float], want: dict[str, float]) -> None:
    """resource_division_test.go, Context "two queues": the table's entries."""
    assert _two(total, **kw) == want  # type: ignore[arg-type]


def test_remainder_with_priorities_and_a_queue_asking_nothing() -> None:
    """resource_division_test.go, "divides the remainder even when using priorities": 5 GPUs;
    two queues of priority 2 deserve 2 and ask 5 (weight 2), one of priority 1 deserves 1 and
    asks nothing. Deserved: 2, 2, 0 (nothing asked, nothing given); the 1 GPU left offers 0.5
    to each of the first two, rounded down to 0; the remainder goes to the one created first."""
    got = fair_shares(5, [QueueAsk("1", 2, None, 2, 2, 5, 0), QueueAsk("2", 2, None, 2, 2, 5, 1),
                          QueueAsk("3", 1, None, 2, 1, 0, 2)])
    assert got == {"1": 3, "2": 2, "3": 0}


@pytest.mark.parametrize(("limit", "weight", "asks", "want"), [
    (None, 1, 2, 2),  # one queue (deserved 3) asking 2 gets 2, not its quota of 3
    (None, 1, 5, 5),  # "gives requested GPUs": 3 deserved + 2 over quota of 10
    (4, 1, 5, 4),  # "doesn't give more GPUs than allowed"
    (None, 0, 5, 3),  # "doesn't give when over quota weight is zero"
    (None, 1, 4.5, 4.5),  # "gives with fraction if requested"
])
def test_one_queue(limit: float | None, weight: float, asks: float, want: float) -> None:
    """resource_division_test.go, the one-queue contexts, on 10 GPUs and a quota of 3."""
    assert fair_shares(10, [QueueAsk("1", 3, limit, weight, 0, asks)]) == {"1": want}


def test_weight_zero_and_idle_queues_get_no_surplus() -> None:
    """By hand from resource_division.go: 8 GPUs, queues a (quota 2, weight 1, asks 8), b (quota 2,
    weight 0, asks 8) and c (quota 2, weight 5, asks nothing). Deserved: 2, 2, 0; the 4 left all
    go to a (b's weight is 0, c asks nothing), though c's weight is the largest."""
    got = fair_shares(8, [QueueAsk("a", 2, None, 1, 0, 8, 0), QueueAsk("b", 2, None, 0, 0, 8, 1),
                          QueueAsk("c", 2, None, 5, 0, 0, 2)])
    assert got == {"a": 6, "b": 2, "c": 0}


def test_whole_gpus_per_round_then_one_at_a_time() -> None:
    """By hand: 10 GPUs, three queues of quota 0 and weight 1 asking 10 each: each round offers
    3.33, 3 given to each, and the 1 left goes to the first created (all kept 0.33)."""
    got = fair_shares(10, [QueueAsk(n, 0, None, 1, 0, 10, i) for i, n in enumerate("xyz")])
    assert got == {"x": 4, "y": 3, "z": 3}


_asks = st.lists(st.tuples(st.integers(0, 8), st.sampled_from([None, 2, 6]), st.integers(0, 3),
                           st.integers(0, 2), st.integers(0, 16)), min_size=1, max_size=5)


@given(total=st.integers(0, 32), rows=_asks)
def test_shares_stay_within_total_and_requests(
        total: int, rows: list[tuple[int, int | None, int, int, int]]) -> None:
    """Whatever the queues, the shares add up to no more than the cluster, and no queue whose
    request is a whole number of GPUs gets more than it may ask for (its request within its
    limit); a queue asking nothing gets nothing."""
    queues = [QueueAsk(f"q{i}", d, lim, w, p, r, i) for i, (d, lim, w, p, r) in enumerate(rows)]
    got = fair_shares(total, queues)
    deserved = sum(min(q.deserved, q.requestable) for q in queues)
    assert sum(got.values()) <= max(total, deserved) + 1e-9
    for q in queues:
        assert got[q.name] <= q.requestable + 1e-9
        if q.request == 0:
            assert got[q.name] == 0
