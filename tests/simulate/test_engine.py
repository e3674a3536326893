"""The event loop: gangs, tenancy, preemption, autoscaling and spot, on hand-worked cases."""

from __future__ import annotations

import pytest

from gpupool.simulate import autoscaler
from gpupool.simulate.demand import DOES_NOT_FIT, NO_POOL
from gpupool.simulate.engine import DONE, NEVER, REJECTED, Gang, Outcome, Settings, simulate
from gpupool.simulate.tenancy import LIMIT, QUOTA
from tests.simulate.simstacks import job, lab, workload
from tests.stacks import load_stack_text

ONE_NODE = "  - {name: a, nodeNames: [n1], gpu: {model: L4, count: 4}}\n"
TWO_POOLS = (
    "  - {name: a, nodeNames: [n1], gpu: {model: L4, count: 4}}\n"
    "  - {name: b, nodeNames: [n2], gpu: {model: L4, count: 4}}\n"
)


def _gang(out: Outcome, name: str) -> Gang:
    return next(g for g in out.gangs if g.job.name == name)


def test_gang_starts_whole_or_waits() -> None:
    """A gang of 3 one-GPU pods waits while 2 GPUs are free, and starts when 3 are."""
    out = simulate(lab(ONE_NODE), workload(
        job("hold", 0, 1000, gpus=2),
        job("gang", 10, 500, gpus=1, pods=3),
    ))
    g = _gang(out, "gang")
    assert g.state == DONE and g.first_start == 1000
    assert out.end == 1500


def test_gang_larger_than_the_pool_never_starts() -> None:
    out = simulate(lab(ONE_NODE), workload(job("big", 0, 10, gpus=1, pods=5)))
    g = _gang(out, "big")
    assert (g.state, g.reason) == (NEVER, DOES_NOT_FIT)


def test_tenant_limit_makes_pods_wait() -> None:
    """limit.gpus 2: the ResourceQuota admits 2 GPUs; a third one-GPU pod waits for one to end."""
    stack = lab(TWO_POOLS, tenants="  - {name: t, pools: [a, b], limit: {gpus: 2}}\n")
    out = simulate(stack, workload(
        job("j1", 0, 100, tenant="t", gpus=1),
        job("j2", 0, 200, tenant="t", gpus=1),
        job("j3", 0, 50, tenant="t", gpus=1),
    ))
    assert _gang(out, "j3").first_start == 100
    assert out.tenants["t"].peak_units["nvidia.com/gpu"] == 2


def test_fencing_and_admission_messages() -> None:
    """A pod pinned to a pool outside its tenant's is denied with the policy's own message; so is
    one with another priority; an untenanted pod may use any pool."""
    stack = lab(TWO_POOLS, tenants="  - {name: t, pools: [a]}\n")
    out = simulate(stack, workload(
        job("pinned", 0, 10, tenant="t", gpus=1, pool="b"),
        job("prio", 0, 10, tenant="t", gpus=1, priority="high"),
        job("fenced", 0, 10, tenant="t", gpus=4),
        job("fenced2", 0, 10, tenant="t", gpus=4),
        job("free", 0, 10, gpus=1, pool="b"),
    ))
    pinned = _gang(out, "pinned")
    assert pinned.state == REJECTED and "must run on its pools (a)" in pinned.reason
    prio = _gang(out, "prio")
    assert prio.state == REJECTED and "priorityClassName gpupool-normal" in prio.reason
    # both 4-GPU pods stay on pool a: the second waits for the first
    assert _gang(out, "fenced").last_nodes == ("a/0",)
    assert _gang(out, "fenced2").last_nodes == ("a/0",)
    assert _gang(out, "fenced2").first_start == 10
    assert _gang(out, "free").last_nodes == ("b/0",)


def test_admission_off_admits_what_deny_rejects() -> None:
    stack = lab(TWO_POOLS, tenants="  - {name: t, pools: [a]}\n", admission="off")
    out = simulate(stack, workload(job("prio", 0, 10, tenant="t", gpus=1, priority="high")))
    assert _gang(out, "prio").state == DONE


def test_no_pool_matches_a_mig_profile_the_layouts_lack() -> None:
    out = simulate(lab(ONE_NODE), workload(job("m", 0, 10, mig="1g.10gb")))
    assert (_gang(out, "m").state, _gang(out, "m").reason) == (NEVER, NO_POOL)


