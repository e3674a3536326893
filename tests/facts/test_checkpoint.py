"""The checkpoint arithmetic (gpupool/facts/checkpoint.py): intervals, expected loss, downtime.

Worked examples by hand; the optimum intervals are the published ones: J. W. Young, "A first
order approximation to the optimum checkpoint interval", CACM 17(9), 1974 (``sqrt(2 d M)``), and
J. T. Daly, "A higher order estimate of the optimum checkpoint interval for restart dumps",
FGCS 22(3), 2006, whose figures 3 to 5 give, for a 5-minute dump, 117 min at M = 24 h, 57 min at
M = 6 h and 9.1 min at M = 15 min.
"""

from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpupool.checkpoint_model import Checkpoint, Recovery
from gpupool.facts import checkpoint as ck
from gpupool.simulate import autoscaler
from gpupool.spec.checks import services
from tests.stacks import load_stack

MIN = 60.0
HOUR = 3600.0


@pytest.mark.parametrize(("mtbi", "expected_min"), [(24 * HOUR, 117), (6 * HOUR, 57),
                                                    (15 * MIN, 9.1)])
def test_daly_gives_the_papers_own_optima(mtbi: float, expected_min: float) -> None:
    # Daly 2006, figures 3-5: delta = 5 min, the model's tau_opt in the caption
    got = ck.daly(5 * MIN, mtbi) / MIN
    assert got == pytest.approx(expected_min, abs=0.5 if expected_min > 10 else 0.05)


def test_young_on_a_worked_example() -> None:
    # a 60 s write, one interruption every 20 hours: sqrt(2 x 60 x 72,000) = sqrt(8,640,000)
    assert ck.young(60, 20 * HOUR) == pytest.approx(2939.387, abs=1e-3)
    # Daly's terms by hand: x = 60 / 144,000; 2939.387 x (1 + sqrt(x)/3 + x/9) - 60
    x = 60 / 144_000
    assert ck.daly(60, 20 * HOUR) == pytest.approx(2939.387 * (1 + math.sqrt(x) / 3 + x / 9) - 60)
    assert ck.daly(60, 20 * HOUR) == pytest.approx(2899.52, abs=0.01)


def test_daly_is_the_mean_time_when_the_write_is_two_of_them() -> None:
    # Daly: tau_opt = M for delta >= 2M
    assert ck.daly(200, 100) == 100
    assert ck.daly(199.9, 100) < 100


def test_the_loss_of_an_interval_by_hand() -> None:
    # every 30 min, 60 s writes, M 20 h: 60/1800 = 3.33% writing, 1800/144,000 = 1.25% redone
    assert ck.loss_share(1800, 60, 20 * HOUR) == pytest.approx(0.045833, abs=1e-6)


def test_a_pools_interval_and_its_cost_a_day() -> None:
    # tests/fixtures/valid/checkpoint-spot-kai.yaml: p4d.24xlarge (8 GPUs) x nodes.max 4,
    # perHour 0.05 (M = 72,000 s), every 1800 s, write 60 s
    stack = load_stack("checkpoint-spot-kai")
    pool = stack.pools[0]
    assert pool.recovery.checkpoint is not None
    found = ck.interval(pool, pool.recovery.checkpoint)
    assert found is not None
    assert found.mtbi_seconds == 72_000 and found.gpus == 32
    assert found.optimum_seconds == pytest.approx(2899.52, abs=0.01)
    assert found.declared_loss == pytest.approx(0.045833, abs=1e-6)
    # at the optimum: 60/2899.52 + 2899.52/144,000 = 0.020693 + 0.020135
    assert found.optimum_loss == pytest.approx(0.040829, abs=1e-6)
    # (0.045833 - 0.040829) x 32 GPUs x 24 h
    assert found.gpu_hours_a_day == pytest.approx(3.843, abs=1e-3)
    assert not found.off  # 1800 is within half and twice 2899.5
    assert ck.interval(pool, dataclasses.replace(pool.recovery.checkpoint,
                                                 every_seconds=7200)).off


