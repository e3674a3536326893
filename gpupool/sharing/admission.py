"""Admission that enforces each tenant's grant: a ValidatingAdmissionPolicy and its binding.

This module owns, per tenant, ``k8s.validatingadmissionpolicy.gpupool-<stack>-<tenant>`` and its
``ValidatingAdmissionPolicyBinding`` (``admissionregistration.k8s.io/v1``, GA in Kubernetes 1.30,
enforced by the API server itself: no controller to install). The policy applies to pods created
in the tenant's namespace that use a GPU: a container requesting or limiting a GPU resource any
pool of the stack advertises, or KAI's ``gpu-fraction``/``gpu-memory`` annotation. Such a pod
must:

- run on one of the tenant's pools: ``nodeSelector`` ``gpupool.io/pool`` naming one, or (without
  that selector) every required node-affinity term restricting ``gpupool.io/pool`` to them;
- carry the tenant's PriorityClass;
- under KAI, carry the tenant's queue label and ``schedulerName: kai-scheduler``;
- on a HAMi fractional pool, ask for at most one slot's memory (``nvidia.com/gpumem`` or
  ``nvidia.com/gpumem-percentage``) and cores (``nvidia.com/gpucores``) per container;
- on a spot pool with ``interruption.drainSeconds``, set ``terminationGracePeriodSeconds`` no
  longer than the drain time.

The last two judge every pod that can reach the pool (``reaches``): by ``nodeSelector`` or by
any required node-affinity term that admits the pool's label value.

Each rule has its own message naming the tenant, the pool and the fix. What a violation does is
``cluster.admission.action`` (``validationActions``: Deny, Warn or Audit).

The CEL stays within what the Kubernetes CEL environment and the standard CEL libraries share
(``has``, ``in``, ``exists``, ``all``, ``int``, the conditional operator; no ``quantity()``, no
string extensions), and every comprehension runs over a short constant list or the pod's
containers, keeping the API server's cost estimate low (Kubernetes
``staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/validating`` estimates each
expression against its limit when the policy is created).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpupool import facts, schedulers
from gpupool.facts.names import (
    HAMI_CORES,
    HAMI_MEMORY,
    HAMI_MEMORY_PERCENT,
    KAI_QUEUE_LABEL,
    POOL_LABEL,
)
from gpupool.facts.tenancy import priority_class_name
from gpupool.graph import CloudResult, Resource
from gpupool.model import Pool, Stack, Tenant
from gpupool.sharing import kai
from gpupool.sharing.objects import k8s_object
from gpupool.sharing.pools import slot
from gpupool.sharing.snippets import filename

API_VERSION = "admissionregistration.k8s.io/v1"
#: ``cluster.admission.action`` -> the binding's ``validationActions``.
ACTIONS = {"deny": ["Deny"], "warn": ["Warn"], "audit": ["Audit"]}
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"  # set by the API server on every namespace
KAI_ANNOTATIONS = ("gpu-fraction", "gpu-memory")


def policy_name(stack: Stack, tenant: Tenant) -> str:
    """Return the name of a tenant's policy (and binding)."""
    return f"gpupool-{stack.name}-{tenant.name}"


def _list(items: list[str] | tuple[str, ...]) -> str:
    """Return a CEL list literal of strings (names are DNS labels or resource names: no quotes)."""
    return "[" + ", ".join(f"'{i}'" for i in items) + "]"


def uses_gpu(stack: Stack) -> str:
    """Return the CEL that tells a pod uses a GPU the stack's pools offer (once per stack)."""
    return stack.memo("gpupool.admission.uses_gpu", lambda: _uses_gpu(stack))


def _uses_gpu(stack: Stack) -> str:
    resources = _list(sorted(facts.of(stack).exposed_resources))
    requested = (
        f"object.spec.containers.exists(c, has(c.resources) && {resources}.exists(r, "
        "(has(c.resources.limits) && r in c.resources.limits) || "
        "(has(c.resources.requests) && r in c.resources.requests)))"
    )
    annotated = (
        "(has(object.metadata.annotations) && "
        f"{_list(KAI_ANNOTATIONS)}.exists(a, a in object.metadata.annotations))"
    )
    return f"{requested} || {annotated}"


_SELECTOR = f"has(object.spec.nodeSelector) && '{POOL_LABEL}' in object.spec.nodeSelector"
_SELECTED = f"object.spec.nodeSelector['{POOL_LABEL}']"


_REQUIRED = "object.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
_HAS_REQUIRED = (f"has(object.spec.affinity) && has(object.spec.affinity.nodeAffinity) && "
                 f"has({_REQUIRED})")
#: A Gt/Lt value CEL's ``int()`` reads exactly as Go's ``strconv.ParseInt`` (18 digits fit int64).
_SMALL_INT = "^[-+]?[0-9]{1,18}$"
_INT64_MAX = 2**63 - 1


