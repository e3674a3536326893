"""The GPU scheduler's high availability (``gpupool.sharing.scheduler_ha``).

What each chart calls things was read from the pinned charts: KAI Scheduler v0.17.0
(``deployments/kai-scheduler/values.yaml``, ``templates/_helpers.tpl`` ``kai-config``,
``templates/services/operator.yaml``; ``pkg/apis/kai/v1/config_types.go``;
``pkg/operator/operands/common/common.go`` ``MergeAffinities`` and the ``app`` pod label) and
HAMi 2.10.0 (``charts/hami/values.yaml``, ``templates/scheduler/deployment.yaml``,
``templates/_helpers.tpl``). ``CHART_FACTS`` keeps those facts in this project's words, so the
tests hold without the upstream files; the conformance tests read the files themselves through
``tests.paths.shared_upstream``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pytest
import yaml

from gpupool import clouds, sharing
from gpupool.assemble import build
from gpupool.facts.tenancy import PRIORITY_VALUES
from gpupool.graph import CloudResult, Resource
from gpupool.model import Stack
from gpupool.plan import Base, make_plan
from gpupool.sharing import scheduler_ha
from gpupool.views.plan_json import to_json
from tests.manifests import validate_manifests, validate_values
from tests.paths import shared_upstream
from tests.stacks import load_stack_text

#: Facts of the pinned charts (see the module docstring): for each chart, the values key paths
#: gpupool's high availability sets, with the chart's own default for each.
CHART_FACTS: dict[str, dict[str, Any]] = {
    "kai-scheduler": {
        "global.leaderElection": False,
        "global.priorityClassName": "",
        "global.affinity": {},
        "operator.replicaCount": 1,
        "binder.affinity": {},
        "podgrouper.affinity": {},
    },
    "hami": {"scheduler.leaderElect": True, "scheduler.replicas": 1},
}
UPSTREAM_VALUES = {
    "kai-scheduler": "kai-scheduler-v0.17.0-values.yaml",
    "hami": "hami-2.10.0-values.yaml",
}
#: KAI v0.17.0 names its Deployments, and labels their pods ``app: <name>``: the scheduler
#: ``<global.schedulerName>-<shard>`` (``kai-scheduler-default``), the binder and the pod grouper
#: by their operands' ``defaultResourceName`` (``binder``, ``pod-grouper``).
KAI_APPS = {"scheduler": "kai-scheduler-default", "binder": "binder", "podgrouper": "pod-grouper"}

_AZURE = "provider: {cloud: azure, region: eastus, cluster: c, settings: {resourceGroup: rg}}"
_AWS = ("provider: {cloud: aws, region: us-east-1, cluster: c, settings: {subnets: "
        "[{id: s-1, zone: us-east-1a}, {id: s-2, zone: us-east-1b}], "
        "nodeRoleArn: 'arn:aws:iam::123456789012:role/n'}}")


def _stack(env: str, scheduler: str, extra: str = "", provider: str = _AZURE,
           pool: str = "instanceType: Standard_NC24ads_A100_v4") -> Stack:
    if not pool.startswith("nodeNames"):
        pool += "\n    nodes: {min: 1, max: 2}"
    return load_stack_text(
        f"""
apiVersion: gpupool.io/v1
kind: GpuPoolStack
metadata: {{name: ha, environment: {env}}}
{provider}
cluster: {{scheduler: {scheduler}{extra}}}
pools:
  - name: gpus
    {pool}
    workload: training
