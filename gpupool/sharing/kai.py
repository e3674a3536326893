"""KAI Scheduler: its Helm release and one Queue per tenant under a stack parent queue.

This module owns ``helm.kai-scheduler`` and the ``scheduling.run.ai/v2`` Queues. The values turn
``global.gpuSharing`` on when a pool is fractional (KAI's ``gpu-fraction`` needs it); everything
else keeps the chart's defaults, including its default queues and the ``kai.scheduler/queue``
label key.

Queues (KAI v0.17.0 ``docs/queues/README.md``; the proportion plugin's ``max_allowed_check.go``):

* a parent queue ``gpupool-<stack>`` groups the stack's tenants; its GPU quota is the sum of
  theirs so the children's quotas are backed at the top level;
* each tenant's leaf queue is named after the tenant, with ``gpu`` quota from ``quota.gpus``,
  ``overQuotaWeight`` from ``fairShare.weight`` (1 when absent) and ``limit`` from
  ``limit.gpus`` or ``-1`` (an unset limit would mean *nothing* beyond quota); that limit is
  the tenant's only GPU ceiling, as no ResourceQuota line caps its pools' GPUs under KAI
  (``gpupool.facts.tenancy.quota_lines``: one would refuse the pods KAI preempts for);
* each leaf queue's ``priority`` is the tenant's priority level on the PriorityClass scale (KAI
  gives over-quota resources to higher-priority queues first and reclaims from them last), and
  ``preemptMinRuntime`` / ``reclaimMinRuntime`` come from the tenant's ``minRuntime``, else,
  where a ``checkpoint`` applies to it, from its longest ``writeSeconds``;
* ``cpu`` and ``memory`` are ``quota: -1, limit: -1``: gpupool governs GPUs only, and a quota of 0
  would starve non-preemptible (priority >= 100) pods, which KAI keeps within quota;
* quotas are in the units KAI counts (``gpupool.facts``): a time-slicing or MPS replica, and a
  MIG instance under strategy single, is one ``nvidia.com/gpu`` to KAI, and a MIG slice
  ``nvidia.com/mig-<g>g.<m>gb`` is ``g`` GPUs. A tenant's whole-GPU numbers are multiplied by its
  pools' KAI units per GPU (the smallest, when its pools differ; a rendering check warns).

Every Queue has ``spec.resources`` with all three resources and all three fields.

This is the builder half of the KAI plug-in (``gpupool.schedulers.kai`` states its traits):
``build``, and where its components run and what high availability adds (``ha_placement``,
``ha_objects``: the binder's PodDisruptionBudget and the PriorityClass, from the pieces of
``sharing.scheduler_ha``).
"""

from __future__ import annotations

from typing import Any

from gpupool import facts, schedulers
from gpupool.errors import RenderError
from gpupool.facts import checkpoint as checkpoints
from gpupool.facts.names import OPERATOR_RUNTIME_CLASS
from gpupool.facts.tenancy import PRIORITY_VALUES, parent_queue_name
from gpupool.graph import CloudResult, Resource
from gpupool.model import Stack, Tenant
from gpupool.sharing import scheduler_ha
from gpupool.sharing.objects import chart, helm_release, k8s_object

SCHEDULER_NAME = str(schedulers.kai.SCHEDULER.pod_scheduler_name)
RELEASE_ADDRESS = "helm.kai-scheduler"
QUEUE_API = "scheduling.run.ai/v2"
NO_LIMIT = -1


def units_per_gpu(stack: Stack, tenant: Tenant) -> float:
    """Return how many GPUs KAI counts per physical GPU on the tenant's pools (the smallest).

    ``PoolFacts.kai_gpus_per_gpu``: one per replica or MIG instance on ``nvidia.com/gpu``, and
    ``g`` per ``nvidia.com/mig-<g>g.<m>gb`` slice.
    """
    known = facts.of(stack)
    units = []
    for name in tenant.pools:
        pool = stack.pool(name)
        if pool is None:
            raise RenderError(f"tenant {tenant.name} names unknown pool {name}")
        units.append(known.pool(pool).kai_gpus_per_gpu)
    return min(units, default=1)


def _block(quota: float, weight: float, limit: float) -> dict[str, float]:
    return {"quota": _num(quota), "overQuotaWeight": _num(weight), "limit": _num(limit)}


def _num(x: float) -> float:
    """Return ``x`` as an int when whole (stable JSON), else rounded to 4 places."""
    return int(x) if float(x).is_integer() else round(x, 4)


def _untracked() -> dict[str, float]:
    return _block(NO_LIMIT, 1, NO_LIMIT)


