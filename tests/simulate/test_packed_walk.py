"""KAI binpack's choice over all of a pod's pools at once (``placement.choose_packed``).

A pod that may use several pools is placed by one walk over every pool's busy nodes, merged by
(non-allocated GPUs, id), and each pool's first empty node: the node score of KAI v0.17.0
(``pkg/scheduler/plugins/nodeplacement/pack.go``: the fewest non-allocated GPUs wins; the cpu
strategy on non-allocated CPU for a pod asking no GPU) and the GPU-sharing bonus
(``pkg/scheduler/plugins/gpusharingorder/gpusharingorder.go``: +1000 for a node with a shared
GPU the fraction fits on) compare across pools, so the best node of all the pools is the best
of one walk. Each case is worked by hand on a lab cluster of existing nodes, and the plain
scan (``placement.choose`` per pool, ``Simulation.packed`` off) must give the same nodes.
"""

from __future__ import annotations

import pytest

from gpupool.simulate.engine import Simulation
from tests.simulate.simstacks import job, lab, workload

# eight: 1 node of 8 GPUs (32 vCPUs), two: 2 nodes of 2 GPUs (16 vCPUs), both sharing by
# fraction; whole: 1 node of 4 GPUs (24 vCPUs), not shared. Node ids follow the pools' order.
PODS = (
    "  - {name: eight, nodeNames: [e1], gpu: {model: L4, count: 8},"
    " host: {vcpus: 32, memoryGiB: 128},"
    " sharing: {mode: fractional, fractional: {slotsPerGpu: 4}}}\n"
    "  - {name: two, nodeNames: [t1, t2], gpu: {model: L4, count: 2},"
    " host: {vcpus: 16, memoryGiB: 64},"
    " sharing: {mode: fractional, fractional: {slotsPerGpu: 4}}}\n"
    "  - {name: whole, nodeNames: [w1], gpu: {model: L4, count: 4},"
    " host: {vcpus: 24, memoryGiB: 96}}\n"
)


def _nodes(packed: bool) -> dict[str, tuple[str, ...]]:
    """Run the jobs (none finishes within the run's first hours) and say where each went."""
    jobs = (
        # pinned: the first node of its pool (all empty)
        job("j0", 0, 36000, fraction=0.5, cpu=1, memory_gib=1, pool="eight"),
        job("j1", 1, 36000, gpus=1, cpu=1, memory_gib=1, pool="two"),
        # e1 (7.5 free) has a shared GPU with 0.5 free and earns the bonus; t1 (1 free, its
        # used GPU wholly taken) does not: the bonus wins over fewer free GPUs
        job("j2", 2, 36000, fraction=0.5, cpu=1, memory_gib=1),
        # fewest non-allocated: t1 (1) over t2, empty (2), w1, empty (4), and e1 (7)
        job("j3", 3, 36000, gpus=1, cpu=1, memory_gib=1),
        # t1 is full: the empty t2 (2 free) of the same pool beats w1 (4) and e1 (7)
        job("j4", 4, 36000, gpus=2, cpu=1, memory_gib=1),
        # no GPU: the least non-allocated CPU that fits 15: t2 (15 free) over w1 (24) and e1
        # (30); t1 has less (14) but not enough
        job("j5", 5, 36000, cpu=15, memory_gib=1),
        # 20 vCPUs: only eight and whole hold that many; w1 (4 free) over e1 (7)
        job("j6", 6, 36000, gpus=1, cpu=20, memory_gib=1),
    )
    sim = Simulation(lab(PODS, scheduler="kai"), workload(*jobs))
    sim.packed = packed
    out = sim.run()
    return {g.job.name: g.last_nodes for g in out.gangs}


@pytest.mark.parametrize("packed", [True, False], ids=["walk", "scan"])
def test_one_walk_over_the_pools_places_as_kai_binpack(packed: bool) -> None:
    assert _nodes(packed) == {
        "j0": ("eight/0",), "j1": ("two/0",), "j2": ("eight/0",), "j3": ("two/0",),
        "j4": ("two/1",), "j5": ("two/1",), "j6": ("whole/0",),
    }
