"""What the rendered in-cluster configuration does on a real cluster, item by item.

Each test names the upstream file or document the behaviour rests on. The rendered values are
read from the resource graph the program is rendered from (the same dicts the program passes to
``helm.v3.Release``), for the bundled example stacks.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpupool import assemble
from gpupool.graph import ResourceGraph
from gpupool.model import Stack
from gpupool.sharing import scheduler_ha
from tests.paths import EXAMPLES
from tests.stacks import load_stack


def _build(name: str) -> tuple[Stack, ResourceGraph]:
    stack = load_stack(name)
    return stack, assemble.build(stack)


def _values(graph: ResourceGraph, address: str) -> dict[str, Any]:
    release = graph.get(address)
    assert release is not None, address
    return dict(release.inputs["values"])


def _manifests(graph: ResourceGraph, kind: str) -> list[dict[str, Any]]:
    return [dict(r.manifest) for r in graph.resources if r.manifest and r.manifest["kind"] == kind]


@pytest.mark.parametrize("name", ["azure-kai-fair.yaml", "azure-mig-compact.yaml"])
def test_aks_operator_uses_aks_runtime(name: str) -> None:
    # NVIDIA cloud-native-docs gpu-operator/microsoft-aks.rst: "--set driver.enabled=false --set
    # toolkit.enabled=false --set operator.runtimeClass=nvidia-container-runtime"; AKS nodes
    # have no containerd runtime called "nvidia" (Azure AgentBaker containerd template).
    _, graph = _build(name)
    values = _values(graph, "helm.gpu-operator")
    assert values["operator"] == {"runtimeClass": "nvidia-container-runtime"}
    assert values["toolkit"] == {"enabled": False}


def test_kai_fraction_pods_get_the_aks_runtime() -> None:
    # KAI v0.17.0 values.yaml admission.gpuFractionRuntimeClassName (default "nvidia") is stamped
    # on every gpu-fraction pod by its admission webhook (runtime_enforcement.go).
    _, graph = _build("azure-kai-fair.yaml")
    values = _values(graph, "helm.kai-scheduler")
    assert values["admission"] == {"gpuFractionRuntimeClassName": "nvidia-container-runtime"}


def test_kai_fraction_runtime_left_at_chart_default_elsewhere() -> None:
    # The operator's own RuntimeClass is "nvidia" (gpu-operator v26.7.0 values
    # operator.runtimeClass), which is KAI's default too: nothing to set.
    _, graph = _build("gcp-training-h100-mig.yaml")
    assert "admission" not in _values(graph, "helm.kai-scheduler")


def test_hami_device_plugin_names_the_operator_runtime_class() -> None:
    # gpu-operator >= 25.10 enables CDI and stops making "nvidia" containerd's default runtime;
    # HAMi 2.10.0 values devicePlugin.runtimeClassName must name it (HAMi website PR #716).
    _, graph = _build("onprem-hami.yaml")
    assert _values(graph, "helm.hami")["devicePlugin"]["runtimeClassName"] == "nvidia"


@pytest.mark.parametrize("name", ["gcp-inference-sharing.yaml", "gcp-training-h100-mig.yaml"])
def test_gke_toolkit_reads_containerd_config_from_file(name: str) -> None:
    # NVIDIA cloud-native-docs PR #312 (google-gke.rst): on GKE 1.33+ set RUNTIME_CONFIG_SOURCE=file
    # in the toolkit container; gpu-operator v26.7.0 has no GKE handling of its own.
    _, graph = _build(name)
    env = _values(graph, "helm.gpu-operator")["toolkit"]["env"]
    assert {"name": "RUNTIME_CONFIG_SOURCE", "value": "file"} in env


def test_kai_cluster_autoscaling_on_when_a_fractional_pool_can_grow() -> None:
    # KAI v0.17.0 docs/gpu-sharing/autoscaling/README.md: fractional pods request no GPU, so the
    # cluster autoscaler never sees them unless global.clusterAutoscaling is true.
    stack, graph = _build("azure-kai-fair.yaml")
    fractional = [p for p in stack.pools if p.sharing.kind.scheduler_slots]
    assert any(p.nodes.max > p.nodes.min for p in fractional)
    assert _values(graph, "helm.kai-scheduler")["global"]["clusterAutoscaling"] is True


def test_kai_cluster_autoscaling_left_off_without_fractional_pools() -> None:
    _, graph = _build("gcp-training-h100-mig.yaml")
    assert "clusterAutoscaling" not in _values(graph, "helm.kai-scheduler")["global"]


def test_kai_queue_counts_mixed_mig_slices_by_compute() -> None:
    # KAI v0.17.0 pkg/scheduler/api/resource_info/gpu_resource_requirment.go GetGpusQuota:
    # nvidia.com/mig-<g>g.<m>gb counts g GPUs. One A100 cut {1g.10gb x2, 2g.20gb, 3g.40gb} is 7.
    _, graph = _build("aws-training-compact.yaml")
    queues = {q["metadata"]["name"]: q["spec"] for q in _manifests(graph, "Queue")}
    assert queues["experiments"]["resources"]["gpu"]["quota"] == 4 * 7


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("*.yaml")))
def test_namespaces_carry_no_kai_queue_label(name: str) -> None:
    # KAI v0.17.0 default_grouper.go CalcPodGroupQueue reads the queue from the pod's top owner,
    # the pod, or its project label; never from the namespace.
    _, graph = _build(name)
    for ns in _manifests(graph, "Namespace"):
        assert "kai.scheduler/queue" not in ns["metadata"].get("labels", {})


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("*.yaml")))
def test_priority_classes_mention_kai_only_under_kai(name: str) -> None:
    # KAI v0.17.0 docs/priority/README.md: priority >= 100 is non-preemptible and stays within
    # quota, below 100 preemptible; that holds only where KAI schedules the pods, so a stack
    # without KAI must not describe its PriorityClasses in KAI's terms.
    # The scheduler's own class (sharing.scheduler_ha) keeps its pods from preemption whatever
    # the scheduler, and speaks of no tenant priority.
    stack, graph = _build(name)
    for pc in _manifests(graph, "PriorityClass"):
        if pc["metadata"]["name"] == scheduler_ha.PRIORITY_CLASS:
            assert "KAI" not in pc["description"]
            continue
        assert ("KAI" in pc["description"]) == (stack.cluster.scheduler == "kai")
