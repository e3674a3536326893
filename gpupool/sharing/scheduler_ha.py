"""The GPU scheduler's high availability (``cluster.schedulerHighAvailability``).

This module owns what makes KAI or HAMi survive the loss of one pod or node: the chart values
that run their control pods as two leader-elected replicas, spread over nodes (and zones) and
off spot nodes; the objects gpupool renders where the charts have none (a PodDisruptionBudget
for KAI's binder and for HAMi's scheduler, the PriorityClass KAI's pods run at); and
``placement``, the sentence-ready facts the plan and the rendered README read. Which objects and
which placement a scheduler has is its builder's (``gpupool.sharing.kai``, ``...hami``:
``ha_objects`` and ``ha_placement``, made of the pieces here); ``placement`` asks it.

How each chart spells it (read from the pinned charts' values and templates):

* KAI v0.17.0: ``operator.replicaCount`` sets the operator's replicas and, through the Config
  CR's ``global.replicaCount``, those of every service without its own (scheduler, binder, pod
  grouper, admission, queue and pod-group controllers: ``pkg/apis/kai/v1/config_types.go``
  ``SetDefaultsWhereNeeded``); each service passes ``--leader-elect`` above one replica
  (``pkg/operator/operands/*/resources.go``), and ``global.leaderElection`` turns it on for the
  operator (``templates/services/operator.yaml``). The operator creates PodDisruptionBudgets
  for the scheduler, pod grouper and admission above one replica (values.yaml
  ``scheduler.podDisruptionBudget``; ``common.PodDisruptionBudgetForKAIConfig``), none for the
  binder. ``global.priorityClassName``, ``global.affinity`` and per-service ``affinity``
  reach the pods through ``common.MergeAffinities`` (a service's own node affinity and pod
  anti-affinity win over the global ones). Pods carry ``app: <deployment>``: the scheduler
  ``kai-scheduler-default`` (``<schedulerName>-<shard>``), ``binder``, ``pod-grouper``.
  values.yaml declares ``binder.affinity`` and ``podgrouper.affinity`` but no
  ``scheduler.affinity`` (its ``_helpers.tpl`` reads one all the same); gpupool sets only
  declared keys, so the scheduler's spread rides on ``global.affinity``, which the services
  without an affinity of their own (the operator, admission, the controllers) get too: they
  merely prefer nodes without a scheduler replica.
* HAMi 2.10.0: ``scheduler.leaderElect`` (on by default) and ``scheduler.replicas`` (read only
  when leader election is on); with leader election the chart itself spreads the replicas over
  nodes (a preferred pod anti-affinity on ``kubernetes.io/hostname``) and runs them at
  ``system-node-critical`` (``charts/hami/templates/scheduler/deployment.yaml``). The chart has
  no affinity value and no PodDisruptionBudget; gpupool renders the budget, and spot nodes keep
  the scheduler off through their taints only (``scheduler.tolerations`` stays empty).

Spreading is *preferred*, never required: with two replicas and a required anti-affinity a
rolling update on a two-node system pool could never place its surge pod. Spot avoidance is
*required*: a node affinity ``NotIn`` on gpupool's own capacity label and on the labels the
cloud puts on its spot nodes (``Cloud.spot_node_labels``); ``NotIn`` also admits nodes without
the label.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpupool.facts.names import CAPACITY_LABEL
from gpupool.graph import CloudResult, Resource
from gpupool.model import Stack
from gpupool.sharing import scheduler
from gpupool.sharing.objects import k8s_object

#: Replicas of each scheduler component when highly available.
REPLICAS = 2
#: The PriorityClass KAI's control pods run at: the highest value Kubernetes lets a user
#: define (``HighestUserDefinablePriority``, kubernetes ``pkg/apis/scheduling/types.go``), so no
#: workload's class can preempt them. Not ``system-cluster-critical``: GKE admits the system
#: classes outside kube-system only under a matching ResourceQuota.
PRIORITY_CLASS = "gpupool-scheduler"
PRIORITY_VALUE = 1_000_000_000
HOSTNAME_KEY = "kubernetes.io/hostname"
ZONE_KEY = "topology.kubernetes.io/zone"
#: The priority class HAMi 2.10.0's chart gives its scheduler, whatever the values.
HAMI_PRIORITY_CLASS = "system-node-critical"
#: KAI v0.17.0's Deployments for the components that must stay up, by their ``app`` label.
KAI_COMPONENTS = {"scheduler": "kai-scheduler-default", "binder": "binder",
                  "podgrouper": "pod-grouper"}
#: HAMi 2.10.0's scheduler Deployment (``<release>-scheduler``; release ``hami``); the labels
#: its pods carry are ``gpupool.sharing.hami.POD_LABELS``.
HAMI_DEPLOYMENT = "hami-scheduler"


@dataclass(frozen=True)
class Deployment:
    """One scheduler Deployment a stack declares, as drift and the plan read it."""

    namespace: str
    name: str
    replicas: int


@dataclass(frozen=True)
class Placement:
    """Where a stack's scheduler runs and what a node loss does to it.

    Attributes:
        scheduler: ``kai`` or ``hami`` (the stack's ``cluster.scheduler``).
        ha: high availability is on.
        replicas: replicas of each component.
        deployments: the Deployments that place GPU pods.
        spread_zones: the replicas are also spread over zones (the stack names several).
        spot_labels: the node labels that keep the pods off spot nodes (KAI), or empty.
        open_spot_pools: the stack's spot pools whose nodes nothing keeps the pods off (no
            node affinity, and no taint the pods do not tolerate).
        priority_class: the class the pods run at, or None.
        pdbs: who gives each Deployment its PodDisruptionBudget (``chart`` or ``gpupool``).

    """

    scheduler: str
    ha: bool
    replicas: int
    deployments: tuple[Deployment, ...]
    spread_zones: bool
    spot_labels: tuple[tuple[str, str], ...]
    open_spot_pools: tuple[str, ...]
    priority_class: str | None
    pdbs: tuple[tuple[str, str], ...]

    def lines(self) -> list[str]:
        """Return what the plan and the README say, one sentence each."""
        names = ", ".join(f"{d.namespace}/{d.name}" for d in self.deployments)
        each = " each" if len(self.deployments) > 1 else ""
        spot = ", ".join(self.open_spot_pools)
        if not self.ha:
            out = [
                f"{names}: one replica{each}, no leader election, no disruption budget.",
                "A drain, a spot interruption or a failure of its node stops all GPU "
                "scheduling until the pod runs again elsewhere; set "
                "cluster.schedulerHighAvailability: true.",
            ]
            if spot:
                out.append(f"Nothing keeps it off the spot nodes of {spot}.")
            return out
        spread = "nodes and zones" if self.spread_zones else "nodes"
        out = [
            f"{names}: {self.replicas} leader-elected replicas{each}, spread over {spread} "
            "(preferred anti-affinity).",
        ]
        if self.spot_labels:
            keys = ", ".join(f"{k}={v}" for k, v in self.spot_labels)
            out.append(f"Kept off spot nodes: no node labelled {keys}.")
        elif spot:
            out.append(
                f"Not kept off the spot nodes of {spot}: the chart takes no node affinity, and "
                "those nodes have no taint it does not tolerate (set pools[].taints)."
            )
        else:
            out.append(
                "Off spot nodes only by their taints (the chart takes no node affinity); none "
                "of this stack's spot pools lacks one."
            )
        pdbs = ", ".join(f"{d} ({who})" for d, who in self.pdbs)
        out.append(f"PodDisruptionBudgets, maxUnavailable 1: {pdbs}.")
        if self.priority_class:
            out.append(f"Priority class {self.priority_class}: workloads cannot preempt it.")
        out.append(
            "A node loss takes one replica; the other keeps scheduling after its leader lease "
            "passes over (seconds)."
        )
        return out


def spread_zones(stack: Stack) -> bool:
    """Whether the stack names several zones, so replicas spread over zones too."""
    zones = {z for p in stack.pools for z in p.zones}
    zones |= {z for _, z in stack.provider.settings.subnet_zones}
    return len(zones) > 1


def spot_labels(stack: Stack) -> tuple[tuple[str, str], ...]:
    """Return the node labels that mark spot nodes: gpupool's own, then the cloud's."""
    return ((CAPACITY_LABEL, "spot"), *stack.cloud.spot_node_labels)


def node_affinity(stack: Stack) -> dict[str, Any]:
    """Return a required node affinity that admits no node labelled as spot."""
    expressions = [
        {"key": key, "operator": "NotIn", "values": [value]} for key, value in spot_labels(stack)
    ]
    return {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": expressions}]
        }
    }


def anti_affinity(stack: Stack, labels: dict[str, str]) -> dict[str, Any]:
    """Return a preferred pod anti-affinity spreading pods with ``labels`` over nodes (zones)."""
    terms = [
        {
            "weight": 100,
            "podAffinityTerm": {"labelSelector": {"matchLabels": labels},
                                "topologyKey": HOSTNAME_KEY},
        }
    ]
    if spread_zones(stack):
        terms.append(
            {
                "weight": 50,
                "podAffinityTerm": {"labelSelector": {"matchLabels": labels},
                                    "topologyKey": ZONE_KEY},
            }
        )
    return {"preferredDuringSchedulingIgnoredDuringExecution": terms}


def kai_values(stack: Stack) -> dict[str, Any]:
    """Return the KAI values for high availability (empty when it is off)."""
    if not stack.cluster.scheduler_ha:
        return {}
    nodes = node_affinity(stack)
    out: dict[str, Any] = {
        "global": {
            "leaderElection": True,
            "priorityClassName": PRIORITY_CLASS,
            "affinity": {
                "nodeAffinity": nodes,
                "podAntiAffinity": anti_affinity(stack, {"app": KAI_COMPONENTS["scheduler"]}),
            },
        },
        "operator": {"replicaCount": REPLICAS},
    }
    for key, app in KAI_COMPONENTS.items():
        if key == "scheduler":
            continue  # no scheduler.affinity in values.yaml: global.affinity above
        out[key] = {
            "affinity": {
                "nodeAffinity": nodes,
                "podAntiAffinity": anti_affinity(stack, {"app": app}),
            }
        }
    return out


def hami_values(stack: Stack) -> dict[str, Any]:
    """Return the HAMi values for high availability (empty when it is off)."""
    if not stack.cluster.scheduler_ha:
        return {}
    return {"scheduler": {"leaderElect": True, "replicas": REPLICAS}}


def placement(stack: Stack) -> Placement | None:
    """Return where the stack's scheduler runs (its builder's ``ha_placement``), or None."""
    module = scheduler.builder(stack)
    return None if module is None else module.ha_placement(stack)


def pdb(stack: Stack, cloud: CloudResult, namespace: str, name: str,
        labels: dict[str, str], after: str) -> Resource:
    """Return a PodDisruptionBudget of one unavailable pod with ``labels``, after ``after``."""
    return k8s_object(
        stack,
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"maxUnavailable": 1, "selector": {"matchLabels": labels}},
        },
        provider=cloud.k8s_provider,
        depends_on=(after,),
        facts={"scheduler_ha": True},
    )
