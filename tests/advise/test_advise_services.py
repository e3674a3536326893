"""``gpupool advise`` for inference services (issue 39, item 5): the evidence, the arithmetic of
each recommendation, the replay that checks it, and ``--export-requests``.

The series names and labels follow kube-state-metrics' ``docs/horizontalpodautoscaler-metrics.md``
(``kube_horizontalpodautoscaler_status_current_replicas``, ``..._desired_replicas``,
``..._spec_max_replicas``, labelled ``namespace`` and ``horizontalpodautoscaler``) and KEDA's
HPA name ``keda-hpa-<ScaledObject>`` (kedacore/keda ``controllers/keda/hpa.go``,
``getDefaultHpaName``); the HPA's 0.1 tolerance is kubernetes
``pkg/controller/podautoscaler/replica_calculator.go``'s.
"""

from __future__ import annotations

import math
from dataclasses import replace as dataclass_replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpupool.advise import edit, services
from gpupool.advise import service_advice as sa
from gpupool.advise.demo import scenario, server
from gpupool.advise.demo import service as demo_service
from gpupool.advise.demo.promql import Series, labels_of
from gpupool.advise.evidence import Evidence
from gpupool.advise.prometheus import Prometheus, PrometheusError
from gpupool.advise.rule import Case
from gpupool.simulate.requests import read_rates
from gpupool.simulate.services.replay import replay
from gpupool.spec.validate import validate_text
from gpupool.usecases import advise, advise_services
from tests.advise.promserver import Family, serving

STACK = validate_text(scenario.STACK, "advise-demo.yaml").stack
assert STACK is not None
CHAT = STACK.services[0]
TRIGGER = CHAT.triggers[0]
NAN = math.nan


def _use(demand: list[float], current: list[float] | None = None,
         activity: list[float] | None = None, step: float = 60.0) -> services.ServiceUse:
    n = len(demand)
    return services.ServiceUse(
        service="chat", start=0.0, step=step, times=tuple(k * step for k in range(n)),
        demand=tuple(demand), current=tuple(current or [2.0] * n),
        desired=tuple(current or [2.0] * n), spec_max=6.0,
        activity=tuple(activity or ()),
        activity_metric="DCGM_FI_PROF_GR_ENGINE_ACTIVE", trigger=TRIGGER)


def _judge(rule: sa.Rule, use: services.ServiceUse) -> sa.Findings:
    ev = Evidence(window_seconds=len(use.times) * use.step, end=0.0, pools={}, tenants={},
                  services={"chat": use})
    return rule.judge(Case(STACK, ev, {}, {}, 0))


# --- the arithmetic, by hand --------------------------------------------------------------------


def test_capacity_is_the_median_of_demand_over_replicas_times_activity() -> None:
    # 30 points at 60 rps on 2 replicas at 50% activity: 60 / (2 x 0.5) = 60 a replica; a
    # saturated point (96%), an idle one (10%) and a NaN one are left out
    demand = [60.0] * 30 + [500.0, 500.0, 60.0]
    activity = [0.5] * 30 + [0.96, 0.1, NAN]
    assert sa.capacity(_use(demand, activity=activity)) == (60.0, 30)
    # 29 points are too few
    assert sa.capacity(_use([60.0] * 29, activity=[0.5] * 29)) is None


def test_capacity_rounds_down_to_a_tenth() -> None:
    # 61 / (2 x 0.45) = 67.77...: 67.7
    assert sa.capacity(_use([61.0] * 30, activity=[0.45] * 30)) == (67.7, 30)


def test_rise_is_the_p99_of_the_most_demand_within_the_lag_over_the_demand() -> None:
    # lag 1 point: 10 -> max(10, 10) / 10 = 1, 10 -> max(10, 20) / 10 = 2, 20 -> 1, 20 -> 1;
    # nearest-rank p99 of four ratios is the fourth: 2
    assert sa.rise([10.0, 10.0, 20.0, 20.0], 1) == 2.0
    assert sa.rise([0.0, 0.0], 3) == 1.0  # no demand: no rise
    # startupSeconds 120 + one 15 s sync = 135 s: three 60 s points
    assert sa.lag_steps(CHAT, 60.0) == 3


