"""Checkpoints in a run (issue 40): resume, the split of GPU-hours lost, MTBI and downtime.

Hand-worked on one node of one GPU: a low-priority job of 3600 s of work that checkpoints every
1000 s of work (write 100 s, restore 50 s) is evicted twice by critical jobs (kube-scheduler's
DefaultPreemption evicts a lower priority at once); the figures are worked out in each test's
comment. Properties over generated workloads follow.
"""

from __future__ import annotations

import ast
import dataclasses
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpupool.simulate.engine import DONE, GAVE_UP_STATE, Gang, Outcome, Settings, simulate
from gpupool.simulate.jobs import Workload
from gpupool.simulate.report import document, report
from gpupool.simulate.resume import Plan, run_seconds, split, writes
from gpupool.simulate.tenancy import Tenancy
from gpupool.views.simulate import render
from tests.paths import FIXTURES
from tests.simulate.simstacks import job, lab, workload
from tests.simulate.test_parts import PARTS, _part_class
from tests.simulate.test_properties import STACKS, workloads
from tests.stacks import load_stack_text

ONE_GPU = "  - {{name: a, nodeNames: [n1], gpu: {{model: L4, count: 1}}{extra}}}\n"
BLOCK = (", checkpoint: {everySeconds: 1000, writeSeconds: 100, restoreSeconds: 50},"
         " maxDowntimeSeconds: 300, startupSeconds: 60")


def _gang(out: Outcome, name: str) -> Gang:
    return next(g for g in out.gangs if g.job.name == name)


def _evicted_twice(extra: str, **ckpt: float) -> Outcome:
    stack = lab(ONE_GPU.format(extra=extra), admission="off")
    return simulate(stack, workload(
        job("ck", 0, 3600, gpus=1, priority="low", **ckpt),
        job("hi1", 1500, 200, gpus=1, priority="critical"),
        job("hi2", 2800, 100, gpus=1, priority="critical"),
    ))


def test_the_run_arithmetic_on_a_worked_example() -> None:
    """3600 s of work every 1000 s: writes after 1000, 2000 and 3000 (not at the end)."""
    plan = Plan(1000, 100, 50)
    assert writes(3600, 1000) == 3 and writes(3000, 1000) == 2 and writes(0, 1000) == 0
    assert run_seconds(3600, plan, 0) == 3900
    assert run_seconds(2600, plan, 50) == 50 + 2600 + 200
    # 1500 s in: one interval of 1000 s saved after its write (1100 s), 400 s since
    part = split(1500, 3600, plan, 0)
    assert (part.saved, part.redone, part.write, part.restore) == (1000, 400, 100, 0)
    # 1100 s into a run that restores first: 50 s restore, 1000 s work, 50 s of a write
    part = split(1100, 2600, plan, 50)
    assert (part.saved, part.redone, part.write, part.restore) == (0, 1000, 50, 50)
    # stopped while restoring: nothing but restore
    assert split(20, 2600, plan, 50).restore == 20


def test_a_job_evicted_twice_resumes_from_its_latest_checkpoint() -> None:
    """ck starts at 0; its run is 3600 + 3 writes x 100 = 3900 s.
    hi1 at 1500 evicts it: 1000 s saved (written by 1100), 400 s redone, 100 s written.
    hi1 ends at 1700; ck resumes from 1000 s: restore 50, then 2600 s of work, 2 writes (run
    2850). hi2 at 2800 evicts it 1100 s in: 50 restore, 1000 work, 50 s into its write, which
    saves nothing: 1000 s redone, 50 written, 50 restored; it still has 1000 s saved.
    hi2 ends at 2900; ck resumes from 1000 s again and ends at 2900 + 2850 = 5750, writing
    200 s and restoring 50 s on the way.
    Redone 400 + 1000 = 1400 s; written 100 + 50 + 200 = 350 s; restored 50 + 50 = 100 s.
    """
    out = _evicted_twice(BLOCK)
    ck = _gang(out, "ck")
    assert ck.state == DONE and ck.preemptions == 2
    assert out.end == 5750
    assert ck.gpu_seconds_lost == pytest.approx(1400 + 350 + 100)
    run = out.checkpoints
    assert run is not None
    lost = run.pools["a"].lost
    assert (lost.redone, lost.write, lost.restore) == pytest.approx((1400, 350, 100))
    assert run.tenants["-"].redone == pytest.approx(1400)
    # what it used is its work and what it lost: 1500 + 1100 + 2850
    assert out.tenants["-"].gpu_seconds == pytest.approx(5450 + 200 + 100)


