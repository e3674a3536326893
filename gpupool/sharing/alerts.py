"""The GPU alert set: one PrometheusRule, an alert set per pool, and what it needs of the cluster.

This module owns ``k8s.prometheusrule.gpu-operator.gpupool-gpu-alerts``, rendered when
``cluster.monitoring.alerts`` is present (every threshold has a default), and the DCGM
exporter's ServiceMonitor and metrics list settings in the GPU Operator's values
(``service_monitor_values``, ``metrics_config_values``).

The rule has one group. It first records each DCGM metric it and the dashboard
(``sharing/dashboard.py``) read, with a ``node`` label (``promql.record_rule``); then, per pool
scope (``promql.scopes``), these alerts, each with ``severity``, ``pool``, ``stack`` labels and
``summary``, ``description``, ``runbook`` annotations:

- GpupoolGpuMemoryHigh: framebuffer use above ``gpuMemoryPercent`` for ``gpuMemoryMinutes``
  (FB_USED, FB_FREE);
- GpupoolGpuMemoryFullSoon: the early warning, ``predict_linear`` over 10 minutes says the
  framebuffer is full within ``gpuMemoryFullWithinMinutes`` (FB_USED, FB_FREE);
- GpupoolGpuXidError: the last XID error is not 0 (XID_ERRORS);
- GpupoolGpuEccDoubleBit: a double-bit ECC error in the last 10 minutes (ECC_DBE_VOL_TOTAL*);
- GpupoolGpuRowRemapFailed: row remapping failed (ROW_REMAP_FAILURE);
- GpupoolGpuRowRemapPending: a row remap waits for a GPU reset (ROW_REMAP_PENDING*);
- GpupoolGpuThermalThrottling, GpupoolGpuPowerThrottling: throttled more than
  ``throttlePercent`` of the time for ``throttleMinutes`` (THERMAL_VIOLATION*,
  POWER_VIOLATION*);
- GpupoolDcgmExporterDown: a node advertising GPUs (kube-state-metrics) has had no DCGM series
  for ``exporterDownMinutes`` (GPU_TEMP);
- GpupoolGpuIdle: utilisation at 0% for ``idleHours`` (GPU_UTIL);

and once for the stack GpupoolGpuPodPending: a pod requesting GPUs Pending for
``podPendingMinutes`` (a pending pod has no node, so no pool). With KAI fractional pools
(``facts.kai_fractional_pools``) it also takes the pods that ask for part of a GPU by KAI's
``gpu-fraction`` or ``gpu-memory`` annotation, which request no GPU resource: kube-state-metrics'
``kube_pod_annotations`` shows them, given ``promql.KSM_ANNOTATIONS_ALLOWLIST``.

The fields marked * are not in the metrics list the GPU Operator's exporter reads unless told
otherwise (``DCGM_EXPORTER_COLLECTORS=/etc/dcgm-exporter/dcp-metrics-included.csv``);
``CUSTOM_METRICS`` lists them. When gpupool installs the operator with the exporter,
``metrics_config_values`` has the chart create a ConfigMap with gpupool's own list (every field
of that default list and these: ``sharing/dcgm.py``) and point the exporter at it
(``dcgmExporter.config``). Otherwise
(``gpuOperator.install: false``, or ``dcgmExporter: false`` and an exporter of the user's own)
gpupool leaves the list alone and ``needs`` names the fields.

gpupool installs no Prometheus. What the rule needs of the cluster, and gpupool cannot check, is
kept in the rule's ``facts["needs"]`` (the plan and the rendered README list it): the Prometheus
Operator's CRDs; a Prometheus whose ``ruleSelector`` selects the rule (kube-prometheus-stack's
selects only ``release: <its Helm release name>``: ``cluster.monitoring.prometheus.labels`` go on
the rule and, as ``dcgmExporter.serviceMonitor.additionalLabels``, on the DCGM ServiceMonitor);
Prometheus scraping the DCGM exporter and kube-state-metrics; the custom metrics list where
gpupool does not set it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpupool import facts
from gpupool.facts.names import GPU_OPERATOR_NAMESPACE
from gpupool.graph import CloudResult, Resource
from gpupool.model import Stack
from gpupool.monitoring_model import Alerts
from gpupool.sharing import dcgm, promql
from gpupool.sharing.objects import chart, k8s_object
from gpupool.sharing.promql import Scope

RULE_NAME = "gpupool-gpu-alerts"

USED, FREE = "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE"
XID, UTIL, TEMP = "DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_GPU_TEMP"
DBE, REMAP_FAILED = "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "DCGM_FI_DEV_ROW_REMAP_FAILURE"
REMAP_PENDING = "DCGM_FI_DEV_ROW_REMAP_PENDING"
THERMAL, POWER = "DCGM_FI_DEV_THERMAL_VIOLATION", "DCGM_FI_DEV_POWER_VIOLATION"

# DCGM fields the alerts read that the GPU Operator's default metrics list leaves out
# (dcgm-exporter etc/dcp-metrics-included.csv keeps the first, third and fourth commented out and
# has no row for the second).
CUSTOM_METRICS = (DBE, REMAP_PENDING, THERMAL, POWER)
# The ConfigMap the GPU Operator's chart creates with the list (dcgmExporter.config.name).
METRICS_CONFIGMAP = "gpupool-dcgm-metrics"
# gpu-operator v24.9.0 added templates/dcgm_exporter_config.yaml (config.create, config.data);
# before it the chart copies dcgmExporter.config into the ClusterPolicy, creates no ConfigMap,
# and the exporter waits for one that never comes.
METRICS_CONFIGMAP_CHART_SINCE = (24, 9, 0)

PREDICT_WINDOW_MINUTES = 10  # predict_linear's look-back
FULL_FOR_MINUTES = 2  # how long the prediction must hold before the early warning fires

_NODE = "{{ $labels.node }}"
_GPU = "GPU {{ $labels.gpu }} on node " + _NODE


@dataclass(frozen=True)
class AlertSpec:
    """One alert of a pool's set: how its expression, duration and texts follow from the stack."""

    name: str
    severity: str
    metrics: tuple[str, ...]  # the DCGM metrics it reads
    expr: Callable[[Stack, Scope, Alerts], str]
    minutes: Callable[[Alerts], int]
    summary: str  # "{pool}" and "{n}" (the threshold) are filled in
    description: str
    runbook: str
    threshold: Callable[[Alerts], int] = lambda a: 0