def test_kai_non_preemptible_pods_stay_within_quota() -> None:
    """KAI v0.17.0 docs/priority/README.md: a non-preemptible (priority >= 100) workload runs only
    within its queue's deserved quota; over it, it waits with reason quota."""
    stack = lab(ONE_NODE, scheduler="kai",
                tenants="  - {name: t, pools: [a], priority: normal, quota: {gpus: 1}}\n")
    out = simulate(stack, workload(
        job("j1", 0, 100, tenant="t", gpus=1),
        job("j2", 0, 100, tenant="t", gpus=1),
        job("j3", 0, 100, tenant="t", gpus=2),
    ))
    assert _gang(out, "j2").first_start == 100
    j3 = _gang(out, "j3")
    assert (j3.state, j3.reason) == (NEVER, QUOTA)


def test_kai_reclaim_waits_for_reclaim_min_runtime() -> None:
    """KAI v0.17.0 proportion/reclaimable with the minruntime plugin (docs/plugins/minruntime.md):
    a queue within its fair share reclaims preemptible pods of a queue above its share, but only
    once they ran reclaimMinRuntime (30m here)."""
    stack = lab(
        "  - {name: a, nodeNames: [n1], gpu: {model: L4, count: 4},"
        " host: {memoryGiB: 256, vcpus: 32}}\n",
        scheduler="kai",
        tenants=(
            "  - {name: batch, pools: [a], priority: low, minRuntime: {reclaim: 30m}}\n"
            "  - {name: prod, pools: [a], priority: normal, quota: {gpus: 4}}\n"
        ),
    )
    out = simulate(stack, workload(
        *(job(f"b{i}", 0, 36000, tenant="batch", gpus=1) for i in range(4)),
        job("p1", 60, 600, tenant="prod", gpus=1),
    ))
    assert _gang(out, "p1").first_start == 1800
    assert len(out.preemptions) == 1
    pre = out.preemptions[0]
    assert pre.reclaim and pre.tenant == "batch" and pre.ran_seconds == pre.min_seconds == 1800
    victim = out.gangs[pre.victim]
    assert victim.preemptions == 1 and victim.gpu_seconds_lost == 1800


def test_kube_scheduler_preempts_lower_priority_at_once() -> None:
    """kube-scheduler's DefaultPreemption evicts lower-priority pods from one node at once."""
    stack = lab(ONE_NODE, admission="off")
    out = simulate(stack, workload(
        *(job(f"low{i}", 0, 9000, gpus=1, priority="low") for i in range(4)),
        job("crit", 60, 100, gpus=2, priority="critical"),
    ))
    assert _gang(out, "crit").first_start == 60
    assert len(out.preemptions) == 2
    assert all(p.min_seconds == 0 for p in out.preemptions)


def test_a_gang_preempts_across_nodes_or_not_at_all() -> None:
    """A gang decides as one job: victims on both nodes go at once when the whole gang then fits
    (KAI v0.17.0 docs/developer/action-framework.md: a scenario's evictions are committed only if
    the pending job is then allocated, else rolled back); a gang that cannot fit evicts no one."""
    stack = lab("  - {name: a, nodeNames: [n1, n2], gpu: {model: L4, count: 4}}\n",
                admission="off")
    out = simulate(stack, workload(
        *(job(f"low{i}", 0, 9000, gpus=1, priority="low") for i in range(8)),
        job("crit", 60, 100, gpus=2, priority="critical", pods=2),
        job("huge", 120, 100, gpus=4, priority="critical", pods=3),
    ))
    crit = _gang(out, "crit")
    assert crit.first_start == 60
    # four one-GPU victims make room for 2 x 2 GPUs, and no more than that
    at_60 = [p for p in out.preemptions if p.time == 60]
    assert len(at_60) == 4 and all(p.min_seconds == 0 for p in at_60)
    huge = _gang(out, "huge")
    assert huge.first_start is None and huge.reason == DOES_NOT_FIT
    assert not [p for p in out.preemptions if p.time == 120]