def test_target_leaves_room_for_the_rise_and_the_hpa_s_tolerance() -> None:
    # 30 / (1.0 x 1.1) = 27.27 -> 27.2; 30 / (2 x 1.1) = 13.63 -> 13.6
    assert sa.target(30.0, 1.0) == 27.2
    assert sa.target(30.0, 2.0) == 13.6


def test_each_rule_s_proposal_on_a_flat_day() -> None:
    # capacity: 60 rps on 2 replicas at 75%: 60 / 1.5 = 40 a replica, as the stack says
    flat = _use([60.0] * 40, activity=[0.75] * 40)
    assert _judge(sa.ServiceCapacity(), flat).recommendations == ()
    # the stack's 40 against an observed 30: 60 / (2 x 1.0)... at 100% it is saturated; at 80%
    # on 2.5 replicas' worth: 48 / (2 x 0.8) = 30
    slow = _use([48.0] * 40, activity=[0.8] * 40)
    (cap,) = _judge(sa.ServiceCapacity(), slow).recommendations
    assert (cap.path_text, cap.value) == ("services[0].capacityPerReplica", 30.0)
    # target: capacity 30, a flat demand (rise 1): 30 / 1.1 = 27.2 against the stack's 40
    (tgt,) = _judge(sa.ServiceTarget(), slow).recommendations
    assert (tgt.path_text, tgt.value) == ("services[0].scaleOn[0].target", 27.2)
    # max: a peak of 200 at 27.2 a replica: ceil(7.35) = 8 above the stack's 6
    peak = _use([48.0] * 39 + [200.0], activity=[0.8] * 40)
    rising = sa.target(30.0, sa.rise(list(peak.demand), 3))
    (top,) = _judge(sa.ServiceReplicasMax(), peak).recommendations
    assert top.value == math.ceil(200.0 / rising) and top.path_text == "services[0].replicas.max"
    # min: a demand falling to 10 rps (no rise: 27.2 a replica); its p5, 10, needs
    # ceil(10 / 27.2) = 1 replica, under the stack's 2
    quiet = _use([48.0] * 30 + [10.0] * 10, activity=[0.8] * 40)
    (low,) = _judge(sa.ServiceReplicasMin(), quiet).recommendations
    assert (low.path_text, low.value) == ("services[0].replicas.min", 1)


def test_no_capacity_known_is_one_gap() -> None:
    # no activity and no capacityPerReplica: the target rule says so once, the others nothing
    text = scenario.STACK.replace("    capacityPerReplica: 40\n", "")
    stack = validate_text(text, "s.yaml").stack
    assert stack is not None
    use = _use([48.0] * 40)
    ev = Evidence(window_seconds=2400.0, end=0.0, pools={}, tenants={}, services={"chat": use})
    gaps = [g for r in sa.SERVICE_RULES for g in r.judge(Case(stack, ev, {}, {}, 0)).gaps]
    assert gaps == [
        "service chat: no per-pod GPU activity (DCGM exported_pod series) came back: "
        "capacityPerReplica is not judged",
        "service chat: no capacityPerReplica and its pods' GPU activity does not tell one: "
        "not judged",
    ]


# --- the replay check ---------------------------------------------------------------------------


def test_a_recommendation_that_leaves_more_requests_unserved_is_dropped() -> None:
    # at 48 rps with a replica serving 30, replicas.min 1 at the stack's target of 40 leaves one
    # replica for 48 rps: most requests wait; today's 2 replicas serve them all in time
    use = _use([48.0] * 120, activity=[0.8] * 120)
    (low,) = _judge(sa.ServiceReplicasMin(), _use([48.0] * 110 + [0.0] * 10,
                                                  activity=[0.8] * 120)).recommendations
    kept, dropped = advise_services.check(scenario.STACK, "s.yaml", STACK, {"chat": use}, [low])
    assert kept == []
    (gone,) = dropped
    assert gone.recommendation.evidence["not_served_pct_before"] == 0.0
    assert gone.recommendation.evidence["not_served_pct_after"] > 1.0
    assert "more than 1 point worse" in gone.reason


