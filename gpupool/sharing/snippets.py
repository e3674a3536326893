"""How to use a pool: a pod-spec snippet per tenant and pool.

This module owns ``workload_snippets``: for every tenant and each pool it may use, a short YAML
fragment showing what a pod needs so the declared sharing applies to it: the namespace, the
node selector ``gpupool.io/pool``, tolerations for the pool's taints, the priority class, the
scheduler, and the GPU request in that pool's terms:

* exclusive, time-slicing, MPS, MIG single: ``nvidia.com/gpu: 1`` (one GPU, replica or instance);
* MIG mixed: ``nvidia.com/mig-<profile>: 1`` (the first profile; others are listed in a comment);
* a whole-GPU pool whose nodes get HAMi's chart-wide split: ``nvidia.com/gpu: 1`` with
  ``nvidia.com/gpumem-percentage: 100`` and ``nvidia.com/gpucores: 100``, so the pod owns the GPU;
* HAMi fractional: ``nvidia.com/gpu: 1`` plus ``nvidia.com/gpumem`` or
  ``nvidia.com/gpumem-percentage`` and ``nvidia.com/gpucores`` (without them HAMi makes the GPU
  exclusive), and ``nvidia.com/priority: 0`` for high and critical tenants on priority pools;
* KAI fractional: no GPU resource, the ``gpu-fraction`` (or ``gpu-memory``) annotation instead,
  strictly between 0 and 1;
* KAI: the ``kai.scheduler/queue`` label and ``schedulerName: kai-scheduler``;
* a pool whose nodes get EFA interfaces (``gpupool.facts.network``) and serves whole GPUs: one pod
  per node takes all its GPUs and all its EFA interfaces (``vpc.amazonaws.com/efa``), as a
  multi-node job over EFA does (EKS user guide, "Manage EFA devices on Amazon EKS": pods ask for
  EFA devices in their requests and limits); a shared pool's snippet names the interfaces in a
  comment;
* a pool whose nodes get GPUDirect NICs (GKE A3 with ``placement.gpuNetworks``:
  ``gpupool.facts.network``) and serves whole GPUs: one pod per node takes all its GPUs and, by
  the annotations ``networking.gke.io/default-interface: eth0`` and
  ``networking.gke.io/interfaces``, every secondary NIC (``eth1``... on the pool's networks), as
  GKE's GPUDirect guide has a workload use all GPUs and NICs of its node (its test pods,
  container-engine-accelerators ``gpudirect-tcpx(o)/nccl-test-latest.yaml``); the header names
  the RxDM sidecar and test pod of that release (``gpupool.sharing.gpudirect``), which the
  snippet does not write out. A shared pool's snippet names the NICs in a comment (a device NIC
  moves into one pod);
* a spot pool with ``interruption.drainSeconds``: ``terminationGracePeriodSeconds`` of that long;
  elsewhere, where a ``checkpoint`` applies (the tenant's, else the pool's), its ``writeSeconds``
  or Kubernetes' 30 s default, the longer, so a stopped pod can write its last checkpoint
  (``gpupool.facts.checkpoint.grace_seconds``);
* a pool with ``placement.topology: spread``: a zone topology spread constraint over the
  tenant's pods on the pool (and the labels it selects them by).

Keys are relative paths ``snippets/<tenant>--<pool>.yaml`` (both are DNS labels, so the name is
safe on every file system); ``render`` writes them.
"""

from __future__ import annotations

from typing import Any

import yaml

from gpupool import facts, schedulers
from gpupool.errors import RenderError
from gpupool.facts import checkpoint as checkpoints
from gpupool.facts.names import (
    GPU_RESOURCE,
    HAMI_CORES,
    HAMI_MEMORY,
    HAMI_MEMORY_PERCENT,
    HAMI_PRIORITY,
    KAI_QUEUE_LABEL,
    POOL_LABEL,
    TENANT_LABEL,
)
from gpupool.facts.network import (
    DEFAULT_INTERFACE_ANNOTATION,
    EFA_RESOURCE,
    INTERFACES_ANNOTATION,
    efa_interfaces,
    gpudirect_networks,
    pod_interfaces,
)
from gpupool.facts.tenancy import priority_class_name
from gpupool.model import Pool, Stack, Tenant
from gpupool.sharing import gpudirect
from gpupool.sharing.pools import kai_annotation, slot, toleration

