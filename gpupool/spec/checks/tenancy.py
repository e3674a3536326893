"""What the cluster really enforces for each tenant, where the stack could read as promising more.

Errors, where the stack asks for what the cluster cannot do:

- ``tenant.min-runtime-needs-kai``: ``minRuntime`` under a scheduler that preempts at once;
- ``admission.kubernetes-too-old``: admission policies on a cluster older than 1.30.

Warnings, each naming what the cluster does instead:

- ``tenant.quota-units-mixed``: the tenant's pools count one resource in different units per GPU
  (``nvidia.com/gpu`` is one GPU on an exclusive pool, one replica on a time-sliced one); the
  ResourceQuota counts requests wherever they land, so a limit of N GPUs is N of the finest
  units and admits fewer whole GPUs on the other pools (``gpupool.facts.tenancy.quota_lines``;
  not under KAI, whose queue holds the limit and ``kai.queue-units-differ`` warns);
- ``tenant.quota-not-enforced``: ``quota.gpus`` is a guarantee only KAI's queues render; under
  another scheduler nothing in the cluster reserves it;
- ``tenant.pools-not-fenced``: a pool the tenant was not given advertises a resource the tenant's
  ResourceQuota admits and carries no taint, and admission does not deny (``cluster.admission``
  warn, audit or off), so the tenant's pods can run there (a taint only deters pods that do not
  tolerate it);
- ``kai.over-quota-unused``: KAI treats priority 100 and above as non-preemptible and never lets
  such workloads run over their queue's quota (KAI v0.17.0 ``docs/priority/README.md``:
  "Non preemptible can only consume in-quota resources of the scheduling queue, and cannot go
  over quota"), so ``fairShare.weight`` and a ``limit`` above ``quota`` do nothing for a tenant
  at priority ``normal``, ``high`` or ``critical``. gpupool keeps the tenant's priority (it
  decides preemption too) and says so; priority ``low`` or ``preemptible`` lets it borrow.
"""

from __future__ import annotations

from gpupool import facts, schedulers
from gpupool.facts.tenancy import (
    ADMISSION_MIN_MINOR,
    kai_preemptible,
    quota_lines,
    quota_units_differ,
)
from gpupool.model import Stack, Tenant
from gpupool.spec.diagnostics import Diagnostic, error, warning


def _units_mixed(stack: Stack, t: Tenant) -> list[Diagnostic]:
    if t.limit_gpus is None or schedulers.of(stack).queue_limits:
        return []  # under KAI the queue holds the limit (``kai.queue-units-differ`` says this)
    out = []
    for res, pools in sorted(quota_units_differ(stack, t).items()):
        finest = min(pools.values())
        shown = ", ".join(f"{n} per GPU on {p}" for p, n in sorted(pools.items()))
        out.append(
            warning(
                "tenant.quota-units-mixed",
                f"Tenant {t.name}'s limit counts {res} in different units",
                f"The tenant's pools advertise {res} at {shown}. A ResourceQuota counts requests "
                f"wherever they land, so limit.gpus {t.limit_gpus:g} becomes "
                f"{t.limit_gpus:g} x {finest} units: never more than {t.limit_gpus:g} whole GPUs "
                "on any pool, and fewer on the pools with more units per GPU. Give the tenant "
                "pools of one kind, or accept the tighter limit.",
                (*t.path, "limit", "gpus"),
            )
        )
    return out


def _quota_not_enforced(stack: Stack, t: Tenant) -> list[Diagnostic]:
    if t.quota_gpus is None or schedulers.of(stack).queues:
        return []
    return [
        warning(
            "tenant.quota-not-enforced",
            f"Nothing reserves tenant {t.name}'s quota under scheduler "
            f"{stack.cluster.scheduler}",
            "quota.gpus is a guarantee, and only KAI's queues render one; a Kubernetes "
            "ResourceQuota can only cap. gpupool renders this quota nowhere (the plan shows it "
            "for reference). Use cluster.scheduler: kai for guarantees, or drop quota.",
            (*t.path, "quota", "gpus"),
        )
    ]