def test_gang_reclaim_waits_for_reclaim_min_runtime() -> None:
    """KAI reclaim for a gang honours reclaimMinRuntime (docs/plugins/minruntime.md)."""
    stack = lab(
        "  - {name: a, nodeNames: [n1, n2], gpu: {model: L4, count: 4},"
        " host: {memoryGiB: 256, vcpus: 32}}\n",
        scheduler="kai",
        tenants=(
            "  - {name: batch, pools: [a], priority: low, minRuntime: {reclaim: 30m}}\n"
            "  - {name: prod, pools: [a], priority: normal, quota: {gpus: 8}}\n"
        ),
    )
    out = simulate(stack, workload(
        *(job(f"b{i}", 0, 36000, tenant="batch", gpus=1) for i in range(8)),
        job("p1", 60, 600, tenant="prod", gpus=2, pods=2),
    ))
    p1 = _gang(out, "p1")
    assert p1.first_start == 1800
    assert len(out.preemptions) == 4
    assert all(p.reclaim and p.tenant == "batch" and p.ran_seconds >= p.min_seconds == 1800
               for p in out.preemptions)


AWS = (
    "apiVersion: gpupool.io/v1\nkind: GpuPoolStack\nmetadata: {name: cloud}\n"
    "provider: {cloud: aws, region: us-east-1, cluster: ml, settings: {subnetIds: "
    '[subnet-0a1b2c3d4e5f60718], nodeRoleArn: "arn:aws:iam::123456789012:role/gpu"}}\n'
    "pools:\n"
)


def test_autoscaler_adds_after_the_delay_and_removes_idle_nodes() -> None:
    """From zero: the pod waits SCALE_UP_SECONDS (300 s) for a node, which goes 600 s after its
    pod ends (cluster-autoscaler FAQ; --scale-down-unneeded-time 10m)."""
    stack = load_stack_text(
        AWS + "  - {name: l4, instanceType: g6.xlarge, workload: inference,"
        " nodes: {min: 0, max: 2}}\n"
    )
    out = simulate(stack, workload(job("j", 0, 1000, gpus=1, cpu=1, memory_gib=4)))
    g = _gang(out, "j")
    assert g.first_start == 300
    stats = out.pools["l4"]
    assert stats.peak_nodes == 1
    # billed from the request (0) to the removal (1300 + 600)
    assert stats.node_seconds == pytest.approx(1900)
    price = stack.pools[0].instance.price.on_demand_hourly  # type: ignore[union-attr]
    assert stats.cost == pytest.approx(1900 / 3600 * price)


def test_spot_interruption_drains_and_resubmits() -> None:
    """A spot node interrupted gives its pods drainSeconds, then they run again elsewhere."""
    stack = load_stack_text(
        AWS + "  - {name: s, instanceType: g6.xlarge, workload: inference,"
        " nodes: {min: 1, max: 3}, capacity: {type: spot},"
        " interruption: {drainSeconds: 60}}\n"
    )
    out = simulate(
        stack, workload(*(job(f"j{i}", 0, 7200, gpus=1, cpu=1, memory_gib=4) for i in range(1))),
        Settings(seed=3, spot_interruptions_per_hour=1.0),
    )
    g = _gang(out, "j0")
    assert g.interruptions >= 1 and g.state == DONE
    assert g.gpu_seconds_lost > 0


def test_spot_shortage_falls_back_after_the_provision_time() -> None:
    """cluster-autoscaler (main.go defaults): a node not come after --max-node-provision-time
    (15m) fails, its group backs off --initial-node-group-backoff-duration (5m), and the
    priority expander's next group, the on-demand fallback, grows meanwhile."""
    stack = load_stack_text(
        AWS + "  - {name: s, instanceType: g6.xlarge, workload: inference,"
        " nodes: {min: 0, max: 1}, capacity: {type: spot, fallbackToOnDemand: true}}\n"
    )
    wl = workload(job("j", 0, 1000, gpus=1, cpu=1, memory_gib=4))
    plain = simulate(stack, wl)
    short = simulate(stack, wl, Settings(spot_shortage=1.0))
    assert _gang(plain, "j").first_start == 300 and plain.pools["s"].spot_unfilled == 0
    g = _gang(short, "j")
    assert g.first_start == 900 + 300 and g.state == DONE
    stats = short.pools["s"]
    assert stats.spot_unfilled == 1
    # the request that was never filled is not billed: one on-demand node, asked for at 900 s,
    # ready at 1200, its pod done at 2200, removed 600 s later
    on_demand = stack.pools[0].instance.price.on_demand_hourly  # type: ignore[union-attr]
    assert stats.node_seconds == pytest.approx(2200 + 600 - 900)
    assert stats.cost == pytest.approx(stats.node_seconds / 3600 * on_demand)