def _memory(stack: Stack, s: Scope, a: Alerts) -> str:
    used, free = s.dcgm(stack, USED), s.dcgm(stack, FREE)
    return f"100 * {used} / ({used} + {free}) > {a.gpu_memory_percent}{s.join}"


def horizon_minutes(a: Alerts) -> int:
    """How far ahead the early warning predicts: the lead asked for, plus its ``for`` and a step."""
    return a.memory_full_within_minutes + FULL_FOR_MINUTES + 1


def _full_soon(stack: Stack, s: Scope, a: Alerts) -> str:
    used, free = s.dcgm(stack, USED), s.dcgm(stack, FREE)
    window = f"{PREDICT_WINDOW_MINUTES}m"
    predicted = f"predict_linear({used}[{window}], {horizon_minutes(a) * 60})"
    return f"{predicted} >= {used} + {free}{s.join}"


def _above_zero(metric: str) -> Callable[[Stack, Scope, Alerts], str]:
    return lambda stack, s, a: f"{s.dcgm(stack, metric)} > 0{s.join}"


def _increased(metric: str) -> Callable[[Stack, Scope, Alerts], str]:
    return lambda stack, s, a: f"increase({s.dcgm(stack, metric)}[10m]) > 0{s.join}"


def _throttled(metric: str) -> Callable[[Stack, Scope, Alerts], str]:
    # The violation counters count nanoseconds throttled: a rate of 1e9 ns/s is 100% of the time.
    def expr(stack: Stack, s: Scope, a: Alerts) -> str:
        return f"rate({s.dcgm(stack, metric)}[5m]) / 1e7 > {a.throttle_percent}{s.join}"

    return expr


def _exporter_down(stack: Stack, s: Scope, a: Alerts) -> str:
    capacity = s.ksm("kube_node_status_capacity", promql.GPU_RESOURCES)
    series = f'{promql.recorded(TEMP)}{{{promql.STACK_LABEL}="{stack.name}"}}'
    return f"max by (node) ({capacity}) > 0 unless on (node) {series}{s.join}"


