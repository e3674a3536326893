"""The services' rules: ``capacityPerReplica``, the requests-per-second target, ``replicas``.

Each rule judges one service (``Scope.SERVICE``) from its evidence (``advise.services``), with
this arithmetic (every figure in the evidence it states):

* **capacity** C: one replica's requests per second at full GPU activity, the median over the
  window's points where it ran (at least one replica, some demand) with its pods' GPU activity
  a from ``MIN_ACTIVITY`` to below ``SATURATED`` (a saturated GPU serves less than it is offered)
  of demand / (replicas x a); rounded down to a tenth. Read from at least ``MIN_POINTS`` points;
  never on a time-sliced or MPS pool (the per-pod activity there is the GPU's);
* **rise** r: how far demand climbs while a new replica starts, the 99th percentile (nearest
  rank) over the points with demand of the most demand within the next ``startupSeconds`` +
  15 s (one HPA sync) over the demand then; at least 1;
* **target** T = C / (r x 1.1), rounded down to a tenth: the HPA asks for demand / T replicas
  but leaves them alone while the demand a replica is within its 0.1 tolerance of T (kubernetes
  ``pkg/controller/podautoscaler/replica_calculator.go``), so a replica may carry 1.1 x T, and
  the demand may reach r times itself before new replicas are ready;
* **replicas.max**: raised to ceil(peak demand / T) where the peak needs more than it; lowered
  where the HPA's replicas never came near it (at most ``NEAR`` of it, half, at every point) to
  ``HEADROOM`` (1.5) times the larger of ceil(peak / T) and the most replicas the HPA ran,
  rounded up, at least ``replicas.min`` and 1;
* **replicas.min**: lowered to ceil(p5 demand / T), at least 1, where that is below it; to 0
  where demand was zero for long stretches: the longest run of points without a request lasts
  at least ``ZERO_STRETCH_SECONDS`` (an hour) and more than ``cooldownSeconds`` plus a KEDA
  poll (so KEDA would reach zero in it). The service scales on requests per second (its
  evidence is read from that trigger), which reads above 0 while any request came in the last
  minute, so at zero it wakes (kedacore/keda ``pkg/scalers/prometheus_scaler.go``: active above
  0) and it never goes to zero under traffic (``service.zero-under-load``); not proposed for a
  production stack, where validate asks for two replicas at least (``service.single-replica``).
  Its cold starts are what the replay weighs.

The rules use the observed C where it is read, else the stack's ``capacityPerReplica``; with
neither, the service is not judged. A proposal is made only where it differs from the stack's
by more than ``CHANGE`` (capacity, target) or by a replica. The use case replays each one
(``usecases.advise_services``) and states the share of requests not served in time before and
after, and the saving, in its evidence; savings are unknown until then.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar

from gpupool.advise.recommendation import Recommendation
from gpupool.advise.rule import NOTHING, Case, Findings, Rule, Scope
from gpupool.advise.services import ServiceUse
from gpupool.quantile import percentile
from gpupool.service_model import POLLING_SECONDS, Service

#: A ``replicas.max`` the HPA never came within this share of may come down.
NEAR = 0.5
#: The lowered ``replicas.max`` leaves this much room over the window's peak.
HEADROOM = 1.5
#: The stretch without a request that makes ``replicas.min: 0`` worth proposing.
ZERO_STRETCH_SECONDS = 3600.0
MIN_ACTIVITY = 0.2
SATURATED = 0.95
MIN_POINTS = 30
CHANGE = 0.1
SYNC_SECONDS = 15.0  # the HPA's sync period, as gpupool.simulate.services.hpa emulates it
TOLERANCE = 0.1  # the HPA's --horizontal-pod-autoscaler-tolerance default


def down_tenth(value: float) -> float:
    """Round down to a tenth (a tolerance for the float's last digit)."""
    return math.floor(value * 10 + 1e-9) / 10


def capacity(use: ServiceUse) -> tuple[float, int] | None:
    """Return (C, the points it is read from), None where fewer than ``MIN_POINTS`` qualify."""
    per: list[float] = []
    for d, r, a in zip(use.demand, use.current, use.activity, strict=False):
        if d > 0 and r >= 1 and MIN_ACTIVITY <= a < SATURATED:  # NaN fails every comparison
            per.append(d / (r * a))
    if len(per) < MIN_POINTS:
        return None
    per.sort()
    mid = len(per) // 2
    median = per[mid] if len(per) % 2 else (per[mid - 1] + per[mid]) / 2
    cap = down_tenth(median)
    return (cap, len(per)) if cap >= 0.1 else None  # under a tenth a second: no measurement


def rise(demand: Sequence[float], lag_steps: int) -> float:
    """Return r: the p99 over points with demand of the most within ``lag_steps`` over it."""
    ratios = []
    for k, d in enumerate(demand):
        if d > 0:
            ratios.append(max(demand[k:k + lag_steps + 1]) / d)
    return max(1.0, percentile(ratios, 99) or 1.0)


def lag_steps(service: Service, step: float) -> int:
    """Return the points a new replica takes to serve: ``startupSeconds`` and a sync, up."""
    return max(1, math.ceil((service.startup_seconds + SYNC_SECONDS) / step))


def target(cap: float, r: float) -> float:
    """Return T = C / (r x (1 + the HPA's tolerance)), down to a tenth (at least a tenth)."""
    return max(0.1, down_tenth(cap / (r * (1 + TOLERANCE))))


def target_at(service: Service, use: ServiceUse, cap: float) -> float:
    """Return the target the window's demand calls for at capacity ``cap`` (``target``)."""
    return target(cap, rise(use.demand_or_zero, lag_steps(service, use.step)))


def _changed(new: float, old: float | None) -> bool:
    return old is None or abs(new - old) > CHANGE * old


def _service_evidence(use: ServiceUse, **figures: object) -> dict[str, object]:
    return {"window_hours": round(len(use.times) * use.step / 3600, 1),
            "step_seconds": use.step, "points": len(use.times), **figures}


def model_capacity(service: Service, use: ServiceUse | None) -> tuple[float, str] | None:
    """Return the capacity the rules (and the replay) reason with, and where it came from."""
    seen = capacity(use) if use is not None and use.activity else None
    if seen is not None:
        return seen[0], "observed"
    stated = service.capacity_per_replica
    return (float(stated), "capacityPerReplica") if stated else None


def _rec(kind: str, case: Case, path: tuple[str | int, ...], value: object, summary: str,
         evidence: dict[str, object]) -> Recommendation:
    s = case.service
    return Recommendation(kind=kind, pool=s.pool, tenant=s.tenant, path=(*s.path, *path),
                          value=value, summary=f"service {s.name}: {summary}",
                          saving_per_month=None, evidence=evidence)


class _ServiceRule(Rule):
    scope: ClassVar[Scope] = Scope.SERVICE
    names_unknown_capacity: ClassVar[bool] = False  # one rule says a service has no capacity
    saving: ClassVar[str] = ("the replay's GPU cost before less after, for a month (730 h); "
                             "unknown until replayed")

    def judge(self, case: Case) -> Findings:
        """Judge a service whose evidence was read, with the capacity the rules know."""
        use = case.service_use
        if use is None:
            return NOTHING  # the evidence's gap says why
        model = model_capacity(case.service, use)
        if model is None:
            return (Findings.gap(f"service {case.service.name}: no capacityPerReplica and its "
                                 "pods' GPU activity does not tell one: not judged")
                    if self.names_unknown_capacity else NOTHING)
        return self.judge_service(case, use, *model)

    def judge_service(self, case: Case, use: ServiceUse, cap: float, source: str) -> Findings:
        """Return the findings for a service whose capacity the rules know."""
        raise NotImplementedError


class ServiceCapacity(_ServiceRule):
    """``capacityPerReplica`` from what one replica served at its GPUs' activity."""

    id: ClassVar[str] = "service-capacity"
    kind: ClassVar[str] = "service-capacity"
    summary: ClassVar[str] = (
        "a service whose replicas served a different rate than its capacityPerReplica says "
        "(by over 10%): the median of demand / (replicas x GPU activity) where activity was "
        "20% to 95%")
    edits: ClassVar[str] = "services[i].capacityPerReplica"
    saving: ClassVar[str] = "none: it changes only what gpupool simulate assumes"

    def judge(self, case: Case) -> Findings:
        """Propose the observed capacity where the stack's is unset or off by over 10%."""
        use = case.service_use
        if use is None:
            return NOTHING
        if not use.activity:
            pool = case.stack.pool(case.service.pool)
            why = ("its pool's GPUs are shared by time-slicing or MPS, where the exporter's "
                   "per-pod activity is the whole GPU's" if pool is not None
                   and pool.sharing.kind.replicated else
                   "no per-pod GPU activity (DCGM exported_pod series) came back")
            return Findings.gap(f"service {case.service.name}: {why}: capacityPerReplica is "
                                "not judged")
        seen = capacity(use)
        if seen is None:
            return Findings.gap(
                f"service {case.service.name}: fewer than {MIN_POINTS} points with replicas "
                f"serving at {MIN_ACTIVITY:.0%} to {SATURATED:.0%} GPU activity: "
                "capacityPerReplica is not judged")
        cap, source = seen
        old = case.service.capacity_per_replica
        if not _changed(cap, old):
            return NOTHING
        said = "has none" if old is None else f"says {old:g}"
        return Findings.of(_rec(
            self.kind, case, ("capacityPerReplica",), cap,
            f"one replica served {cap:g} requests a second at full GPU activity (median of "
            f"{source} points); the stack {said}; capacityPerReplica -> {cap:g}",
            _service_evidence(use, capacity_points=source, capacity_observed=cap,
                              capacity_stated=old)))


class ServiceTarget(_ServiceRule):
    """The requests-per-second target that leaves room for demand's rise while a replica starts."""

    id: ClassVar[str] = "service-target"
    kind: ClassVar[str] = "service-target"
    summary: ClassVar[str] = (
        "a requests-per-second target more than 10% off capacity / (rise x 1.1, the HPA's "
        "tolerance): the rise is the p99 of "
        "how far demand climbs within startupSeconds + 15 s")
    edits: ClassVar[str] = "services[i].scaleOn[j].target"
    names_unknown_capacity: ClassVar[bool] = True

    def judge_service(self, case: Case, use: ServiceUse, cap: float, source: str) -> Findings:
        """Propose capacity / rise where the trigger's target is off it by over 10%."""
        s = case.service
        lag = lag_steps(s, use.step)
        r = rise(use.demand_or_zero, lag)
        new = target(cap, r)
        old = use.trigger.target
        if not _changed(new, old):
            return NOTHING
        index = use.trigger.path[-1]
        return Findings.of(_rec(
            self.kind, case, ("scaleOn", index, "target"), new,
            f"demand rose up to {r:.2f}x within {lag * use.step:g} s (p99) and a replica serves "
            f"{cap:g} a second ({source}); requests-per-second target {old:g} -> {new:g}",
            _service_evidence(use, capacity=cap, capacity_from=source, rise_p99=round(r, 3),
                              lag_seconds=lag * use.step, target=old, target_new=new)))


class ServiceReplicasMax(_ServiceRule):
    """``replicas.max`` raised where the peak needs more, lowered where it was never near."""

    id: ClassVar[str] = "service-replicas-max"
    kind: ClassVar[str] = "service-replicas"
    summary: ClassVar[str] = (
        "a service whose peak demand needs more replicas than replicas.max at that target: "
        "ceil(peak / target); or whose HPA never ran over half of replicas.max: 1.5 x the "
        "larger of ceil(peak / target) and the most it ran")
    edits: ClassVar[str] = "services[i].replicas.max"

    def judge_service(self, case: Case, use: ServiceUse, cap: float, source: str) -> Findings:
        """Propose ceil(peak / target) above ``replicas.max``, or a max with room below it."""
        s = case.service
        demand = use.demand_or_zero
        t = target_at(s, use, cap)
        peak = max(demand, default=0.0)
        need = math.ceil(peak / t - 1e-9)
        figures = {"capacity": cap, "capacity_from": source, "peak_rps": round(peak, 2),
                   "target_at": t}
        if need > s.replicas_max:
            at_max = sum(1 for c in use.current if c >= s.replicas_max)
            return Findings.of(_rec(
                self.kind, case, ("replicas", "max"), need,
                f"its peak of {peak:.1f} requests a second needs {need} replicas at {t:g} a "
                f"replica; the HPA sat at its max in {at_max} of {len(use.times)} points; "
                f"replicas.max {s.replicas_max} -> {need}",
                _service_evidence(use, **figures, points_at_max=at_max, hpa_max=use.spec_max)))
        most = max((c for c in use.current if c == c), default=None)  # c == c: not NaN
        if most is None or most > NEAR * s.replicas_max:
            return NOTHING
        lower = max(s.replicas_min, 1, math.ceil(HEADROOM * max(need, most) - 1e-9))
        if lower >= s.replicas_max:
            return NOTHING
        return Findings.of(_rec(
            self.kind, case, ("replicas", "max"), lower,
            f"the HPA ran at most {most:g} replicas and its peak of {peak:.1f} requests a "
            f"second needs {need} at {t:g} a replica, never near replicas.max "
            f"{s.replicas_max}; with {HEADROOM:g}x room, replicas.max {s.replicas_max} -> "
            f"{lower}",
            _service_evidence(use, **figures, most_replicas=most, needed_at_peak=need,
                              hpa_max=use.spec_max)))


def zero_stretch(demand: Sequence[float], step: float) -> float:
    """Return the seconds of the longest run of points without a request."""
    longest = run = 0
    for d in demand:
        run = run + 1 if d <= 0 else 0
        longest = max(longest, run)
    return longest * step


class ServiceReplicasMin(_ServiceRule):
    """A lower ``replicas.min``: to zero over long idle stretches, else to the quiet hours' need."""

    id: ClassVar[str] = "service-replicas-min"
    kind: ClassVar[str] = "service-replicas"
    summary: ClassVar[str] = (
        "a service with no request for an hour or more at a stretch (longer than "
        "cooldownSeconds and a poll): 0, outside production; else one whose p5 demand needs "
        "fewer replicas than replicas.min at that target: ceil(p5 / target), at least 1")
    edits: ClassVar[str] = "services[i].replicas.min"

    def judge_service(self, case: Case, use: ServiceUse, cap: float, source: str) -> Findings:
        """Propose 0 over long idle stretches, else ceil(p5 / target), at least 1, if lower."""
        s = case.service
        demand = use.demand_or_zero
        t = target_at(s, use, cap)
        at_min = sum(1 for c in use.current if c <= s.replicas_min)
        idle = zero_stretch(demand, use.step)
        if (s.replicas_min > 0 and case.stack.environment != "production"
                and idle >= max(ZERO_STRETCH_SECONDS, s.cooldown_seconds + POLLING_SECONDS)):
            return Findings.of(_rec(
                self.kind, case, ("replicas", "min"), 0,
                f"no request came for {idle / 3600:.1f} h at a stretch, longer than "
                f"cooldownSeconds {s.cooldown_seconds} s: its requests-per-second trigger "
                f"would let KEDA scale it to zero and wake it on the next request; "
                f"replicas.min {s.replicas_min} -> 0",
                _service_evidence(use, capacity=cap, capacity_from=source,
                                  zero_stretch_hours=round(idle / 3600, 2),
                                  cooldown_seconds=s.cooldown_seconds, points_at_min=at_min)))
        quiet = percentile(demand, 5) or 0.0
        need = max(1, math.ceil(quiet / t - 1e-9))
        if s.replicas_min <= need:
            return NOTHING
        return Findings.of(_rec(
            self.kind, case, ("replicas", "min"), need,
            f"its quietest 5% of the window ({quiet:.1f} requests a second or less) needs {need} "
            f"at {t:g} a replica; the HPA sat at its min in {at_min} of {len(use.times)} "
            f"points; replicas.min {s.replicas_min} -> {need}",
            _service_evidence(use, capacity=cap, capacity_from=source, demand_p5=round(quiet, 2),
                              target_at=t, points_at_min=at_min)))


SERVICE_RULES: tuple[Rule, ...] = (
    ServiceCapacity(), ServiceTarget(), ServiceReplicasMax(), ServiceReplicasMin())
