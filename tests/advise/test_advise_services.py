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