def test_the_row_columns_override_the_pool_block() -> None:
    """The same job with its columns and no stack block runs the same way."""
    out = _evicted_twice("", checkpoint_every=1000, checkpoint_write=100, checkpoint_restore=50)
    assert out.end == 5750
    assert _gang(out, "ck").gpu_seconds_lost == pytest.approx(1850)


def test_a_job_without_checkpoints_loses_every_evicted_run() -> None:
    """No checkpoint: evicted at 1500 (1500 s lost) and at 2800 (2800 - 1700 = 1100 s lost),
    it starts again from zero at 2900 and ends at 6500; all of it is redone work."""
    out = _evicted_twice(", maxDowntimeSeconds: 300")
    ck = _gang(out, "ck")
    assert out.end == 6500 and ck.gpu_seconds_lost == 2600
    run = out.checkpoints
    assert run is not None
    lost = run.pools["a"].lost
    assert (lost.redone, lost.write, lost.restore) == (2600, 0, 0)


def test_the_report_shows_the_split_mtbi_and_downtime() -> None:
    """MTBI: jobs ran 5450 (ck) + 200 + 100 s over 2 interruptions: 2875 s. Daly's optimum for
    a 100 s write at that MTBI: sqrt(2 x 100 x 2875) = 758.3 (Young), x (1 + sqrt(x)/3 + x/9)
    - 100 with x = 100 / 5750, 693.1. Downtimes: evicted 1500, back at 1700: 200 + 60 startup
    + 50 restore = 310 > 300 (over); evicted 2800, back 2900: 210 (within)."""
    r = report(_evicted_twice(BLOCK))
    doc = document(r)["checkpoints"]
    pool = doc["pools"][0]
    assert pool["mtbi_seconds"] == 2875.0 and pool["interruptions"] == 2
    assert pool["intervals"] == [{"tenant": "-", "every_seconds": 1000.0, "write_seconds": 100.0,
                                  "young_seconds": 758.3, "optimum_seconds": 693.1}]
    assert pool["downtime"] == {"budget_seconds": [300.0], "interruptions": 2, "over": 1,
                                "never_back": 0, "share_over": 0.5, "worst_seconds": 310.0}
    assert doc["tenants"][0]["lost_gpu_hours"] == round(1850 / 3600, 4)
    assert r.tenants[0].gpu_hours_lost == pytest.approx(1850 / 3600)


def test_a_run_without_checkpoints_has_no_section() -> None:
    out = simulate(lab(ONE_GPU.format(extra=""), admission="off"),
                   workload(job("a", 0, 100, gpus=1)))
    assert out.checkpoints is None and "checkpoints" not in document(report(out))


def test_kai_min_runtime_follows_the_rendered_queue() -> None:
    """sharing/kai.py queue_spec: a tenant without minRuntime gets its longest writeSeconds as
    preemptMinRuntime and reclaimMinRuntime (KAI v0.17.0 docs/plugins/minruntime.md: time to
    checkpoint before being interrupted); a stated minRuntime wins."""
    stack = lab(
        "  - {name: a, nodeNames: [n1], gpu: {model: L4, count: 4},"
        " checkpoint: {everySeconds: 1800, writeSeconds: 90, restoreSeconds: 30}}\n",
        scheduler="kai",
        tenants=("  - {name: t, pools: [a], checkpoint: {everySeconds: 3600, writeSeconds: 240,"
                 " restoreSeconds: 60}}\n"
                 "  - {name: u, pools: [a]}\n"
                 "  - {name: v, pools: [a], minRuntime: {preempt: 10m}}\n"),
    )
    states = Tenancy(stack).states
    assert (states["t"].preempt_min, states["t"].reclaim_min) == (240, 240)
    assert (states["u"].preempt_min, states["u"].reclaim_min) == (90, 90)
    assert (states["v"].preempt_min, states["v"].reclaim_min) == (600, 90)