def queue_spec(stack: Stack, tenant: Tenant) -> dict[str, Any]:
    """Return the ``spec`` of a tenant's leaf queue."""
    units = units_per_gpu(stack, tenant)
    quota = (tenant.quota_gpus or 0) * units
    limit = NO_LIMIT if tenant.limit_gpus is None else tenant.limit_gpus * units
    spec: dict[str, Any] = {
        "displayName": tenant.name,
        "parentQueue": parent_queue_name(stack),
        # KAI divides over-quota resources first among queues of higher priority, allocates to
        # them first and reclaims from them last (KAI v0.17.0 Queue CRD, spec.priority;
        # docs/fairness/README.md): the tenant's priority level, on the PriorityClass scale
        "priority": PRIORITY_VALUES[tenant.priority],
        "resources": {
            "gpu": _block(quota, tenant.fair_share_weight or 1, limit),
            "cpu": _untracked(),
            "memory": _untracked(),
        },
    }
    # Minimum runtime before an in-queue preemption or a reclaim (KAI v0.17.0 Queue CRD
    # preemptMinRuntime / reclaimMinRuntime, metav1.Duration: Go durations; read by the
    # scheduler's minruntime plugin, on in the operator's default scheduler config,
    # pkg/operator/operands/scheduler; docs/plugins/minruntime.md)
    # (docs/plugins/minruntime.md: so that jobs "can complete critical initialization or
    # checkpointing before being interrupted"). Unstated where a checkpoint applies to the
    # tenant: its longest writeSeconds, so a job placed again can write one before it is taken.
    write = checkpoints.tenant_write_seconds(stack, tenant)
    least = None if write is None else f"{int(write)}s"
    preempt = tenant.preempt_min_runtime or least
    reclaim = tenant.reclaim_min_runtime or least
    if preempt is not None:
        spec["preemptMinRuntime"] = preempt
    if reclaim is not None:
        spec["reclaimMinRuntime"] = reclaim
    check(spec)
    return spec


def parent_spec(stack: Stack) -> dict[str, Any]:
    """Return the ``spec`` of the stack's parent queue."""
    quota = sum((t.quota_gpus or 0) * units_per_gpu(stack, t) for t in stack.tenants)
    spec = {
        "displayName": stack.name,
        "resources": {
            "gpu": _block(quota, 1, NO_LIMIT),
            "cpu": _untracked(),
            "memory": _untracked(),
        },
    }
    check(spec)
    return spec


def check(spec: dict[str, Any]) -> None:
    """Raise ``RenderError`` unless ``spec.resources`` states every resource and field."""
    resources = spec.get("resources")
    if not isinstance(resources, dict):
        raise RenderError("a KAI Queue without spec.resources is rejected by KAI's webhook")
    for res in ("gpu", "cpu", "memory"):
        block = resources.get(res, {})
        if set(block) != {"quota", "overQuotaWeight", "limit"}:
            raise RenderError(f"KAI Queue resources.{res} must state quota, weight and limit")


def values(stack: Stack) -> dict[str, Any]:
    """Return the KAI Helm values gpupool sets.

    * ``global.gpuSharing`` when a pool is fractional (KAI's ``gpu-fraction`` needs it);
    * ``global.clusterAutoscaling`` when such a pool can grow (``nodes.max > nodes.min``):
      fractional pods request no ``nvidia.com/gpu``, so the cluster autoscaler never sees their
      demand unless KAI's node-scale-adjuster stands in for them (KAI v0.17.0
      ``docs/gpu-sharing/autoscaling/README.md``; values.yaml ``global.clusterAutoscaling``);
    * ``admission.gpuFractionRuntimeClassName`` when GPU pods must run with another runtime
      than the operator's ``nvidia`` (AKS's preinstalled driver): KAI's webhook stamps it on
      every fractional pod (KAI v0.17.0 values.yaml; ``runtime_enforcement.go``);
    * under ``cluster.schedulerHighAvailability``, two leader-elected replicas spread over nodes
      and off spot nodes, at gpupool's scheduler PriorityClass (``sharing.scheduler_ha``).
    """
    fractional = [p for p in stack.pools if p.sharing.kind.scheduler_slots]
    glob: dict[str, Any] = {"gpuSharing": bool(fractional)}
    if any(p.nodes.max > p.nodes.min for p in fractional):
        glob["clusterAutoscaling"] = True
    out: dict[str, Any] = {"global": glob}
    runtime = facts.of(stack).gpu_runtime_class
    if fractional and runtime != OPERATOR_RUNTIME_CLASS:
        out["admission"] = {"gpuFractionRuntimeClassName": runtime}
    for key, value in scheduler_ha.kai_values(stack).items():
        out[key] = {**out.get(key, {}), **value}
    return out