def test_a_kept_recommendation_states_its_replay_and_saving() -> None:
    use = _use([48.0] * 120, activity=[0.8] * 120)
    (tgt,) = _judge(sa.ServiceTarget(), use).recommendations
    (kept,), dropped = advise_services.check(scenario.STACK, "s.yaml", STACK, {"chat": use},
                                             [tgt])
    assert dropped == []
    ev = kept.evidence
    # 48 rps at target 40 is 2 replicas (the min) serving 60: all in time; at 27.2 it is
    # ceil(48 / 27.2) = 2 as well: the same replay, nothing saved
    assert ev["replay_step_seconds"] == 1.0 and ev["replayed_capacity"] == 30.0
    assert ev["not_served_pct_before"] == ev["not_served_pct_after"] == 0.0
    assert kept.saving_per_month == 0.0


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.floats(0, 150), min_size=40, max_size=60),
       st.floats(0.3, 0.9))
def test_no_kept_recommendation_raises_the_unserved_share_by_over_a_point(
        demand: list[float], busy: float) -> None:
    # whatever the demand, each kept recommendation replayed on its own (here, independently of
    # the check) leaves at most 1 point more of the requests not served in time
    use = _use(demand, activity=[busy] * len(demand))
    recs = [r for rule in sa.SERVICE_RULES for r in _judge(rule, use).recommendations
            if advise._check(scenario.STACK, "s.yaml", [(r.path, r.value)]) is None]
    kept, _ = advise_services.check(scenario.STACK, "s.yaml", STACK, {"chat": use}, recs)
    model = sa.model_capacity(CHAT, use)
    assert model is not None
    base = edit.apply(scenario.STACK, [((*CHAT.path, "capacityPerReplica"), model[0])])
    trace = {"chat": advise_services.trace(use)}

    def share(text: str) -> float:
        stack = validate_text(text, "s.yaml").stack
        assert stack is not None
        return replay(stack, trace)[0]["not_served_share"]

    before = share(base)
    for rec in kept:
        assert share(edit.apply(base, [(rec.path, rec.value)])) <= before + 0.01 + 1e-9


def test_a_max_never_approached_comes_down_with_room() -> None:
    # 48 rps at capacity 30 (60 rps on 2 replicas at 80%... 48 / (2 x 0.8) = 30): target
    # 30 / 1.1 = 27.2, the peak needs ceil(48 / 27.2) = 2; the HPA ran 2 of its 6 (under half):
    # 1.5 x max(2, 2) = 3
    flat = _use([48.0] * 40, activity=[0.8] * 40)
    (top,) = _judge(sa.ServiceReplicasMax(), flat).recommendations
    assert (top.path_text, top.value) == ("services[0].replicas.max", 3)
    assert top.evidence["most_replicas"] == 2.0 and top.evidence["needed_at_peak"] == 2
    # replayed on a day of it, the two replicas the HPA asks for still fit under 3
    use = _use([48.0] * 120, activity=[0.8] * 120)
    (kept,), dropped = advise_services.check(scenario.STACK, "s.yaml", STACK, {"chat": use},
                                             [top])
    assert dropped == []
    assert kept.evidence["not_served_pct_before"] == kept.evidence["not_served_pct_after"] == 0.0
    # an HPA that ran 4 of 6 came near its max: nothing
    near = _use([48.0] * 40, current=[4.0] * 40, activity=[0.4] * 40)
    assert _judge(sa.ServiceReplicasMax(), near).recommendations == ()