def _not_fenced(stack: Stack, t: Tenant) -> list[Diagnostic]:
    if stack.cluster.admission.action in ("deny",):
        return []  # the tenant's admission policy refuses pods aimed at other pools
    known = facts.of(stack)
    # what the ResourceQuota does not fence with a 0 (under KAI it has no other line)
    admitted = set(known.exposed_resources) - {
        q.resource for q in quota_lines(stack, t) if q.units == 0
    }
    mine = set(t.pools)
    open_pools = sorted(
        p.name
        for p in stack.pools
        if p.name not in mine
        and not known.pool(p).taints
        and admitted & set(known.pool(p).exposure)
    )
    if not open_pools:
        return []
    return [
        warning(
            "tenant.pools-not-fenced",
            f"Tenant {t.name}'s pods can also run on {', '.join(open_pools)}",
            f"{', '.join(open_pools)} advertise the same GPU resources as the tenant's own pools "
            "and carry no taint, and the tenant's ceiling (its ResourceQuota or queue limit) "
            "counts requests wherever they land, so nothing keeps its pods off them: "
            "cluster.admission.action is "
            f"{stack.cluster.admission.action}, so the tenant's admission policy refuses none. "
            "Set it to deny, or taint those pools (pods of the tenants given them get the "
            "tolerations in their snippets).",
            (*t.path, "pools"),
        )
    ]


def _kai_over_quota(stack: Stack, t: Tenant) -> list[Diagnostic]:
    if not schedulers.of(stack).queues or kai_preemptible(t.priority):
        return []
    unused = []
    if t.fair_share_weight is not None:
        unused.append(("fairShare", "weight"))
    if t.limit_gpus is not None and t.limit_gpus > (t.quota_gpus or 0):
        unused.append(("limit", "gpus"))
    return [
        warning(
            "kai.over-quota-unused",
            f"Tenant {t.name} can never go over its quota on KAI",
            f"Priority {t.priority} is non-preemptible under KAI, and KAI never lets "
            "non-preemptible workloads use more than their queue's quota, so "
            f"{'.'.join(path)} has no effect. Use priority low or preemptible for a tenant "
            "that borrows idle GPUs, or remove the field.",
            (*t.path, *path),
        )
        for path in unused
    ]


def _min_runtime(stack: Stack, t: Tenant) -> list[Diagnostic]:
    """Refuse a minimum runtime no scheduler of the stack would keep (only KAI's queues do)."""
    if schedulers.of(stack).queues:
        return []
    if t.preempt_min_runtime is None and t.reclaim_min_runtime is None:
        return []
    return [
        error(
            "tenant.min-runtime-needs-kai",
            f"minRuntime needs scheduler kai, not {stack.cluster.scheduler}",
            "Only KAI's queues hold a job for a minimum time before preempting or reclaiming it "
            "(Queue preemptMinRuntime, reclaimMinRuntime); kube-scheduler and HAMi preempt by "
            "priority at once. Set cluster.scheduler: kai or remove minRuntime.",
            (*t.path, "minRuntime"),
            anchor="key",
        )
    ]


def _admission(stack: Stack) -> list[Diagnostic]:
    """Refuse admission policies on a cluster older than ValidatingAdmissionPolicy v1 (1.30)."""
    version = stack.cluster.kubernetes_version
    if stack.cluster.admission.action == "off" or version is None or not stack.tenants:
        return []
    minor = int(version.split(".")[1])
    if minor >= ADMISSION_MIN_MINOR:
        return []
    return [
        error(
            "admission.kubernetes-too-old",
            f"Admission policies need Kubernetes 1.{ADMISSION_MIN_MINOR}, not {version}",
            "gpupool enforces each tenant's grant with ValidatingAdmissionPolicy "
            "(admissionregistration.k8s.io/v1), which Kubernetes serves from "
            f"1.{ADMISSION_MIN_MINOR}; a {version} API server has no such kind and pulumi up "
            "fails. Upgrade the cluster, or set cluster.admission.action: off (nothing then "
            "stops a tenant's pods from using pools it was not given).",
            ("cluster", "kubernetesVersion"),
        )
    ]


def run(stack: Stack) -> list[Diagnostic]:
    """Check what the cluster enforces for each tenant against what the stack says."""
    out: list[Diagnostic] = _admission(stack)
    for t in stack.tenants:
        out += _units_mixed(stack, t)
        out += _quota_not_enforced(stack, t)
        out += _not_fenced(stack, t)
        out += _kai_over_quota(stack, t)
        out += _min_runtime(stack, t)
    return out