def test_a_job_given_up_loses_everything_and_never_comes_back() -> None:
    """Spot nodes interrupted 360 times an hour (aws notice 120 s, drainSeconds 120): each run
    of the 8-GPU job lasts about 2 minutes, under its first interval of 200 s, so it never
    saves anything and is given up 10 x 600 s after its first start (gang.GIVE_UP_FACTOR).
    Everything it ran is lost and redone work; each return took a 300 s scale-up plus the
    120 s startupSeconds (no restore: nothing saved), within the 900 s budget; the give-up is
    an interruption it never came back from, over the budget."""
    text = (FIXTURES / "valid" / "checkpoint-spot-kai.yaml").read_text(encoding="utf-8")
    stack = load_stack_text(text.replace(", onDemandBase: 1", ""))
    out = simulate(stack, workload(job("r", 0, 600, tenant="research", gpus=8,
                                       checkpoint_every=200, checkpoint_write=100)),
                   Settings(seed=2, spot_interruptions_per_hour=360))
    g = out.gangs[0]
    assert g.state == GAVE_UP_STATE
    assert g.gpu_seconds_lost == pytest.approx(out.tenants["research"].gpu_seconds)
    assert out.checkpoints is not None
    pool = out.checkpoints.pools["train"]
    assert pool.lost.redone == pytest.approx(g.gpu_seconds_lost) and pool.lost.write == 0
    assert pool.interruptions == g.interruptions
    assert {round(d) for d, _ in pool.downtimes} == {420} and pool.never_back == [900.0]
    doc = document(report(out))["checkpoints"]["pools"][0]["downtime"]
    assert doc["over"] == doc["never_back"] == 1


# -- properties ------------------------------------------------------------------------------
SPOT = Settings(seed=5, spot_interruptions_per_hour=1.0)


def _with(wl: Workload, every: float, write: float, restore: float = 30.0) -> Workload:
    jobs = tuple(dataclasses.replace(j, checkpoint_every=every, checkpoint_write=write,
                                     checkpoint_restore=restore) for j in wl.jobs)
    return Workload(wl.source, jobs)


def _redone(out: Outcome) -> float:
    assert out.checkpoints is not None
    return sum(p.lost.redone for p in out.checkpoints.pools.values())


@st.composite
def _split_case(draw: st.DrawFn) -> tuple[float, float, Plan, float]:
    every = float(draw(st.integers(10, 5000)))
    write = float(draw(st.integers(1, 600)))
    work = float(draw(st.integers(1, 40000)))
    restore = float(draw(st.integers(0, 300)))
    plan = Plan(every, write, restore)
    elapsed = float(draw(st.integers(0, int(run_seconds(work, plan, restore)))))
    return elapsed, work, plan, restore


@settings(max_examples=300, deadline=None, derandomize=True)
@given(_split_case())
def test_a_split_accounts_for_every_second(case: tuple[float, float, Plan, float]) -> None:
    """Saved, redone, written and restored add up to the time run; saved is whole intervals."""
    elapsed, work, plan, restore = case
    part = split(elapsed, work, plan, restore)
    assert part.saved + part.redone + part.write + part.restore == pytest.approx(elapsed)
    assert part.saved % plan.every == 0 and part.saved <= work
    assert 0 <= part.redone <= plan.every + 1e-9


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.integers(1, 40000), st.integers(0, 39999), st.integers(10, 5000), st.integers(2, 10),
       st.integers(0, 600))
def test_a_shorter_interval_never_loses_more_redone_work(
        work: int, done: int, every: int, k: int, write: int) -> None:
    """Stopped once ``done`` seconds of work are done, an interval k times shorter redoes no
    more: what it redoes is the work since its latest checkpoint, ``done`` modulo its interval
    (or a whole interval stopped before its write), which a longer multiple never undercuts."""
    done = min(done, work - 1)
    short, long = Plan(every, write, 0), Plan(every * k, write, 0)
    lost_short = split(run_seconds(done, short, 0), work, short, 0).redone
    lost_long = split(run_seconds(done, long, 0), work, long, 0).redone
    assert lost_short <= lost_long + 1e-6


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.integers(1, 20000), st.integers(1, 900)), min_size=1, max_size=6),
       st.integers(100, 3000), st.integers(2, 6))
