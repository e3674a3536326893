"""Live showback: recording rules that price what each tenant's pods hold of each pool.

This module owns ``k8s.prometheusrule.gpu-operator.gpupool-showback``: a PrometheusRule of
recording rules, rendered when the stack says the Prometheus Operator runs
(``cluster.monitoring.prometheus``: the kind must exist) and has tenants on priced pools. The
prices are baked in at render time: a pool's declared price (``pools[].price``) where it states
one, else the catalog's, each series labelled with where its price comes from (``prices_as_of``,
the catalog row's date, or ``price_source``, what the declared price says it comes from):

- ``gpupool:tenant_pool_cost_usd_per_hour{stack, tenant, pool, resource, prices_as_of |
  price_source}``: per tenant, pool and GPU resource, the units that running pods in the
  tenant's namespace request on the pool's nodes, times the price of one unit an hour; on a KAI
  fractional pool also, with ``resource`` the annotation (``gpu-fraction``, or ``gpu-memory``
  where the pool fixes a slot's MiB), the running pods that carry the pool's slot annotation,
  times the slot's share of one GPU's price;
- ``gpupool:tenant_cost_usd_per_hour{stack, tenant}``: their sum per tenant.

The inputs are kube-state-metrics' series: ``kube_pod_container_resource_requests`` (the
``resource`` label is the resource name with every character outside ``[a-zA-Z0-9_]`` made
``_``: ``nvidia.com/gpu`` reads ``nvidia_com_gpu``; kube-state-metrics
``internal/store/utils.go`` ``toResourceUnitValue``, ``promutil.SanitizeLabelName``),
``kube_pod_status_phase`` (only ``Running`` pods are charged) and, to tell which pool a node is
in, ``kube_node_labels`` with the pool label (the allowlist ``gpupool.sharing.promql`` names) or,
for pools of named nodes, ``kube_node_info``. Each input is reduced with ``max by`` its identity
first, so two kube-state-metrics replicas (two series per object) are not charged twice.

A unit's price is the pool's price per GPU at the node's capacity type (the declared
``perGpuHour`` or ``spotPerGpuHour``, or the instance's on-demand or spot price over its GPUs)
over the units one GPU yields (``gpupool.facts``: a time-slicing replica, a HAMi vGPU, a MIG
instance). An on-demand pool is priced on-demand, a spot pool at spot, except a split spot pool
(``gpupool.facts.groups.capacity_groups``: a spot and an on-demand node group, EKS, GKE, AKS):
there each node is priced by its capacity label (``gpupool.io/capacity``, which
``gpupool.providers.common.node_labels`` sets on every node group), the nodes labelled
``on-demand`` at the on-demand price and every other node of the pool at spot. The join is
``(on-demand nodes * on-demand price) or (all the pool's nodes * spot price)``: ``or`` keeps the
on-demand figure where a node has one, so without the capacity label in ``kube_node_labels``
(kube-state-metrics not allowlisting it) every node is priced at spot, as before the label
existed; the rule's ``needs`` say so. A VKE spot pool with an on-demand base or stand-ins is one
node pool of both kinds, which no label tells apart (VKE labels no node with its capacity type),
so all its nodes are priced at spot; so are a split pool's on-demand nodes where the pool has
no on-demand price.

KAI's fractional pods request no GPU resource, so the requests series never show them; they
carry the annotation gpupool's snippet gives them (``gpupool.sharing.pools.kai_annotation``:
``gpu-fraction: "0.5"``, or ``gpu-memory: "<MiB>"``). ``kube_pod_annotations`` carries it, as
``annotation_gpu_fraction`` (kube-state-metrics ``internal/store/pod.go``: ``annotation_`` + the
sanitised key), only when kube-state-metrics is started with ``KSM_ANNOTATIONS_ALLOWLIST``; the
rule joins it on ``(namespace, pod)`` with ``kube_pod_info``'s ``node`` (to find the pool) and the
Running phase, each reduced with ``max by`` first, and prices each such pod at the slot's share
(``gpupool.sharing.pools.slot``) of the pool's per-GPU price at its node's capacity type, as
above. PromQL cannot read a number from a label, so the rule matches the value gpupool renders:
a pod annotated with another value is not charged, nor is any without the flag (the rule's
``needs`` say so). Pools without a price in USD (declared or the catalog's) get no rule, never
a price of 0 (nor a CNY price under a USD name).
"""

