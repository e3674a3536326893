"""NVIDIA NVSentinel: GPU node fault detection, and on request cordon and drain.

This module owns ``helm.nvsentinel`` and the ``nvsentinel`` Namespace it is installed into,
rendered when the stack has ``cluster.faultIsolation.nvsentinel``. The chart is pinned in
``charts.json`` (``oci://ghcr.io/nvidia/nvsentinel`` v1.19.0); the keys below are the ones its
``distros/kubernetes/nvsentinel/values.yaml`` at that version has (the tests keep a table of
them). What NVSentinel does (NVIDIA/NVSentinel v1.19.0 README, docs/fault-quarantine.md,
docs/node-drainer.md):

* its health monitors (GPU via DCGM, syslog) send health events to platform-connectors, which
  sets a node condition named after the check for a fatal fault (``GpuMemWatch``,
  ``SysLogsXIDError``..., status True, reason ``<check>IsNotHealthy``) and writes a Kubernetes
  event for the rest. That is ``action: monitor``, the chart's own default and the safe one:
  nothing is cordoned;
* ``action: cordon`` turns on fault-quarantine (``global.faultQuarantine.enabled``) and the
  MongoDB store it reads the events from (``global.mongodbStore.enabled``): a fatal fault
  cordons the node (``spec.unschedulable``; the chart's rule sets add no taint);
* ``action: drain`` also turns on node-drainer (``global.nodeDrainer.enabled``), which evicts the
  cordoned node's pods outside its system namespaces;
* ``dryRun`` is the chart's ``global.dryRun``: fault-quarantine and node-drainer log and annotate
  but neither cordon nor evict.

Every switch is written out, chart default or not, so a chart upgrade cannot change what the
stack asked for. The rest wires NVSentinel to what gpupool installs:

* ``global.dcgm``: NVSentinel's GPU health monitor queries the GPU Operator's standalone DCGM
  (``operator-service`` mode) at the operator's Service ``nvidia-dcgm`` on port 5555
  (gpu-operator ``assets/state-dcgm/0500_service.yaml``), in gpupool's operator namespace. The
  operator runs it only with ``dcgm.enabled: true``, which ``operator.expected_values`` sets;
* ``labeler.assumeDriverInstalled`` with ``driver: preinstalled``: NVSentinel's labeler marks a
  node ``driver.installed`` only when it sees a driver pod, and without the label the syslog
  monitor and metadata collector never schedule on nodes whose image carries the driver;
* ``podMonitor``: the chart's PodMonitor needs the Prometheus Operator's CRD, so it is on only
  when ``cluster.monitoring.prometheus`` says the cluster runs it, and carries its labels.

The chart tolerates every taint by itself (``global.tolerations: [{operator: Exists}]``), so the
pools' taints need nothing here. What gpupool cannot install or check (cert-manager and volumes
for the MongoDB store, a GPU Operator the user runs) is the release's ``facts["needs"]``.
"""

from __future__ import annotations

from typing import Any

from gpupool.clouds import DRIVER_PREINSTALLED
from gpupool.errors import RenderError
from gpupool.facts.names import GPU_OPERATOR_NAMESPACE, NVSENTINEL_NAMESPACE
from gpupool.graph import CloudResult, Resource
from gpupool.model import Stack
from gpupool.monitoring_model import NVSentinel
from gpupool.sharing.objects import chart, helm_release, k8s_object

CHART = "nvsentinel"
RELEASE_ADDRESS = f"helm.{CHART}"
NAMESPACE_ADDRESS = f"k8s.namespace.{NVSENTINEL_NAMESPACE}"
MONITOR, CORDON, DRAIN = "monitor", "cordon", "drain"
# The GPU Operator's standalone DCGM hostengine (gpu-operator assets/state-dcgm/0500_service.yaml)
DCGM_SERVICE = "nvidia-dcgm"
DCGM_PORT = 5555
# What the pinned version's README says of its maturity (NVIDIA/NVSentinel v1.19.0 README.md).
UPSTREAM_STATUS = "Beta / Stable"
UPSTREAM_STATUS_TEXT = (
    "NVSentinel is ready for production testing and use. APIs, configurations, and features may "
    "change between releases."
)
# The MongoDB store's replica set (v1.19.0 charts/mongodb-store/values.yaml mongodb.replicaCount,
# Bitnami mongodb 16.2.2 persistence.size).
_MONGODB_REPLICAS = 3
_MONGODB_VOLUME = "8Gi"


