"""The GPU Operator's namespace on GKE: a pod quota sized for every pod it admits."""

from __future__ import annotations

import dataclasses

import pytest

from gpupool import assemble
from gpupool.facts.groups import reach
from gpupool.model import NodeRange, Stack
from gpupool.sharing import operator
from tests import upstream_facts
from tests.stacks import load_stack

QUOTA = "k8s.resourcequota.gpu-operator.gpu-operator-quota"


def _pods(stack: Stack) -> int:
    quota = assemble.build(stack).get(QUOTA)
    assert quota is not None and quota.manifest is not None
    return int(quota.manifest["spec"]["hard"]["pods"])


@pytest.mark.parametrize(
    "name",
    ["gcp-inference-sharing.yaml", "gcp-training-h100-mig.yaml", "sharing-gke-operator-driver"],
)
def test_gke_quota_admits_an_nfd_worker_on_every_node_and_the_operands_of_every_gpu_node(
    name: str,
) -> None:
    # gpu-operator v26.7.0 values.yaml (tests/upstream_facts/charts/gpu-operator.json): the
    # operand DaemonSets (daemonsets.priorityClassName), the operator and NFD
    # (node-feature-discovery.priorityClassName) all run at system-node-critical, which GKE
    # admits outside kube-system only within this quota; the NFD worker has no nodeSelector, so
    # it runs on every node, and a GKE Standard cluster holds up to 15,000 nodes (GKE docs,
    # "Quotas and limits"). NVIDIA's google-gke-gpu-operator-quota.yaml writes 100 only as an
    # example.
    chart = upstream_facts.chart("gpu-operator")
    for key in ("daemonsets", "operator", "node-feature-discovery"):
        assert chart.default(f"{key}.priorityClassName") == "system-node-critical"
    stack = load_stack(name)
    gpu_nodes = sum(reach(p, stack.cloud)[1] for p in stack.pools)
    want = 2 * 3 + 15_000 + operator.OPERANDS_PER_GPU_NODE * gpu_nodes
    assert _pods(stack) == operator.critical_pod_quota(stack) == want
    assert want > 100


def test_gke_quota_grows_with_the_pools() -> None:
    stack = load_stack("gcp-inference-sharing.yaml")
    pool = stack.pools[0]
    bigger = dataclasses.replace(pool, nodes=NodeRange(pool.nodes.min, pool.nodes.max + 10, 0))
    grown = dataclasses.replace(stack, pools=(bigger, *stack.pools[1:]))
    assert _pods(grown) - _pods(stack) == 10 * operator.OPERANDS_PER_GPU_NODE


def test_other_clouds_get_no_quota() -> None:
    for name in ("aws-inference-l4.yaml", "azure-kai-fair.yaml", "volcengine-a10.yaml"):
        assert assemble.build(load_stack(name)).get(QUOTA) is None
