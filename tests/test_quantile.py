"""The one quantile of waits (gpupool/quantile.py): nearest rank, shared by simulate and advise."""

from __future__ import annotations

import pytest

from gpupool.quantile import p95, percentile, weighted_percentile
from gpupool.simulate import report


def test_nearest_rank_is_the_value_at_rank_ceil_q_n() -> None:
    waits = [float(w) for w in range(1, 21)]  # 1..20 s, shuffled below
    shuffled = waits[::-1]
    assert percentile(shuffled, 95) == 19.0  # rank ceil(0.95 * 20) = 19
    assert percentile(shuffled, 50) == 10.0  # rank 10
    assert percentile(shuffled, 100) == 20.0
    assert percentile([0.0, 3600.0], 95) == 3600.0  # rank 2 of 2, not 3420 interpolated
    assert percentile([42.0], 95) == 42.0
    assert percentile([], 95) is None


def test_p95_is_percentile_95_and_refuses_no_value() -> None:
    assert p95([5.0, 1.0, 3.0]) == percentile([5.0, 1.0, 3.0], 95) == 5.0
    with pytest.raises(ValueError, match="no value"):
        p95([])


def test_weighted_is_percentile_of_each_value_repeated() -> None:
    """simulate keeps a gang's waits as one (wait, pods) pair; the figure is the same."""
    pairs = [(30.0, 3), (5.0, 1), (600.0, 100_000), (0.0, 2), (5.0, 4)]
    flat = [v for v, n in pairs for _ in range(n)]
    for q in (1, 50, 95, 99.999, 100):
        assert weighted_percentile(pairs, q) == percentile(flat, q)
    assert weighted_percentile([], 95) is None


def test_simulate_and_advise_share_it() -> None:
    """One function, not two that agree today: simulate's report and advise's waits import it."""
    from gpupool.advise import workload
    from gpupool.usecases import advise_replay

    assert report.weighted_percentile is weighted_percentile
    assert workload.p95 is p95 and advise_replay.p95 is p95