def settings(stack: Stack) -> NVSentinel:
    """Return the stack's NVSentinel settings (``RenderError`` when it has none)."""
    ns = stack.cluster.nvsentinel
    if ns is None:
        raise RenderError("the stack does not install NVSentinel")
    return ns


def isolates(stack: Stack) -> bool:
    """Whether NVSentinel cordons faulty nodes (action ``cordon`` or ``drain``)."""
    ns = stack.cluster.nvsentinel
    return ns is not None and ns.action in (CORDON, DRAIN)


def values(stack: Stack) -> dict[str, Any]:
    """Return the NVSentinel Helm values gpupool sets (keys of the chart's v1.19.0 values.yaml)."""
    ns = settings(stack)
    isolate = isolates(stack)
    out: dict[str, Any] = {
        "global": {
            "dryRun": ns.dry_run,
            "dcgm": {
                "mode": "operator-service",
                "service": {
                    "endpoint": f"{DCGM_SERVICE}.{GPU_OPERATOR_NAMESPACE}.svc",
                    "port": DCGM_PORT,
                },
            },
            "faultQuarantine": {"enabled": isolate},
            "nodeDrainer": {"enabled": ns.action == DRAIN},
            "mongodbStore": {"enabled": isolate},
        },
        "labeler": {
            "assumeDriverInstalled": stack.cluster.gpu_operator.driver == DRIVER_PREINSTALLED
        },
    }
    prom = stack.cluster.monitoring.prometheus
    pod_monitor: dict[str, Any] = {"enabled": prom is not None}
    if prom is not None and prom.labels:
        # read by templates/podMonitor.yaml (.Values.podMonitor.labels); values.yaml documents
        # the key in a comment
        pod_monitor["labels"] = dict(prom.labels)
    out["podMonitor"] = pod_monitor
    return out


def needs(stack: Stack) -> list[str]:
    """Return what NVSentinel needs of the cluster that gpupool neither installs nor checks."""
    out: list[str] = []
    if not stack.cluster.gpu_operator.install:
        out.append(
            f"a GPU Operator run with `dcgm.enabled: true` (its standalone DCGM, Service "
            f"{DCGM_SERVICE}.{GPU_OPERATOR_NAMESPACE}.svc:{DCGM_PORT}): NVSentinel's GPU health "
            "monitor queries it, and runs only on nodes with a nvidia-dcgm pod"
        )
    if isolates(stack):
        out.append(
            "cert-manager (kind Certificate, cert-manager.io/v1): NVSentinel's MongoDB store, "
            "which cordon and drain read their events from, gets its TLS certificates from it"
        )
        out.append(
            "a default StorageClass: NVSentinel's MongoDB store claims a volume of "
            f"{_MONGODB_VOLUME} for each of its {_MONGODB_REPLICAS} replicas"
        )
    prom = stack.cluster.monitoring.prometheus
    if prom is not None:
        if prom.labels:
            labels = ", ".join(f"{k}: {v}" for k, v in sorted(prom.labels.items()))
            out.append(
                f"a Prometheus whose podMonitorSelector matches NVSentinel's PodMonitor labels "
                f"{{{labels}}}"
            )
        else:
            out.append(
                "a Prometheus that selects NVSentinel's PodMonitor, which carries no label of "
                "cluster.monitoring.prometheus.labels"
            )
    return out


def build(stack: Stack, cloud: CloudResult, after: tuple[str, ...]) -> list[Resource]:
    """Return the ``nvsentinel`` Namespace and ``helm.nvsentinel``, when the stack asks for it.

    Args:
        stack: the validated stack.
        cloud: the cloud result.
        after: addresses the release must follow (the GPU Operator release, whose DCGM it reads).

    """
    ns = stack.cluster.nvsentinel
    if ns is None:
        return []
    namespace = k8s_object(
        stack,
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {
                "name": NVSENTINEL_NAMESPACE,
                # its health monitors mount host paths (the journal, the DCGM socket)
                "labels": {"pod-security.kubernetes.io/enforce": "privileged"},
            },
        },
        provider=cloud.k8s_provider,
    )
    # like every release, after every node pool (its monitors are DaemonSets on the GPU nodes)
    deps = [namespace.address, *after]
    for pool in stack.pools:
        deps.extend(cloud.node_pools.get(pool.name, ()))
    release = helm_release(
        chart(CHART),
        values(stack),
        provider=cloud.k8s_provider,
        depends_on=tuple(deps),
        create_namespace=False,
        facts={"action": ns.action, "dry_run": ns.dry_run, "needs": needs(stack)},
    )
    return [namespace, release]
