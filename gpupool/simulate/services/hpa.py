"""The Kubernetes HPA's replica decision, emulated as a clock-driven object with no cluster.

This module owns what the horizontal pod autoscaler decides at one sync, given the Deployment's
replicas and the metric values at that instant, read from kubernetes/kubernetes
``pkg/controller/podautoscaler`` (master as read in 2026: the stabilisation over both windows
at once, and policy limits that count both directions' events; ``horizontal.go``
``reconcileAutoscaler``, ``normalizeDesiredReplicasWithBehaviors``,
``stabilizeRecommendationWithBehaviors``, ``convertDesiredReplicasWithBehaviorRate``,
``calculateScaleUpLimitWithScalingRules``, ``calculateScaleDownLimitWithBehaviors``,
``storeScaleEvent``; ``replica_calculator.go`` ``GetExternalPerPodMetricReplicas``,
``GetExternalMetricReplicas``, ``getUsageRatioReplicaCount``). Written in gpupool's words:

* the controller syncs every 15 s (``SYNC_SECONDS``, the ``--horizontal-pod-autoscaler-sync-
  period`` default); a Deployment at 0 replicas is left alone (KEDA owns 0 <-> 1); above max it
  goes to max, below min to min, with no metric read;
* per metric, an ``AverageValue`` target (what KEDA's ScaledObjects ask, ``metricType:
  AverageValue``): the usage ratio is total / (target x the pods that exist, ready or not); within
  the tolerance (0.1) the count stays, else ceil(total / target). A ``Value`` target: the ratio is
  value / target, ceil(ratio x the ready pods) outside the tolerance. The largest proposal wins;
* the stabilisation windows: the recommendation is held between the lowest of the scale-up
  window's recommendations and the highest of the scale-down window's (the current count
  brought into that band), then the policies limit the change: per policy the replicas at the
  period's start (now less those added, plus those removed, within ``periodSeconds``) plus (or
  less) its Pods or Percent; ``selectPolicy`` Max takes the largest change, Min the smallest,
  Disabled none; the result clamped to min and max;
* every change is recorded with its time, for the policies' periods.

Quantities are compared as the controller does, in thousandths (``resource.Quantity`` milli
values, truncated as KEDA writes a float metric).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

from gpupool.service_model import Behavior

SYNC_SECONDS = 15.0
TOLERANCE = 0.1
AVERAGE_VALUE = "AverageValue"
VALUE = "Value"
MAX = "Max"
MIN = "Min"
DISABLED = "Disabled"
_INT32_MAX = 2**31 - 1


@dataclass(frozen=True)
class Rules:
    """One direction's rules (``HPAScalingRules``): the window, the policies, how one is chosen."""

    stabilization_seconds: float
    policies: tuple[tuple[str, int, int], ...]  # (Pods | Percent, value, periodSeconds)
    select: str = MAX

    @classmethod
    def of(cls, behavior: Behavior, select: str = MAX) -> Rules:
        """Return the rules of a service's ``scaleUp`` or ``scaleDown`` (gpupool renders Max)."""
        return cls(float(behavior.stabilization_seconds),
                   tuple((p.type, p.value, p.period_seconds) for p in behavior.policies), select)

    @property
    def longest_period(self) -> int:
        """The longest policy period: older changes count for nothing."""
        return max((p[2] for p in self.policies), default=0)


@dataclass(frozen=True)
class Metric:
    """One metric's reading at a sync: its value (for AverageValue, the total over the pods)."""

    value: float
    target: float
    type: str = AVERAGE_VALUE


@dataclass(frozen=True)
class Decision:
    """What one sync decided: the replicas to set, and why (the controller's reason words)."""

    desired: int
    reason: str


def milli(value: float) -> int:
    """Return a metric value in thousandths, truncated, as KEDA hands it to the HPA."""
    if not math.isfinite(value):
        return 0
    return int(value * 1000)


def proposal(metric: Metric, status_replicas: int, spec_replicas: int, ready: int,
             tolerance: float = TOLERANCE) -> int:
    """Return one metric's replica proposal (``replica_calculator.go``).

    AverageValue: ``GetExternalPerPodMetricReplicas`` with the pods that exist (``status``);
    Value: ``GetExternalMetricReplicas`` over the ready pods, ``ceil(ratio)`` from zero.
    """
    usage, target = milli(metric.value), max(1, milli(metric.target))
    if metric.type == AVERAGE_VALUE:
        replicas = status_replicas
        ratio = usage / (target * replicas) if replicas else math.inf
        if abs(1.0 - ratio) > tolerance:
            replicas = math.ceil(usage / target)
        return replicas
    ratio = usage / target
    if spec_replicas == 0:
        return math.ceil(ratio)
    if abs(1.0 - ratio) <= tolerance:
        return spec_replicas
    return math.ceil(ratio * ready)


