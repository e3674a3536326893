"""Checkpoints in a plan (``gpupool/plan/checkpoint.py``, ``gpupool/views/plan_checkpoint.py``).

The plan shows, per pool and per tenant that states one, the declared interval beside Daly's and
Young's optimum with the GPU-hours a day between them, and the downtime part by part; the
figures are the ones validate warns on (tests/facts/test_checkpoint.py works them by hand).
"""

from __future__ import annotations

import json

from gpupool import plan
from gpupool.assemble import build
from gpupool.views import plan as plan_view
from tests.stacks import load_stack


def _plan() -> plan.PlanResult:
    stack = load_stack("checkpoint-spot-kai")
    return plan.make_plan(plan.Base("empty", None, None), build(stack), stack)


def test_the_plan_has_a_row_per_pool_and_tenant_that_states_one() -> None:
    result = _plan()
    # the pool's own, then tenant batch (its own checkpoint) on it; research states nothing
    assert [(p.pool, p.tenant) for p in result.checkpoints] == [("train", None),
                                                                ("train", "batch")]
    pool, batch = result.checkpoints
    assert pool.interval is not None and batch.interval is not None
    assert round(pool.interval.optimum_seconds) == 2900
    # batch: a 100 s write at M 72,000 s: Young sqrt(14,400,000) = 3794.7
    assert round(batch.interval.young_seconds, 1) == 3794.7
    assert (pool.downtime.total_seconds, batch.downtime.total_seconds) == (640, 670)
    assert pool.grace_seconds == 120


def test_text_json_and_markdown_carry_the_same_figures() -> None:
    result = _plan()
    text = plan_view.render(result, "text").result
    assert "Checkpoints (interval against the optimum" in text
    assert "  train  -       1,800 s  60 s   2,900 s         2,939 s  4.6%" in text
    assert "  train  -       120 s  10 s          300 s     120 s    90 s     640 s  900 s" in text
    doc = json.loads(plan_view.render(result, "json").result)
    first = doc["checkpoints"][0]
    assert first["downtime"]["parts"] == {"drain": 120.0, "rescheduling": 10.0,
                                          "scale-up": 300.0, "startup": 120.0, "restore": 90.0}
    assert first["downtime"]["totalSeconds"] == 640.0 and first["downtime"]["over"] is False
    assert first["interval"]["gpus"] == 32 and first["interval"]["off"] is False
    assert first["terminationGracePeriodSeconds"] == 120
    markdown = plan_view.render(result, "markdown").result
    assert "#### Checkpoints (interval against the optimum)" in markdown
    assert "| train | batch | 120 s | 10 s | 300 s | 120 s | 120 s | 670 s | 900 s |" in markdown


def test_a_stack_without_checkpoints_shows_no_section() -> None:
    stack = load_stack("checks-spot-aws")
    result = plan.make_plan(plan.Base("empty", None, None), build(stack), stack)
    assert result.checkpoints == ()
    assert "Downtime" not in plan_view.render(result, "text").result
    assert json.loads(plan_view.render(result, "json").result)["checkpoints"] == []
