"""How to run a service's replicas: a pod-template snippet per inference service.

This module owns ``build``: for every service, ``snippets/service.<name>.yaml`` (service names
are DNS labels and tenant or pool names hold no dot, so the name never meets a
``<tenant>--<pool>.yaml`` snippet), the part of the Deployment's pod template that makes each
replica land where the stack says and ask for what validation counted:

* the namespace, the ``gpupool.io/service`` label (the anti-affinity below counts it) and, under
  KAI, the tenant's queue label and ``schedulerName`` (HAMi: its scheduler);
* the priority class of the service's priority (else its tenant's);
* ``nodeSelector`` on the pool label and tolerations for the pool's taints;
* the request per replica in the pool's terms: ``nvidia.com/gpu`` (whole GPUs, replicas of a
  time-sliced or MPS GPU, or under MIG strategy single an instance), ``nvidia.com/mig-<profile>``
  (MIG mixed), HAMi's ``gpumem``/``gpumem-percentage`` and ``gpucores`` beside one
  ``nvidia.com/gpu``, or KAI's ``gpu-fraction``/``gpu-memory`` annotation; ``cpu`` and
  ``memory`` as requests;
* a preferred pod anti-affinity over nodes (weight 100) and zones (weight 50), so the
  scheduler spreads the replicas where it can without ever leaving one Pending for it
  (Kubernetes ``concepts/scheduling-eviction/assign-pod-node``, "Inter-pod affinity and
  anti-affinity": ``preferredDuringSchedulingIgnoredDuringExecution``).
"""

from __future__ import annotations

import math
from typing import Any

import yaml

from gpupool import facts, schedulers
from gpupool.errors import RenderError
from gpupool.escape import one_line
from gpupool.facts.names import (
    GPU_RESOURCE,
    HAMI_CORES,
    HAMI_MEMORY,
    HAMI_MEMORY_PERCENT,
    KAI_GPU_FRACTION,
    KAI_GPU_MEMORY,
    KAI_QUEUE_LABEL,
    POOL_LABEL,
)
from gpupool.facts.services import tenant_of
from gpupool.facts.tenancy import priority_class_name
from gpupool.model import Pool, Stack, Tenant
from gpupool.service_model import Service
from gpupool.sharing.keda import SERVICE_LABEL
from gpupool.sharing.pools import slot, toleration
from gpupool.sharing.snippets import ZONE_LABEL

HOSTNAME_LABEL = "kubernetes.io/hostname"  # well-known label the kubelet sets


def filename(service: Service) -> str:
    """Return the snippet's relative path."""
    return f"snippets/service.{service.name}.yaml"


def _fractional(stack: Stack, service: Service, pool: Pool) -> tuple[dict[str, Any],
                                                                    dict[str, str]]:
    r = service.request
    by_annotation = schedulers.of(stack).fractions_by_annotation
    if by_annotation and r.gpus is None:
        # KAI: part of a GPU is an annotation, never a resource (gpupool.sharing.pools)
        if r.gpu_memory_gib is not None:
            return {}, {KAI_GPU_MEMORY: str(round(r.gpu_memory_gib * 1024))}
        return {}, {KAI_GPU_FRACTION: f"{r.fraction:g}"}
    if by_annotation:
        return {GPU_RESOURCE: r.gpus}, {}
    limits: dict[str, Any] = {GPU_RESOURCE: r.gpus or 1}
    if r.gpu_memory_gib is not None:
        limits[HAMI_MEMORY] = round(r.gpu_memory_gib * 1024)
    elif r.fraction is not None:
        limits[HAMI_MEMORY_PERCENT] = max(1, math.floor(r.fraction * 100))
    else:
        limits[HAMI_MEMORY_PERCENT] = 100  # whole GPUs on a fractional pool own them
    cores = slot(pool).cores_percent
    if r.fraction is not None and cores is not None:
        limits[HAMI_CORES] = min(100, math.ceil(r.fraction * 100))
    elif r.gpus is not None:
        limits[HAMI_CORES] = 100
    return limits, {}


def _resources(stack: Stack, service: Service, pool: Pool) -> tuple[dict[str, Any],
                                                                   dict[str, str]]:
    """Return ``(limits, annotations)`` for one replica."""
    r = service.request
    mode = pool.sharing.kind
    if mode.scheduler_slots:
        return _fractional(stack, service, pool)
    units = facts.pool_facts(stack, pool).units
    if mode.partitioned:
        unit = next((u for u in units if u.slot == r.mig), units[0])
        return {unit.resource: 1}, {}
    return {units[0].resource: r.gpus or 1}, {}


def _anti_affinity(service: Service) -> dict[str, Any]:
    terms = [(100, HOSTNAME_LABEL), (50, ZONE_LABEL)]
    return {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": w, "podAffinityTerm": {
            # one selector object per term: yaml.safe_dump would write a shared one as an alias
            "labelSelector": {"matchLabels": {SERVICE_LABEL: service.name}},
            "topologyKey": key,
        }}
        for w, key in terms
    ]}}


def snippet(stack: Stack, tenant: Tenant, service: Service, pool: Pool) -> str:
    """Return the YAML snippet for the pod template of ``service``'s Deployment."""
    limits, annotations = _resources(stack, service, pool)
    labels = {SERVICE_LABEL: service.name}
    spec: dict[str, Any] = {}
    plugin = schedulers.of(stack)
    if plugin.queues:
        labels[KAI_QUEUE_LABEL] = tenant.name
    if plugin.pod_scheduler_name is not None:
        spec["schedulerName"] = plugin.pod_scheduler_name
    metadata: dict[str, Any] = {"namespace": tenant.namespace, "labels": labels}
    if annotations:
        metadata["annotations"] = annotations
    spec["priorityClassName"] = priority_class_name(service.priority or tenant.priority)
    spec["nodeSelector"] = {POOL_LABEL: pool.name}
    tols = [toleration(t) for t in facts.pool_facts(stack, pool).taints]
    if tols:
        spec["tolerations"] = tols
    spec["affinity"] = _anti_affinity(service)
    resources: dict[str, Any] = {}
    requests: dict[str, Any] = {}
    if service.request.cpu is not None:
        requests["cpu"] = f"{round(service.request.cpu * 1000)}m"
    if service.request.memory_gib is not None:
        requests["memory"] = f"{round(service.request.memory_gib * 1024)}Mi"
    if requests:
        resources["requests"] = requests
    if limits:
        resources["limits"] = limits
    container: dict[str, Any] = {"name": "main", "image": "<your image>"}
    if resources:
        container["resources"] = resources
    spec["containers"] = [container]
    header = [  # names are DNS names; one_line keeps a comment one line whatever reaches it
        one_line(f"# Replicas of service {service.name} (Deployment {tenant.namespace}/"
                 f"{service.deployment}) on pool {pool.name}; KEDA scales them "
                 f"{service.replicas_min} to {service.replicas_max}."),
        one_line(f"# Generated by gpupool for stack {stack.name}; merge into the Deployment's "
                 "spec.template (its labels into spec.selector.matchLabels too)."),
    ]
    body = yaml.safe_dump({"metadata": metadata, "spec": spec}, sort_keys=False)
    return "\n".join(header) + "\n" + body


def build(stack: Stack) -> dict[str, str]:
    """Return every service's snippet keyed by relative path, in file order."""
    out: dict[str, str] = {}
    for s in stack.services:
        tenant, pool = tenant_of(stack, s), stack.pool(s.pool)
        if tenant is None or pool is None:
            raise RenderError(f"service {s.name} names an unknown tenant or pool")
        out[filename(s)] = snippet(stack, tenant, s, pool)
    return out