from __future__ import annotations

import re
from typing import Any

from gpupool import facts
from gpupool.facts.groups import capacity_groups
from gpupool.facts.names import CAPACITY_LABEL, KSM_POD_ANNOTATIONS, POOL_LABEL
from gpupool.graph import CloudResult, Resource
from gpupool.model import Pool, Stack, Tenant
from gpupool.sharing.alerts import prometheus_rule
from gpupool.sharing.objects import k8s_object
from gpupool.sharing.pools import kai_annotation, slot
from gpupool.sharing.promql import (
    KSM_ALLOWLIST,
    KSM_ANNOTATIONS_ALLOWLIST,
    KSM_CAPACITY_LABEL,
    KSM_POOL_LABEL,
    ksm_pod_annotation,
)

RULE_NAME = "gpupool-showback"
POOL_COST = "gpupool:tenant_pool_cost_usd_per_hour"
TENANT_COST = "gpupool:tenant_cost_usd_per_hour"


def ksm_resource(resource: str) -> str:
    """Return a resource name as kube-state-metrics writes it in the ``resource`` label."""
    return re.sub(r"[^a-zA-Z0-9_]", "_", resource)


def unit_price(
    stack: Stack, pool: Pool, units_per_gpu: int, capacity: str | None = None
) -> float | None:
    """Return what one unit of a pool's resource costs an hour in USD, or None without one.

    ``capacity`` (``spot`` or ``on-demand``) is the capacity type of the nodes priced; the
    pool's own type by default. A declared price (``pools[].price``, per GPU) is used instead of
    the catalog's. The recording rules are USD (``POOL_COST``); a price in another currency (a
    declared EUR rate, a refreshed Volcengine price in CNY) is not one, and nothing converts it.
    """
    spot = (capacity or pool.capacity.type) == "spot"
    declared = pool.price
    if declared is not None:
        per_gpu = declared.spot_per_gpu_hour if spot else declared.per_gpu_hour
        if declared.currency != "USD" or per_gpu is None or units_per_gpu <= 0:
            return None
        return per_gpu / units_per_gpu
    inst = pool.instance
    if inst is None or units_per_gpu <= 0 or pool.gpus_per_node <= 0:
        return None
    if inst.price.currency != "USD":
        return None
    price = inst.price.spot_hourly if spot else inst.price.on_demand_hourly
    if price is None:
        return None
    return price / pool.gpus_per_node / units_per_gpu


def split(stack: Stack, pool: Pool) -> bool:
    """Whether a pool's nodes are in a spot and an on-demand node group (priced apart)."""
    return len({g.capacity for g in capacity_groups(pool, stack.cloud)}) > 1


def _pool_nodes(pool: Pool, matchers: str = "") -> str:
    """Return a vector of value 1 per node of the pool, labelled ``node``."""
    if pool.node_names:
        names = "|".join(n.replace(".", "\\\\.") for n in pool.node_names)
        return f'max by (node) (kube_node_info{{node=~"{names}"}})'
    return f'max by (node) (kube_node_labels{{{KSM_POOL_LABEL}="{pool.name}"{matchers}}})'


