"""What each inference service of the stack did over a window, read from Prometheus.

This module owns the service evidence ``gpupool advise`` judges (``advise.service_rules``), read
minute by minute (range queries at ``step``: 60 s, coarser for windows over 14 days, so a series
holds at most ``MAX_STEPS`` points) through ``advise.prometheus``:

* **demand**, requests per second: the query of the service's ``requests-per-second`` trigger, as
  KEDA runs it; a service without one is not judged (a gap says so);
* **replicas**: kube-state-metrics' HPA series as v2.0 and later name them (its
  ``docs/horizontalpodautoscaler-metrics.md``; ``internal/store/hpa.go``, which before v2.0 wrote
  ``kube_hpa_*`` labelled ``hpa``, not read here): ``kube_horizontalpodautoscaler_status_
  current_replicas``, ``..._status_desired_replicas`` and ``..._spec_max_replicas``, each
  labelled ``namespace`` and ``horizontalpodautoscaler`` (the HPA's name). KEDA names the HPA it
  makes for a ScaledObject ``keda-hpa-<ScaledObject name>`` (kedacore/keda
  ``controllers/keda/hpa.go``, ``getHPAName``/``getDefaultHpaName``, unless
  ``advanced.horizontalPodAutoscalerConfig.name`` is set, which gpupool does not render), and
  gpupool names the ScaledObject after the service (``gpupool.sharing.keda``);
* **GPU activity** of the service's pods, averaged over them: the DCGM exporter's per-pod series
  (``exported_namespace``, ``exported_pod``: its pod label when scraped through its
  ServiceMonitor, NVIDIA/dcgm-exporter #340), ``DCGM_FI_PROF_GR_ENGINE_ACTIVE`` (a ratio) where
  the GPUs report it, else ``DCGM_FI_DEV_GPU_UTIL`` / 100, as the pool evidence reads activity.
  The pods are those of the service's Deployment (``gpupool.sharing.service_rules.pods``). On a
  time-sliced or MPS pool those series are the whole GPU's (dcgm-exporter #307, #587), so no
  activity is read there.

A point the server answers NaN for, or that is missing, is a gap in the series (NaN here); a
value beyond what a real service shows (``MAX_RPS`` requests a second, ``MAX_REPLICAS``) makes
the service's evidence refused with one line saying which, and the service is not judged.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from gpupool.advise.prometheus import Prometheus
from gpupool.advise.words import counted
from gpupool.model import Stack
from gpupool.service_model import REQUESTS_PER_SECOND, Service, Trigger
from gpupool.sharing.service_rules import pods

CURRENT = "kube_horizontalpodautoscaler_status_current_replicas"
DESIRED = "kube_horizontalpodautoscaler_status_desired_replicas"
SPEC_MAX = "kube_horizontalpodautoscaler_spec_max_replicas"
HPA_PREFIX = "keda-hpa-"  # kedacore/keda controllers/keda/hpa.go getDefaultHpaName
ENGINE_ACTIVE = "DCGM_FI_PROF_GR_ENGINE_ACTIVE"
GPU_UTIL = "DCGM_FI_DEV_GPU_UTIL"
STEP_SECONDS = 60.0
#: The most points a series is read at (14 days of minutes); a longer window reads coarser.
MAX_STEPS = 20_160
#: The most requests per second gpupool replays (``gpupool.simulate.requests.MAX_RPS``'s figure).
MAX_RPS = 10_000_000.0
#: The most replicas one service's HPA may report before the figure is taken for no measurement.
MAX_REPLICAS = 100_000.0


@dataclass(frozen=True)
class ServiceUse:
    """One service over the window: per step, its demand, replicas and its pods' GPU activity.

    ``times`` are unix seconds, ``step`` apart; every list holds one value a time, NaN where the
    server had none. ``activity`` is empty where it is not read (a time-sliced or MPS pool).
    """

    service: str
    start: float
    step: float
    times: tuple[float, ...]
    demand: tuple[float, ...]  # requests per second
    current: tuple[float, ...]  # the HPA's current replicas
    desired: tuple[float, ...]
    spec_max: float | None  # the HPA's maxReplicas, the window's largest
    activity: tuple[float, ...]  # 0..1, the mean over the service's pods
    activity_metric: str | None
    trigger: Trigger  # the requests-per-second trigger the demand is read from

    @property
    def demand_or_zero(self) -> tuple[float, ...]:
        """The demand with a missing point as no request (a counter not yet, or no more, there)."""
        return tuple(0.0 if math.isnan(d) else d for d in self.demand)


def hpa_name(service: Service) -> str:
    """Return the HPA KEDA makes for the service's ScaledObject (named after the service)."""
    return HPA_PREFIX + service.name


def step_for(window_seconds: float) -> float:
    """Return the step the window is read at: a minute, or whole minutes for ``MAX_STEPS``."""
    return max(STEP_SECONDS, 60.0 * math.ceil(window_seconds / MAX_STEPS / 60.0))


def _string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _namespace(stack: Stack, service: Service) -> str:
    tenant = next((t for t in stack.tenants if t.name == service.tenant), None)
    return tenant.namespace if tenant is not None else service.tenant