def _admits(pool: str) -> str:
    """Return the CEL that tells a requirement ``e`` on the pool label can match ``pool``'s nodes.

    Kubernetes ``labels.Requirement.Matches``: In and NotIn test the value, Exists holds on every
    labelled node and DoesNotExist on none; Gt and Lt read the node's value as an integer and
    never match one that is not (a pool named by digits only can match). A value the API server
    would not parse counts as matching: judging a pod that cannot land is harmless.
    """
    listed = f"(has(e.values) && '{pool}' in e.values)"
    if pool.isdigit() and int(pool) <= _INT64_MAX:
        number = (f"(!(has(e.values) && size(e.values) == 1 && e.values[0].matches('{_SMALL_INT}'))"
                  f" || (e.operator == 'Gt' ? {int(pool)} > int(e.values[0]) : "
                  f"{int(pool)} < int(e.values[0])))")
    else:
        number = "false"
    return (f"(e.operator == 'In' ? {listed} : e.operator == 'NotIn' ? !{listed} : "
            f"e.operator == 'DoesNotExist' ? false : "
            f"(e.operator == 'Gt' || e.operator == 'Lt') ? {number} : true)")


def reaches(pool: str) -> str:
    """Return the CEL that tells a pod may be scheduled onto ``pool``'s nodes, however it asks.

    The pod's ``nodeSelector`` and its required node affinity must both allow the pool's label
    value (Kubernetes ``component-helpers/scheduling/corev1/nodeaffinity``,
    ``RequiredNodeAffinity.Match``). The affinity's ``nodeSelectorTerms`` are ORed and an empty
    term matches nothing; within a term the requirements are ANDed, so a term can reach the pool
    unless one requirement on ``gpupool.io/pool`` excludes it. Requirements on other labels and
    ``matchFields`` are assumed to match: the answer errs towards judging the pod.
    """
    selector = f"(!({_SELECTOR}) || {_SELECTED} == '{pool}')"
    term = (
        "((has(t.matchExpressions) && size(t.matchExpressions) > 0) || "
        "(has(t.matchFields) && size(t.matchFields) > 0)) && "
        f"(!has(t.matchExpressions) || t.matchExpressions.all(e, e.key != '{POOL_LABEL}' || "
        f"{_admits(pool)}))"
    )
    affinity = (f"(!({_HAS_REQUIRED}) || (has({_REQUIRED}.nodeSelectorTerms) && "
                f"{_REQUIRED}.nodeSelectorTerms.exists(t, {term})))")
    return f"({selector} && {affinity})"


def _targets(pools: tuple[str, ...]) -> str:
    names = _list(pools)
    terms = _REQUIRED
    affinity = (
        f"{_HAS_REQUIRED} && "
        f"{terms}.nodeSelectorTerms.all(t, has(t.matchExpressions) && t.matchExpressions.exists("
        f"e, e.key == '{POOL_LABEL}' && e.operator == 'In' && has(e.values) && "
        f"e.values.all(v, v in {names})))"
    )
    return f"({_SELECTOR}) ? {_SELECTED} in {names} : ({affinity})"


def _rule(expression: str, message: str, reason: str = "Forbidden") -> dict[str, str]:
    return {"expression": expression, "message": message, "reason": reason}


def _limit_at_most(key: str, most: int) -> str:
    return (f"(!({_list([key])}.exists(k, k in c.resources.limits)) || "
            f"int(c.resources.limits['{key}']) <= {most})")


def _hami(tenant: Tenant, pool: Pool) -> list[dict[str, str]]:
    """Return the rule that keeps a HAMi fractional pod within one slot, when the pool has one."""
    if not pool.sharing.kind.scheduler_slots:
        return []
    s = slot(pool)
    checks, asked = [], []
    if s.memory_mib is not None:
        checks.append(_limit_at_most(HAMI_MEMORY, s.memory_mib))
        checks.append(f"'{HAMI_MEMORY}' in c.resources.limits")
        asked.append(f"{HAMI_MEMORY}: {s.memory_mib} (MiB) or less")
    else:
        checks.append(_limit_at_most(HAMI_MEMORY_PERCENT, s.memory_percent or 100))
        checks.append(_limit_at_most(HAMI_MEMORY, round((pool.gpu.memory_gib if pool.gpu else 0)
                                                         * 1024 * (s.memory_percent or 100) / 100)))
        checks.append(f"{_list([HAMI_MEMORY, HAMI_MEMORY_PERCENT])}.exists(k, k in "
                      "c.resources.limits)")
        asked.append(f"{HAMI_MEMORY_PERCENT}: {s.memory_percent} or less")
    if s.cores_percent is not None:
        checks.append(_limit_at_most(HAMI_CORES, s.cores_percent))
        checks.append(f"'{HAMI_CORES}' in c.resources.limits")
        asked.append(f"{HAMI_CORES}: {s.cores_percent} or less")
    gpu = "'nvidia.com/gpu'"
    per_container = (
        f"object.spec.containers.all(c, !(has(c.resources) && has(c.resources.limits) && "
        f"{gpu} in c.resources.limits) || ({' && '.join(checks)}))"
    )
    return [_rule(
        f"!{reaches(pool.name)} || ({per_container})",
        f"Pods of tenant {tenant.name} on pool {pool.name} get one slot of a GPU: each container "
        f"using nvidia.com/gpu must limit {', '.join(asked)} (snippets/"
        f"{filename(tenant, pool).split('/', 1)[1]}).",
    )]