def test_no_rate_no_interval() -> None:
    stack = load_stack("checkpoint-spot-kai")
    pool = dataclasses.replace(stack.pools[0], interruption=dataclasses.replace(
        stack.pools[0].interruption, per_hour=None))
    assert pool.recovery.checkpoint is not None
    assert ck.interval(pool, pool.recovery.checkpoint) is None


def test_the_downtime_parts_add_up() -> None:
    # the pool: drain 120 (drainSeconds) + rescheduling 10 + scale-up 300 (nodes 1..4 can grow)
    # + startup 120 + restore 90 = 640, under the 900 s budget
    stack = load_stack("checkpoint-spot-kai")
    pool = stack.pools[0]
    d = ck.downtime(stack, pool, pool.recovery)
    assert dict(d.parts()) == {"drain": 120, "rescheduling": 10, "scale-up": 300,
                               "startup": 120, "restore": 90}
    assert d.total_seconds == 640 and d.budget_seconds == 900 and not d.over
    # tenant batch's own checkpoint restores in 120 s; the pool's budget and startup still apply
    batch = stack.tenants[1]
    on_pool = ck.applying(stack, batch, pool)
    assert ck.downtime(stack, pool, on_pool).total_seconds == 670
    # a scale-up found needed at half the interruptions counts half
    assert ck.downtime(stack, pool, pool.recovery, no_slot_share=0.5).scale_up_seconds == 150
    # a pool that cannot grow has no scale-up to wait for
    fixed = dataclasses.replace(pool, nodes=dataclasses.replace(pool.nodes, min=4, max=4))
    assert ck.downtime(stack, fixed, pool.recovery).scale_up_seconds == 0
    tight = dataclasses.replace(pool.recovery, max_downtime_seconds=600)
    assert ck.downtime(stack, pool, tight).over


def test_the_grace_period_fits_the_write() -> None:
    # Kubernetes' default terminationGracePeriodSeconds is 30 (k8s.io/api core/v1)
    stack = load_stack("checkpoint-spot-kai")
    spot = stack.pools[0]
    assert ck.grace_seconds(spot, spot.recovery) == 120  # drainSeconds wins on spot
    no_drain = dataclasses.replace(spot, interruption=dataclasses.replace(
        spot.interruption, drain_seconds=None))
    assert ck.grace_seconds(no_drain, spot.recovery) == 60
    short = Recovery(checkpoint=Checkpoint(600, 10, 0, ()))
    assert ck.grace_seconds(no_drain, short) == 30
    assert ck.grace_seconds(no_drain, Recovery()) is None


def test_the_scale_up_figure_is_the_one_the_services_check_and_simulator_take() -> None:
    # cluster-autoscaler FAQ, "about 5 minutes"; three modules must not drift apart
    assert ck.SCALE_UP_SECONDS == services.NODE_PROVISION_SECONDS == autoscaler.SCALE_UP_SECONDS


_seconds = st.floats(1, 1e6, allow_nan=False)


@given(_seconds, _seconds, _seconds, _seconds)
def test_overhead_grows_with_the_write_time(every: float, w1: float, w2: float,
                                            mtbi: float) -> None:
    lo, hi = sorted((w1, w2))
    assert ck.loss_share(every, lo, mtbi) <= ck.loss_share(every, hi, mtbi)


@given(_seconds, _seconds, _seconds)
def test_a_shorter_interval_never_redoes_more_work(t1: float, t2: float, mtbi: float) -> None:
    # the redone part of the loss, every / 2M: half an interval per interruption
    short, long = sorted((t1, t2))
    assert ck.loss_share(short, 0.0, mtbi) <= ck.loss_share(long, 0.0, mtbi)


@given(_seconds, _seconds, _seconds)
def test_youngs_interval_loses_least_in_the_first_order_loss(every: float, write: float,
                                                            mtbi: float) -> None:
    # d/T + T/2M is least at T = sqrt(2 d M): Young's optimum minimises the formula it comes from
    best = ck.young(write, mtbi)
    assert ck.loss_share(best, write, mtbi) <= ck.loss_share(every, write, mtbi) * (1 + 1e-12)