def _idle(stack: Stack, s: Scope, a: Alerts) -> str:
    return f"{s.dcgm(stack, UTIL)} == 0{s.join}"


POOL_ALERTS = (
    AlertSpec(
        "GpupoolGpuMemoryHigh",
        "warning",
        (USED, FREE),
        _memory,
        lambda a: a.gpu_memory_minutes,
        "GPU memory above {n}% on pool {pool}",
        _GPU + " uses {{ $value | humanize }}% of its framebuffer.",
        "Find the pod on the GPU (dcgm-exporter's exported_pod label); lower its batch or "
        "context size, or move it to a pool with more memory per GPU.",
        lambda a: a.gpu_memory_percent,
    ),
    AlertSpec(
        "GpupoolGpuMemoryFullSoon",
        "warning",
        (USED, FREE),
        _full_soon,
        lambda a: FULL_FOR_MINUTES,
        "GPU memory on pool {pool} predicted full within {n} minutes",
        _GPU + " is filling its framebuffer at a rate that fills it within {n} minutes "
        "(linear prediction over the last 10 minutes).",
        "Act before out-of-memory errors: stop admitting work to the GPU, or restart the "
        "leaking pod.",
        lambda a: a.memory_full_within_minutes,
    ),
    AlertSpec(
        "GpupoolGpuXidError",
        "critical",
        (XID,),
        _above_zero(XID),
        lambda a: 0,
        "XID error on a GPU of pool {pool}",
        _GPU + " reported XID {{ $value }} (the last XID error the driver logged).",
        "Look the XID up in NVIDIA's XID catalogue; 48, 63, 64, 74, 79, 94 and 95 mean a "
        "hardware or driver fault: cordon the node, drain it and reset or replace the GPU.",
    ),
    AlertSpec(
        "GpupoolGpuEccDoubleBit",
        "critical",
        (DBE,),
        _increased(DBE),
        lambda a: 0,
        "Double-bit ECC error on a GPU of pool {pool}",
        _GPU + " had {{ $value }} uncorrectable (double-bit) ECC errors in 10 minutes.",
        "The GPU corrupted memory: cordon and drain the node, then reset the GPU; replace it "
        "if errors recur.",
    ),
    AlertSpec(
        "GpupoolGpuRowRemapFailed",
        "critical",
        (REMAP_FAILED,),
        _above_zero(REMAP_FAILED),
        lambda a: 0,
        "Row remapping failed on a GPU of pool {pool}",
        _GPU + " could not remap a faulty memory row: it has no spare rows left.",
        "Cordon and drain the node and replace the GPU (NVIDIA's row-remapping guidance: RMA).",
    ),
    AlertSpec(
        "GpupoolGpuRowRemapPending",
        "warning",
        (REMAP_PENDING,),
        _above_zero(REMAP_PENDING),
        lambda a: 0,
        "Row remap pending on a GPU of pool {pool}",
        _GPU + " has a memory row remap that takes effect only after a GPU reset.",
        "Drain the node, then reset the GPU (nvidia-smi -r) or reboot the node.",
    ),
    AlertSpec(
        "GpupoolGpuThermalThrottling",
        "warning",
        (THERMAL,),
        _throttled(THERMAL),
        lambda a: a.throttle_minutes,
        "Thermal throttling on pool {pool}",
        _GPU + " was held back by its temperature {{ $value | humanize }}% of the time.",
        "Check the node's cooling and the GPU temperature on the dashboard.",
        lambda a: a.throttle_percent,
    ),
    AlertSpec(
        "GpupoolGpuPowerThrottling",
        "warning",
        (POWER,),
        _throttled(POWER),
        lambda a: a.throttle_minutes,
        "Power throttling on pool {pool}",
        _GPU + " was held back by its power limit {{ $value | humanize }}% of the time.",
        "Check the GPU's power limit (nvidia-smi -q -d POWER) and the node's power supply.",
        lambda a: a.throttle_percent,
    ),
    AlertSpec(
        "GpupoolDcgmExporterDown",
        "warning",
        (TEMP,),
        _exporter_down,
        lambda a: a.exporter_down_minutes,
        "No GPU metrics from a node of pool {pool}",
        "Node " + _NODE + " advertises GPUs but no DCGM exporter series arrive from it: the "
        "other GPU alerts are blind there.",
        "kubectl -n gpu-operator get pods -o wide | grep dcgm-exporter on that node; check its "
        "logs and that Prometheus scrapes it (its ServiceMonitor).",
    ),
    AlertSpec(
        "GpupoolGpuIdle",
        "warning",
        (UTIL,),
        _idle,
        lambda a: a.idle_hours * 60,
        "GPU idle for {n} hours on pool {pool}",
        _GPU + " has been at 0% utilisation for {n} hours: it costs money and does nothing.",
        "Scale the pool down (nodes.min), or find the pod holding the GPU idle and stop it.",
        lambda a: a.idle_hours,
    ),
)