def build(stack: Stack, cloud: CloudResult, after: tuple[str, ...]) -> list[Resource]:
    """Return ``helm.kai-scheduler``, the parent queue and one queue per tenant.

    Args:
        stack: the validated stack.
        cloud: the cloud result.
        after: addresses the release must follow (the GPU Operator release).

    """
    if schedulers.of(stack) is not schedulers.kai.SCHEDULER:
        return []
    all_pools: list[str] = list(after)
    for pool in stack.pools:
        all_pools.extend(cloud.node_pools.get(pool.name, ()))
    ha = ha_objects(stack, cloud, RELEASE_ADDRESS)
    # the PriorityClass the release's pods name exists before them
    classes = tuple(r.address for r in ha if r.manifest and r.manifest["kind"] == "PriorityClass")
    release = helm_release(
        chart("kai-scheduler"),
        values(stack),
        provider=cloud.k8s_provider,
        depends_on=(*all_pools, *classes),
        create_namespace=True,
    )
    parent = k8s_object(
        stack,
        {
            "apiVersion": QUEUE_API,
            "kind": "Queue",
            "metadata": {"name": parent_queue_name(stack)},
            "spec": parent_spec(stack),
        },
        provider=cloud.k8s_provider,
        depends_on=(RELEASE_ADDRESS,),
        facts={"tenants": [t.name for t in stack.tenants]},
    )
    out = [release, parent, *ha]
    for tenant in stack.tenants:
        deps = [RELEASE_ADDRESS, parent.address]
        for name in tenant.pools:
            deps.extend(cloud.node_pools.get(name, ()))
        out.append(
            k8s_object(
                stack,
                {
                    "apiVersion": QUEUE_API,
                    "kind": "Queue",
                    "metadata": {"name": tenant.name},
                    "spec": queue_spec(stack, tenant),
                },
                provider=cloud.k8s_provider,
                depends_on=tuple(deps),
                owner=f"tenant:{tenant.name}",
                facts={
                    "tenant": tenant.name,
                    "quota_gpus": tenant.quota_gpus,
                    "limit_gpus": tenant.limit_gpus,
                    "gpu_units_per_gpu": _num(units_per_gpu(stack, tenant)),
                },
            )
        )
    return out


def ha_placement(stack: Stack) -> scheduler_ha.Placement:
    """Return where KAI's components run (``sharing.scheduler_ha.placement``)."""
    ha = stack.cluster.scheduler_ha
    replicas = scheduler_ha.REPLICAS if ha else 1
    open_spots = tuple(p.name for p in facts.open_spot_pools(stack))
    ns = chart("kai-scheduler").namespace
    deployments = tuple(
        scheduler_ha.Deployment(ns, d, replicas) for d in scheduler_ha.KAI_COMPONENTS.values()
    )
    pdbs = (
        (f"{ns}/kai-scheduler-default", "chart"),
        (f"{ns}/binder", "gpupool"),
        (f"{ns}/pod-grouper", "chart"),
    )
    labels = scheduler_ha.spot_labels(stack) if ha else ()
    return scheduler_ha.Placement(
        schedulers.kai.SCHEDULER.name, ha, replicas, deployments,
        ha and scheduler_ha.spread_zones(stack), labels, () if ha else open_spots,
        scheduler_ha.PRIORITY_CLASS if ha else None, pdbs if ha else (),
    )


def ha_objects(stack: Stack, cloud: CloudResult, release: str) -> list[Resource]:
    """Return what high availability adds beyond the chart values; empty when it is off.

    The PriorityClass KAI's pods run at (before the release) and the binder's
    PodDisruptionBudget, which KAI's operator does not create.
    """
    if not stack.cluster.scheduler_ha:
        return []
    ns = chart("kai-scheduler").namespace
    priority = k8s_object(
        stack,
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": scheduler_ha.PRIORITY_CLASS},
            "value": scheduler_ha.PRIORITY_VALUE,
            "globalDefault": False,
            "preemptionPolicy": "PreemptLowerPriority",
            "description": "gpupool: the GPU scheduler's own pods, which no workload preempts",
        },
        provider=cloud.k8s_provider,
        facts={"scheduler_ha": True},
    )
    pdb = scheduler_ha.pdb(stack, cloud, ns, "binder", {"app": "binder"}, release)
    return [priority, pdb]
