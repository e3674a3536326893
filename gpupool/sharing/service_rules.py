"""The recording rules the services' triggers read, and the queries KEDA runs on them.

This module owns ``k8s.prometheusrule.gpu-operator.gpupool-services``: a PrometheusRule of
recording rules per pod, rendered when a service scales on ``queue-time-ratio`` or a ``gpu-*``
metric, and the trigger query of each such entry. Each series carries ``namespace`` and ``pod``
(the workload's, so a query can select a service's pods) and ``gpupool_stack``:

- ``gpupool:pod_triton_queue_compute:ratio``: Triton's time in queue over its compute time, per
  pod: ``rate(nv_inference_queue_duration_us[1m]) / clamp_min(rate(
  nv_inference_compute_infer_duration_us[1m]), 1)``, the ratio NVIDIA's Triton autoscaling
  tutorial records (triton-inference-server/tutorials, ``Deployment/Kubernetes/
  EKS_Multinode_Triton_TRTLLM/multinode_helm_chart/triton-metrics_prometheus-rule.yaml``), summed
  per pod first. It needs Triton's metrics scraped with the pod's ``namespace`` and ``pod``
  labels (a PodMonitor or ServiceMonitor does that);
- ``gpupool:pod_gpu_utilization:percent`` and ``gpupool:pod_gpu_memory_used:percent``: the DCGM
  exporter's ``DCGM_FI_DEV_GPU_UTIL`` and ``DCGM_FI_DEV_FB_USED`` over ``USED + FREE``, per pod,
  averaged over the pod's GPUs. The exporter names the pod using a GPU in ``exported_pod`` and
  ``exported_namespace`` when scraped through its ServiceMonitor (its own pod keeps ``pod``:
  NVIDIA/dcgm-exporter #340), so the rule copies those into ``namespace`` and ``pod``.

A trigger's query sums the recorded series over the service's pods: those of its Deployment in
the tenant's namespace, ``pod=~"<deployment>-<hash>-<suffix>"`` (a Deployment's pods are named
after its ReplicaSet, itself named after the Deployment). With ``metricType: AverageValue`` the
HPA divides that sum by the replicas, so the target is what one replica should hold.
"""

from __future__ import annotations

from typing import Any

from gpupool.graph import CloudResult, Resource
from gpupool.model import Stack, Tenant
from gpupool.service_model import GPU_MEMORY, GPU_UTILIZATION, QUEUE_TIME_RATIO, Service, Trigger
from gpupool.sharing.alerts import prometheus_rule
from gpupool.sharing.objects import k8s_object
from gpupool.sharing.promql import STACK_LABEL

RULE_NAME = "gpupool-services"
TRITON_RATIO = "gpupool:pod_triton_queue_compute:ratio"
GPU_UTIL = "gpupool:pod_gpu_utilization:percent"
GPU_MEMORY_USED = "gpupool:pod_gpu_memory_used:percent"
RECORDED = {QUEUE_TIME_RATIO: TRITON_RATIO, GPU_UTILIZATION: GPU_UTIL, GPU_MEMORY: GPU_MEMORY_USED}

_BY_POD = "namespace, pod"


def _workload(selector: str) -> str:
    """DCGM series with the workload's namespace and pod in ``namespace`` and ``pod``."""
    inner = f'label_replace({selector}, "namespace", "$1", "exported_namespace", "(.+)")'
    return f'label_replace({inner}, "pod", "$1", "exported_pod", "(.+)")'


def _expressions() -> dict[str, str]:
    queue = f"sum by ({_BY_POD}) (rate(nv_inference_queue_duration_us[1m]))"
    compute = f"sum by ({_BY_POD}) (rate(nv_inference_compute_infer_duration_us[1m]))"
    used, free = 'DCGM_FI_DEV_FB_USED{exported_pod!=""}', 'DCGM_FI_DEV_FB_FREE{exported_pod!=""}'
    util = _workload('DCGM_FI_DEV_GPU_UTIL{exported_pod!=""}')
    # USED / (USED + FREE) per GPU first: the two series of one GPU match on all their labels
    memory = _workload(f"100 * {used} / clamp_min({used} + {free}, 1)")
    return {
        TRITON_RATIO: f"{queue} / clamp_min({compute}, 1)",
        GPU_UTIL: f"avg by ({_BY_POD}) ({util})",
        GPU_MEMORY_USED: f"avg by ({_BY_POD}) ({memory})",
    }


def needed(stack: Stack) -> list[str]:
    """Return the recorded series the stack's services read, in a stable order."""
    used = {RECORDED[t.metric] for s in stack.services for t in s.triggers if t.metric in RECORDED}
    return [name for name in RECORDED.values() if name in used]


def rules(stack: Stack) -> list[dict[str, Any]]:
    """Return the recording rules the services' triggers read."""
    exprs = _expressions()
    return [{"record": name, "expr": exprs[name], "labels": {STACK_LABEL: stack.name}}
            for name in needed(stack)]


def _string(text: str) -> str:
    """Return a PromQL double-quoted string holding ``text``."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def pods(service: Service) -> str:
    """Return the RE2 pattern of the names of the service's Deployment's pods.

    The Deployment's name is a DNS subdomain: only its dots mean something in a pattern.
    """
    return service.deployment.replace(".", "\\.") + "-[a-z0-9]+-[a-z0-9]+"


def query(stack: Stack, tenant: Tenant, service: Service, t: Trigger) -> str:
    """Return the query of a trigger whose series gpupool records."""
    matchers = (f"{STACK_LABEL}={_string(stack.name)}, namespace={_string(tenant.namespace)}, "
                f"pod=~{_string(pods(service))}")
    return f"sum({RECORDED[t.metric]}{{{matchers}}})"


def build(stack: Stack, cloud: CloudResult, after: tuple[str, ...]) -> list[Resource]:
    """Return the services' PrometheusRule, or nothing when no trigger reads a recording."""
    recorded = rules(stack)
    if not recorded:
        return []
    deps = [*after]
    for pool in stack.pools:
        deps.extend(cloud.node_pools.get(pool.name, ()))
    manifest = prometheus_rule(stack, RULE_NAME, {"name": f"gpupool.{stack.name}.services",
                                                  "rules": recorded})
    return [k8s_object(stack, manifest, provider=cloud.k8s_provider, depends_on=tuple(deps),
                       facts={"records": [r["record"] for r in recorded],
                              "needs": needs(stack)})]


def needs(stack: Stack) -> list[str]:
    """Return what the recordings need of the cluster that gpupool does not install."""
    out = []
    names = needed(stack)
    if TRITON_RATIO in names:
        out.append("Triton's metrics (nv_inference_*) scraped with the pod's namespace and pod "
                   "labels, e.g. by a PodMonitor on the services' pods")
    if GPU_UTIL in names or GPU_MEMORY_USED in names:
        out.append("the DCGM exporter scraped through its ServiceMonitor, with the pods using "
                   "each GPU in exported_namespace and exported_pod")
    return out