"""
    )


def _build(stack: Stack) -> dict[str, Resource]:
    pools = {p.name: (f"np.{p.name}",) for p in stack.pools}
    cloud = CloudResult((), "cluster.k8s_provider", pools)
    return {r.address: r for r in sharing.build(stack, cloud)}


def _values(built: Mapping[str, Resource], release: str) -> dict[str, Any]:
    return dict(built[f"helm.{release}"].facts["values"])


def _get(values: Mapping[str, Any], dotted: str) -> Any:
    node: Any = values
    for part in dotted.split("."):
        node = node[part]
    return node


def _paths(values: Any, prefix: str = "") -> Iterator[str]:
    """Key paths of ``values``, not descending into affinities (Kubernetes structs)."""
    if isinstance(values, Mapping):
        for key, child in values.items():
            path = f"{prefix}{key}"
            yield path
            if key != "affinity":
                yield from _paths(child, path + ".")


# --------------------------------------------------------------------------- KAI


def test_production_kai_runs_two_leader_elected_replicas() -> None:
    """KAI v0.17.0: operator.replicaCount reaches every service through the Config CR's
    global.replicaCount (config_types.go SetDefaultsWhereNeeded); each passes --leader-elect
    above one replica; global.leaderElection is the operator's own flag (operator.yaml)."""
    values = _values(_build(_stack("production", "kai")), "kai-scheduler")
    assert values["operator"] == {"replicaCount": 2}
    assert values["global"]["leaderElection"] is True
    assert values["global"]["priorityClassName"] == scheduler_ha.PRIORITY_CLASS