ZONE_LABEL = "topology.kubernetes.io/zone"  # well-known label the kubelet sets from the cloud


def filename(tenant: Tenant, pool: Pool) -> str:
    """Return the snippet's relative path."""
    return f"snippets/{tenant.name}--{pool.name}.yaml"


def _describe(stack: Stack, pool: Pool) -> str:
    s = pool.sharing
    kind = s.kind
    if kind.replicated:
        return f"{s.mode}, {s.replicas} pods per GPU"
    if kind.partitioned:
        layout = ", ".join(f"{p} x{c}" for p, c in s.mig_layout)
        return f"MIG {layout} per GPU"
    if kind.scheduler_slots:
        return f"{s.mode}, {s.fractional.slots_per_gpu if s.fractional else '?'} slots per GPU"
    split = facts.pool_facts(stack, pool).slots_per_gpu
    if split > 1:  # HAMi's chart-wide split reaches this pool's nodes
        return f"whole GPUs, advertised as {split} HAMi vGPUs each"
    return "whole GPUs"


def _resources(stack: Stack, tenant: Tenant, pool: Pool) -> tuple[dict[str, Any], dict[str, str]]:
    """Return ``(limits, annotations)`` for one slot of ``pool``."""
    if pool.sharing.kind.scheduler_slots:
        sl = slot(pool)
        if schedulers.of(stack).fractions_by_annotation:
            key, value = kai_annotation(pool)
            return {}, {key: value}
        limits: dict[str, Any] = {GPU_RESOURCE: 1}
        if sl.memory_mib is not None:
            limits[HAMI_MEMORY] = sl.memory_mib
        else:
            limits[HAMI_MEMORY_PERCENT] = sl.memory_percent
        if sl.cores_percent is not None:
            limits[HAMI_CORES] = sl.cores_percent
        if pool.policy == "priority":
            limits[HAMI_PRIORITY] = 0 if tenant.priority in ("critical", "high") else 1
        return limits, {}
    pf = facts.pool_facts(stack, pool)
    first = pf.units[0].resource
    if pf.hami_split is not None and pf.hami_split > 1:
        # HAMi's chart-wide split reaches this pool's nodes: a pod owns a whole GPU only if it
        # asks for all of its memory and cores (HAMi 2.10.0 resourceMemPercentage, resourceCores)
        return {first: 1, HAMI_MEMORY_PERCENT: 100, HAMI_CORES: 100}, {}
    whole_node = first == GPU_RESOURCE and pf.slots_per_gpu == 1
    efa = efa_interfaces(stack, pool)
    if efa and whole_node:
        return {first: pool.gpus_per_node, EFA_RESOURCE: efa}, {}
    nics = gpudirect_networks(stack, pool)
    if nics and whole_node:
        return {first: pool.gpus_per_node}, {
            DEFAULT_INTERFACE_ANNOTATION: "eth0",
            INTERFACES_ANNOTATION: pod_interfaces(nics),
        }
    return {first: 1}, {}


