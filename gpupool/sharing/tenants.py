"""Tenants: their Namespaces, GPU ResourceQuotas and the PriorityClasses they use.

This module owns, per tenant, the Namespace (labelled with the tenant; KAI reads queues from
pods, not namespaces) and a ResourceQuota ``gpupool-gpus``; and per priority level in use, one
cluster-scoped PriorityClass ``gpupool-<level>`` (it mentions KAI only on stacks that run KAI).

PriorityClass values (``gpupool.facts.tenancy``) keep KAI's threshold meaningful (KAI treats
>= 100 as non-preemptible): ``preemptible`` 50 and ``low`` 75 may be preempted and may borrow
beyond quota; ``normal`` 100, ``high`` 125 and ``critical`` 150 are not preempted and stay within
quota under KAI. The same values order preemption under the default scheduler. ``preemptible``
never preempts others.

ResourceQuota ``gpupool-gpus``: the ``requests.<name>`` lines
``gpupool.facts.tenancy.quota_lines`` computes (0 for resources none of the tenant's pools
advertise; a limit of N GPUs never admits more than N whole GPUs of any pool). Under a scheduler
whose queues hold the ceiling (``Scheduler.queue_limits``: KAI, whose queue ``limit`` does) the
resources of the tenant's own pools get no line: the API server counts pending pods against a
ResourceQuota and would refuse the pod KAI preempts or reclaims for (see ``quota_lines``). Only
the 0 fences remain, and a tenant without any gets no ResourceQuota at all. KAI fractions
(``gpu-fraction`` annotations) request no resource and are bounded by the queue.
"""

from __future__ import annotations

from typing import Any

from gpupool import schedulers
from gpupool.errors import RenderError
from gpupool.facts.names import TENANT_LABEL
from gpupool.facts.tenancy import (
    KAI_NON_PREEMPTIBLE,
    PRIORITY_VALUES,
    priority_class_name,
    quota_lines,
)
from gpupool.graph import CloudResult, Resource
from gpupool.model import PRIORITIES, Stack, Tenant
from gpupool.sharing.objects import k8s_object

QUOTA_NAME = "gpupool-gpus"


def quota_hard(stack: Stack, tenant: Tenant) -> dict[str, str]:
    """Return the ResourceQuota ``spec.hard`` of a tenant (``facts.tenancy.quota_lines``)."""
    for name in tenant.pools:
        if stack.pool(name) is None:
            raise RenderError(f"tenant {tenant.name} names unknown pool {name}")
    return {f"requests.{q.resource}": str(q.units) for q in quota_lines(stack, tenant)}


def _description(stack: Stack, level: str, value: int) -> str:
    """Return a PriorityClass description; KAI's meaning only on stacks that run KAI."""
    if not schedulers.of(stack).queues:
        return f"gpupool priority {level}"
    return f"gpupool priority {level} " + (
        "(preemptible under KAI: may borrow beyond quota)"
        if value < KAI_NON_PREEMPTIBLE
        else "(non-preemptible under KAI: stays within quota)"
    )


def build(stack: Stack, cloud: CloudResult) -> list[Resource]:
    """Return the PriorityClasses in use, then per tenant its Namespace and ResourceQuota.

    The ResourceQuota only where it has a line (``quota_hard``): under KAI, a tenant whose pools
    offer every GPU resource of the stack has none.
    """
    out: list[Resource] = []
    for level in PRIORITIES:
        users = [t for t in stack.tenants if t.priority == level]
        services = [s for s in stack.services if s.priority == level]
        if not users and not services:
            continue
        deps = [a for t in users for p in t.pools for a in cloud.node_pools.get(p, ())]
        value = PRIORITY_VALUES[level]
        manifest: dict[str, Any] = {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": priority_class_name(level)},
            "value": value,
            "globalDefault": False,
            "preemptionPolicy": "Never" if level == "preemptible" else "PreemptLowerPriority",
            "description": _description(stack, level, value),
        }
        out.append(
            k8s_object(
                stack,
                manifest,
                provider=cloud.k8s_provider,
                depends_on=tuple(deps),
                facts={"priority": level, "tenants": [t.name for t in users]},
            )
        )
    for tenant in stack.tenants:
        out.extend(_tenant(stack, cloud, tenant))
    return out


def _tenant(stack: Stack, cloud: CloudResult, tenant: Tenant) -> list[Resource]:
    pools = tuple(a for p in tenant.pools for a in cloud.node_pools.get(p, ()))
    owner = f"tenant:{tenant.name}"
    # No kai.scheduler/queue label here: KAI reads the queue from the pod (or its top owner),
    # never from the namespace (KAI v0.17.0 pkg/podgrouper/podgrouper/plugins/defaultgrouper/
    # default_grouper.go CalcPodGroupQueue), so the snippets put it on the pod template.
    labels = {TENANT_LABEL: tenant.name}
    ns = k8s_object(
        stack,
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": tenant.namespace, "labels": labels},
        },
        provider=cloud.k8s_provider,
        depends_on=pools,
        owner=owner,
        facts={"tenant": tenant.name, "pools": list(tenant.pools)},
    )
    hard = quota_hard(stack, tenant)
    if not hard:
        return [ns]  # the queue limit is the ceiling and nothing needs fencing (module docstring)
    quota = k8s_object(
        stack,
        {
            "apiVersion": "v1",
            "kind": "ResourceQuota",
            "metadata": {
                "name": QUOTA_NAME,
                "namespace": tenant.namespace,
                "labels": {TENANT_LABEL: tenant.name},
            },
            "spec": {"hard": hard},
        },
        provider=cloud.k8s_provider,
        depends_on=(ns.address, *pools),
        owner=owner,
        facts={
            "tenant": tenant.name,
            "quota_gpus": tenant.quota_gpus,
            "limit_gpus": tenant.limit_gpus,
        },
    )
    return [ns, quota]
