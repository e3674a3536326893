"""Rules on what GPU monitoring needs of the cluster, which gpupool neither installs nor checks.

gpupool renders the DCGM exporter (through the GPU Operator) and, with
``cluster.monitoring.alerts``, a PrometheusRule of GPU alerts. Both rest on software the cluster
must already run, which gpupool cannot see from a stack file:

- the Prometheus Operator's CRDs: without the ``PrometheusRule`` kind, ``pulumi up`` fails
  (pulumi-kubernetes: "Verify that any required CRDs have been created");
- a Prometheus whose ``ruleSelector``, ``serviceMonitorSelector`` and, with NVSentinel,
  ``podMonitorSelector`` match gpupool's objects: kube-prometheus-stack selects only objects
  labelled ``release: <its Helm release name>`` (``ruleSelectorNilUsesHelmValues``,
  ``serviceMonitorSelectorNilUsesHelmValues``, ``podMonitorSelectorNilUsesHelmValues``);
- kube-state-metrics exporting the ``gpupool.io/pool`` node label, without which the alerts of
  several pools with unknown node names fire as one set, unable to tell the pools apart
  (``--metric-labels-allowlist=nodes=[gpupool.io/pool,gpupool.io/capacity]``: the same flag
  exports the capacity label the showback rules price a split spot pool's nodes by), and, with
  KAI fractional pools, KAI's pod annotations
  (``--metric-annotations-allowlist=pods=[gpu-fraction,gpu-memory]``), without which the
  pending-pod alert and the showback rules do not see those pods (the warning names both flags).

``cluster.monitoring.prometheus`` states the first two (and acknowledges the third); each rule
here warns where the stack relies on one of them without saying so. One error-free rule from
before stays here too: alerts with the exporter turned off never fire.
"""

from __future__ import annotations

from gpupool import facts
from gpupool.facts.names import KSM_ALLOWLIST, KSM_ANNOTATIONS_ALLOWLIST, POOL_LABEL
from gpupool.model import Stack
from gpupool.spec.diagnostics import Diagnostic, warning

_ALERT_PATH = ("cluster", "monitoring", "alerts")
_PROMETHEUS_PATH = ("cluster", "monitoring", "prometheus")


def _alerts_without_exporter(stack: Stack) -> list[Diagnostic]:
    mon = stack.cluster.monitoring
    if mon.gpu_memory_alert_percent is None or mon.dcgm_exporter:
        return []
    return [
        warning(
            "monitoring.alerts-without-exporter",
            "GPU alerts need the DCGM exporter",
            "The GPU alerts read DCGM metrics (DCGM_FI_DEV_FB_USED, DCGM_FI_DEV_XID_ERRORS, ...) "
            "from the DCGM exporter, which is turned off: only the exporter-down and pending-pod "
            "alerts can fire, and the first fires on every GPU node.",
            _ALERT_PATH,
        )
    ]


def _prometheus_unstated(stack: Stack) -> list[Diagnostic]:
    mon = stack.cluster.monitoring
    if mon.gpu_memory_alert_percent is None or mon.prometheus is not None:
        return []
    return [
        warning(
            "monitoring.prometheus-unstated",
            "GPU alerts rely on a Prometheus Operator the stack does not mention",
            "The alerts are a PrometheusRule: `pulumi up` fails unless the Prometheus Operator's "
            "CRDs are installed, and a Prometheus loads the rule only if its ruleSelector "
            "matches the rule's labels (kube-prometheus-stack's matches only "
            "`release: <its Helm release name>`). gpupool installs neither. Add "
            "cluster.monitoring.prometheus with the labels your Prometheus selects by, e.g. "
            "`prometheus: {labels: {release: kube-prometheus-stack}}`.",
            _ALERT_PATH,
        )
    ]


def _labels_unset(stack: Stack) -> list[Diagnostic]:
    mon = stack.cluster.monitoring
    prom = mon.prometheus
    if prom is None or prom.labels is not None:
        return []
    selected = []
    if mon.gpu_memory_alert_percent is not None:
        selected.append("the GPU alerts' PrometheusRule (ruleSelector)")
    if mon.dcgm_exporter and prom.service_monitor:
        selected.append("the DCGM exporter's ServiceMonitor (serviceMonitorSelector)")
    if stack.cluster.nvsentinel is not None:
        selected.append("NVSentinel's PodMonitor (podMonitorSelector)")
    if not selected:
        return []
    what = " and ".join(selected)
    return [
        warning(
            "monitoring.prometheus-labels-unset",
            "Nothing says which labels your Prometheus selects gpupool's objects by",
            f"{what[0].upper()}{what[1:]} carry no label a Prometheus may require: "
            "kube-prometheus-stack selects only objects labelled "
            "`release: <its Helm release name>`, and ignores the rest silently. Set "
            "cluster.monitoring.prometheus.labels to what your Prometheus selects "
            "(e.g. {release: kube-prometheus-stack}), or to {} if it selects everything.",
            _PROMETHEUS_PATH,
        )
    ]


def _pool_label_unexported(stack: Stack) -> list[Diagnostic]:
    mon = stack.cluster.monitoring
    if mon.gpu_memory_alert_percent is None:
        return []
    if mon.prometheus is not None and mon.prometheus.kube_state_metrics_pool_label:
        return []
    shared = [p.name for p in stack.pools if not p.node_names]
    if len(shared) < 2:
        return []
    also = ""
    if fractional := facts.kai_fractional_pools(stack):
        also = (f" For the pending-pod alert to see the KAI fractional pods of "
                f"{', '.join(p.name for p in fractional)} (no GPU resource, an annotation), "
                f"start it with {KSM_ANNOTATIONS_ALLOWLIST} too (kube-prometheus-stack: "
                "kube-state-metrics.metricAnnotationsAllowList).")
    return [
        warning(
            "monitoring.pool-label-unexported",
            f"GPU alerts of {', '.join(shared)} cannot tell these pools apart",
            "DCGM metrics name the node, not its pool, and these pools' node names are unknown: "
            f'their alerts fire as one set (pool label "{",".join(shared)}"). To tell them '
            "apart the alerts join kube_node_labels from kube-state-metrics, which carries the "
            f"{POOL_LABEL} node label only when started with "
            f"{KSM_ALLOWLIST} (kube-prometheus-stack: "
            "kube-state-metrics.metricLabelsAllowlist). gpupool cannot check this: set it up, "
            "then say so with cluster.monitoring.prometheus.kubeStateMetricsPoolLabel: true."
            + also,
            _ALERT_PATH,
        )
    ]


def run(stack: Stack) -> list[Diagnostic]:
    """Check what the stack's monitoring relies on in the cluster."""
    return [
        *_alerts_without_exporter(stack),
        *_prometheus_unstated(stack),
        *_labels_unset(stack),
        *_pool_label_unexported(stack),
    ]