POD_PENDING = "GpupoolGpuPodPending"


def _duration(minutes: int) -> str:
    return f"{minutes // 60}h" if minutes and minutes % 60 == 0 else f"{minutes}m"


def _rule(
    name: str, expr: str, minutes: int, labels: dict[str, str], texts: tuple[str, str, str]
) -> dict[str, Any]:
    rule: dict[str, Any] = {"alert": name, "expr": expr}
    if minutes:
        rule["for"] = _duration(minutes)
    rule["labels"] = labels
    rule["annotations"] = dict(zip(("summary", "description", "runbook"), texts, strict=True))
    return rule


def pool_rules(stack: Stack, scope: Scope, a: Alerts) -> list[dict[str, Any]]:
    """Return the alert rules of one scope (a pool, or the pools that share one scope)."""
    labels = {"pool": scope.label, "stack": stack.name}
    out = []
    for spec in POOL_ALERTS:
        n = str(spec.threshold(a))
        texts = tuple(
            t.replace("{pool}", scope.label).replace("{n}", n)
            for t in (spec.summary, spec.description, spec.runbook)
        )
        out.append(
            _rule(
                spec.name,
                spec.expr(stack, scope, a),
                spec.minutes(a),
                {"severity": spec.severity, **labels},
                (texts[0], texts[1], texts[2]),
            )
        )
    return out


def pending_rule(stack: Stack, a: Alerts) -> dict[str, Any]:
    """Return the stack's alert on pods that request GPUs and stay Pending."""
    return _rule(
        POD_PENDING,
        promql.pending_gpu_pods(fractional=bool(facts.kai_fractional_pools(stack))),
        a.pod_pending_minutes,
        {"severity": "warning", "stack": stack.name},
        (
            f"A pod requesting GPUs has been Pending for {a.pod_pending_minutes} minutes",
            "Pod {{ $labels.namespace }}/{{ $labels.pod }} requests GPUs and is still Pending: "
            "scale-up may be stuck.",
            "kubectl describe pod: check the scheduler's events, the pool's nodes.max, the "
            "cloud's GPU quota and spot capacity, and the autoscaler's logs.",
        ),
    )


def read_metrics() -> list[str]:
    """Return the DCGM metrics the rule records: those the alerts and the dashboard read."""
    return sorted(
        {m for spec in POOL_ALERTS for m in spec.metrics} | set(promql.DASHBOARD_METRICS)
    )


def rules(stack: Stack) -> list[dict[str, Any]]:
    """Return the rule group's rules: the recordings, each scope's alerts, the pending alert."""
    a = stack.cluster.monitoring.alerts
    if a is None:
        return []
    out: list[dict[str, Any]] = [promql.record_rule(stack, m) for m in read_metrics()]
    for scope in promql.scopes(stack):
        out += pool_rules(stack, scope, a)
    out.append(pending_rule(stack, a))
    return out


def rule_labels(stack: Stack) -> dict[str, str]:
    """Return the labels the stack asks for on the PrometheusRule (none when unstated)."""
    prom = stack.cluster.monitoring.prometheus
    return dict(prom.labels or {}) if prom is not None else {}