def test_spot_shortage_retries_with_a_growing_backoff() -> None:
    """Without a fallback the pod waits through failed requests; each backoff doubles
    (5m, 10m, ... up to --max-node-group-backoff-duration's 30m), and a shortage of 1 never
    fills: the pod never starts and the run ends."""
    assert [autoscaler.backoff_seconds(None, None)] + [
        autoscaler.backoff_seconds(b, 60.0) for b in (300.0, 600.0, 1200.0, 1800.0)
    ] == [300.0, 600.0, 1200.0, 1800.0, 1800.0]
    assert autoscaler.backoff_seconds(1800.0, autoscaler.BACKOFF_RESET_SECONDS) == 300.0
    stack = load_stack_text(
        AWS + "  - {name: s, instanceType: g6.xlarge, workload: inference,"
        " nodes: {min: 0, max: 1}, capacity: {type: spot}}\n"
    )
    wl = workload(job("j", 0, 1000, gpus=1, cpu=1, memory_gib=4))
    never = simulate(stack, wl, Settings(spot_shortage=1.0))
    assert _gang(never, "j").state == NEVER and never.pools["s"].spot_unfilled >= 1
    assert never.pools["s"].cost == 0
    starts = set()
    for seed in range(12):
        out = simulate(stack, wl, Settings(seed=seed, spot_shortage=0.5))
        g = _gang(out, "j")
        assert g.state == DONE
        fails = out.pools["s"].spot_unfilled
        # each failure costs the provision time and a backoff of 5m, then 10m, 20m, ...
        waited = sum(900 + min(1800, 300 * 2 ** k) for k in range(fails))
        assert g.first_start == waited + 300
        starts.add(fails)
    assert len(starts) > 1  # the seed decides how many requests fail


def test_same_seed_same_run() -> None:
    stack = load_stack_text(
        AWS + "  - {name: s, instanceType: g6.xlarge, workload: inference,"
        " nodes: {min: 1, max: 3}, capacity: {type: spot}}\n"
    )
    wl = workload(*(job(f"j{i}", i * 100, 5000, gpus=1, cpu=1, memory_gib=4) for i in range(20)))
    runs = [simulate(stack, wl, Settings(seed=7, spot_interruptions_per_hour=0.5)) for _ in "ab"]
    assert [(g.first_start, g.interruptions) for g in runs[0].gangs] == [
        (g.first_start, g.interruptions) for g in runs[1].gangs
    ]
    other = simulate(stack, wl, Settings(seed=8, spot_interruptions_per_hour=0.5))
    assert [g.interruptions for g in other.gangs] != [g.interruptions for g in runs[0].gangs]


def test_limit_reason_when_nothing_else_runs() -> None:
    stack = lab(ONE_NODE, tenants="  - {name: t, pools: [a], limit: {gpus: 1}}\n")
    out = simulate(stack, workload(job("j", 0, 10, tenant="t", gpus=2)))
    assert (_gang(out, "j").state, _gang(out, "j").reason) == (NEVER, LIMIT)


def test_preemption_spares_pods_that_hold_no_gpu() -> None:
    """The youngest low-priority pod asks for CPU only; evicting it frees no GPU, so the
    critical GPU pod evicts a GPU pod instead."""
    stack = lab("  - {name: a, nodeNames: [n1], gpu: {model: L4, count: 4},"
                " host: {memoryGiB: 256, vcpus: 32}}\n", admission="off")
    out = simulate(stack, workload(
        *(job(f"low{i}", 0, 9000, gpus=1, cpu=1, priority="low") for i in range(4)),
        job("cpu-only", 30, 9000, cpu=1, priority="low"),
        job("crit", 60, 100, gpus=1, cpu=1, priority="critical"),
    ))
    assert _gang(out, "crit").first_start == 60
    # the low GPU pods started together: the first of them goes
    assert [out.gangs[p.victim].job.name for p in out.preemptions] == ["low0"]
    assert _gang(out, "cpu-only").preemptions == 0
