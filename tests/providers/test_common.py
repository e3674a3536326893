"""The labels every cloud's node groups give their nodes (``gpupool.providers.common``).

``gpupool.io/capacity`` says a node group's capacity type, the same on every cloud, where the
clouds' own labels differ in key, values and presence (the documents each is read from are named
at ``CLOUD_LABEL``). It must agree with the capacity setting each cloud renders, which is what
makes the cloud write its own label.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from gpupool import providers
from gpupool.facts.names import CAPACITY_LABEL, POOL_LABEL
from gpupool.graph import Resource
from gpupool.model import Stack
from gpupool.providers import volcengine
from tests.stacks import load_stack

# Stacks with spot pools on every cloud that has them, split (EKS, GKE, AKS) and mixed (VKE).
SPOT_STACKS = [
    "aws-inference-l4",  # EKS: a spot pool with a base and fallback, two on-demand pools
    "gcp-inference-sharing",  # GKE: a spot pool with an on-demand base
    "azure-kai-fair",  # AKS: a spot pool with fallback
    "checks-spot-volcengine",  # VKE: a spot node pool with a base and stand-ins, an on-demand one
]


def _labels(res: Resource) -> dict[str, str]:
    """The node labels a node-pool resource's inputs give its nodes, whatever the cloud."""
    inputs = res.inputs
    if "node_labels" in inputs:  # AKS
        return dict(inputs["node_labels"])
    if "kubernetes_config" in inputs:  # VKE: {key, value} entries
        return {e["key"]: e["value"] for e in inputs["kubernetes_config"]["labels"]}
    if "node_config" in inputs:  # GKE
        return dict(inputs["node_config"]["labels"])
    return dict(inputs["labels"])  # EKS


# What each cloud itself labels a node of the rendered node group with, read from the inputs that
# decide it; None where the cloud labels no node with its capacity type.
# - EKS: "Amazon EKS adds the following Kubernetes label to all nodes in your managed node group
#   that specifies the capacity type: eks.amazonaws.com/capacityType: SPOT" (ON_DEMAND otherwise),
#   from the node group's capacityType (awsdocs/amazon-eks-user-guide,
#   doc_source/managed-node-groups.md, "Managed node group capacity types").
# - GKE: Spot VM nodes carry cloud.google.com/gke-spot=true (and
#   cloud.google.com/gke-provisioning=spot); preemptible VMs cloud.google.com/gke-preemptible,
#   which gpupool never renders (GKE docs, "About node pool auto-creation", Spot VM selection,
#   docs.cloud.google.com/kubernetes-engine/docs/concepts/node-auto-provisioning).
# - AKS: "A Spot node pool has the kubernetes.azure.com/scalesetpriority:spot label"; a regular
#   pool has none (MicrosoftDocs/azure-aks-docs articles/aks/spot-node-pool.md, ms.date
#   04/06/2025, Limitations).
# - VKE: its system node labels are cluster-name, machine-name, machinepool-name,
#   machinepool-type, node-name (cluster.vke.volcengine.com/...) and
#   machine.cluster.vke.volcengine.com/gpu-name: none names the capacity type (Volcengine docs
#   6460/1358690, "节点系统标签和污点说明", volcengine.com/docs/6460/1358690).
def _eks(inputs: dict[str, Any]) -> tuple[str, str] | None:
    return ("eks.amazonaws.com/capacityType", inputs["capacity_type"])


def _gke(inputs: dict[str, Any]) -> tuple[str, str] | None:
    return ("cloud.google.com/gke-spot", "true") if inputs["node_config"]["spot"] else None


def _aks(inputs: dict[str, Any]) -> tuple[str, str] | None:
    spot = inputs.get("scale_set_priority") == "Spot"
    return ("kubernetes.azure.com/scalesetpriority", "spot") if spot else None


CLOUD_LABEL = {"aws": _eks, "gcp": _gke, "azure": _aks}
SPOT_VALUES = {
    "eks.amazonaws.com/capacityType": {"SPOT": "spot", "ON_DEMAND": "on-demand"},
    "cloud.google.com/gke-spot": {"true": "spot"},
    "kubernetes.azure.com/scalesetpriority": {"spot": "spot"},
}


def _node_pools(stack: Stack) -> list[Resource]:
    return [r for r in providers.build(stack).resources if r.facts.get("kind") == "node-pool"]


@pytest.mark.parametrize("name", SPOT_STACKS)
def test_every_node_group_labels_its_capacity_type_as_the_cloud_does(name: str) -> None:
    stack = load_stack(name)
    pools = _node_pools(stack)
    assert {r.facts["capacity"] for r in pools} == {"spot", "on-demand"}
    for res in pools:
        labels = _labels(res)
        assert labels[POOL_LABEL] == res.facts["pool"]
        cloud = stack.provider.cloud
        if cloud == "volcengine":
            node = res.inputs["node_config"]
            dist = node.get("instances_distribution")
            mixes = dist is not None and (
                dist["on_demand_base_capacity"] > 0 or dist["compensate_with_on_demand"]
            )
            if mixes:  # one node pool of both kinds: no one label is true of all its nodes
                assert res.type == volcengine.SPOT_NODE_POOL
                assert CAPACITY_LABEL not in labels, res.address
            else:
                spot = node.get("spot_strategy") == volcengine.SPOT_STRATEGY
                assert labels[CAPACITY_LABEL] == ("spot" if spot else "on-demand")
            continue
        own = CLOUD_LABEL[cloud](res.inputs)
        want = SPOT_VALUES[own[0]][own[1]] if own is not None else "on-demand"
        assert labels[CAPACITY_LABEL] == want == res.facts["capacity"], res.address


def test_a_split_spot_pools_groups_carry_each_their_own_capacity() -> None:
    res = {r.address: r for r in _node_pools(load_stack("aws-inference-l4"))}
    spot = _labels(res["pool.batch-l4-spot.node_group"])
    od = _labels(res["pool.batch-l4-spot.on_demand_node_group"])
    assert (spot[CAPACITY_LABEL], od[CAPACITY_LABEL]) == ("spot", "on-demand")
    # the pool's other labels are the same on both groups
    assert {k: v for k, v in spot.items() if k != CAPACITY_LABEL} == {
        k: v for k, v in od.items() if k != CAPACITY_LABEL
    }


def test_a_pool_label_cannot_override_the_capacity_label() -> None:
    stack = load_stack("aws-inference-l4")
    (pool,) = [p for p in stack.pools if p.name == "batch-l4-spot"]
    lying = dataclasses.replace(pool, labels={**dict(pool.labels), CAPACITY_LABEL: "on-demand"})
    stack = dataclasses.replace(
        stack, pools=tuple(lying if p.name == pool.name else p for p in stack.pools)
    )
    res = {r.address: r for r in _node_pools(stack)}
    assert _labels(res["pool.batch-l4-spot.node_group"])[CAPACITY_LABEL] == "spot"


def test_existing_nodes_get_no_capacity_label() -> None:
    """Named nodes (``cloud: kubernetes``) are patched with the pool's labels only."""
    stack = load_stack("onprem-hami")
    patches = [r for r in providers.build(stack).resources if r.type.endswith("NodePatch")]
    assert patches
    for res in patches:
        assert CAPACITY_LABEL not in res.inputs["metadata"]["labels"]
