"""KEDA and the HPA, emulated (gpupool/simulate/services/keda.py, hpa.py): hand-worked cases.

Each case names the upstream rule it follows:

* the HPA: kubernetes/kubernetes ``pkg/controller/podautoscaler/replica_calculator.go``
  (``GetExternalPerPodMetricReplicas``: ceil(total / target) outside the 0.1 tolerance of
  total / (target x pods); ``GetExternalMetricReplicas``/``getUsageRatioReplicaCount``: ceil(ratio
  x ready pods)) and ``horizontal.go`` (``reconcileAutoscaler``; ``stabilizeRecommendationWith
  Behaviors``: the highest recommendation of the scale-down window, the lowest of the scale-up
  window; ``calculateScaleUpLimitWithScalingRules``/``calculateScaleDownLimitWithBehaviors``: the
  replicas at the period's start plus or less each policy, selectPolicy Max/Min/Disabled), with
  the defaults of ``pkg/apis/autoscaling/v2/defaults.go`` (scale-up: 0 s, 4 Pods or 100% per
  15 s, Max; scale-down: 300 s, 100% per 15 s; commit 1adaa753);
* KEDA: kedacore/keda ``pkg/scaling/executor/scale_scaledobjects.go`` (``RequestScale``: from
  zero to max(minReplicaCount, 1) when a trigger is active, to zero once ``cooldownPeriod`` has
  passed since the last active poll), v2.20 defaults (30 s polling, 300 s cooldown,
  ``activationThreshold`` 0; kedacore/keda commit 8b4f083).
"""

from __future__ import annotations

from gpupool.service_model import SCALE_DOWN_DEFAULT, SCALE_UP_DEFAULT, Behavior, Policy
from gpupool.simulate.services.hpa import (
    DISABLED,
    MIN,
    VALUE,
    Hpa,
    Metric,
    Rules,
    milli,
    proposal,
)
from gpupool.simulate.services.keda import Keda


def _hpa(lo: int = 1, hi: int = 100, up: Rules | None = None, down: Rules | None = None) -> Hpa:
    return Hpa(lo, hi, up or Rules.of(SCALE_UP_DEFAULT), down or Rules.of(SCALE_DOWN_DEFAULT))


def _rps(total: float, target: float = 40) -> list[Metric]:
    return [Metric(total, target)]


# -- replica_calculator.go ---------------------------------------------------------------------


def test_average_value_is_ceil_of_total_over_target() -> None:
    # 250 rps over 4 pods at 40 each: ratio 250 / 160 = 1.5625, outside 0.1; ceil(250 / 40) = 7
    assert proposal(Metric(250, 40), status_replicas=4, spec_replicas=4, ready=4) == 7


def test_within_the_tolerance_nothing_changes() -> None:
    # 170 / 160 = 1.0625: within 0.1, stays 4; 180 / 160 = 1.125: ceil(4.5) = 5
    assert proposal(Metric(170, 40), 4, 4, 4) == 4
    assert proposal(Metric(180, 40), 4, 4, 4) == 5
    # the edge: 144 / 160 = 0.9 is within (|1 - 0.9| <= 0.1)
    assert proposal(Metric(144, 40), 4, 4, 4) == 4


def test_average_value_counts_pods_not_yet_ready() -> None:
    # AverageValue divides by the pods that exist (status.replicas), ready or not: 4 pods, 1
    # ready, 170 / 160 within the tolerance, so no change
    assert proposal(Metric(170, 40), status_replicas=4, spec_replicas=4, ready=1) == 4


def test_value_target_scales_the_ready_pods() -> None:
    # Value: ratio 30 / 10 = 3, times the 2 ready pods of the 4 asked for: 6
    assert proposal(Metric(30, 10, VALUE), 4, 4, ready=2) == 6
    # from zero replicas: ceil(ratio)
    assert proposal(Metric(25, 10, VALUE), 0, 0, ready=0) == 3


def test_quantities_are_thousandths_truncated() -> None:
    assert milli(1.0009) == 1000
    assert milli(float("nan")) == 0


# -- horizontal.go: clamps and policies --------------------------------------------------------


def test_outside_min_and_max_goes_to_the_bound_without_metrics() -> None:
    assert _hpa(2, 8).sync(0, spec=10, status=10, ready=10, metrics=_rps(0)).desired == 8
    assert _hpa(2, 8).sync(0, spec=1, status=1, ready=1, metrics=_rps(10_000)).desired == 2


def test_zero_replicas_disable_the_hpa() -> None:
    # reconcileAutoscaler: spec.replicas 0 with minReplicas != 0 is left alone (KEDA owns 0 <-> 1)
    decision = _hpa().sync(0, spec=0, status=0, ready=0, metrics=_rps(1_000))
    assert (decision.desired, decision.reason) == (0, "ScalingDisabled")


def test_the_default_scale_up_is_4_pods_or_100_percent_per_15_s() -> None:
    hpa = _hpa()
    # 2 pods want 1000 / 10 = 100: limit max(2 + 4, ceil(2 x 2)) = 6
    first = hpa.sync(0, 2, 2, 2, _rps(1_000, 10))
    assert (first.desired, first.reason) == (6, "ScaleUpLimit")
    # 15 s on the +4 at t=0 is out of the period (after the cutoff, strictly): from 6,
    # max(6 + 4, 12) = 12
    assert hpa.sync(15, 6, 6, 6, _rps(1_000, 10)).desired == 12
    assert hpa.sync(30, 12, 12, 12, _rps(1_000, 10)).desired == 24


