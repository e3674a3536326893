"""Workloads made up for a stack: a plausible day of jobs, and a large synthetic file for the bench.

This module owns two generators, both deterministic for a seed (``random.Random(seed)``, nothing
else random):

- ``generate(stack, seed)``: jobs for the stack's tenants (each on its own pools; a stack without
  tenants gets untenanted jobs on any pool; one in ten names a priority below its tenant's, the
  rest run at the tenant's, but where the admission policy denies (``cluster.admission.action``
  deny, the default) only CPU-only jobs do, since a GPU pod at another priority is rejected;
  no job asks more GPUs than its tenant's ``limit.gpus``, or under KAI a tenant KAI does not
  preempt its ``quota.gpus``, so every job can run), each a shape its pool can hold: whole GPUs
  up to a node's count on exclusive pools (with gangs of whole nodes where a pool has several), one
  replica (``gpus: 1``) on time-slicing and MPS pools, a MIG profile of the pool's layout
  (picked in proportion to how many the layout holds), a fraction in whole slots on fractional
  pools, and a few CPU-only jobs; CPU and host memory in proportion to the GPUs asked, from the
  node's vCPUs and memory where the stack or the catalog says them; arrivals over one day, more
  in working hours, and durations spread from minutes to hours (log-normal, median 30 minutes).
  A job is pinned to its pool where its tenant has several, so its shape lands where it fits;
  ``gpupool simulate --generate`` replays it;
- ``write_synthetic(path, rows, seed)``: a large CSV in gpupool's format, written row by row
  (1,000,000 rows never sit in memory), for ``bench/``.

``write_csv`` writes a workload in gpupool's CSV format, which ``read_workload`` reads back to
the same jobs.
"""

from __future__ import annotations

import csv
import io
import math
import random
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import IO

from gpupool import schedulers
from gpupool.facts.tenancy import kai_preemptible
from gpupool.model import PRIORITIES, Pool, Stack
from gpupool.simulate.columns import COLUMNS
from gpupool.simulate.jobs import Job, Workload

DAY = 86400.0
#: Share of jobs that ask for CPU and memory only.
CPU_ONLY_SHARE = 0.05
#: Share of a tenant's jobs that name a priority below the tenant's own (its batch work).
LOWER_PRIORITY_SHARE = 0.1
#: Share of jobs on an exclusive pool of several nodes that are gangs of whole nodes.
GANG_SHARE = 0.1
#: Host vCPUs and GiB of memory per GPU where neither the stack nor the catalog says them.
DEFAULT_VCPUS_PER_GPU = 8
DEFAULT_MEMORY_GIB_PER_GPU = 64.0


def generate(stack: Stack, seed: int = 0, *, jobs: int = 200, source: str = "") -> Workload:
    """Return ``jobs`` jobs for the stack, arriving over one day, the same for the same seed.

    Each job's ``line`` is the line it has in ``write_csv``'s file (the header is line 1).
    """
    rng = random.Random(seed)
    plans = _plans(stack)
    # the admission policy (cluster.admission.action deny, the default) rejects a GPU pod at a
    # priority other than its tenant's
    deny_other_priorities = stack.cluster.admission.action == "deny"
    ceilings = _ceilings(stack)
    made: list[Job] = []
    for i in range(jobs):
        tenant, pools = plans[rng.randrange(len(plans))]
        pool = pools[rng.randrange(len(pools))]
        job = _job(rng, i, tenant, pool, pinned=len(pools) > 1)
        ceiling = ceilings.get(tenant)
        if ceiling is not None and job.gpus * job.pods > ceiling:
            job = _within(job, ceiling)
        lower = _lower_priorities(stack, tenant) if deny_other_priorities is False or (
            not _uses_gpu(job)) else ()
        if lower and rng.random() < LOWER_PRIORITY_SHARE:
            job = replace(job, priority=lower[rng.randrange(len(lower))])
        made.append(job)
    made.sort(key=lambda j: j.submit)
    numbered = [_renumbered(j, line) for line, j in enumerate(made, start=2)]
    return Workload(source=source or f"generated:{stack.name}:{seed}", jobs=tuple(numbered))


