"""How gpupool's alerts and dashboard select a pool's GPUs and nodes in PromQL.

DCGM exporter series name their node, not its pool, and spell the node label two ways:
``Hostname`` up to dcgm-exporter 4.5.x, ``hostname`` from the release after 4.5.3-4.8.2 on
(dcgm-exporter commit d5e5f51 "Rename Hostname label to hostname", in the 4.6.0-4.8.3 that
gpu-operator v26.7.0 pins; older operators such as v25.10.1 pin exporters with ``Hostname``).
Both carry the pod's ``spec.nodeName`` (the GPU Operator sets ``NODE_NAME`` from it,
``assets/state-dcgm-exporter/0800_daemonset.yaml``; dcgm-exporter
``internal/pkg/hostname/hostname.go`` prefers it). So gpupool records each DCGM metric it reads
once, as ``gpupool:<metric>``, with the node in ``node`` whichever spelling the exporter uses, and
with ``gpupool_stack`` so two stacks on one Prometheus never record the same series.

A **scope** is the nodes one group of alerts (and one dashboard row) covers:

* a pool whose node names are known (``cloud: kubernetes``): ``node=~"<its nodes>"``;
* with ``cluster.monitoring.prometheus.kubeStateMetricsPoolLabel``, each other pool: ``and on
  (node) kube_node_labels{label_gpupool_io_pool="<pool>"}``. ``and`` is a set operation: the
  duplicate series two kube-state-metrics replicas export cannot break it the way they break a
  ``group_left`` join ("many-to-many matching not allowed");
* otherwise all other pools together: every node except the named ones. One such pool is then
  exact; several share one scope, labelled with all their names.

kube-state-metrics series are deduplicated with ``max by`` before any ``unless``/``and`` join.

``kube_node_labels`` carries the pool label, and the capacity label (``gpupool.io/capacity``) by
which the showback rules (``gpupool.sharing.showback``) price a split spot pool's nodes, only when
kube-state-metrics allowlists them: ``KSM_ALLOWLIST`` is the one flag that does both.

KAI's fractional pods request no GPU resource, so ``kube_pod_container_resource_requests`` has
no series for them; they carry the ``gpu-fraction`` or ``gpu-memory`` annotation instead, which
``kube_pod_annotations`` carries (as ``annotation_gpu_fraction``, ``annotation_gpu_memory``) only
when kube-state-metrics allowlists them: ``KSM_ANNOTATIONS_ALLOWLIST``. The pending-pod alert and
the showback rules read them there; without the flag they see no such pod.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpupool.facts.names import CAPACITY_LABEL, KSM_POD_ANNOTATIONS, POOL_LABEL
from gpupool.facts.names import KSM_ALLOWLIST as KSM_ALLOWLIST  # the one allowlist line
from gpupool.facts.names import KSM_ANNOTATIONS_ALLOWLIST as KSM_ANNOTATIONS_ALLOWLIST
from gpupool.model import Stack


def ksm_node_label(key: str) -> str:
    """Return the series label kube-state-metrics' ``kube_node_labels`` gives a node label.

    ``label_`` + the key with every character outside ``[a-zA-Z0-9_]`` turned into ``_``
    (kube-state-metrics docs/metrics/cluster/node-metrics.md).
    """
    return "label_" + re.sub(r"[^a-zA-Z0-9_]", "_", key)


def ksm_pod_annotation(key: str) -> str:
    """Return the series label kube-state-metrics' ``kube_pod_annotations`` gives an annotation.

    ``annotation_`` + the key with every character outside ``[a-zA-Z0-9_]`` turned into ``_``
    (kube-state-metrics ``internal/store/pod.go`` ``createPodAnnotationsGenerator``, through
    ``createPrometheusLabelKeysValues("annotation", ...)``).
    """
    return "annotation_" + re.sub(r"[^a-zA-Z0-9_]", "_", key)


KSM_POOL_LABEL = ksm_node_label(POOL_LABEL)
KSM_CAPACITY_LABEL = ksm_node_label(CAPACITY_LABEL)

# Extended resources as kube-state-metrics names them in its resource label (the resource name
# with "." and "/" turned into "_"): whole GPUs, time-sliced or HAMi vGPUs, mixed-strategy MIG.
GPU_RESOURCES = 'resource=~"nvidia_com_gpu|nvidia_com_mig_.+"'

# DCGM fields the dashboard reads besides the alerts' (the alert rule records both)
DASHBOARD_METRICS = ("DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS")

STACK_LABEL = "gpupool_stack"
RECORD_PREFIX = "gpupool:"


def recorded(metric: str) -> str:
    """Return the name of gpupool's recording of a DCGM metric."""
    return RECORD_PREFIX + metric


