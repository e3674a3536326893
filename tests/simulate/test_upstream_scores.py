"""kube-scheduler's and HAMi's node and GPU scores, held to their own tests' tables.

Each case restates, in this project's words and at a scale a stack can state (cores and GiB for
KAI's and Kubernetes' raw figures, the ratios unchanged), an entry of:

* kubernetes ``pkg/scheduler/framework/plugins/noderesources/least_allocated_test.go``
  (``TestLeastAllocatedScoringStrategy``) and ``balanced_allocation_test.go``
  (``TestNodeResourcesBalancedAllocation``): gpupool's default score is their sum
  (``placement._least_allocated``), here split by working the balanced part by hand;
* HAMi v2.10.0 ``pkg/scheduler/policy/node_policy_test.go`` (``TestComputeDefaultScore``,
  ``TestLess``) and ``gpu_policy_test.go`` (``TestDeviceUsageList_Less``).

Kubernetes truncates each score to a whole number; gpupool keeps the float, so the checks are
on the whole part and on the order the scores put the nodes in.
"""

from __future__ import annotations

import math

import pytest

from gpupool.simulate.cluster import cluster_of
from gpupool.simulate.demand import Demand, demand
from gpupool.simulate.placement import Node, _hami_devices, _hami_node_score, _least_allocated
from tests.simulate.simstacks import job, lab


def _node(cpu: int, mem: int, used_cpu: float = 0, used_mem: float = 0) -> Node:
    """A node of ``cpu`` cores and ``mem`` GiB with ``used_*`` already requested."""
    stack = lab(f"  - {{name: a, nodeNames: [n1], gpu: {{model: L4, count: 1}},"
                f" host: {{vcpus: {cpu}, memoryGiB: {mem}}}}}\n")
    pm = cluster_of(stack).pools[0]
    node = Node(0, pm, pm.groups[0], 0, 0.0)
    node.cpu_free -= used_cpu
    node.mem_free -= used_mem
    return node


def _pod(node: Node, cpu: float, mem: float) -> Demand:
    d = demand(job("p", cpu=cpu, memory_gib=mem), node.pm)
    assert isinstance(d, Demand)
    return d


def _balanced(node: Node, d: Demand) -> float:
    # balanced_allocation.go with two resources: (1 - |cpu fraction - memory fraction| / 2) x 100
    cpu = 1 - (node.cpu_free - d.cpu) / node.pm.cpu
    mem = 1 - (node.mem_free - d.memory_gib) / node.pm.memory_gib
    return (1 - abs(cpu - mem) / 2) * 100


# (test name, [(cpu, memory, used cpu, used memory) per node], pod (cpu, memory),
#  LeastAllocated scores, BalancedAllocation scores, as the Kubernetes tables state them)
K8S = [
    ("nothing scheduled, resources requested, differently sized nodes",
     [(4, 10, 0, 0), (6, 10, 0, 0)], (3, 5), [37, 50], [87, 100]),
    ("resources requested, pods scheduled with resources",
     [(10, 20, 3, 0), (10, 20, 3, 5)], (3, 5), [57, 45], [82, 95]),
    ("resources requested, pods scheduled with resources, differently sized nodes",
     [(10, 20, 3, 0), (10, 50, 3, 5)], (3, 5), [57, 60], [82, 80]),
]


@pytest.mark.parametrize(("name", "nodes", "pod", "least", "balanced"), K8S,
                         ids=[c[0] for c in K8S])
def test_kube_scheduler_scores_follow_the_kubernetes_tables(
        name: str, nodes: list[tuple[int, int, float, float]], pod: tuple[float, float],
        least: list[int], balanced: list[int]) -> None:
    """Both tables' entries of one name share their nodes, pods and request."""
    built = [_node(*n) for n in nodes]
    reqs = [_pod(n, *pod) for n in built]
    totals = [_least_allocated(n, d) for n, d in zip(built, reqs, strict=True)]
    parts = [_balanced(n, d) for n, d in zip(built, reqs, strict=True)]
    assert [math.floor(b + 1e-9) for b in parts] == balanced
    assert [math.floor(t - b + 1e-9) for t, b in zip(totals, parts, strict=True)] == least
    # and the node the sum prefers is the one the whole-number sum prefers
    whole = [a + b for a, b in zip(least, balanced, strict=True)]
    if whole[0] != whole[1]:
        assert (totals[0] > totals[1]) == (whole[0] > whole[1])


def _hami_node(slots_used: list[int], mem_left: list[float], cores_left: list[float]) -> Node:
    stack = lab("  - {name: a, nodeNames: [n1], gpu: {model: A100-SXM4-80GB, count: 2},"
                " sharing: {mode: fractional, fractional: {slotsPerGpu: 4, memoryGiB: 20}}}\n",
                scheduler="hami")
    pm = cluster_of(stack).pools[0]
    node = Node(0, pm, pm.groups[0], 0, 0.0)
    for i, used in enumerate(slots_used):
        node.dev_free[i] -= used
        node.dev_mem[i] = mem_left[i]
        node.dev_cores[i] = cores_left[i]
    return node


def test_hami_node_score_sums_use_over_all_gpus() -> None:
    """node_policy_test.go, TestComputeDefaultScore, "Test with devices": 10 x (slots used over
    slots + cores used over cores + memory used over memory), each summed over the node's GPUs
    first. Restated on 2 GPUs of 4 slots: 1 and 3 slots used (4 of 8: 0.5), every core and
    every GiB used (1 and 1): 10 x 2.5 = 25. A node with nothing used scores 0."""
    full = _hami_node([1, 3], [0.0, 0.0], [0.0, 0.0])
    assert _hami_node_score(full) == pytest.approx(25.0)
    assert _hami_node_score(_hami_node([0, 0], [80.0, 80.0], [100.0, 100.0])) == 0.0


def test_hami_binpack_prefers_the_higher_node_score() -> None:
    """node_policy_test.go, TestLess, "Default strategy (Binpack), i score lower": binpack sorts
    nodes ascending and Filter takes the last, so the more used node wins."""
    busy = _hami_node([2, 0], [40.0, 80.0], [50.0, 100.0])
    idle = _hami_node([0, 0], [80.0, 80.0], [100.0, 100.0])
    assert _hami_node_score(busy) > _hami_node_score(idle)


def test_hami_spread_puts_a_pod_on_the_least_used_gpu() -> None:
    """gpu_policy_test.go, TestDeviceUsageList_Less, "Spread: score primary, higher score sorts
    first", with device.go's Fit taking from the end of the sorted list: the GPU scored lower
    (less used) is taken. GPU 0 has 2 of 4 slots and half its memory used, GPU 1 nothing: a
    one-slot pod of 10 GiB goes on GPU 1."""
    node = _hami_node([2, 0], [40.0, 80.0], [100.0, 100.0])
    d = demand(job("p", gpu_memory_gib=10), node.pm)
    assert isinstance(d, Demand)
    assert _hami_devices(node, d) == (1,)