def service_monitor_values(stack: Stack) -> dict[str, Any] | None:
    """Return the GPU Operator's ``dcgmExporter.serviceMonitor`` values, or None to leave them.

    Set only when the stack says the Prometheus Operator runs and the exporter is on: then the
    ServiceMonitor is turned on or off as asked (gpu-operator's default flipped from off to on in
    v26.7.0, and before v26.7.0 an enabled ServiceMonitor without its CRD keeps the exporter's
    state not ready), carrying the stack's Prometheus labels as ``additionalLabels``. Keys from
    gpu-operator v26.7.0 ``deployments/gpu-operator/values.yaml``.
    """
    mon = stack.cluster.monitoring
    if mon.prometheus is None or not mon.dcgm_exporter:
        return None
    out: dict[str, Any] = {"enabled": mon.prometheus.service_monitor}
    if mon.prometheus.service_monitor and mon.prometheus.labels:
        out["additionalLabels"] = dict(mon.prometheus.labels)
    return out


def metrics_config_values(stack: Stack) -> dict[str, Any] | None:
    """Return the GPU Operator's ``dcgmExporter.config`` values, or None to leave the list alone.

    Set when gpupool installs the operator, the exporter is on and the alert set is rendered:
    the chart then creates the ConfigMap ``METRICS_CONFIGMAP`` with key ``dcgm-metrics.csv``
    (``templates/dcgm_exporter_config.yaml``, given ``create`` and non-empty ``data``), and the
    operator mounts it and sets ``DCGM_EXPORTER_COLLECTORS=/etc/dcgm-exporter/dcgm-metrics.csv``
    (``controllers/object_controls.go``, ``TransformDCGMExporter``). The list is gpupool's own
    (``dcgm.metrics_list``): every metric the rule records first, then the rest of the fields
    the exporter's default list exports. Keys from
    gpu-operator v26.7.0 ``deployments/gpu-operator/values.yaml`` (its commented ``config``
    example). Not set for a ``gpuOperator.version`` before v24.9.0, whose chart cannot create
    the ConfigMap (``METRICS_CONFIGMAP_CHART_SINCE``).
    """
    mon = stack.cluster.monitoring
    if not stack.cluster.gpu_operator.install or not mon.dcgm_exporter or mon.alerts is None:
        return None
    version = chart("gpu-operator", stack.cluster.gpu_operator.version).version
    release = re.fullmatch(r"v?(\d+)\.(\d+)\.(\d+)", version)
    # validation admits only such versions; one that is not (a stack built in code) is unknown
    if release is None or tuple(map(int, release.groups())) < METRICS_CONFIGMAP_CHART_SINCE:
        return None
    return {"name": METRICS_CONFIGMAP, "create": True, "data": dcgm.metrics_list(read_metrics())}


def _labels_text(labels: dict[str, str]) -> str:
    return "{" + ", ".join(f"{k}: {v}" for k, v in sorted(labels.items())) + "}"


def _selects(selector: str, kind: str, labels: dict[str, str] | None) -> str:
    """Say which Prometheus selects gpupool's ``kind`` through ``selector``, given the labels."""
    if labels is None:
        return (
            f"a Prometheus whose {selector} selects the {kind} (kube-prometheus-stack's selects "
            "only `release: <its release name>`: set cluster.monitoring.prometheus.labels)"
        )
    if not labels:
        return f"a Prometheus whose {selector} selects every {kind}"
    return f"a Prometheus whose {selector} matches the {kind}'s labels {_labels_text(labels)}"


def custom_metric_alerts() -> list[str]:
    """Return the alerts that read a DCGM field outside the exporter's default list."""
    return [s.name for s in POOL_ALERTS if any(m in CUSTOM_METRICS for m in s.metrics)]


