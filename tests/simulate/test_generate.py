"""Generated workloads (gpupool/simulate/generate.py): properties over every example stack."""

from __future__ import annotations

import csv
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpupool.model import PRIORITIES, Stack
from gpupool.simulate.engine import DONE, simulate
from gpupool.simulate.generate import generate, synthetic_rows, to_csv, write_synthetic
from gpupool.simulate.workload import check_workload, read_workload
from tests.paths import EXAMPLES
from tests.stacks import load_stack

STACKS = sorted(p.stem for p in EXAMPLES.glob("*.yaml"))


@pytest.fixture(scope="module", params=STACKS)
def stack(request: pytest.FixtureRequest) -> Stack:
    return load_stack(request.param)


def test_the_same_seed_gives_the_same_bytes(stack: Stack) -> None:
    assert to_csv(generate(stack, 7).jobs) == to_csv(generate(stack, 7).jobs)
    assert to_csv(generate(stack, 7).jobs) != to_csv(generate(stack, 8).jobs)


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 2**32 - 1))
def test_every_job_fits_its_tenant_and_pool(stack: Stack, tmp_path: Path, seed: int) -> None:
    """Generated jobs read back, name only what the stack has, and each shape fits a pool."""
    workload = generate(stack, seed, jobs=150)
    path = tmp_path / "w.csv"
    path.write_text(to_csv(workload.jobs), encoding="utf-8")
    read = read_workload(path)
    assert read.jobs == workload.jobs  # the same jobs, each at the line write_csv gave it
    assert check_workload(stack, read) == []
    tenants = {t.name: t for t in stack.tenants}
    for job in read.jobs:
        assert 0 <= job.submit < 86400 and 60 <= job.duration <= 8 * 3600
        allowed = tenants[job.tenant].pools if job.tenant else tuple(p.name for p in stack.pools)
        pools = [stack.pool(job.pool)] if job.pool else [stack.pool(n) for n in allowed]
        assert job.pool is None or job.pool in allowed  # never a pool its tenant is fenced from
        if job.priority is not None:  # only ever below its tenant's own
            own = PRIORITIES.index(tenants[job.tenant].priority)  # type: ignore[index]
            assert PRIORITIES.index(job.priority) > own
        assert any(_holds(p, job) for p in pools if p is not None), job


def _holds(pool: object, job: object) -> bool:
    sharing = pool.sharing  # type: ignore[attr-defined]
    per_node = pool.gpus_per_node  # type: ignore[attr-defined]
    if job.mig is not None:  # type: ignore[attr-defined]
        return job.mig in dict(sharing.mig_layout)  # type: ignore[attr-defined]
    if job.fraction is not None:  # type: ignore[attr-defined]
        slots = sharing.slots_per_gpu
        return sharing.kind.scheduler_slots and (job.fraction * slots).is_integer()  # type: ignore[attr-defined]
    if job.gpus:  # type: ignore[attr-defined]
        return job.gpus <= per_node and (job.pods == 1 or job.gpus == per_node)  # type: ignore[attr-defined]
    return True  # CPU only


def test_generated_jobs_cover_the_stacks_shapes() -> None:
    stack = load_stack("aws-training-compact")  # exclusive H100 nodes and an A100 MIG layout
    jobs = generate(stack, 1, jobs=400).jobs
    assert {j.mig for j in jobs if j.mig} == {"1g.10gb", "2g.20gb", "3g.40gb"}
    assert any(j.pods > 1 and j.gpus == 8 for j in jobs)  # gangs of whole nodes
    assert any(j.gpus == 0 and j.mig is None and j.fraction is None for j in jobs)  # CPU only
    # foundation is high (normal, low, preemptible below it), experiments low (preemptible);
    # the admission policy (deny, the default) rejects a GPU pod at another priority than its
    # tenant's, so only CPU-only jobs name a lower one
    assert {j.priority for j in jobs} <= {None, "normal", "low", "preemptible"}
    assert all(j.gpus == 0 and j.mig is None for j in jobs if j.priority is not None)
    warned = replace(stack, cluster=replace(
        stack.cluster, admission=replace(stack.cluster.admission, action="warn")))
    lowered = [j for j in generate(warned, 1, jobs=400).jobs if j.priority is not None]
    assert {j.priority for j in lowered} == {"normal", "low", "preemptible"}
    assert any(j.gpus > 0 for j in lowered)
    fractional = generate(load_stack("onprem-hami"), 1, jobs=200).jobs
    assert {j.fraction for j in fractional if j.fraction} <= {0.25, 0.5, 0.75, 0.125, 0.375,
                                                               0.625, 0.875}  # fmt: skip


def test_the_synthetic_file_reads_as_a_workload(tmp_path: Path) -> None:
    path = tmp_path / "big.csv"
    write_synthetic(path, rows=2000, seed=3)
    with open(path, encoding="utf-8", newline="") as fh:
        assert sum(1 for _ in csv.reader(fh)) == 2001
    workload = read_workload(path)
    assert len(workload.jobs) == 2000
    assert len({j.tenant for j in workload.jobs}) == 10
    assert list(synthetic_rows(50, seed=3)) == list(synthetic_rows(50, seed=3))


def test_synthetic_rows_without_tenants_are_the_same_jobs_with_no_tenant() -> None:
    """``tenants=False`` (for a stack without tenants) changes the tenant cell and nothing else."""
    with_tenants = list(synthetic_rows(300, seed=5))
    without = list(synthetic_rows(300, seed=5, tenants=False))
    assert {row[1] for row in with_tenants} == {f"team-{n}" for n in range(10)}
    assert all(row[1] == "" for row in without)
    assert [row[:1] + row[2:] for row in without] == [row[:1] + row[2:] for row in with_tenants]


def test_every_generated_pod_of_every_example_runs(stack: Stack) -> None:
    """A made-up workload is one the stack can run: no pod rejected by the admission policy
    (a priority other than the tenant's) and none that never starts (a gang above the tenant's
    ``limit.gpus``, or above its KAI quota where KAI does not preempt it)."""
    workload = generate(stack, 0, jobs=200)
    assert check_workload(stack, workload) == []
    out = simulate(stack, workload)
    assert [g.job.name for g in out.gangs if g.state != DONE] == []