def _drain(tenant: Tenant, pool: Pool) -> list[dict[str, str]]:
    drain = pool.interruption.drain_seconds
    if pool.capacity.type != "spot" or drain is None:
        return []
    return [_rule(
        f"!{reaches(pool.name)} || (has(object.spec.terminationGracePeriodSeconds) && "
        f"object.spec.terminationGracePeriodSeconds <= {drain})",
        f"Pods of tenant {tenant.name} on spot pool {pool.name} must set "
        f"terminationGracePeriodSeconds to at most {drain}, the time the node has to drain "
        "(interruption.drainSeconds), so they stop before the cloud takes the node.",
    )]


def validations(stack: Stack, tenant: Tenant) -> list[dict[str, str]]:
    """Return the policy's validations for one tenant, each with its own message."""
    pools = tenant.pools
    example = filename(tenant, stack.pool(pools[0]) or stack.pools[0]) if pools else "snippets/"
    out = [
        _rule(_targets(pools),
              f"Pods of tenant {tenant.name} that use GPUs must run on its pools "
              f"({', '.join(pools)}): set nodeSelector {POOL_LABEL} to one of them ({example})."),
        _rule(f"has(object.spec.priorityClassName) && object.spec.priorityClassName == "
              f"'{priority_class_name(tenant.priority)}'",
              f"Pods of tenant {tenant.name} that use GPUs must set priorityClassName "
              f"{priority_class_name(tenant.priority)} (its priority, {tenant.priority})."),
    ]
    plugin = schedulers.of(stack)
    if plugin.queues:
        out.append(_rule(
            f"has(object.spec.schedulerName) && object.spec.schedulerName == "
            f"'{kai.SCHEDULER_NAME}' && has(object.metadata.labels) && "
            f"'{KAI_QUEUE_LABEL}' in object.metadata.labels && "
            f"object.metadata.labels['{KAI_QUEUE_LABEL}'] == '{tenant.name}'",
            f"Pods of tenant {tenant.name} that use GPUs must set schedulerName "
            f"{kai.SCHEDULER_NAME} and the label {KAI_QUEUE_LABEL}: {tenant.name} "
            "(KAI reads the queue from the pod), or KAI's quotas and fair share do not apply.",
        ))
    for name in pools:
        pool = stack.pool(name)
        if pool is None:
            continue
        if plugin.caps_fractions:
            out += _hami(tenant, pool)
        out += _drain(tenant, pool)
    return out


def policy(stack: Stack, tenant: Tenant) -> dict[str, Any]:
    """Return the tenant's ValidatingAdmissionPolicy manifest."""
    return {
        "apiVersion": API_VERSION,
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": policy_name(stack, tenant)},
        "spec": {
            "failurePolicy": "Fail",
            "matchConstraints": {"resourceRules": [{
                "apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"],
                "resources": ["pods"],
            }]},
            "matchConditions": [{"name": "uses-gpu", "expression": uses_gpu(stack)}],
            "validations": validations(stack, tenant),
        },
    }


def binding(stack: Stack, tenant: Tenant, action: str) -> dict[str, Any]:
    """Return the binding that applies the tenant's policy to its namespace."""
    return {
        "apiVersion": API_VERSION,
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": policy_name(stack, tenant)},
        "spec": {
            "policyName": policy_name(stack, tenant),
            "validationActions": ACTIONS[action],
            "matchResources": {"namespaceSelector": {
                "matchLabels": {NAMESPACE_NAME_LABEL: tenant.namespace},
            }},
        },
    }


def build(stack: Stack, cloud: CloudResult, namespaces: Mapping[str, str]) -> list[Resource]:
    """Return every tenant's policy and binding, or nothing when admission is off.

    Args:
        stack: the validated stack.
        cloud: the cloud result.
        namespaces: the address of each namespace object gpupool renders, by namespace name; a
            tenant's policy follows its own namespace only (following every tenant's made the
            dependencies grow with the square of the tenants: 1,600 tenants, 2.6 million edges).

    """
    action = stack.cluster.admission.action
    if action == "off" or not stack.tenants:
        return []
    out: list[Resource] = []
    for tenant in stack.tenants:
        owner = f"tenant:{tenant.name}"
        own = namespaces.get(tenant.namespace)
        pol = k8s_object(stack, policy(stack, tenant), provider=cloud.k8s_provider,
                         depends_on=(own,) if own else (), owner=owner,
                         facts={"tenant": tenant.name, "admission": action})
        out.append(pol)
        out.append(k8s_object(stack, binding(stack, tenant, action), provider=cloud.k8s_provider,
                              depends_on=(pol.address,), owner=owner,
                              facts={"tenant": tenant.name, "admission": action}))
    return out
