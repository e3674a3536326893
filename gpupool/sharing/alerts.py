"""GPU memory alerts: one PrometheusRule with one alert per pool, and what they need of the cluster.

This module owns ``k8s.prometheusrule.gpu-operator.gpupool-gpu-memory``, rendered when
``cluster.monitoring.alerts.gpuMemoryPercent`` is set, and the DCGM exporter's ServiceMonitor
settings in the GPU Operator's values (``service_monitor_values``). Each pool's rule fires when a
GPU (or MIG instance) on the pool's nodes has used more than that share of its framebuffer for 5
minutes: ``DCGM_FI_DEV_FB_USED / (DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE)``, from the GPU
Operator's DCGM exporter.

Selecting a pool's GPUs: DCGM series carry the node name in ``Hostname``, not node labels.

* Pools whose node names are known (``cloud: kubernetes``) match ``Hostname`` directly.
* Other pools join ``kube_node_labels`` from kube-state-metrics on the node name, which needs
  kube-state-metrics to export the pool label, giving ``label_gpupool_io_pool``
  (``--metric-labels-allowlist=nodes=[gpupool.io/pool]``; kube-state-metrics
  ``docs/developer/cli-arguments.md``). Without it those rules stay silent.

gpupool installs no Prometheus. What the rule needs of the cluster, and gpupool cannot check, is
kept in the rule's ``facts["needs"]`` (the plan and the rendered README list it):

* the Prometheus Operator's CRDs: without the PrometheusRule kind ``pulumi up`` fails;
* a Prometheus that selects the rule: kube-prometheus-stack's selects only PrometheusRules (and
  ServiceMonitors) labelled ``release: <its Helm release name>``
  (``ruleSelectorNilUsesHelmValues``), so ``cluster.monitoring.prometheus.labels`` goes on the
  rule and, as ``dcgmExporter.serviceMonitor.additionalLabels``, on the DCGM ServiceMonitor;
* Prometheus scraping the DCGM exporter: with ``cluster.monitoring.prometheus`` stated the GPU
  Operator creates the exporter's ServiceMonitor (``serviceMonitor``, default on);
* kube-state-metrics exporting the pool label, for the pools above that join on it.

The rule lives in the GPU Operator's namespace next to the exporter; the Prometheus's
``ruleNamespaceSelector`` must include that namespace (kube-prometheus-stack's selects all).
"""

from __future__ import annotations

import re
from typing import Any

from gpupool.facts.names import GPU_OPERATOR_NAMESPACE, POOL_LABEL
from gpupool.graph import CloudResult, Resource
from gpupool.model import Pool, Stack
from gpupool.sharing.objects import k8s_object

RULE_NAME = "gpupool-gpu-memory"
ALERT = "GpupoolGpuMemoryHigh"

_USED = "DCGM_FI_DEV_FB_USED"
_FREE = "DCGM_FI_DEV_FB_FREE"

# kube-state-metrics names a node label's series label "label_" + the key with every character
# outside [a-zA-Z0-9_] turned into "_" (docs/metrics/cluster/node-metrics.md).
KSM_POOL_LABEL = "label_" + re.sub(r"[^a-zA-Z0-9_]", "_", POOL_LABEL)
KSM_ALLOWLIST = f"--metric-labels-allowlist=nodes=[{POOL_LABEL}]"


def _labels_text(labels: dict[str, str]) -> str:
    return "{" + ", ".join(f"{k}: {v}" for k, v in sorted(labels.items())) + "}"


def joined_pools(stack: Stack) -> list[Pool]:
    """Return the pools whose alerts join ``kube_node_labels`` (their node names are unknown)."""
    return [p for p in stack.pools if not p.node_names]


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


def needs(stack: Stack) -> list[str]:
    """Return what the GPU memory alerts need of the cluster, which gpupool cannot check.

    One sentence each, for the plan and the rendered README; empty without alerts.
    """
    mon = stack.cluster.monitoring
    if mon.gpu_memory_alert_percent is None:
        return []
    prom = mon.prometheus
    labels = None if prom is None or prom.labels is None else dict(prom.labels)
    out = [
        "the Prometheus Operator's CRDs (kind PrometheusRule, monitoring.coreos.com/v1): "
        "without them `pulumi up` fails on the GPU memory PrometheusRule",
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
    joined = joined_pools(stack)
    if joined:
        names = ", ".join(p.name for p in joined)
        out.append(
            f"kube-state-metrics started with `{KSM_ALLOWLIST}` (kube-prometheus-stack: "
            f"`kube-state-metrics.metricLabelsAllowlist`), or the alerts of {names} never fire"
        )
    return out


def _ratio(selector: str) -> str:
    return f"100 * {_USED}{selector} / ({_USED}{selector} + {_FREE}{selector})"


def expression(pool: Pool, percent: int) -> str:
    """Return the PromQL expression of a pool's alert."""
    if pool.node_names:
        # Node names are DNS subdomains: only "." is special in a regex. PromQL strings take
        # backslash escapes, so the regex's "\." is written "\\." inside the quotes.
        names = "|".join(n.replace(".", "\\\\.") for n in pool.node_names)
        selector = '{Hostname=~"' + names + '"}'
        return f"{_ratio(selector)} > {percent}"
    nodes = (
        f'label_replace(kube_node_labels{{{KSM_POOL_LABEL}="{pool.name}"}}, '
        '"Hostname", "$1", "node", "(.*)")'
    )
    return (
        f"({_ratio('')})\n  * on (Hostname) group_left ({KSM_POOL_LABEL})\n  {nodes}\n> {percent}"
    )


def build(stack: Stack, cloud: CloudResult, after: tuple[str, ...]) -> list[Resource]:
    """Return the PrometheusRule, or nothing when no alert threshold is set.

    Args:
        stack: the validated stack.
        cloud: the cloud result.
        after: addresses the rule must follow (operator namespace and release, when rendered).

    """
    percent = stack.cluster.monitoring.gpu_memory_alert_percent
    if percent is None:
        return []
    rules = []
    deps = list(after)
    for pool in stack.pools:
        deps.extend(cloud.node_pools.get(pool.name, ()))
        rules.append(
            {
                "alert": ALERT,
                "expr": expression(pool, percent),
                "for": "5m",
                "labels": {"severity": "warning", "pool": pool.name, "stack": stack.name},
                "annotations": {
                    "summary": f"GPU memory above {percent}% on pool {pool.name}",
                    "description": (
                        "GPU {{ $labels.gpu }} on node {{ $labels.Hostname }} uses "
                        "{{ $value | humanize }}% of its framebuffer (pool "
                        f"{pool.name}, threshold {percent}%)."
                    ),
                },
            }
        )
    metadata: dict[str, Any] = {"name": RULE_NAME, "namespace": GPU_OPERATOR_NAMESPACE}
    if labels := rule_labels(stack):
        metadata["labels"] = labels
    manifest = {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": metadata,
        "spec": {"groups": [{"name": f"gpupool.{stack.name}.gpu-memory", "rules": rules}]},
    }
    return [
        k8s_object(
            stack,
            manifest,
            provider=cloud.k8s_provider,
            depends_on=tuple(deps),
            facts={
                "gpu_memory_percent": percent,
                "pools": [p.name for p in stack.pools],
                "needs": needs(stack),
            },
        )
    ]
