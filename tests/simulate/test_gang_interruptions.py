"""A spot interruption of a gang over several nodes is one interruption of the job (issue 40).

What docs/workload.md (Checkpoints in a run) and docs/commands.md (simulate, Spot) say: the
simulated mean time between interruptions is the seconds jobs ran on a pool over the evictions
they met, "a gang counted once, on the pool of its first pod"; a job's record counts the spot
interruptions it suffered; the tenants' ``interrupted`` column counts pods evicted. A node's
interruption evicts its pods after the pool's ``drainSeconds`` (at most the cloud's notice, AWS
120 s: ``clouds.json``), and the gang goes back to the queue whole, so a node of the gang that
goes later finds nothing of it to evict.

The interruptions here are set by hand (``Planned`` pushes each node's ``INTERRUPT`` at a
chosen time instead of the seeded draws, which a rate of 0 turns off). Ten g6.xlarge spot
nodes at most (one L4 each), four ready at 0; one job of 4 pods x 1 GPU, 7,200 s, no
checkpoint (``startupSeconds`` alone turns the run's checkpoint part on):

* nodes 0 and 1 reclaimed together at 1,000 s: both drain to 1,060 s; the gang (nodes 0-3) is
  stopped once at 1,060 s, and node 1's eviction at the same instant finds none of it. Back in
  the queue it needs four nodes; two are free, two draining, so two are asked for and ready
  300 s later: it starts again at 1,360 s on nodes 2, 3, 4, 5;
* node 2 reclaimed at 3,000 s: the gang stops at 3,060 s; a node asked for then is ready at
  3,360 s, and the gang runs on nodes 3, 4, 5, 8 to 3,360 + 7,200 = 10,560 s.

Two interruptions of the job for three nodes reclaimed: the job's ``interruptions`` is 2, the
pool's too; the tenants' column counts 2 x 4 = 8 pods. The job ran 1,060 + 1,700 + 7,200 =
9,960 s on the pool, so its simulated MTBI is 9,960 / 2 = 4,980 s; the work redone is the two
evicted runs on 4 GPUs, (1,060 + 1,700) x 4 / 3,600 = 3.0667 GPU-hours.
"""

from __future__ import annotations

from typing import ClassVar

import pytest

from gpupool.simulate.engine import DONE, Outcome, Settings, Simulation
from gpupool.simulate.events import INTERRUPT
from gpupool.simulate.placement import Node
from gpupool.simulate.report import document, report
from tests.simulate.simstacks import job, workload
from tests.stacks import load_stack_text

STACK = (
    "apiVersion: gpupool.io/v1\nkind: GpuPoolStack\nmetadata: {name: cloud}\n"
    "provider: {cloud: aws, region: us-east-1, cluster: ml, settings: {subnetIds: "
    '[subnet-0a1b2c3d4e5f60718], nodeRoleArn: "arn:aws:iam::123456789012:role/gpu"}}\n'
    "pools:\n"
    "  - {name: s, instanceType: g6.xlarge, workload: training, nodes: {min: 4, max: 10},"
    " capacity: {type: spot}, startupSeconds: 60,"
    " interruption: {drainSeconds: 60, checkpoint: required}}\n"
)


class Planned(Simulation):
    """A run whose spot interruptions come at the times ``plan`` sets, node id -> seconds."""

    plan: ClassVar[dict[int, float]] = {}

    def _ready(self, node: Node) -> None:
        super()._ready(node)
        at = self.plan.get(node.id)
        if at is not None:
            self._push(at, INTERRUPT, node)


def _run(plan: dict[int, float]) -> Outcome:
    runner = type("Run", (Planned,), {"plan": plan})
    gang = job("g1", 0, 7200, gpus=1, pods=4, cpu=1, memory_gib=4)
    return runner(load_stack_text(STACK), workload(gang), Settings()).run()


def test_nodes_reclaimed_together_interrupt_the_gang_once() -> None:
    out = _run({0: 1000.0, 1: 1000.0, 2: 3000.0})
    [g] = out.gangs
    assert g.state == DONE and out.end == pytest.approx(10560.0)
    assert g.interruptions == 2
    assert out.checkpoints is not None
    pool = out.checkpoints.pools["s"]
    assert pool.interruptions == 2 and pool.job_seconds == pytest.approx(9960.0)
    doc = document(report(out))
    assert doc["tenants"][0]["interruptions"] == 8  # pods: the gang's 4, twice
    [figures] = doc["checkpoints"]["pools"]
    assert figures["mtbi_seconds"] == 4980.0 and figures["redone_gpu_hours"] == 3.0667


def test_a_second_node_of_the_gang_going_during_the_drain_finds_nothing_to_evict() -> None:
    # node 0 at 1,000 s (evicted at 1,060 s) and node 1 at 1,030 s (at 1,090 s): the gang
    # stops once, at 1,060 s, and starts again at 1,360 s on two free and two new nodes, none
    # draining; it runs to 1,360 + 7,200 = 8,560 s. One interruption over 1,060 + 7,200 s.
    out = _run({0: 1000.0, 1: 1030.0})
    [g] = out.gangs
    assert g.state == DONE and out.end == pytest.approx(8560.0)
    assert g.interruptions == 1
    assert out.checkpoints is not None
    pool = out.checkpoints.pools["s"]
    assert pool.interruptions == 1 and pool.job_seconds == pytest.approx(8260.0)
    assert document(report(out))["tenants"][0]["interruptions"] == 4