@dataclass
class Hpa:
    """One HPA's state between syncs: its recent recommendations and scale events.

    ``sync`` is a pure step of the controller at ``now`` (seconds): it reads the Deployment's
    replicas (``spec``: what is asked; ``status``: the pods that exist; ``ready``: those ready)
    and the metrics, and returns the replicas to set; the caller sets them.
    """

    min_replicas: int
    max_replicas: int
    up: Rules
    down: Rules
    tolerance: float = TOLERANCE
    recommendations: deque[tuple[float, int]] = field(default_factory=deque)
    up_events: list[tuple[float, int]] = field(default_factory=list)
    down_events: list[tuple[float, int]] = field(default_factory=list)

    def sync(self, now: float, spec: int, status: int, ready: int,
             metrics: list[Metric]) -> Decision:
        """Return the controller's decision at ``now`` (``reconcileAutoscaler``)."""
        if spec == 0 and self.min_replicas != 0:
            return Decision(0, "ScalingDisabled")
        if spec > self.max_replicas:
            desired, reason = self.max_replicas, "TooManyReplicas"
        elif spec < self.min_replicas:
            desired, reason = self.min_replicas, "TooFewReplicas"
        else:
            wanted = max((proposal(m, status, spec, ready, self.tolerance) for m in metrics),
                         default=0)
            desired, reason = self._normalize(now, spec, wanted)
        if desired != spec:
            self._store(now, spec, desired)
        return Decision(desired, reason)

    def _normalize(self, now: float, current: int, wanted: int) -> tuple[int, str]:
        stabilized = self._stabilize(now, current, wanted)
        return self._rate_limited(now, current, stabilized)

    def _stabilize(self, now: float, current: int, wanted: int) -> int:
        up_cut = now - self.up.stabilization_seconds
        down_cut = now - self.down.stabilization_seconds
        recs = self.recommendations
        # an entry older than both windows is replaced, as the controller reuses its slot; the
        # entries are in time order, so those are the oldest (and count in neither window)
        oldest = min(up_cut, down_cut)
        while recs and recs[0][0] < oldest:
            recs.popleft()
        up_rec = down_rec = wanted
        for t, rec in recs:
            if rec < up_rec and t > up_cut:
                up_rec = rec
            if rec > down_rec and t > down_cut:
                down_rec = rec
        recs.append((now, wanted))
        return min(max(current, up_rec), down_rec)

    def _rate_limited(self, now: float, current: int, desired: int) -> tuple[int, str]:
        if desired > current:
            limit = max(current, self._limit(now, current, self.up, up=True))
            ceiling = min(self.max_replicas, limit)
            reason = "ScaleUpLimit" if self.max_replicas > limit else "TooManyReplicas"
            if desired > ceiling:
                return ceiling, reason
        elif desired < current:
            limit = min(current, self._limit(now, current, self.down, up=False))
            floor = max(self.min_replicas, limit)
            reason = "ScaleDownLimit" if self.min_replicas < limit else "TooFewReplicas"
            if desired < floor:
                return floor, reason
        return desired, "DesiredWithinRange"

    def _limit(self, now: float, current: int, rules: Rules, *, up: bool) -> int:
        if rules.select == DISABLED:
            return current
        pick = max if (rules.select == MAX) == up else min
        result: int | None = None
        for kind, value, period in rules.policies:
            cut = now - period
            added = sum(c for t, c in self.up_events if t > cut)
            removed = sum(c for t, c in self.down_events if t > cut)
            start = current - added + removed
            if kind == "Pods":
                proposed = start + value if up else start - value
            elif up:
                proposed = math.ceil(start * (1 + value / 100))
            else:
                proposed = int(start * (1 - value / 100))
            result = proposed if result is None else pick(result, proposed)
        if result is None:  # no policy: Go's starting value, math.MinInt32 or MaxInt32
            return -_INT32_MAX if pick is max else _INT32_MAX
        return result

    def _store(self, now: float, before: int, after: int) -> None:
        if after > before:
            cut = now - self.up.longest_period
            self.up_events = [e for e in self.up_events if e[0] >= cut]
            self.up_events.append((now, after - before))
        else:
            cut = now - self.down.longest_period
            self.down_events = [e for e in self.down_events if e[0] >= cut]
            self.down_events.append((now, before - after))
