"""KAI's queue rules as pure functions (``gpupool.schedulers.kai``), on hand-worked figures.

Cases restate, in this project's words, entries of KAI v0.17.0 (commit f218c69) tests named in
each docstring; the others are worked by hand from the source file each function cites.
"""

from __future__ import annotations

import pytest

from gpupool.schedulers import kai


def _key(allocated: float, deserved: float, fair: float, priority: int = 0,
         job: float = 0.0, created: int = 0) -> tuple[float, ...]:
    return kai.queue_order(allocated, job, deserved, fair, None, priority, created)


@pytest.mark.parametrize(("left", "right", "left_first"), [
    # "test prioritization based on fair share starvation": l deserves 2, holds 20 of a fair
    # share of 99; r deserves 2 and holds nothing: r, within its quota, goes first
    (dict(allocated=20, deserved=2, fair=99), dict(allocated=0, deserved=2, fair=2), False),
    # "... quota starvation, even if priority is different": l has the higher priority, still r
    (dict(allocated=20, deserved=2, fair=99, priority=1),
     dict(allocated=0, deserved=2, fair=2, priority=0), False),
    # "prioritize queue priority if queues are satisfied": both past their quota: priority
    (dict(allocated=20, deserved=2, fair=99, priority=1),
     dict(allocated=3, deserved=2, fair=2, priority=0), True),
    # "... quota < rQueue < fairshare": r holds 3 of a fair share of 80: still priority
    (dict(allocated=20, deserved=2, fair=99, priority=1),
     dict(allocated=3, deserved=2, fair=80, priority=0), True),
])
def test_queue_order_table(left: dict[str, float], right: dict[str, float],
                           left_first: bool) -> None:
    """proportion/queue_order/queue_order_test.go, TestGetQueueOrderResult (no job given)."""
    assert (_key(**left) < _key(**right)) == left_first  # type: ignore[arg-type]


def test_queue_order_weighs_the_job_then_the_share() -> None:
    """queue_order.go, by hand: a queue's next job counts in the quota step (2 + 1 > 2 puts it
    after one that stays within), and among queues alike the smaller share with the job goes
    first (1/4 before 2/4), then the one created first."""
    assert _key(2, 2, 2, job=1) > _key(0, 2, 2, job=2)
    assert _key(0, 4, 4, job=1) < _key(1, 4, 4, job=1)
    assert _key(0, 4, 4, job=1, created=0) < _key(0, 4, 4, job=1, created=1)


def test_a_queue_with_no_allocatable_share_goes_last() -> None:
    """queue_order.go, penalizeZeroShareWithJob: a queue whose quota and fair share are 0 but
    that would hold GPUs goes after one that may hold some, whatever their shares."""
    assert _key(0, 0, 0, job=1) > _key(5, 1, 6, job=1)


def test_allocatable_share_is_quota_or_fair_share_within_the_limit() -> None:
    """resource_share.go, GetAllocatableShare."""
    assert kai.allocatable(2, 5, None) == 5
    assert kai.allocatable(4, 1, None) == 4
    assert kai.allocatable(2, 5, 3) == 3


def test_quota_counts_non_preemptible_pods_and_limit_counts_all() -> None:
    """quota_check.go and max_allowed_check.go: quota 2, 1 non-preemptible GPU held beside 3
    preemptible ones: one more non-preemptible GPU is within quota (1 + 1 <= 2), two are not;
    a limit of 4 refuses any more GPUs (4 + 1 > 4)."""
    assert not kai.non_preemptible_over_quota(1, 1, 2)
    assert kai.non_preemptible_over_quota(1, 2, 2)
    assert kai.over_limit(4, 1, 4)
    assert not kai.over_limit(4, 1, None)


def test_reclaim_needs_the_reclaimer_within_its_fair_share() -> None:
    """reclaimable.go, CanReclaimResources: holding 1 with a fair share of 3, a 2-GPU job may
    reclaim, a 3-GPU one not; a non-preemptible one must stay within its quota (1 + 2 > 2)."""
    assert kai.can_reclaim(1, 2, 3, 0, 2, preemptible=True)
    assert not kai.can_reclaim(1, 3, 3, 0, 2, preemptible=True)
    assert not kai.can_reclaim(1, 2, 3, 1, 2, preemptible=False)


def test_reclaim_candidates_and_steps() -> None:
    """filter_victims.go and strategies.go: a reclaimer past its quota may only take from a
    queue above its allocatable share (5 > 4, not 4 > 4); within its quota, from a queue at
    or above its quota (2 >= 2). Victim by victim, the victim queue must hold more than its
    share, or more than its quota while the reclaimer stays within its own."""
    assert kai.reclaim_candidate(3, 1, 2, 5, 2, 4)
    assert not kai.reclaim_candidate(3, 1, 2, 4, 2, 4)
    assert kai.reclaim_candidate(0, 1, 2, 2, 2, 4)
    assert not kai.reclaim_candidate(0, 1, 2, 1, 2, 4)
    assert kai.reclaim_step(False, 5, 2, 4)
    assert not kai.reclaim_step(False, 4, 2, 4)
    assert kai.reclaim_step(True, 3, 2, 4)
    assert not kai.reclaim_step(True, 2, 2, 4)
