"""A plan that runs a simulation counts the downtime's scale-up at the share the run measured.

Issue 40, item 4: the downtime's node scale-up counts at "the share of interruptions that find
no free slot (simulated share)"; ``validate``'s check keeps the worst case (the whole 300 s,
cluster-autoscaler's FAQ). Hand-worked on five g6.xlarge spot nodes ready at 0 (one L4 each,
at most ten), one job of 4 pods x 1 GPU for 7,200 s, ``drainSeconds: 60``,
``startupSeconds: 60``, a 400 s budget, the interruptions pushed by hand
(``tests/simulate/test_gang_interruptions.Planned``):

* node 0 reclaimed at 1,000 s: the gang (nodes 0-3) is evicted at 1,060 s; node 4 is free and
  ready, so it is placed again at once on nodes 1-4: no scale-up;
* node 2 reclaimed at 3,000 s: evicted at 3,060 s, three ready nodes are free (1, 3, 4), so
  nodes are asked for and ready at 3,360 s: it is placed on 1, 3, 4 and node 5, asked for
  after its eviction: it waited for a scale-up.

One of the two evicted jobs placed again waited: the share is 1 / 2, so the plan's scale-up is
300 x 0.5 = 150 s and the downtime drain 60 + rescheduling 10 + 150 + startup 60 + restore 0
= 280 s, against validate's 60 + 10 + 300 + 60 = 430 s. The run's own measured downtimes: 0 +
60 = 60 s and 300 + 60 = 360 s.
"""

from __future__ import annotations

import json

import pytest

from gpupool import plan
from gpupool.assemble import build
from gpupool.simulate.engine import Outcome, Settings
from gpupool.simulate.report import report
from gpupool.spec.checks import checkpoint as checks
from gpupool.usecases.plan import with_simulated_downtime
from gpupool.views import plan as plan_view
from tests.simulate.simstacks import job, workload
from tests.simulate.test_gang_interruptions import Planned
from tests.stacks import load_stack_text

STACK = (
    "apiVersion: gpupool.io/v1\nkind: GpuPoolStack\nmetadata: {name: cloud}\n"
    "provider: {cloud: aws, region: us-east-1, cluster: ml, settings: {subnetIds: "
    '[subnet-0a1b2c3d4e5f60718], nodeRoleArn: "arn:aws:iam::123456789012:role/gpu"}}\n'
    "pools:\n"
    "  - {name: s, instanceType: g6.xlarge, workload: training, nodes: {min: 5, max: 10},"
    " capacity: {type: spot}, startupSeconds: 60, maxDowntimeSeconds: 400,"
    " interruption: {drainSeconds: 60, checkpoint: required}}\n"
)


def _run() -> Outcome:
    runner = type("Run", (Planned,), {"plan": {0: 1000.0, 2: 3000.0}})
    gang = job("g1", 0, 7200, gpus=1, pods=4, cpu=1, memory_gib=4)
    return runner(load_stack_text(STACK), workload(gang), Settings()).run()


def test_the_run_counts_the_evicted_jobs_that_waited_for_a_node() -> None:
    out = _run()
    assert out.checkpoints is not None
    pool = out.checkpoints.pools["s"]
    assert (pool.returns, pool.scaled_up) == (2, 1)
    assert [d for d, _ in pool.downtimes] == [pytest.approx(60.0), pytest.approx(360.0)]
    figures = report(out).checkpoints
    assert figures is not None and figures.pools[0].no_slot_share == 0.5


def test_the_plan_counts_the_scale_up_at_the_simulated_share() -> None:
    stack = load_stack_text(STACK)
    static = plan.make_plan(plan.Base("empty", None, None), build(stack), stack)
    [before] = static.checkpoints
    assert before.downtime.scale_up_seconds == 300 and before.downtime.total_seconds == 430
    assert before.downtime.over  # 430 s over the 400 s budget, as validate says
    result = with_simulated_downtime(stack, static, report(_run()))
    [after] = result.checkpoints
    assert after.no_slot == (1, 2) and after.downtime.no_slot_share == 0.5
    assert after.downtime.scale_up_seconds == 150 and after.downtime.total_seconds == 280
    assert not after.downtime.over
    text = plan_view.render(result, "text").result
    assert ("  s     -       60 s   10 s          150 s     60 s     0 s      280 s  400 s"
            in text.splitlines())
    assert ("(the scale-up counts at the share of evicted jobs the simulation placed again on "
            "a node not ready when they were evicted (s 1 of 2))") in text
    assert "s 1 of 2" in plan_view.render(result, "markdown").result
    doc = json.loads(plan_view.render(result, "json").result)
    assert doc["checkpoints"][0]["downtime"]["noSlotShare"] == 0.5
    # validate's check stays the worst case
    [warned] = [d for d in checks.run(stack) if d.code == "checkpoint.downtime-over-budget"]
    assert "expected to take 430 s" in warned.summary


def test_a_pool_no_evicted_job_came_back_on_keeps_the_worst_case() -> None:
    stack = load_stack_text(STACK)
    static = plan.make_plan(plan.Base("empty", None, None), build(stack), stack)
    quiet = type("Run", (Planned,), {"plan": {}})(
        stack, workload(job("g1", 0, 600, gpus=1, pods=4, cpu=1, memory_gib=4)),
        Settings()).run()
    result = with_simulated_downtime(stack, static, report(quiet))
    assert result.checkpoints == static.checkpoints
    assert "how often" not in plan_view.render(result, "text").result
    assert "counts in full" in plan_view.render(result, "text").result
