"""KEDA for the stack's inference services: its pinned Helm release and a ScaledObject each.

This module owns ``helm.keda`` (rendered when a service exists and
``cluster.autoscaling.keda.install`` is not false) and one ``keda.sh/v1alpha1`` ScaledObject per
service, in its tenant's namespace, named after the service. The chart is pinned in
``charts.json`` (kedacore/charts ``keda`` 2.20.2, KEDA 2.20.2); the values set are keys of that
version's ``values.yaml`` (the tests keep a table of them): its CRDs installed, every namespace
watched (the services live in the tenants' namespaces) and the stack's common labels.

A ScaledObject (fields of the CRD at v2.20.2, ``config/crd/bases/keda.sh_scaledobjects.yaml``):

* ``scaleTargetRef``: the tenant's Deployment (``apps/v1``), which gpupool never creates;
* ``minReplicaCount``, ``maxReplicaCount`` from ``replicas``; ``cooldownPeriod`` (only the last
  step to zero waits for it, ``pkg/scaling/executor/scale_scaledobjects.go``) and
  ``pollingInterval``, KEDA's 30 s written out;
* ``advanced.horizontalPodAutoscalerConfig.behavior``: the HPA behaviour, written out whole
  (``selectPolicy: Max``), so a change of KEDA's or Kubernetes' defaults changes nothing;
* one ``prometheus`` trigger per ``scaleOn`` entry, ``metricType: AverageValue`` (the HPA divides
  the query's value by the replicas, so ``target`` is per replica), ``serverAddress`` the stack's
  ``cluster.monitoring.prometheus.url``, ``threshold`` the target as a string (trigger metadata
  is a map of strings) and the query: the user's, or for ``queue-time-ratio`` and ``gpu-*`` a
  sum over the service's pods of the series gpupool's services rule records
  (``gpupool.sharing.service_rules``).
"""

from __future__ import annotations

from typing import Any

from gpupool.errors import RenderError
from gpupool.facts.names import STACK_LABEL
from gpupool.facts.services import replica_demand, tenant_of
from gpupool.graph import CloudResult, Resource
from gpupool.model import Stack, Tenant
from gpupool.service_model import POLLING_SECONDS, Behavior, Service, Trigger
from gpupool.sharing import service_rules
from gpupool.sharing.objects import chart, helm_release, k8s_object

CHART = "keda"
RELEASE_ADDRESS = f"helm.{CHART}"
API_VERSION = "keda.sh/v1alpha1"
#: The label on a service's ScaledObject and, through its snippet, on its pods.
SERVICE_LABEL = "gpupool.io/service"
SCALED_OBJECT = "scaled-object"  # the ``kind`` fact of a ScaledObject resource


def installs(stack: Stack) -> bool:
    """Whether gpupool installs KEDA: a service exists and the stack does not say it runs."""
    return bool(stack.services) and stack.cluster.autoscaling.keda_install


def values(stack: Stack) -> dict[str, Any]:
    """Return the KEDA Helm values gpupool sets (keys of the chart's 2.20.2 values.yaml)."""
    return {
        "crds": {"install": True},
        "watchNamespace": "",
        "additionalLabels": {STACK_LABEL: stack.name},
    }


def _behavior(b: Behavior) -> dict[str, Any]:
    return {
        "stabilizationWindowSeconds": b.stabilization_seconds,
        "selectPolicy": "Max",
        "policies": [{"type": p.type, "value": p.value, "periodSeconds": p.period_seconds}
                     for p in b.policies],
    }


def _threshold(value: float) -> str:
    return str(int(value)) if value.is_integer() else repr(value)


def trigger(stack: Stack, tenant: Tenant, service: Service, t: Trigger) -> dict[str, Any]:
    """Return one ScaledObject trigger (KEDA's Prometheus scaler) for a ``scaleOn`` entry."""
    prom = stack.cluster.monitoring.prometheus
    if prom is None or prom.url is None:
        raise RenderError("services need cluster.monitoring.prometheus.url")
    query = t.query if t.query is not None else service_rules.query(stack, tenant, service, t)
    return {
        "type": "prometheus",
        "metricType": "AverageValue",
        "metadata": {"serverAddress": prom.url, "query": query, "threshold": _threshold(t.target)},
    }


def scaled_object(stack: Stack, tenant: Tenant, service: Service) -> dict[str, Any]:
    """Return the ScaledObject manifest of one service."""
    return {
        "apiVersion": API_VERSION,
        "kind": "ScaledObject",
        "metadata": {"name": service.name, "namespace": tenant.namespace,
                     "labels": {SERVICE_LABEL: service.name}},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment",
                               "name": service.deployment},
            "minReplicaCount": service.replicas_min,
            "maxReplicaCount": service.replicas_max,
            "pollingInterval": POLLING_SECONDS,
            "cooldownPeriod": service.cooldown_seconds,
            "advanced": {"horizontalPodAutoscalerConfig": {"behavior": {
                "scaleUp": _behavior(service.scale_up),
                "scaleDown": _behavior(service.scale_down),
            }}},
            "triggers": [trigger(stack, tenant, service, t) for t in service.triggers],
        },
    }


def plan_facts(stack: Stack, s: Service) -> dict[str, Any]:
    """Return the plan facts of a service's ScaledObject (``gpupool.plan.services`` reads them)."""
    d = replica_demand(stack, s)
    pool = stack.pool(s.pool)
    gpu = pool.gpu.name if pool is not None and pool.gpu is not None else "GPU"
    return {
        "kind": SCALED_OBJECT,
        "service": s.name,
        "tenant": s.tenant,
        "pool": s.pool,
        "deployment": s.deployment,
        "replicas": [s.replicas_min, s.replicas_max],
        "metrics": [t.metric for t in s.triggers],
        "slot": None if d is None else f"{gpu} {d.kind}",
        "slots_per_replica": None if d is None else d.slots,
        "pool_slots": None if d is None else d.capacity,
    }


def build(stack: Stack, cloud: CloudResult, namespaces: dict[str, str],
          after: tuple[str, ...]) -> list[Resource]:
    """Return KEDA's release (when installed) and each service's ScaledObject.

    Args:
        stack: the validated stack.
        cloud: the cloud result.
        namespaces: tenant namespace name -> the address of its Namespace object.
        after: addresses the release must follow.

    """
    if not stack.services:
        return []
    out: list[Resource] = []
    deps: tuple[str, ...] = ()
    if installs(stack):
        pools = tuple(a for p in stack.pools for a in cloud.node_pools.get(p.name, ()))
        release = helm_release(chart(CHART), values(stack), provider=cloud.k8s_provider,
                               depends_on=(*after, *pools), create_namespace=True,
                               facts={"services": [s.name for s in stack.services]})
        out.append(release)
        deps = (release.address,)
    for s in stack.services:
        tenant = tenant_of(stack, s)
        if tenant is None:
            raise RenderError(f"service {s.name} names unknown tenant {s.tenant}")
        ns = namespaces.get(tenant.namespace)
        out.append(k8s_object(
            stack, scaled_object(stack, tenant, s), provider=cloud.k8s_provider,
            depends_on=(*deps, *((ns,) if ns else ())), owner=f"tenant:{tenant.name}",
            facts=plan_facts(stack, s),
        ))
    return out
