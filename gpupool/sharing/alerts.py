"""The GPU alert set: one PrometheusRule, an alert set per pool, and what it needs of the cluster.

This module owns ``k8s.prometheusrule.gpu-operator.gpupool-gpu-alerts``, rendered when
``cluster.monitoring.alerts`` is present (every threshold has a default), and the DCGM
exporter's ServiceMonitor and metrics list settings in the GPU Operator's values
(``service_monitor_values``, ``metrics_config_values``).

The rule has one group: the recordings, each pool scope's alerts and the stack's pending-pod
alert, which ``sharing/alert_rules.py`` writes (each alert, what it reads and why it fires).

The DCGM fields ``alert_rules`` marks * are not in the metrics list the GPU Operator's exporter
reads unless told otherwise
(``DCGM_EXPORTER_COLLECTORS=/etc/dcgm-exporter/dcp-metrics-included.csv``);
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
from typing import Any

from gpupool import facts
from gpupool.facts.names import GPU_OPERATOR_NAMESPACE
from gpupool.graph import CloudResult, Resource
from gpupool.model import Stack
from gpupool.sharing import dcgm, promql
from gpupool.sharing.alert_rules import (
    CUSTOM_METRICS,
    DBE,
    FREE,
    POD_PENDING,
    POOL_ALERTS,
    POWER,
    REMAP_FAILED,
    REMAP_PENDING,
    TEMP,
    THERMAL,
    USED,
    UTIL,
    XID,
    pending_rule,
    pool_rules,
    read_metrics,
)
from gpupool.sharing.objects import chart, k8s_object

# the rules' names the tests and the other sharing modules read here (``alert_rules`` owns them)
__all__ = [
    "CUSTOM_METRICS", "DBE", "FREE", "METRICS_CONFIGMAP", "POD_PENDING", "POOL_ALERTS", "POWER",
    "REMAP_FAILED", "REMAP_PENDING", "RULE_NAME", "TEMP", "THERMAL", "USED", "UTIL", "XID",
    "build", "metrics_config_values", "needs", "pending_rule", "prometheus_rule", "read_metrics",
    "rule_labels", "rules", "service_monitor_values",
]

RULE_NAME = "gpupool-gpu-alerts"

# The ConfigMap the GPU Operator's chart creates with the list (dcgmExporter.config.name).
METRICS_CONFIGMAP = "gpupool-dcgm-metrics"
# gpu-operator v24.9.0 added templates/dcgm_exporter_config.yaml (config.create, config.data);
# before it the chart copies dcgmExporter.config into the ClusterPolicy, creates no ConfigMap,
# and the exporter waits for one that never comes.
METRICS_CONFIGMAP_CHART_SINCE = (24, 9, 0)


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