def expression(
    tenant: Tenant, pool: Pool, resource: str, price: float, on_demand: float | None = None
) -> str:
    """Return the PromQL of one tenant's cost an hour on one pool's resource.

    ``price`` is one unit's price on every node of the pool; with ``on_demand`` (a split spot
    pool), the nodes labelled ``gpupool.io/capacity: on-demand`` are priced at it instead and the
    others at ``price``.
    """
    ns = tenant.namespace
    requests = (f'kube_pod_container_resource_requests{{namespace="{ns}", '
                f'resource="{ksm_resource(resource)}"}}')
    head = f"  max by (namespace, pod, container, node) ({requests})\n"
    return _priced(ns, head, pool, price, on_demand)


def annotation_expression(
    tenant: Tenant, pool: Pool, annotation: tuple[str, str], price: float,
    on_demand: float | None = None,
) -> str:
    """Return the PromQL of one tenant's cost an hour of KAI fractional pods on one pool.

    ``annotation`` is the (key, value) the pool's pods carry (``pools.kai_annotation``), read
    from ``kube_pod_annotations``; each running pod so annotated on one of the pool's nodes (its
    node from ``kube_pod_info``) costs ``price`` (or ``on_demand``, as in ``expression``).
    """
    ns = tenant.namespace
    key, value = annotation
    info = f'kube_pod_info{{namespace="{ns}", node!=""}}'
    annotated = f'kube_pod_annotations{{namespace="{ns}", {ksm_pod_annotation(key)}="{value}"}}'
    head = (f"  max by (namespace, pod, node) ({info})\n"
            f"  * on (namespace, pod) group_left () max by (namespace, pod) ({annotated})\n")
    return _priced(ns, head, pool, price, on_demand)


def _priced(ns: str, head: str, pool: Pool, price: float, on_demand: float | None) -> str:
    """Return ``head`` (units per pod and node) on the pool's nodes, running, times the price."""
    running = f'kube_pod_status_phase{{namespace="{ns}", phase="Running"}} == 1'
    tail = f"  * on (namespace, pod) group_left () max by (namespace, pod) ({running})\n"
    if on_demand is None:
        return f"sum(\n{head}  * on (node) group_left () {_pool_nodes(pool)}\n{tail}) * {price!r}"
    od_nodes = _pool_nodes(pool, f', {KSM_CAPACITY_LABEL}="on-demand"')
    # `or` keeps a node's on-demand price and adds the pool's other nodes at spot: without the
    # capacity label in kube_node_labels every node is priced at spot
    nodes = (f"(\n    ({od_nodes} * {on_demand!r})\n"
             f"    or ({_pool_nodes(pool)} * {price!r})\n  )")
    return f"sum(\n{head}  * on (node) group_left () {nodes}\n{tail})"


def _provenance(stack: Stack, pool: Pool) -> dict[str, str] | None:
    """Return the label saying where a pool's price comes from, or None without a price."""
    if pool.price is not None:
        return {"price_source": pool.price.source}
    # each catalog row dates its own prices (a refreshed overlay row its refresh)
    inst = pool.instance if stack.cloud.provisions else None
    return {"prices_as_of": inst.price.as_of} if inst is not None and inst.price.as_of else None


def rules(stack: Stack) -> list[dict[str, Any]]:
    """Return the recording rules: one per tenant, priced pool and resource, then the totals.

    A KAI fractional pool (``facts.kai_fractional_pools``) adds one rule per tenant, its
    ``resource`` the annotation its pods carry (``gpu-fraction`` or ``gpu-memory``).
    """
    known = facts.of(stack)
    fractional = {p.name for p in facts.kai_fractional_pools(stack)}
    out: list[dict[str, Any]] = []
    for tenant in stack.tenants:
        for name in tenant.pools:
            pool = stack.pool(name)
            if pool is None:
                continue
            provenance = _provenance(stack, pool)
            apart = split(stack, pool)
            labels = {"stack": stack.name, "tenant": tenant.name, "pool": pool.name}
            for resource, per_gpu in sorted(known.pool(pool).exposure.items()):
                price = unit_price(stack, pool, per_gpu)
                if price is None or provenance is None:
                    continue
                od = unit_price(stack, pool, per_gpu, "on-demand") if apart else None
                out.append({
                    "record": POOL_COST,
                    "expr": expression(tenant, pool, resource, price, od),
                    "labels": {**labels, "resource": resource, **provenance},
                })
            gpu = unit_price(stack, pool, 1)
            if pool.name not in fractional or gpu is None or provenance is None:
                continue
            # a KAI fractional pod costs its slot's share of one GPU at the node's capacity type
            share = slot(pool).fraction
            od_gpu = unit_price(stack, pool, 1, "on-demand") if apart else None
            annotation = kai_annotation(pool)
            out.append({
                "record": POOL_COST,
                "expr": annotation_expression(
                    tenant, pool, annotation, round(share * gpu, 10),
                    None if od_gpu is None else round(share * od_gpu, 10)),
                "labels": {**labels, "resource": annotation[0], **provenance},
            })
    if out:
        out.append({
            "record": TENANT_COST,
            "expr": f'sum by (stack, tenant) ({POOL_COST}{{stack="{stack.name}"}})',
        })
    return out