def _idle_night(busy_points: int) -> services.ServiceUse:
    # 48 rps, then two hours without a request (120 points of 60 s), then 48 rps again
    demand = [48.0] * busy_points + [0.0] * 120 + [48.0] * busy_points
    current = [2.0] * busy_points + [2.0] * 120 + [2.0] * busy_points
    return _use(demand, current=current, activity=[0.8] * busy_points + [NAN] * 120
                + [0.8] * busy_points)


def test_long_idle_stretches_propose_scaling_to_zero() -> None:
    # two hours without a request: over an hour and over cooldownSeconds (300) + a 30 s poll
    assert sa.zero_stretch(list(_idle_night(60).demand), 60.0) == 7200.0
    (low,) = _judge(sa.ServiceReplicasMin(), _idle_night(60)).recommendations
    assert (low.path_text, low.value) == ("services[0].replicas.min", 0)
    assert low.evidence["zero_stretch_hours"] == 2.0
    # a production stack keeps two replicas (service.single-replica): the p5 rule instead,
    # whose p5 (0) needs 1
    prod = dataclass_replace(STACK, environment="production")
    ev = Evidence(window_seconds=0.0, end=0.0, pools={}, tenants={},
                  services={"chat": _idle_night(60)})
    (one,) = sa.ServiceReplicasMin().judge(Case(prod, ev, {}, {}, 0)).recommendations
    assert one.value == 1


def test_scaling_to_zero_is_kept_where_its_cold_starts_cost_under_a_point() -> None:
    # twenty busy hours either side of the idle two: KEDA goes to zero in the stretch and
    # wakes on the first request (requests-per-second reads above 0, kedacore/keda
    # pkg/scalers/prometheus_scaler.go); the requests late behind the cold start (a poll and
    # startupSeconds 120 with none ready, then 120 s more on the one replica KEDA starts
    # before the HPA's second serves) are about half a point of the two days': kept, saving
    # the idle replicas' hours
    long = _idle_night(1200)
    (low,) = _judge(sa.ServiceReplicasMin(), long).recommendations
    (kept,), dropped = advise_services.check(scenario.STACK, "s.yaml", STACK, {"chat": long},
                                             [low])
    assert dropped == []
    ev = kept.evidence
    assert ev["not_served_pct_after"] - ev["not_served_pct_before"] <= 1.0
    assert ev["gpu_hours_after"] < ev["gpu_hours_before"]
    assert kept.saving_per_month is not None and kept.saving_per_month > 0
    # an hour of demand either side: the same cold start is over a point of the requests (and
    # ten hours, 1.1%, are still too few)
    short = _idle_night(60)
    (low,) = _judge(sa.ServiceReplicasMin(), short).recommendations
    kept_short, (gone,) = advise_services.check(scenario.STACK, "s.yaml", STACK,
                                                {"chat": short}, [low])
    assert kept_short == []
    assert "more than 1 point worse" in gone.reason