def _ceilings(stack: Stack) -> dict[str | None, float]:
    """Return the most whole GPUs one job of each tenant can ever hold (a tenant without none).

    A tenant's ``limit.gpus`` (its ResourceQuota) bounds every job; under KAI a tenant whose
    priority KAI does not preempt gets no more than its ``quota.gpus`` (docs/commands.md,
    gpupool simulate: Tenancy).
    """
    kai = schedulers.of(stack).queues
    out: dict[str | None, float] = {}
    for t in stack.tenants:
        bounds = [t.limit_gpus] if t.limit_gpus is not None else []
        if kai and t.quota_gpus is not None and not kai_preemptible(t.priority):
            bounds.append(t.quota_gpus)
        if bounds:
            out[t.name] = min(bounds)
    return out


def _within(job: Job, ceiling: float) -> Job:
    """Return a whole-GPU job shrunk to ``ceiling`` GPUs: fewer pods first, then fewer GPUs."""
    gpus, pods = job.gpus, job.pods
    while gpus * pods > ceiling and pods > 1:
        pods -= 1
    while gpus * pods > ceiling and gpus > 1:
        gpus //= 2
    return replace(job, gpus=gpus, pods=pods)


def _uses_gpu(job: Job) -> bool:
    return job.gpus > 0 or job.fraction is not None or job.mig is not None


def _lower_priorities(stack: Stack, tenant: str | None) -> tuple[str, ...]:
    """Return the priorities below the tenant's (``PRIORITIES`` runs from the highest down)."""
    found = next((t for t in stack.tenants if t.name == tenant), None)
    if found is None or found.priority not in PRIORITIES:
        return ()
    return PRIORITIES[PRIORITIES.index(found.priority) + 1 :]


def _plans(stack: Stack) -> list[tuple[str | None, tuple[Pool, ...]]]:
    """(tenant, the pools its jobs may go to) for every tenant, or one untenanted entry."""
    plans: list[tuple[str | None, tuple[Pool, ...]]] = []
    for tenant in stack.tenants:
        pools = tuple(p for p in (stack.pool(n) for n in tenant.pools) if p is not None)
        if pools:
            plans.append((tenant.name, pools))
    if not plans:
        plans.append((None, stack.pools))
    return plans


def _job(rng: random.Random, i: int, tenant: str | None, pool: Pool, *, pinned: bool) -> Job:
    name = f"{tenant or 'job'}-{i:05d}"
    submit = float(round(_arrival(rng)))
    duration = float(round(min(8 * 3600, max(60.0, rng.lognormvariate(math.log(1800), 1.0)))))
    per_node = max(1, pool.gpus_per_node)
    share = 0.0  # of one node's GPUs, for CPU and memory
    gpus, fraction, mig, pods = 0, None, None, 1
    sharing = pool.sharing
    if rng.random() >= CPU_ONLY_SHARE:
        if sharing.kind.partitioned and sharing.mig_layout:
            mig = _weighted(rng, sharing.mig_layout)
            share = 1 / (per_node * max(1, sharing.slots_per_gpu))
        elif sharing.kind.scheduler_slots:
            slots = max(2, sharing.slots_per_gpu)
            fraction = rng.randrange(1, slots) / slots
            share = fraction / per_node
        elif sharing.kind.replicated:
            gpus = 1
            share = 1 / (per_node * max(1, sharing.slots_per_gpu))
        else:
            sizes = [n for n in (1, 2, 4, 8, 16) if n <= per_node]
            gpus = sizes[min(len(sizes) - 1, int(rng.expovariate(1.2)))]
            if pool.nodes.max > 1 and rng.random() < GANG_SHARE:
                gpus, pods = per_node, rng.randrange(2, min(4, pool.nodes.max) + 1)
            share = gpus / per_node
    else:
        share = 1 / (4 * per_node)
    vcpus, memory = _host(pool, per_node)
    cpu = max(0.5, round(vcpus * share * rng.uniform(0.5, 1.0) * 2) / 2)
    memory_gib = max(1.0, float(round(memory * share * rng.uniform(0.5, 1.0))))
    return Job(
        name=name,
        line=0,
        submit=submit,
        duration=duration,
        tenant=tenant,
        gpus=gpus,
        fraction=fraction,
        mig=mig,
        cpu=cpu,
        memory_gib=memory_gib,
        pool=pool.name if pinned else None,
        pods=pods,
    )