def snippet(stack: Stack, tenant: Tenant, pool: Pool) -> str:
    """Return the YAML snippet for pods of ``tenant`` on ``pool``."""
    plugin = schedulers.of(stack)
    limits, annotations = _resources(stack, tenant, pool)
    metadata: dict[str, Any] = {"namespace": tenant.namespace}
    if plugin.queues:
        metadata["labels"] = {KAI_QUEUE_LABEL: tenant.name}
    if annotations:
        metadata["annotations"] = annotations
    spec: dict[str, Any] = {}
    if plugin.pod_scheduler_name is not None:
        spec["schedulerName"] = plugin.pod_scheduler_name
    spec["priorityClassName"] = priority_class_name(tenant.priority)
    spec["nodeSelector"] = {POOL_LABEL: pool.name}
    tols = [toleration(t) for t in facts.pool_facts(stack, pool).taints]
    if tols:
        spec["tolerations"] = tols
    grace = checkpoints.grace_seconds(pool, checkpoints.applying(stack, tenant, pool))
    if grace is not None:
        # stop within the drain time the cloud gives a reclaimed spot node (the admission
        # policy holds the pool's pods to it), or take the time one checkpoint write needs
        spec["terminationGracePeriodSeconds"] = grace
    if pool.topology == "spread":
        # spread the tenant's pods on this pool over zones: Kubernetes topologySpreadConstraints
        # (concepts/scheduling-eviction/topology-spread-constraints), skew 1, still scheduling
        # when a zone is full; the pods carry the labels the selector counts
        metadata["labels"] = {**metadata.get("labels", {}), TENANT_LABEL: tenant.name,
                              POOL_LABEL: pool.name}
        spec["topologySpreadConstraints"] = [{
            "maxSkew": 1,
            "topologyKey": ZONE_LABEL,
            "whenUnsatisfiable": "ScheduleAnyway",
            "labelSelector": {"matchLabels": {TENANT_LABEL: tenant.name, POOL_LABEL: pool.name}},
        }]
    container: dict[str, Any] = {"name": "main", "image": "<your image>"}
    if limits:
        container["resources"] = {"limits": limits}
    spec["containers"] = [container]
    header = [
        f"# Pods of tenant {tenant.name} on pool {pool.name} ({_describe(stack, pool)}).",
        f"# Generated by gpupool for stack {stack.name}; merge into your pod template.",
    ]
    efa = efa_interfaces(stack, pool)
    if efa and EFA_RESOURCE in limits:
        header.append(
            f"# Multi-node training over EFA: one pod per node takes its {pool.gpus_per_node} "
            f"GPUs and {efa} EFA interfaces ({EFA_RESOURCE})."
        )
    elif efa:
        header.append(
            f"# Each node has {efa} EFA interfaces; a pod that talks over EFA asks for them as "
            f"{EFA_RESOURCE}."
        )
    header += _gpudirect_header(stack, pool, INTERFACES_ANNOTATION in annotations)
    others = list(facts.exposure(stack, pool))[1:]
    if others:
        header.append(f"# Other resources on this pool: {', '.join(others)}.")
    body = yaml.safe_dump({"metadata": metadata, "spec": spec}, sort_keys=False)
    return "\n".join(header) + "\n" + body


def _gpudirect_header(stack: Stack, pool: Pool, annotated: bool) -> list[str]:
    """Say what a pod needs besides the snippet to use the pool's GPUDirect NICs."""
    nics = gpudirect_networks(stack, pool)
    rel = gpudirect.release(stack, pool)
    if not nics or rel is None:
        return []
    protocol = pool.instance.interconnect.gpudirect if pool.instance is not None else "GPUDirect"
    if not annotated:
        return [
            f"# Each node has {len(nics)} {protocol} NICs; a pod that uses them takes all of "
            f"them (annotation {INTERFACES_ANNOTATION}), so only one pod per node can."
        ]
    return [
        f"# Multi-node training over {protocol}: one pod per node takes its "
        f"{pool.gpus_per_node} GPUs and its {len(nics)} NICs (eth1-eth{len(nics)}).",
        f"# Add the {rel.daemon} sidecar ({rel.daemon_image.rsplit('/', 1)[1]}), the annotation "
        f"devices.gke.io/container.{rel.daemon} and the NCCL settings as in "
        f"{gpudirect.url(rel.example)}",
    ]


def build(stack: Stack) -> dict[str, str]:
    """Return every snippet keyed by relative path, in tenant then pool order."""
    out: dict[str, str] = {}
    for tenant in stack.tenants:
        for name in tenant.pools:
            pool = stack.pool(name)
            if pool is None:
                raise RenderError(f"tenant {tenant.name} names unknown pool {name}")
            out[filename(tenant, pool)] = snippet(stack, tenant, pool)
    return out