def test_a_capacity_that_explains_the_window_worse_is_dropped() -> None:
    # The stack says 30 a replica (target 40). The window: 40 points of 60 rps on 2 replicas
    # at 50% activity (60 / (2 x 0.5) = 60 a replica: the median proposes 60), then 20 points
    # of 100 rps on 3 replicas saturated (99%, left out of the median): a third of the
    # window's points saturated. Replayed at 30, 100 rps on the 3 replicas the HPA asks for
    # (ceil(100 / 40)) is short of capacity (90): a third of the time, as the window showed;
    # at 60 it never is. The proposal misses the window's saturation by 33 points, the stack's
    # figure by about none: dropped, with both shares.
    text = scenario.STACK.replace("    capacityPerReplica: 40\n", "    capacityPerReplica: 30\n")
    stack = validate_text(text, "s.yaml").stack
    assert stack is not None
    use = _use([60.0] * 40 + [100.0] * 20, current=[2.0] * 40 + [3.0] * 20,
               activity=[0.5] * 40 + [0.99] * 20)
    ev = Evidence(window_seconds=3600.0, end=0.0, pools={}, tenants={}, services={"chat": use})
    (cap,) = sa.ServiceCapacity().judge(Case(stack, ev, {}, {}, 0)).recommendations
    assert cap.value == 60.0
    kept, (gone,) = advise_services.check(text, "s.yaml", stack, {"chat": use}, [cap])
    assert kept == []
    figures = gone.recommendation.evidence
    assert figures["saturated_pct_observed"] == pytest.approx(33.33, abs=0.01)
    assert figures["short_pct_at_proposed"] == 0.0
    assert abs(figures["short_pct_at_stated"] - 33.33) < 5
    assert "explains the window more than 1 point worse" in gone.reason
    # the demo's own case: the stack says 40 where a replica serves 30; 30 explains the
    # saturated points (the rule's test above), so it is kept
    demo = _use([48.0] * 60, activity=[0.8] * 60)
    (right,) = _judge(sa.ServiceCapacity(), demo).recommendations
    (ok,), none = advise_services.check(scenario.STACK, "s.yaml", STACK, {"chat": demo}, [right])
    assert none == [] and ok.evidence["saturated_pct_observed"] == 0.0


def test_a_max_edit_the_replay_never_meets_is_not_replayed_and_reads_the_same() -> None:
    # 48 rps at target 40: the replay runs 2 replicas, under 6 and under 3 or 8; the check
    # takes the baseline's figures for both edits, which a replay of each edited stack matches
    use = _use([48.0] * 120, activity=[0.8] * 120)
    (top,) = _judge(sa.ServiceReplicasMax(), _use([48.0] * 40, activity=[0.8] * 40)
                    ).recommendations
    raised = dataclass_replace(top, value=8)
    kept, _ = advise_services.check(scenario.STACK, "s.yaml", STACK, {"chat": use},
                                    [top, raised])
    model = sa.model_capacity(CHAT, use)
    assert model is not None and len(kept) == 2
    base = edit.apply(scenario.STACK, [((*CHAT.path, "capacityPerReplica"), model[0])])
    for rec in kept:
        stack = validate_text(edit.apply(base, [(rec.path, rec.value)]), "s.yaml").stack
        assert stack is not None
        [run] = replay(stack, {"chat": advise_services.trace(use)})
        assert run["replicas"]["max"] == 2
        assert rec.evidence["gpu_hours_after"] == run["gpu_hours"]
        assert rec.evidence["not_served_pct_after"] == round(100 * run["not_served_share"], 2)


# --- --export-requests --------------------------------------------------------------------------


def test_the_exported_demand_reads_back_as_the_rate_series_replayed(tmp_path: Path) -> None:
    use = _use([10.0, 10.0, NAN, 2.5, 2.5, 2.5])
    text = services.requests_csv({"chat": use})
    # a row where the rate changes, a missing point as 0, and the last point
    assert text == "service,time,rps\nchat,0,10.0\nchat,120,0.0\nchat,180,2.5\nchat,300,2.5\n"
    path = tmp_path / "requests.csv"
    path.write_text(text)
    back = read_rates(path)["chat"]
    replayed = advise_services.trace(use)
    assert (back.times, back.rps) == (replayed.times, replayed.rps)
    assert back.arrivals(0, 360) == 10 * 120 + 2.5 * 180


# --- the evidence, hostile series included ------------------------------------------------------


def _hpa(name: str, value: float, times: list[float]) -> Series:
    s = Series(labels_of(name, {"namespace": "chat", "horizontalpodautoscaler": "keda-hpa-chat"}))
    s.times.extend(times)
    s.values.extend([value] * len(times))
    return s


def _read(series: list[Series]) -> tuple[dict[str, services.ServiceUse], list[str]]:
    with server.serving(series) as url:
        return services.read(Prometheus(url), STACK, 7230.0, 7200.0)


def _counter(rate: float, times: list[float]) -> Series:
    s = Series(labels_of("chat_requests_total", {"namespace": "chat"}))
    s.times.extend(times)
    s.values.extend(rate * (t - times[0]) for t in times)
    return s