def needs(stack: Stack, recorded: list[dict[str, Any]]) -> list[str]:
    """Say what the recorded rules need of kube-state-metrics beyond its defaults, if anything.

    Cloud pools are found by the pool label in ``kube_node_labels``, a split spot pool's
    on-demand nodes by the capacity label there; kube-state-metrics exports either only when
    allowlisted (``KSM_ALLOWLIST``, one flag for both). KAI's fractional pods are found by their
    annotation in ``kube_pod_annotations``, exported only when allowlisted
    (``KSM_ANNOTATIONS_ALLOWLIST``).
    """
    labelled = [r["labels"] for r in recorded if "labels" in r]
    priced = list(dict.fromkeys(r["pool"] for r in labelled))
    pools = [p for p in stack.pools if p.name in priced]
    out: list[str] = []
    joined = [p.name for p in pools if not p.node_names]
    if joined:
        apart = [p.name for p in pools if not p.node_names and split(stack, p)]
        text = (f"kube-state-metrics started with `{KSM_ALLOWLIST}` (kube-prometheus-stack: "
                f"`kube-state-metrics.metricLabelsAllowlist`): without {POOL_LABEL} the showback "
                f"rules of {', '.join(joined)} record nothing")
        if apart:
            text += (f", without {CAPACITY_LABEL} they price the on-demand nodes of "
                     f"{', '.join(apart)} at spot")
        out.append(text)
    annotated = list(dict.fromkeys(r["pool"] for r in labelled
                                   if r["resource"] in KSM_POD_ANNOTATIONS))
    if annotated:
        out.append(f"kube-state-metrics started with `{KSM_ANNOTATIONS_ALLOWLIST}` "
                   "(kube-prometheus-stack: `kube-state-metrics.metricAnnotationsAllowList`): "
                   f"without it the showback rules of {', '.join(annotated)} record nothing for "
                   "KAI's fractional pods, which request no GPU resource")
    return out


def build(stack: Stack, cloud: CloudResult, after: tuple[str, ...]) -> list[Resource]:
    """Return the showback PrometheusRule, or nothing when there is nothing to price.

    Args:
        stack: the validated stack.
        cloud: the cloud result.
        after: addresses the rule must follow (operator namespace and release, when rendered).

    """
    if stack.cluster.monitoring.prometheus is None:
        return []
    recorded = rules(stack)
    if not recorded:
        return []
    manifest = prometheus_rule(stack, RULE_NAME, {"name": f"gpupool.{stack.name}.showback",
                                                  "interval": "1m", "rules": recorded})
    required = needs(stack, recorded)
    return [
        k8s_object(
            stack,
            manifest,
            provider=cloud.k8s_provider,
            depends_on=tuple(after),
            facts={"showback_tenants": sorted({r["labels"]["tenant"] for r in recorded
                                               if "labels" in r}),
                   **({"needs": required} if required else {})},
        )
    ]