def test_in_a_run_a_shorter_interval_redoes_no_more(
        evictions: list[tuple[int, int]], every: int, k: int) -> None:
    """One low-priority job of 6 h of work on one GPU, evicted by critical jobs at generated
    instants. With free writes and restores the two runs are evicted at the same instants while
    both run, each segment starting alike, and the shorter interval redoes the segment's time
    modulo its interval: never more in total (it may end earlier, and so be evicted less)."""
    def redone(interval: float) -> float:
        stack = lab(ONE_GPU.format(extra=""), admission="off")
        jobs = [job("ck", 0, 6 * 3600, gpus=1, priority="low", checkpoint_every=interval,
                    checkpoint_write=0.0, checkpoint_restore=0.0)]
        jobs += [job(f"hi{i}", at, length, gpus=1, priority="critical")
                 for i, (at, length) in enumerate(evictions)]
        out = simulate(stack, workload(*jobs))
        assert _gang(out, "ck").state == DONE
        return _redone(out)

    assert redone(every / k) <= redone(float(every)) + 1e-6


LAB = lab("  - {name: a, nodeNames: [n1, n2], gpu: {model: L4, count: 4}}\n", admission="off")


@settings(max_examples=10, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(workloads(LAB), st.integers(1, 300), st.integers(1, 300))
def test_checkpoint_overhead_grows_with_the_write_time(wl: Workload, a: int, b: int) -> None:
    """On existing nodes, jobs of one priority are never evicted, so each runs once and its
    overhead is writes(work) x write x its GPUs: a longer write never costs less."""
    low, high = sorted((float(a), float(b)))

    def overhead(write: float) -> tuple[float, bool]:
        out = simulate(LAB, _with(wl, 900.0, write))
        assert out.checkpoints is not None
        wrote = any(g.state == DONE and g.job.duration > 900 and g.job.gpus for g in out.gangs)
        return sum(p.lost.write + p.lost.restore
                   for p in out.checkpoints.pools.values()), wrote

    (less, wrote), (more, _) = overhead(low), overhead(high)
    assert less <= more + 1e-6
    if high > low and wrote:  # a GPU job that wrote at least once pays more for a longer write
        assert less < more


@pytest.mark.parametrize("name", sorted(STACKS))
def test_same_seed_same_bytes_and_the_split_adds_up(name: str) -> None:
    stack = STACKS[name]

    @settings(max_examples=6, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(workloads(stack), st.sampled_from([300.0, 1200.0]), st.integers(1, 120))
    def check(wl: Workload, every: float, write: int) -> None:
        ckpt = _with(wl, every, float(write))
        r = report(simulate(stack, ckpt, SPOT))
        again = report(simulate(stack, ckpt, SPOT))
        assert json.dumps(document(again)) == json.dumps(document(r))
        for fmt in ("text", "markdown"):
            assert "Checkpoints" in render(r, fmt, again).result
        assert r.checkpoints is not None
        split_of = dict(r.checkpoints.tenants)
        for t in r.tenants:
            assert split_of[t.tenant].total == pytest.approx(t.gpu_hours_lost, abs=1e-6)

    check()


def test_the_part_keeps_its_state_under_names_no_other_part_uses() -> None:
    """Its state once took ``progress``, the run's progress callback: every 10,000th submit
    then called a dict. The names it stores are none another part stores or the engine sets."""
    def stored(module: str) -> set[str]:
        return {n.attr for n in ast.walk(_part_class(module))
                if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)
                and isinstance(n.value, ast.Name) and n.value.id == "self"}

    mine = stored("checkpoints")
    engine = {"stack", "workload", "settings", "cluster", "tenancy", "scheduler", "rng",
              "progress", "clock", "version", "below_quota_first", "queue_reclaim"}
    others = set().union(*(stored(m) for m in PARTS if m != "checkpoints"))
    assert not mine & (others | engine)