MINUTES = [30.0 + 60 * k for k in range(121)]
HALVES = [15.0 + 30 * k for k in range(242)]


def test_a_missing_hpa_series_is_one_gap() -> None:
    found, gaps = _read([_counter(20.0, HALVES)])
    assert found == {}
    assert gaps == [
        "service chat: kube-state-metrics has no kube_horizontalpodautoscaler_status_current_"
        "replicas for HPA chat/keda-hpa-chat in the window (is KEDA's ScaledObject applied, and "
        "kube-state-metrics scraped?): its replicas are unknown, not judged"]


def test_nan_points_are_gaps_in_the_series() -> None:
    current = _hpa(services.CURRENT, 2.0, MINUTES)
    current.values[10:20] = [NAN] * 10
    found, gaps = _read([_counter(20.0, HALVES), current])
    assert gaps == []
    use = found["chat"]
    assert services.missing(use)["replicas"] >= 10
    assert all(math.isnan(v) or v == 2.0 for v in use.current)
    assert 19.9 < use.demand[60] < 20.1  # rate() of a counter rising 20 a second


def test_huge_values_are_one_line() -> None:
    found, gaps = _read([_counter(1e12, HALVES), _hpa(services.CURRENT, 2.0, MINUTES)])
    assert found == {}
    (gap,) = gaps
    assert gap.startswith("service chat: the server answered 1e+12 requests per second, beyond "
                          "the 10,000,000 gpupool takes for a measurement: not judged")
    with pytest.raises(PrometheusError, match="at most 1e\\+15"):
        _read([_counter(20.0, HALVES), _hpa(services.CURRENT, 1e16, MINUTES)])


def test_no_rps_trigger_is_not_judged() -> None:
    text = scenario.STACK.replace("metric: requests-per-second", "metric: pending-requests")
    stack = validate_text(text, "s.yaml").stack
    assert stack is not None
    with server.serving([]) as url:
        found, gaps = services.read(Prometheus(url), stack, 7230.0, 7200.0)
    assert found == {} and gaps == [
        "service chat: no requests-per-second trigger with a query, so its demand is not read "
        "and the service is not judged"]


# --- a real Prometheus --------------------------------------------------------------------------


def test_a_real_prometheus_gives_the_service_recommendations(tmp_path: Path) -> None:
    # two days of the demo's chat service, as promtool backfills them into Prometheus: the
    # same recommendations as the demo's, each replayed, and the demand exported
    end = scenario.END
    families: dict[str, Family] = {}
    for s in demo_service.series(end - 2 * 86400, end):
        labels = dict(s.labels)
        name = labels.pop("__name__")
        counter = name.endswith("_total")
        key = name.removesuffix("_total") if counter else name
        family = families.setdefault(key, Family(key, "counter" if counter else "gauge"))
        family.add(labels, zip(s.times, s.values, strict=True))
    stack_file = tmp_path / "advise-demo.yaml"
    stack_file.write_text(scenario.STACK)
    out = tmp_path / "requests.csv"
    with serving(families.values(), tmp_path / "prom") as url:
        result = advise.advise(stack_file, STACK, url=url, since_seconds=2 * 86400, end=end,
                               export_requests=out)
    by_path = {r.path_text: r for r in result.recommendations}
    assert by_path["services[0].capacityPerReplica"].value == 30.0
    assert by_path["services[0].scaleOn[0].target"].value == 26.7
    assert by_path["services[0].replicas.max"].value == 8
    target = by_path["services[0].scaleOn[0].target"].evidence
    assert target["not_served_pct_after"] < target["not_served_pct_before"]
    assert [d.recommendation.path_text for d in result.dropped] == ["services[0].replicas.min"]
    demand = read_rates(out)["chat"]
    assert 2 * 86400 - 120 <= demand.end <= 2 * 86400
    assert 190 < max(demand.rps) <= 200.5
