"""Where each scheduler puts a pod, on small hand-worked cases, each following its source."""

from __future__ import annotations

from gpupool.simulate.engine import Outcome, simulate
from tests.simulate.simstacks import job, lab, workload


def _node_of(outcome: Outcome, name: str) -> str:
    gang = next(g for g in outcome.gangs if g.job.name == name)
    assert gang.first_start is not None, gang.reason
    return gang.last_nodes[0]


def test_kube_scheduler_least_allocated_is_gpu_blind() -> None:
    """kube-scheduler's default score is LeastAllocated over cpu and memory plus
    BalancedAllocation, GPUs unscored (kubernetes v1.31 pkg/scheduler/framework/plugins/
    noderesources/least_allocated.go, balanced_allocation.go). n1 has its GPUs busy but its CPU
    free; n2 the reverse; a 1-GPU pod goes where CPU and memory are freest: n1, if a GPU is left.
    """
    stack = lab(
        "  - {name: a, nodeNames: [n1, n2], gpu: {model: L4, count: 4},"
        " host: {memoryGiB: 64, vcpus: 16}}\n"
    )
    out = simulate(stack, workload(
        job("gpu-heavy", 0, 9000, gpus=3, cpu=1, memory_gib=1),  # lands on n1 (tie: first)
        job("cpu-heavy", 1, 9000, cpu=12, memory_gib=48),  # n2 has more free CPU then
        job("probe", 2, 60, gpus=1, cpu=1, memory_gib=1),
    ))
    assert _node_of(out, "gpu-heavy") == "a/0"
    assert _node_of(out, "cpu-heavy") == "a/1"
    # n1: 1 GPU left, CPU 15/16 free; n2: 4 GPUs free, CPU 4/16 free -> n1
    assert _node_of(out, "probe") == "a/0"


def test_kai_binpack_fills_the_fullest_node_and_shares_gpus() -> None:
    """KAI v0.17.0 binpack: nodeplacement/pack.go scores the node with the fewest non-allocated
    GPUs highest; gpusharingorder adds 1000 to a node with a shared GPU the fraction fits on, and
    gpupack puts it on that GPU: two 0.5 fractions share one GPU."""
    stack = lab(
        "  - {name: a, nodeNames: [n1, n2], gpu: {model: L4, count: 4},"
        " sharing: {mode: fractional, fractional: {slotsPerGpu: 2}}}\n",
        scheduler="kai",
    )
    out = simulate(stack, workload(
        job("w1", 0, 9000, gpus=2),  # n1 (tie: first)
        job("w2", 1, 9000, gpus=1),  # n1 again: fewest non-allocated GPUs (2 < 4)
        job("f1", 2, 9000, fraction=0.5),  # n1, its last GPU
        job("f2", 3, 9000, fraction=0.5),  # shares f1's GPU (gpusharingorder)
        job("w3", 4, 9000, gpus=1),  # n1 is full: n2
    ))
    assert [_node_of(out, n) for n in ("w1", "w2", "f1", "f2", "w3")] == [
        "a/0", "a/0", "a/0", "a/0", "a/1",
    ]
    f1 = next(g for g in out.gangs if g.job.name == "f1")
    f2 = next(g for g in out.gangs if g.job.name == "f2")
    assert f1.last_devices == f2.last_devices


def test_hami_binpacks_nodes_and_spreads_gpus() -> None:
    """HAMi 2.10.0 defaults: nodeSchedulerPolicy binpack (pkg/scheduler/scheduler.go Filter sorts
    node_policy.go's scores ascending and takes the last: the most used node) and
    gpuSchedulerPolicy spread (gpu_policy.go scores, sorted descending, Fit takes from the end:
    the least used GPU). Two 1-slot pods on the same node land on different GPUs."""
    stack = lab(
        "  - {name: a, nodeNames: [n1, n2], gpu: {model: A100-SXM4-80GB, count: 2},"
        " sharing: {mode: fractional, fractional: {slotsPerGpu: 4, memoryGiB: 20}}}\n",
        scheduler="hami",
    )
    out = simulate(stack, workload(
        job("p1", 0, 9000, gpu_memory_gib=20),
        job("p2", 1, 9000, gpu_memory_gib=20),
        job("p3", 2, 9000, gpu_memory_gib=20),
    ))
    nodes = [_node_of(out, n) for n in ("p1", "p2", "p3")]
    assert nodes == ["a/0", "a/0", "a/0"]  # binpack: the used node wins
    devs = [next(g for g in out.gangs if g.job.name == n).last_devices for n in ("p1", "p2", "p3")]
    assert devs[0] != devs[1]  # spread: p2 takes the other, empty GPU
    assert devs[2][0] in (devs[0][0], devs[1][0])