def record_rule(stack: Stack, metric: str) -> dict[str, object]:
    """Return the recording rule that gives a DCGM metric its ``node`` label."""
    node = 'label_replace({0}, "node", "$1", "{1}", "(.+)")'
    expr = node.format(node.format(metric, "Hostname"), "hostname")
    return {"record": recorded(metric), "expr": expr, "labels": {STACK_LABEL: stack.name}}


def pending_gpu_pods(fractional: bool = False) -> str:
    """Return the pods that request GPUs and are Pending, once each (``namespace``, ``pod``).

    With ``fractional`` (the stack has KAI fractional pools) also the pods that ask for part of a
    GPU by KAI's annotations (``KSM_POD_ANNOTATIONS``), which request no GPU resource.
    """
    phase = 'max by (namespace, pod) (kube_pod_status_phase{phase="Pending"}) > 0'
    requests = (
        f"max by (namespace, pod) (kube_pod_container_resource_requests{{{GPU_RESOURCES}}}) > 0"
    )
    if not fractional:
        return f"{phase} and on (namespace, pod) {requests}"
    annotated = " or ".join(
        f'max by (namespace, pod) (kube_pod_annotations{{{ksm_pod_annotation(k)}!=""}})'
        for k in KSM_POD_ANNOTATIONS
    )
    return f"{phase} and on (namespace, pod) ({requests} or {annotated})"


def _regex(names: tuple[str, ...]) -> str:
    # Node names are DNS subdomains: only "." is special in a regex. PromQL strings take
    # backslash escapes, so the regex's "\." is written "\\." inside the quotes.
    return "|".join(n.replace(".", "\\\\.") for n in names)


@dataclass(frozen=True)
class Scope:
    """The nodes one group of alerts covers: node-label matchers, then an optional pool join."""

    pools: tuple[str, ...]
    matchers: str  # matchers on a series' node label ("" for every node)
    join: str  # appended to a condition: "" or an `and on (node)` join

    @property
    def label(self) -> str:
        """The alerts' ``pool`` label: the pool, or the pools that share this scope."""
        return ",".join(self.pools)

    def dcgm(self, stack: Stack, metric: str) -> str:
        """Return the selector of a recorded DCGM metric on this scope's nodes."""
        parts = [f'{STACK_LABEL}="{stack.name}"'] + ([self.matchers] if self.matchers else [])
        return f"{recorded(metric)}{{{', '.join(parts)}}}"

    def ksm(self, metric: str, matchers: str) -> str:
        """Return a kube-state-metrics selector with ``matchers``, on this scope's nodes."""
        parts = [matchers] + ([self.matchers] if self.matchers else [])
        return f"{metric}{{{', '.join(parts)}}}"


def scopes(stack: Stack) -> list[Scope]:
    """Return the scopes of a stack's pools, in pool order (shared scopes at the first pool)."""
    prom = stack.cluster.monitoring.prometheus
    by_label = prom is not None and prom.kube_state_metrics_pool_label
    named = tuple(n for p in stack.pools for n in p.node_names)
    out: list[Scope] = []
    rest = [p.name for p in stack.pools if not p.node_names]
    for pool in stack.pools:
        if pool.node_names:
            out.append(Scope((pool.name,), f'node=~"{_regex(pool.node_names)}"', ""))
        elif by_label:
            join = f' and on (node) kube_node_labels{{{KSM_POOL_LABEL}="{pool.name}"}}'
            out.append(Scope((pool.name,), "", join))
        elif pool.name == rest[0]:
            matchers = f'node!~"{_regex(named)}"' if named else ""
            out.append(Scope(tuple(rest), matchers, ""))
    return out


def shared_scope(stack: Stack) -> Scope | None:
    """Return the scope several pools share (their alerts cannot tell them apart), if any."""
    return next((s for s in scopes(stack) if len(s.pools) > 1), None)


def joined_pools(stack: Stack) -> list[str]:
    """Return the pools whose scopes join ``kube_node_labels`` on the pool label."""
    return [s.label for s in scopes(stack) if s.join]