def test_kai_pods_keep_off_spot_nodes_by_required_node_affinity() -> None:
    """Every component's node affinity refuses gpupool's spot label and the cloud's (AKS
    kubernetes.azure.com/scalesetpriority=spot); NotIn admits nodes without the label."""
    values = _values(_build(_stack("production", "kai")), "kai-scheduler")
    for where in ("global", "binder", "podgrouper"):
        terms = values[where]["affinity"]["nodeAffinity"][
            "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
        assert len(terms) == 1  # terms are ORed: one term, its expressions ANDed
        assert terms[0]["matchExpressions"] == [
            {"key": "gpupool.io/capacity", "operator": "NotIn", "values": ["spot"]},
            {"key": "kubernetes.azure.com/scalesetpriority", "operator": "NotIn",
             "values": ["spot"]},
        ]


def test_kai_replicas_spread_by_their_app_label() -> None:
    """The binder and pod grouper get their own anti-affinity; the scheduler, whose values have
    no scheduler.affinity, gets it through global.affinity (MergeAffinities: a service without
    an affinity of its own takes the global one)."""
    values = _values(_build(_stack("production", "kai")), "kai-scheduler")
    for where, app in (("global", KAI_APPS["scheduler"]), ("binder", KAI_APPS["binder"]),
                       ("podgrouper", KAI_APPS["podgrouper"])):
        terms = values[where]["affinity"]["podAntiAffinity"][
            "preferredDuringSchedulingIgnoredDuringExecution"]
        assert [t["podAffinityTerm"]["topologyKey"] for t in terms] == ["kubernetes.io/hostname"]
        assert terms[0]["podAffinityTerm"]["labelSelector"] == {"matchLabels": {"app": app}}
    assert "scheduler" not in values  # no key the chart's values do not declare


def test_replicas_spread_over_zones_when_the_stack_names_several() -> None:
    stack = _stack("production", "kai", provider=_AWS, pool="instanceType: p4d.24xlarge")
    values = _values(_build(stack), "kai-scheduler")
    terms = values["binder"]["affinity"]["podAntiAffinity"][
        "preferredDuringSchedulingIgnoredDuringExecution"]
    assert [t["podAffinityTerm"]["topologyKey"] for t in terms] == [
        "kubernetes.io/hostname", "topology.kubernetes.io/zone"]
    expressions = values["binder"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0]["matchExpressions"]
    # EKS managed node groups label spot nodes eks.amazonaws.com/capacityType=SPOT
    assert {"key": "eks.amazonaws.com/capacityType", "operator": "NotIn",
            "values": ["SPOT"]} in expressions
    plan = scheduler_ha.placement(stack)
    assert plan is not None and plan.spread_zones


@pytest.mark.cloud_sdks  # kubernetes-validate is a dev-only validator
def test_kai_binder_budget_and_priority_class_are_rendered() -> None:
    """KAI's operator makes budgets for the scheduler, pod grouper and admission only
    (PodDisruptionBudgetForKAIConfig's callers); gpupool renders the binder's."""
    built = _build(_stack("production", "kai"))
    pdb = built["k8s.poddisruptionbudget.kai-scheduler.binder"].manifest
    assert pdb is not None
    assert pdb["spec"] == {"maxUnavailable": 1, "selector": {"matchLabels": {"app": "binder"}}}
    pc = built["k8s.priorityclass.gpupool-scheduler"]
    assert pc.manifest is not None and pc.manifest["value"] == 1_000_000_000
    # the class exists before the pods that name it
    assert pc.address in built["helm.kai-scheduler"].depends_on
    # above every class a tenant's workloads run at
    assert max(PRIORITY_VALUES.values()) < pc.manifest["value"]
    assert validate_manifests([pdb, pc.manifest]) == []


def test_kai_ha_values_pass_the_values_schema() -> None:
    values = _values(_build(_stack("production", "kai")), "kai-scheduler")
    assert validate_values("kai-scheduler", values) == []


def test_non_production_keeps_one_replica_unless_asked() -> None:
    for env in ("development", "staging"):
        built = _build(_stack(env, "kai"))
        values = _values(built, "kai-scheduler")
        assert "operator" not in values and "leaderElection" not in values["global"]
        assert "k8s.priorityclass.gpupool-scheduler" not in built
        assert "k8s.poddisruptionbudget.kai-scheduler.binder" not in built
    asked = _values(_build(_stack("staging", "kai", ", schedulerHighAvailability: true")),
                    "kai-scheduler")
    assert asked["operator"] == {"replicaCount": 2}
    off = _build(_stack("production", "kai", ", schedulerHighAvailability: false"))
    assert "operator" not in _values(off, "kai-scheduler")


def test_default_scheduler_gets_nothing() -> None:
    stack = _stack("production", "default")
    assert not stack.cluster.scheduler_ha
    assert scheduler_ha.placement(stack) is None
    assert not [a for a in _build(stack) if "gpupool-scheduler" in a or "poddisruption" in a]


def test_clouds_name_the_labels_they_put_on_spot_nodes() -> None:
    """EKS managed node groups: eks.amazonaws.com/capacityType SPOT (Amazon EKS User Guide,
    managed node groups, capacity types); GKE: cloud.google.com/gke-spot and
    cloud.google.com/gke-preemptible "true" (GKE docs, Use Spot VMs; Preemptible VMs); AKS:
    kubernetes.azure.com/scalesetpriority spot (AKS docs, Add an Azure Spot node pool)."""
    assert clouds.get("aws").spot_node_labels == (("eks.amazonaws.com/capacityType", "SPOT"),)
    assert clouds.get("gcp").spot_node_labels == (
        ("cloud.google.com/gke-spot", "true"), ("cloud.google.com/gke-preemptible", "true"))
    assert clouds.get("azure").spot_node_labels == (
        ("kubernetes.azure.com/scalesetpriority", "spot"),)
    # AKS also taints spot nodes with the same key: the label and the taint agree
    spot_taint = clouds.get("azure").spot_taint
    assert spot_taint is not None and spot_taint[:2] == clouds.get("azure").spot_node_labels[0]


# --------------------------------------------------------------------------- HAMi


@pytest.mark.cloud_sdks  # kubernetes-validate is a dev-only validator
def test_production_hami_runs_two_leader_elected_replicas_with_a_budget() -> None:
    """HAMi 2.10.0 reads scheduler.replicas only with scheduler.leaderElect; its pods carry
    app.kubernetes.io/component: hami-scheduler and the chart's selector labels (name: hami,
    instance: the release, hami); the chart makes no PodDisruptionBudget."""
    built = _build(_stack("production", "hami", pool=(
        "nodeNames: [n1, n2]\n    gpu: {model: A100-SXM4-80GB, count: 8}"), provider=(
        "provider: {cloud: kubernetes}")))
    values = _values(built, "hami")
    assert values["scheduler"] == {"leaderElect": True, "replicas": 2}
    assert validate_values("hami", values) == []
    pdb = built["k8s.poddisruptionbudget.kube-system.hami-scheduler"].manifest
    assert pdb is not None
    assert pdb["spec"]["selector"]["matchLabels"] == {
        "app.kubernetes.io/component": "hami-scheduler",
        "app.kubernetes.io/name": "hami",
        "app.kubernetes.io/instance": "hami",
    }
    assert validate_manifests([pdb]) == []


def test_hami_placement_names_the_untainted_spot_pools() -> None:
    """HAMi's chart takes no node affinity: only a taint keeps its scheduler off spot nodes."""
    stack = _stack("production", "hami", provider=_AWS, pool=(
        "instanceType: g6.2xlarge\n    capacity: {type: spot, fallbackToOnDemand: true}"))
    placement = scheduler_ha.placement(stack)
    assert placement is not None and placement.open_spot_pools == ("gpus",)
    assert any("Not kept off the spot nodes of gpus" in line for line in placement.lines())


# --------------------------------------------------------------------------- plan


def test_plan_says_where_the_scheduler_runs() -> None:
    stack = _stack("production", "kai")
    result = make_plan(Base("empty", None, None), build(stack), stack)
    doc = to_json(result)["scheduler"]
    assert doc["highAvailability"] is True and doc["replicas"] == 2
    assert [d["name"] for d in doc["deployments"]] == list(KAI_APPS.values())
    assert {"deployment": "kai-scheduler/binder", "by": "gpupool"} in doc[
        "podDisruptionBudgets"]
    single = _stack("staging", "kai")
    lines = make_plan(Base("empty", None, None), build(single), single).scheduler
    assert lines is not None and "stops all GPU scheduling" in " ".join(lines.lines())


# --------------------------------------------------------------------------- chart facts


@pytest.mark.parametrize("chart", sorted(CHART_FACTS))
def test_ha_values_use_only_the_chart_facts_keys(chart: str) -> None:
    """Every key path gpupool's high availability sets is one of the chart facts above."""
    stack = (_stack("production", "kai") if chart == "kai-scheduler" else
             _stack("production", "hami", provider="provider: {cloud: kubernetes}",
                    pool="nodeNames: [n1]\n    gpu: {model: A100-SXM4-80GB, count: 8}"))
    ha = (scheduler_ha.kai_values(stack) if chart == "kai-scheduler"
          else scheduler_ha.hami_values(stack))
    leaves = {p for p in _paths(ha) if not isinstance(_get(ha, p), Mapping)
              or p.endswith("affinity")}
    assert leaves == set(CHART_FACTS[chart])


@pytest.mark.parametrize("chart", sorted(CHART_FACTS))
def test_chart_facts_match_the_upstream_values(chart: str) -> None:
    """Conformance: each key exists in the pinned chart's values.yaml with the default noted."""
    upstream = yaml.safe_load(shared_upstream(UPSTREAM_VALUES[chart]).read_text("utf-8"))
    for path, default in CHART_FACTS[chart].items():
        assert _get(upstream, path) == default, path


def test_kai_upstream_values_declare_no_scheduler_affinity() -> None:
    """Why the scheduler's spread rides on global.affinity: values.yaml v0.17.0 has no
    scheduler.affinity (its template reads one, which gpupool does not rely on)."""
    upstream = yaml.safe_load(
        shared_upstream(UPSTREAM_VALUES["kai-scheduler"]).read_text("utf-8"))
    assert "affinity" not in upstream["scheduler"]
    assert "affinity" in upstream["binder"] and "affinity" in upstream["podgrouper"]