class _Series:
    """Reads one expression over the window onto the window's times (NaN where none)."""

    def __init__(self, server: Prometheus, times: tuple[float, ...], step: float) -> None:
        self.server, self.times, self.step = server, times, step

    def read(self, expr: str) -> tuple[float, ...] | None:
        """Return the expression's one series on the window's times; None: no series came."""
        found = self.server.query_range(expr, self.times[0], self.times[-1], self.step)
        if not found:
            return None
        at = {round((t - self.times[0]) / self.step): v for t, v in found[0].points}
        return tuple(at.get(i, math.nan) for i in range(len(self.times)))


def _beyond(values: tuple[float, ...], limit: float) -> float | None:
    worst = max((abs(v) for v in values if not math.isnan(v)), default=0.0)
    return worst if worst > limit else None


def read(server: Prometheus, stack: Stack, end: float, window_seconds: float,
         progress: Callable[[str], None] | None = None,
         ) -> tuple[dict[str, ServiceUse], list[str]]:
    """Return each judged service's evidence over the window before ``end``, and the gaps met."""
    out: dict[str, ServiceUse] = {}
    gaps: list[str] = []
    if not stack.services:
        return out, gaps
    step = step_for(window_seconds)
    first = end - window_seconds + step
    times = tuple(first + k * step for k in range(max(1, round(window_seconds / step))))
    reader = _Series(server, times, step)
    if progress:
        progress(f"reading {counted(len(stack.services), 'service')}: demand, HPA replicas "
                 "and GPU use")
    for service in stack.services:
        use, why = _one(reader, stack, service, end, window_seconds)
        if use is not None:
            out[service.name] = use
        if why:
            gaps.append(why)
    return out, gaps


def _one(reader: _Series, stack: Stack, service: Service, end: float, window: float
         ) -> tuple[ServiceUse | None, str | None]:
    name = service.name
    trigger = next((t for t in service.triggers
                    if t.metric == REQUESTS_PER_SECOND and t.query), None)
    if trigger is None or trigger.query is None:
        return None, (f"service {name}: no requests-per-second trigger with a query, so its "
                      "demand is not read and the service is not judged")
    demand = reader.read(trigger.query)
    if demand is None:
        return None, f"service {name}: its requests-per-second query returned no series"
    ns, hpa = _namespace(stack, service), hpa_name(service)
    labels = f"namespace={_string(ns)}, horizontalpodautoscaler={_string(hpa)}"
    current = reader.read(f"max({CURRENT}{{{labels}}})")
    if current is None:
        return None, (f"service {name}: kube-state-metrics has no {CURRENT} for HPA {ns}/{hpa} "
                      "in the window (is KEDA's ScaledObject applied, and kube-state-metrics "
                      "scraped?): its replicas are unknown, not judged")
    desired = reader.read(f"max({DESIRED}{{{labels}}})") or tuple(math.nan for _ in demand)
    for what, values, limit in (("requests per second", demand, MAX_RPS),
                                ("replicas", current, MAX_REPLICAS),
                                ("desired replicas", desired, MAX_REPLICAS)):
        worst = _beyond(values, limit)
        if worst is not None:
            return None, (f"service {name}: the server answered {worst:g} {what}, beyond the "
                          f"{limit:,.0f} gpupool takes for a measurement: not judged")
    top = reader.server.query(
        f"max(max_over_time({SPEC_MAX}{{{labels}}}[{max(1, round(window / 60))}m]))", end)
    spec_max = next((s.value for s in top if not math.isnan(s.value)), None)
    activity, metric = _activity(reader, stack, service, ns)
    use = ServiceUse(name, reader.times[0], reader.step, reader.times, demand, current, desired,
                     spec_max, activity, metric, trigger)
    return use, None


def _activity(reader: _Series, stack: Stack, service: Service, namespace: str
              ) -> tuple[tuple[float, ...], str | None]:
    pool = stack.pool(service.pool)
    if pool is not None and pool.sharing.kind.replicated:
        return (), None
    selector = (f"{{exported_namespace={_string(namespace)}, "
                f"exported_pod=~{_string(pods(service))}}}")
    for metric, scale in ((ENGINE_ACTIVE, ""), (GPU_UTIL, " / 100")):
        found = reader.read(f"avg({metric}{selector}){scale}")
        if found is not None:
            clipped = tuple(v if math.isnan(v) else min(1.0, max(0.0, v)) for v in found)
            return clipped, metric
    return (), None


def missing(use: ServiceUse) -> Mapping[str, int]:
    """Return how many of the window's points each series lacks."""
    return {
        "demand": sum(1 for v in use.demand if math.isnan(v)),
        "replicas": sum(1 for v in use.current if math.isnan(v)),
    }


def requests_csv(uses: Mapping[str, ServiceUse]) -> str:
    """Return the services' demand as a rate series (``gpupool simulate --requests`` reads it).

    One row a change of rate: ``service,time,rps``, time in seconds from the window's first
    point, each point's rate holding until the service's next row; a missing point is 0 (no
    counter, no request); every service's last point is written, so its trace ends where the
    window does.
    """
    rows = ["service,time,rps"]
    for name, use in uses.items():
        for t, rps in rate_rows(use):
            rows.append(f"{name},{t:g},{rps!r}")
    return "\n".join(rows) + "\n"


def rate_rows(use: ServiceUse) -> list[tuple[float, float]]:
    """Return (seconds from the first point, rps) where the rate changes, and the last point."""
    demand = use.demand_or_zero
    out: list[tuple[float, float]] = []
    for k, rps in enumerate(demand):
        if not out or rps != out[-1][1] or k == len(demand) - 1:
            out.append((k * use.step, rps))
    return out