def needs(stack: Stack) -> list[str]:
    """Return what the alerts need of the cluster, which gpupool cannot check.

    One sentence each, for the plan and the rendered README; empty without alerts.
    """
    mon = stack.cluster.monitoring
    if mon.alerts is None:
        return []
    prom = mon.prometheus
    labels = None if prom is None or prom.labels is None else dict(prom.labels)
    out = [
        "the Prometheus Operator's CRDs (kind PrometheusRule, monitoring.coreos.com/v1): "
        "without them `pulumi up` fails on the GPU alerts' PrometheusRule",
        f"{_selects('ruleSelector', 'PrometheusRule', labels)}, and whose "
        f"ruleNamespaceSelector takes namespace {GPU_OPERATOR_NAMESPACE}",
    ]
    if mon.dcgm_exporter and prom is not None and prom.service_monitor:
        out.append(
            f"{_selects('serviceMonitorSelector', 'ServiceMonitor', labels)}: the GPU Operator "
            "creates it for the DCGM exporter"
        )
    elif mon.dcgm_exporter and prom is not None:
        out.append("Prometheus scraping the DCGM exporter your own way (serviceMonitor: false)")
    elif mon.dcgm_exporter:
        out.append(
            "Prometheus scraping the DCGM exporter: the GPU Operator's ServiceMonitor is left at "
            "the chart's default, with no label a serviceMonitorSelector may require "
            "(cluster.monitoring.prometheus sets both)"
        )
    out.append(
        "Prometheus scraping kube-state-metrics (its default kube_node_status_capacity, "
        "kube_pod_status_phase and kube_pod_container_resource_requests), or "
        f"GpupoolDcgmExporterDown and {POD_PENDING} never fire"
    )
    if metrics_config_values(stack) is None:
        out.append(
            f"a DCGM exporter metrics list with {', '.join(CUSTOM_METRICS)} (GPU Operator: "
            "dcgmExporter.config; the exporter's default dcp-metrics-included.csv leaves them "
            f"out), or {', '.join(custom_metric_alerts())} never fire"
        )
    joined = promql.joined_pools(stack)
    if joined:
        out.append(
            f"kube-state-metrics started with `{promql.KSM_ALLOWLIST}` (kube-prometheus-stack: "
            f"`kube-state-metrics.metricLabelsAllowlist`), or the alerts of "
            f"{', '.join(joined)} never fire"
        )
    if (shared := promql.shared_scope(stack)) is not None:
        out.append(
            f"nothing else, but the alerts of {', '.join(shared.pools)} fire as one set (pool "
            f'"{shared.label}"): with kube-state-metrics started with `{promql.KSM_ALLOWLIST}`, '
            "set kubeStateMetricsPoolLabel: true to tell them apart"
        )
    if fractional := facts.kai_fractional_pools(stack):
        out.append(
            f"kube-state-metrics started with `{promql.KSM_ANNOTATIONS_ALLOWLIST}` "
            "(kube-prometheus-stack: `kube-state-metrics.metricAnnotationsAllowList`), or "
            f"{POD_PENDING} never fires for the KAI fractional pods of "
            f"{', '.join(p.name for p in fractional)} (they request no GPU resource)"
        )
    return out


def prometheus_rule(stack: Stack, name: str, group: dict[str, Any]) -> dict[str, Any]:
    """Return a PrometheusRule of one group in the GPU Operator's namespace.

    It carries the labels the stack's Prometheus selects rules by (``rule_labels``); the showback
    rules use it too.
    """
    metadata: dict[str, Any] = {"name": name, "namespace": GPU_OPERATOR_NAMESPACE}
    if labels := rule_labels(stack):
        metadata["labels"] = labels
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": metadata,
        "spec": {"groups": [group]},
    }


def build(stack: Stack, cloud: CloudResult, after: tuple[str, ...]) -> list[Resource]:
    """Return the PrometheusRule, or nothing without ``cluster.monitoring.alerts``.

    Args:
        stack: the validated stack.
        cloud: the cloud result.
        after: addresses the rule must follow (operator namespace and release, when rendered).

    """
    a = stack.cluster.monitoring.alerts
    if a is None:
        return []
    deps = list(after)
    for pool in stack.pools:
        deps.extend(cloud.node_pools.get(pool.name, ()))
    manifest = prometheus_rule(stack, RULE_NAME, {"name": f"gpupool.{stack.name}.gpus",
                                                  "rules": rules(stack)})
    return [
        k8s_object(
            stack,
            manifest,
            provider=cloud.k8s_provider,
            depends_on=tuple(deps),
            facts={
                "gpu_memory_percent": a.gpu_memory_percent,
                "gpu_memory_minutes": a.gpu_memory_minutes,
                "memory_full_within_minutes": a.memory_full_within_minutes,
                "throttle_percent": a.throttle_percent,
                "throttle_minutes": a.throttle_minutes,
                "exporter_down_minutes": a.exporter_down_minutes,
                "idle_hours": a.idle_hours,
                "pod_pending_minutes": a.pod_pending_minutes,
                "pools": [p.name for p in stack.pools],
                "needs": needs(stack),
            },
        )
    ]
