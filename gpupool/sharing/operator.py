"""The NVIDIA GPU Operator: its namespace, its Helm release and the values gpupool sets.

This module owns ``helm.gpu-operator`` and the ``gpu-operator`` Namespace the configs live in.
The values wire in what the other modules render and nothing more:

* the cloud plug-in's ``operator_values`` (GKE: the toolkit reads containerd's config from the
  file, ``RUNTIME_CONFIG_SOURCE=file``);
* ``driver.enabled`` is false when ``cluster.gpuOperator.driver`` is ``preinstalled``, and the
  cloud plug-in's ``operator_values_preinstalled`` are merged in (on AWS and Azure the managed
  GPU images carry the container toolkit too, so ``toolkit.enabled`` is false there, and on AKS
  ``operator.runtimeClass`` names AKS's runtime ``nvidia-container-runtime``; on GKE the driver
  lives in ``/home/kubernetes/bin/nvidia`` and the toolkit is pointed there);
* ``mig.strategy`` from the GPU facts (``gpupool.facts``);
* ``devicePlugin``: off under HAMi (HAMi's plugin registers ``nvidia.com/gpu`` itself) and on
  GKE with ``driver: preinstalled`` (GKE's plugin shares the GPUs), else pointed at the
  device-plugin ConfigMap with the explicit ``default`` config;
* ``migManager``: off on GKE with ``driver: preinstalled`` (GKE partitions), else pointed at the
  mig-parted ConfigMap when a pool uses MIG (with the cloud's ``mig_manager_env``: on GKE
  ``WITH_REBOOT=true``, which MIG Manager needs there);
* ``dcgmExporter.enabled`` from ``cluster.monitoring.dcgmExporter``, and, when the stack says the
  cluster runs the Prometheus Operator (``cluster.monitoring.prometheus``),
  ``dcgmExporter.serviceMonitor`` (``enabled``, ``additionalLabels``; see
  ``alerts.service_monitor_values``); with ``cluster.monitoring.alerts``, ``dcgmExporter.config``
  (the chart creates the ConfigMap ``gpupool-dcgm-metrics``: the exporter's default metrics list
  plus the fields the alerts read; see ``alerts.metrics_config_values``);
* ``dcgm.enabled`` with NVSentinel (``cluster.faultIsolation.nvsentinel``): its GPU health
  monitor queries the standalone DCGM hostengine (off by default, the exporter embedding its
  own), and its labeler schedules that monitor only on nodes running a ``nvidia-dcgm`` pod;
* ``daemonsets.tolerations`` and NFD's worker tolerations: the chart's default plus every pool
  taint, or the operator's daemons would never reach tainted GPU nodes.

On GKE the Namespace carries the ResourceQuota GKE needs before it admits the operator's
``system-node-critical`` pods outside kube-system, sized by ``critical_pod_quota``.

With ``cluster.gpuOperator.install: false`` no release and no Namespace are rendered. The
device-plugin and MIG ConfigMaps still are, into the ``gpu-operator`` namespace the user's own
operator runs in, so the node labels keep naming configs that exist; ``expected_values`` (also in
those ConfigMaps' ``facts["operator_values"]``) is what that operator must be set to. It has no
``dcgmExporter.config``: gpupool leaves that operator's metrics list alone, and the alerts'
``needs`` name the fields it must have.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from gpupool import facts
from gpupool.clouds import DRIVER_PREINSTALLED
from gpupool.facts.groups import reach
from gpupool.facts.names import (
    DEFAULT_DEVICE_PLUGIN_CONFIG,
    DEVICE_PLUGIN_CONFIGMAP,
    GPU_OPERATOR_NAMESPACE,
    MIG_CONFIGMAP,
    MIG_DISABLED,
    OPERATOR_MIG_VALUES_KEY,
)
from gpupool.graph import CloudResult, Resource
from gpupool.model import Stack
from gpupool.sharing import alerts, deviceplugin, mig
from gpupool.sharing.objects import chart, helm_release, k8s_object
from gpupool.sharing.pools import daemon_tolerations

# The chart's own defaults for the lists gpupool extends (values.yaml v26.7.0).
_DAEMONSET_TOLERATIONS = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
_NFD_WORKER_TOLERATIONS = [
    {
        "key": "node-role.kubernetes.io/control-plane",
        "operator": "Equal",
        "value": "",
        "effect": "NoSchedule",
    },
    {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
]
# GKE admits system-node-critical pods outside kube-system only under a matching quota.
_GKE_CRITICAL_CLASSES = ["system-node-critical", "system-cluster-critical"]
# gpu-operator v26.7.0 values.yaml runs every operand DaemonSet (daemonsets.priorityClassName),
# the operator (operator.priorityClassName) and NFD (node-feature-discovery.priorityClassName)
# at system-node-critical. At most one pod of each operand DaemonSet runs on a GPU node: driver,
# container toolkit, device plugin, MPS control daemon, GPU Feature Discovery, DCGM, DCGM
# exporter, MIG Manager, validator.
OPERANDS_PER_GPU_NODE = 9
# Deployments: the operator, NFD master, NFD garbage collector; each may surge one pod in a roll.
_SINGLETONS = 3

NAMESPACE_ADDRESS = f"k8s.namespace.{GPU_OPERATOR_NAMESPACE}"


def expected_values(stack: Stack) -> dict[str, Any]:
    """Return the GPU Operator Helm values that make the rendered configs take effect."""
    op = stack.cluster.gpu_operator
    cloud = stack.cloud
    preinstalled = op.driver == DRIVER_PREINSTALLED
    values: dict[str, Any] = {
        "driver": {"enabled": not preinstalled},
        OPERATOR_MIG_VALUES_KEY: {"strategy": facts.mig_strategy(stack)},
    }
    _merge(values, cloud.operator_values)
    if preinstalled:
        _merge(values, cloud.operator_values_preinstalled)
    if deviceplugin.enabled(stack):
        values["devicePlugin"] = {
            "enabled": True,
            "config": {"name": DEVICE_PLUGIN_CONFIGMAP, "default": DEFAULT_DEVICE_PLUGIN_CONFIG},
        }
    else:
        values["devicePlugin"] = {"enabled": False}
    migm: dict[str, Any] = {"enabled": mig.enabled(stack), "config": {"default": MIG_DISABLED}}
    if mig.mig_pools(stack):
        migm["config"]["name"] = MIG_CONFIGMAP
        if cloud.mig_manager_env:
            migm["env"] = [dict(e) for e in cloud.mig_manager_env]
    values["migManager"] = migm
    if stack.cluster.nvsentinel is not None:
        values["dcgm"] = {"enabled": True}
    values["dcgmExporter"] = {"enabled": stack.cluster.monitoring.dcgm_exporter}
    if (service_monitor := alerts.service_monitor_values(stack)) is not None:
        values["dcgmExporter"]["serviceMonitor"] = service_monitor
    if (metrics_config := alerts.metrics_config_values(stack)) is not None:
        values["dcgmExporter"]["config"] = metrics_config
    values["daemonsets"] = {"tolerations": daemon_tolerations(stack, _DAEMONSET_TOLERATIONS)}
    values["node-feature-discovery"] = {
        "worker": {"tolerations": daemon_tolerations(stack, _NFD_WORKER_TOLERATIONS)}
    }
    return values


def _merge(into: dict[str, Any], extra: Mapping[str, Any]) -> None:
    """Merge ``extra`` into ``into`` in place, maps key by key (a copy: plug-in data stays)."""
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = copy.deepcopy(value)


def critical_pod_quota(stack: Stack) -> int:
    """Return the pods the GKE quota admits in the operator's namespace.

    ``2 x 3`` Deployment pods (the operator, NFD master and NFD gc, each with room for the
    surge pod of a rollout), plus an NFD worker on every node the cluster can hold (the NFD
    worker DaemonSet has no node selector, so CPU nodes count too, and gpupool cannot know how
    many there are: the cloud's cluster node limit, at least the GPU nodes), plus
    ``OPERANDS_PER_GPU_NODE`` pods on each GPU node the pools' node groups can reach
    (``facts.groups.reach``, on-demand fallback included). NVIDIA's GKE manifest
    (``google-gke-gpu-operator-quota.yaml``) writes 100 as an example; a fixed 100 runs out once
    the cluster has a few dozen nodes, and GPU nodes added after that get no GFD, no DCGM
    exporter and, with the operator's driver, no device plugin. A larger quota costs nothing: it
    only admits the operator's own pods.
    """
    gpu_nodes = sum(reach(pool, stack.cloud)[1] for pool in stack.pools)
    every_node = max(stack.cloud.cluster_nodes_max or 0, gpu_nodes)
    return 2 * _SINGLETONS + every_node + OPERANDS_PER_GPU_NODE * gpu_nodes


def namespace(stack: Stack, cloud: CloudResult) -> list[Resource]:
    """Return the operator Namespace (privileged pod security) and, on GKE, its pod quota."""
    if not stack.cluster.gpu_operator.install:
        return []
    ns = {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": GPU_OPERATOR_NAMESPACE,
            "labels": {"pod-security.kubernetes.io/enforce": "privileged"},
        },
    }
    out = [k8s_object(stack, ns, provider=cloud.k8s_provider)]
    if stack.cloud.critical_pod_quota:
        quota = {
            "apiVersion": "v1",
            "kind": "ResourceQuota",
            "metadata": {"name": "gpu-operator-quota", "namespace": GPU_OPERATOR_NAMESPACE},
            "spec": {
                "hard": {"pods": str(critical_pod_quota(stack))},
                "scopeSelector": {
                    "matchExpressions": [
                        {
                            "scopeName": "PriorityClass",
                            "operator": "In",
                            "values": list(_GKE_CRITICAL_CLASSES),
                        }
                    ]
                },
            },
        }
        out.append(
            k8s_object(stack, quota, provider=cloud.k8s_provider, depends_on=(NAMESPACE_ADDRESS,))
        )
    return out


def release(stack: Stack, cloud: CloudResult, configs: list[Resource]) -> list[Resource]:
    """Return ``helm.gpu-operator`` (nothing when ``install`` is false).

    Args:
        stack: the validated stack.
        cloud: the cloud result.
        configs: the namespace objects and ConfigMaps the release must follow.

    """
    op = stack.cluster.gpu_operator
    if not op.install:
        return []
    deps = [r.address for r in configs]
    for pool in stack.pools:
        deps.extend(cloud.node_pools.get(pool.name, ()))
    return [
        helm_release(
            chart("gpu-operator", op.version),
            expected_values(stack),
            provider=cloud.k8s_provider,
            depends_on=tuple(deps),
            create_namespace=False,
            facts={"driver": op.driver, "mig_strategy": facts.mig_strategy(stack)},
        )
    ]