def _arrival(rng: random.Random) -> float:
    """Return a time of day: two in three arrivals fall in working hours (08:00 to 18:00)."""
    if rng.random() < 2 / 3:
        return rng.uniform(8 * 3600, 18 * 3600)
    return rng.uniform(0, DAY - 1)


def _weighted(rng: random.Random, layout: Iterable[tuple[str, int]]) -> str:
    items = list(layout)
    pick = rng.randrange(sum(count for _, count in items))
    for name, count in items:
        if pick < count:
            return name
        pick -= count
    return items[-1][0]


def _host(pool: Pool, per_node: int) -> tuple[float, float]:
    """Return a node's vCPUs and host memory (GiB): the stack's, the catalog's or a default."""
    inst = pool.instance
    vcpus = getattr(pool, "host_vcpus", None) or (inst.vcpus if inst else None)
    memory = pool.host_memory_gib or (inst.memory_gib if inst else None)
    return (
        float(vcpus or DEFAULT_VCPUS_PER_GPU * per_node),
        float(memory or DEFAULT_MEMORY_GIB_PER_GPU * per_node),
    )


def _renumbered(job: Job, line: int) -> Job:
    return Job(
        name=job.name, line=line, submit=job.submit, duration=job.duration, tenant=job.tenant,
        gpus=job.gpus, fraction=job.fraction, mig=job.mig, gpu_memory_gib=job.gpu_memory_gib,
        cpu=job.cpu, memory_gib=job.memory_gib, priority=job.priority, pool=job.pool,
        pods=job.pods,
    )  # fmt: skip


# ---------------------------------------------------------------------------------------------
# Writing


def _cells(job: Job) -> list[str]:
    def text(value: object) -> str:
        if value is None:
            return ""
        if isinstance(value, float):
            return repr(value) if value != int(value) else str(int(value))
        return str(value)

    return [
        job.name, text(job.tenant), text(job.submit), text(job.duration),
        text(job.gpus or None), text(job.fraction), text(job.mig), text(job.gpu_memory_gib),
        text(job.cpu or None), text(job.memory_gib or None), text(job.priority), text(job.pool),
        text(job.pods if job.pods != 1 else None), text(job.checkpoint_every),
        text(job.checkpoint_write), text(job.checkpoint_restore),
    ]  # fmt: skip


def write_csv(jobs: Iterable[Job], out: IO[str]) -> None:
    """Write jobs in gpupool's CSV format (every column, empty where the default holds)."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([c.name for c in COLUMNS])
    for job in jobs:
        writer.writerow(_cells(job))


def to_csv(jobs: Iterable[Job]) -> str:
    """Return jobs as gpupool's CSV text."""
    out = io.StringIO()
    write_csv(jobs, out)
    return out.getvalue()


def synthetic_rows(rows: int, seed: int = 0, *, tenants: bool = True) -> Iterator[list[str]]:
    """Yield ``rows`` CSV rows (no header) of a large synthetic workload, in submit order.

    Ten tenants (``tenants=False``: the same jobs with the tenant cell empty, for a stack
    without tenants), whole GPUs (1, 2, 4 or 8), fractions and CPU-only jobs, one arrival
    every few seconds, durations from a minute to a day.
    """
    rng = random.Random(seed)
    names = [f"team-{n}" if tenants else "" for n in range(10)]
    submit = 0
    for i in range(rows):
        submit += rng.randrange(0, 6)
        kind = rng.random()
        gpus, fraction = "", ""
        if kind < 0.6:
            gpus = str((1, 1, 1, 2, 4, 8)[rng.randrange(6)])
        elif kind < 0.9:
            fraction = ("0.25", "0.5", "0.75")[rng.randrange(3)]
        duration = int(min(DAY, max(60.0, rng.lognormvariate(math.log(3600), 1.2))))
        yield [
            f"j{i}", names[rng.randrange(10)], str(submit), str(duration), gpus, fraction,
            "", "", str(rng.randrange(1, 17)), str(rng.randrange(4, 129)), "", "", "", "", "",
            "",
        ]  # fmt: skip


def write_synthetic(path: Path, rows: int = 1_000_000, seed: int = 0, *,
                    tenants: bool = True) -> None:
    """Write a large synthetic workload to ``path`` as gpupool CSV, row by row."""
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow([c.name for c in COLUMNS])
        writer.writerows(synthetic_rows(rows, seed, tenants=tenants))