def test_a_pods_policy_counts_the_changes_within_its_period() -> None:
    up = Rules.of(Behavior(0, (Policy("Pods", 1, 60),)))
    hpa = _hpa(up=up)
    assert hpa.sync(0, 2, 2, 2, _rps(1_000, 10)).desired == 3
    # 15 s later the +1 is within the 60 s period: the period started at 2, limit 3
    assert hpa.sync(15, 3, 3, 3, _rps(1_000, 10)).desired == 3
    assert hpa.sync(45, 3, 3, 3, _rps(1_000, 10)).desired == 3
    # at 60 s the change at 0 is no longer after the cutoff: from 3, limit 4
    assert hpa.sync(60, 3, 3, 3, _rps(1_000, 10)).desired == 4


def test_select_policy_min_and_disabled() -> None:
    policies = (Policy("Pods", 4, 15), Policy("Percent", 100, 15))
    least = _hpa(up=Rules.of(Behavior(0, policies), MIN))
    # from 10: min(10 + 4, 20) = 14
    assert least.sync(0, 10, 10, 10, _rps(1_000, 10)).desired == 14
    frozen = _hpa(up=Rules.of(Behavior(0, policies), DISABLED))
    assert frozen.sync(0, 10, 10, 10, _rps(1_000, 10)).desired == 10


def test_the_default_scale_down_waits_300_s_for_the_highest_recommendation() -> None:
    hpa = _hpa()
    assert hpa.sync(0, 10, 10, 10, _rps(400, 40)).desired == 10  # 400 / 40 = 10: recorded
    # demand falls to 80 rps: 2 replicas would do, but the window holds the 10 of t=0
    for t in range(15, 300, 15):
        assert hpa.sync(t, 10, 10, 10, _rps(80, 40)).desired == 10, t
    # at 300 s the t=0 recommendation is no longer after the cutoff (300 - 300 = 0)
    decision = hpa.sync(300, 10, 10, 10, _rps(80, 40))
    assert (decision.desired, decision.reason) == (2, "DesiredWithinRange")


def test_a_scale_down_pods_policy_limits_the_step() -> None:
    down = Rules.of(Behavior(0, (Policy("Pods", 1, 60),)))
    hpa = _hpa(down=down)
    decision = hpa.sync(0, 10, 10, 10, _rps(80, 40))
    assert (decision.desired, decision.reason) == (9, "ScaleDownLimit")
    assert hpa.sync(15, 9, 9, 9, _rps(80, 40)).desired == 9  # the -1 still within 60 s
    assert hpa.sync(60, 9, 9, 9, _rps(80, 40)).desired == 8


def test_a_scale_up_window_takes_the_lowest_recommendation() -> None:
    up = Rules.of(Behavior(60, SCALE_UP_DEFAULT.policies))
    hpa = _hpa(up=up)
    assert hpa.sync(0, 2, 2, 2, _rps(80, 40)).desired == 2
    # a spike to 200 rps wants 5, but the window's lowest is the 2 of t=0
    assert hpa.sync(15, 2, 2, 2, _rps(200, 40)).desired == 2
    assert hpa.sync(60, 2, 2, 2, _rps(200, 40)).desired == 5


def test_several_metrics_scale_to_the_largest() -> None:
    hpa = _hpa()
    metrics = [Metric(80, 40), Metric(300, 100)]  # 2 and 3
    assert hpa.sync(0, 2, 2, 2, metrics).desired == 3


def test_never_above_max() -> None:
    hpa = _hpa(1, 5)
    decision = hpa.sync(0, 4, 4, 4, _rps(10_000, 10))
    assert (decision.desired, decision.reason) == (5, "TooManyReplicas")


# -- scale_scaledobjects.go --------------------------------------------------------------------


def test_keda_activates_from_zero_above_the_activation_threshold() -> None:
    keda = Keda(min_replicas=0, max_replicas=4, cooldown_seconds=300)
    assert keda.poll(0, 0, [0.0]).replicas is None  # 0 is not above 0
    poll = keda.poll(30, 0, [0.5])
    assert (poll.replicas, poll.reason, keda.last_active) == (1, "ScaledFromZero", 30)
    # a threshold of 5: 5 is not above it
    assert Keda(0, 4, 300).poll(0, 0, [5.0], thresholds=[5.0]).replicas is None


def test_keda_wakes_to_min_replica_count_when_above_one() -> None:
    assert Keda(min_replicas=2, max_replicas=4, cooldown_seconds=300).poll(0, 0, [1]).replicas == 2


def test_keda_scales_to_zero_after_the_cooldown() -> None:
    keda = Keda(min_replicas=0, max_replicas=4, cooldown_seconds=300)
    assert keda.poll(0, 1, [3.0]).reason == "Active"
    # inactive from 30 s on: waits while last active (0) + 300 is not before now
    for t in range(30, 301, 30):
        assert keda.poll(t, 1, [0.0]).reason == "CoolingDown", t
    assert keda.poll(330, 1, [0.0]).replicas == 0


def test_keda_scales_to_zero_at_once_when_never_active() -> None:
    assert Keda(0, 4, 300).poll(0, 3, [0.0]).replicas == 0


def test_keda_restores_min_replica_count_when_inactive() -> None:
    poll = Keda(min_replicas=2, max_replicas=4, cooldown_seconds=300).poll(0, 1, [0.0])
    assert (poll.replicas, poll.reason) == (2, "ToMinReplicaCount")


def test_keda_hands_the_hpa_at_least_one_replica() -> None:
    assert Keda(0, 4, 300).hpa_min == 1
    assert Keda(3, 4, 300).hpa_min == 3
