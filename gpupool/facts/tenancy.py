"""Tenancy facts: priority levels, their PriorityClass values and KAI's queue names.

It also owns a tenant's GPU ResourceQuota (``quota_lines``), which the sharing configuration
renders, the plan shows and ``simulate`` emulates, one line per resource in that resource's own
units; under a scheduler whose queues enforce the tenant's ceiling (``Scheduler.queue_limits``)
only the fence lines remain (see ``quota_lines``).

PriorityClass values keep KAI's threshold meaningful: KAI treats a priority of 100 or more as
non-preemptible, and non-preemptible workloads only run within their queue's quota (KAI v0.17.0
``docs/priority/README.md``; ``pkg/common/podgroup/preemptible.go``
``nonPreemptiblePriorityThreshold = 100``). ``preemptible`` 50 and ``low`` 75 may be preempted
and may borrow beyond quota; ``normal`` 100, ``high`` 125 and ``critical`` 150 may not.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gpupool import facts, schedulers
from gpupool.model import Stack, Tenant

PRIORITY_VALUES = {"preemptible": 50, "low": 75, "normal": 100, "high": 125, "critical": 150}
KAI_NON_PREEMPTIBLE = 100
#: The first Kubernetes minor version serving ValidatingAdmissionPolicy v1 (GA in 1.30), which
#: the tenants' admission policies are.
ADMISSION_MIN_MINOR = 30
# Queues the KAI chart creates itself (KAI v0.17.0 values.yaml defaultQueue).
KAI_DEFAULT_QUEUES = frozenset({"default-queue", "default-parent-queue"})


def priority_class_name(level: str) -> str:
    """Return the PriorityClass name of a priority level."""
    return f"gpupool-{level}"


def parent_queue_name(stack: Stack) -> str:
    """Return the name of the stack's parent KAI queue."""
    return f"gpupool-{stack.name}"


def kai_preemptible(level: str) -> bool:
    """Return True when KAI may preempt workloads of this priority level (below 100)."""
    return PRIORITY_VALUES[level] < KAI_NON_PREEMPTIBLE


@dataclass(frozen=True)
class QuotaLine:
    """One ``requests.<resource>`` line of a tenant's ResourceQuota.

    Attributes:
        resource: the extended resource (``nvidia.com/gpu``, ``nvidia.com/mig-3g.40gb``).
        units: the ceiling, in that resource's units (replicas, MIG instances, vGPUs, GPUs).
        gpus: per pool of the tenant that advertises the resource, how many of its physical
            GPUs the ceiling admits there (at most what the pool holds at ``nodes.max``).

    """

    resource: str
    units: int
    gpus: dict[str, float]


def quota_lines(stack: Stack, tenant: Tenant) -> tuple[QuotaLine, ...]:
    """Return a tenant's ResourceQuota, one line per GPU resource any pool of the stack exposes.

    * a resource none of the tenant's pools advertises gets 0, so its pods cannot reach pools
      the tenant was not given through it;
    * without ``limit.gpus`` the ceiling is what the tenant's pools advertising it hold at
      ``nodes.max``;
    * with ``limit.gpus`` = N the ceiling is N times the *fewest* units per GPU among those
      pools, rounded up and capped at what they hold. Units never mix: N GPUs never admit more
      than N whole GPUs of any pool. Where the tenant's pools count a resource in different units
      (one GPU on an exclusive pool, four replicas on a time-sliced one: both are
      ``nvidia.com/gpu``), the limit admits fewer GPUs than N on the finer pools; validation
      warns (``tenant.quota-units-mixed``). A ResourceQuota counts requests whatever node they
      land on, so no other choice keeps the limit a ceiling; advertising shared GPUs under their
      own name would hide them from KAI's queues and the cluster autoscaler, which count
      ``nvidia.com/gpu``.

    ``quota.gpus`` is a guarantee, which a ResourceQuota cannot express; only KAI's queues do.

    Under a scheduler whose queues enforce the ceiling (``Scheduler.queue_limits``: KAI) the
    resources the tenant's pools advertise get **no line**, only the 0 fences stay. The API
    server's ResourceQuota admission refuses a pod at creation once the namespace's non-terminal
    pods, pending ones included, fill a line (Kubernetes docs, "Resource Quotas": "across all
    pods in a non-terminal state"; ``pkg/quota/v1/evaluator/core/pods.go`` ``QuotaV1Pod``
    counts every pod not Failed or Succeeded). KAI preempts and reclaims only for pods that
    exist and are pending (KAI v0.17.0 ``pkg/scheduler/actions/preempt/preempt.go`` and
    ``reclaim/reclaim.go``: ``FilterNonPending``; in-queue victims only,
    ``job.Queue != preemptor.Queue``), so a tenant at its quota line could never create the pod
    that would preempt its own lower-priority pods. KAI's queue ``limit`` is checked when a
    pod is placed, after the session's evictions have given their GPUs back to the queue
    (``framework/statement.go`` ``Evict`` -> the proportion plugin's ``deallocateHandlerFn``;
    ``plugins/proportion/capacity_policy/max_allowed_check.go`` ``isOverLimit``), so it
    holds the same ceiling without refusing the preemptor. A 0 fence never refuses a pod KAI
    could place: none of the tenant's pools offer that resource.
    """
    known = facts.of(stack)
    queue_limits = schedulers.of(stack).queue_limits
    units: dict[str, int] = {}
    capacity: dict[str, int] = {}
    per_pool: dict[str, dict[str, int]] = {}
    held: dict[str, int] = {}
    for name in tenant.pools:
        pool = stack.pool(name)
        if pool is None:
            continue  # validation names the unknown pool
        pf = known.pool(pool)
        for res, per_gpu in pf.exposure.items():
            units[res] = min(units.get(res, per_gpu), per_gpu)
            capacity[res] = capacity.get(res, 0) + pf.capacity_gpus * per_gpu
            per_pool.setdefault(res, {})[name] = per_gpu
            held[name] = pf.capacity_gpus
    out = []
    for res in sorted(known.exposed_resources):
        if res not in units:
            ceiling = 0
        elif queue_limits:
            continue  # the tenant's queue limit is the ceiling (see above)
        elif tenant.limit_gpus is None:
            ceiling = capacity[res]
        else:
            ceiling = min(math.ceil(tenant.limit_gpus * units[res] - 1e-9), capacity[res])
        gpus = {p: min(ceiling / n, held[p]) for p, n in per_pool.get(res, {}).items()}
        out.append(QuotaLine(res, ceiling, gpus))
    return tuple(out)


def quota_units_differ(stack: Stack, tenant: Tenant) -> dict[str, dict[str, int]]:
    """Return, per resource, the tenant's pools and their units per GPU where those differ."""
    known = facts.of(stack)
    seen: dict[str, dict[str, int]] = {}
    for name in tenant.pools:
        pool = stack.pool(name)
        if pool is None:
            continue
        for res, per_gpu in known.pool(pool).exposure.items():
            seen.setdefault(res, {})[name] = per_gpu
    return {res: pools for res, pools in seen.items() if len(set(pools.values())) > 1}
