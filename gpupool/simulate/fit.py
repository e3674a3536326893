"""Workload rows against a stack: what it lacks, and what it would run otherwise than asked.

This module owns ``check_workload``, the step after reading a workload file
(``gpupool.simulate.workload``): every row must name tenants, priorities, pools and MIG profiles
the stack has, a replayed workload's pods must end, and a ``fraction`` where no pool the row
may run on shares a GPU by fraction is a warning that says what the pod is given instead. Rows
with the same problem are one diagnostic (``gpupool.simulate.source.Problems``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from gpupool import didyoumean
from gpupool.model import PRIORITIES, Pool, Stack
from gpupool.simulate.cluster import cluster_of, fraction_given
from gpupool.simulate.jobs import Job, Workload
from gpupool.simulate.source import Problems
from gpupool.spec.diagnostics import Diagnostic, Pos, Range, error, warning


def check_workload(stack: Stack, workload: Workload, *, replay: bool = True) -> list[Diagnostic]:
    """Return a diagnostic for each kind of row the stack cannot run as the row says.

    Errors: a tenant, priority, pool or MIG profile not in the stack (a MIG profile must be in
    the layout of the pool a row pins, or else of some pool of the stack), and, when the
    workload is to be replayed (``replay``; capacity mode never ends a pod), a pod that never
    ends. A warning: a ``fraction`` that no pool the row may run on shares a GPU by (an
    exclusive pool gives it a whole GPU, time-slicing or MPS one replica). Rows with the same
    problem are one diagnostic (``source.Problems``); at most ``MAX_PROBLEMS`` are returned,
    then one saying how many more there were.
    """
    problems = Problems(workload.source)
    names = _Names(stack)
    unshared_at: dict[tuple[str | None, str | None], Diagnostic | None] = {}
    for job in workload.jobs:
        for problem in names.problems(job):
            problems.add(problem, job.line)
        if replay and not math.isfinite(job.duration):
            problems.add(
                error(
                    "workload.never-ends",
                    "the pod never ends: an openb list without deletion_time",
                    "Only capacity mode (gpupool simulate --saturate) reads pods that never end; "
                    "a replay needs each pod's end.",
                ),
                job.line,
            )
        if job.fraction is not None:
            where = (job.tenant, job.pool)  # all a row's pools depend on
            if where not in unshared_at:
                unshared_at[where] = _unshared_fraction(stack, job)
            unshared = unshared_at[where]
            if unshared is not None:
                problems.add(unshared, job.line)
    out = list(problems.found)
    if problems.left_out:
        at = Pos(out[-1].range.start.line if out[-1].range else 1, 1)
        out.append(
            error(
                "workload.too-many-problems", f"{problems.left_out:,} more problems not shown"
            ).placed(Range(workload.source, at, at))
        )
    return out


#: The way to a workload that fits, for rows written for another stack.
_GENERATE = (" To replay a workload made up for this stack instead: gpupool simulate STACK "
             "--generate.")


class _Names:
    """The names a stack has for rows to name: tenants, priorities, pools, MIG profiles."""

    def __init__(self, stack: Stack) -> None:
        self.stack = stack.name
        self.tenants = [t.name for t in stack.tenants]
        self.pools = [p.name for p in stack.pools]
        self.layouts = {p.name: {name for name, _ in p.sharing.mig_layout} for p in stack.pools}
        self.every_profile = set().union(*self.layouts.values()) if self.layouts else set()
        self.known_tenants, self.known_pools = set(self.tenants), set(self.pools)
        self._seen: dict[tuple[str | None, ...], list[Diagnostic]] = {}

    def problems(self, job: Job) -> list[Diagnostic]:
        """Return an error for each name of ``job`` the stack lacks (kept per distinct names)."""
        key = (job.tenant, job.priority, job.pool, job.mig)
        found = self._seen.get(key)
        if found is None:
            found = self._seen[key] = self._problems(job)
        return found

    def _problems(self, job: Job) -> list[Diagnostic]:
        found = []
        stack = self.stack
        if job.tenant is not None and job.tenant not in self.known_tenants:
            found.append(error("workload.unknown-tenant",
                               f"tenant {job.tenant!r} is not in stack {stack!r}",
                               _listing("tenants", self.tenants, job.tenant) + _GENERATE))
        if job.priority is not None and job.priority not in PRIORITIES:
            found.append(error("workload.unknown-priority",
                               f"priority {job.priority!r} is not a gpupool priority",
                               _listing("priorities", PRIORITIES, job.priority)))
        if job.pool is not None and job.pool not in self.known_pools:
            found.append(error("workload.unknown-pool",
                               f"pool {job.pool!r} is not in stack {stack!r}",
                               _listing("pools", self.pools, job.pool)))
        if job.mig is not None:
            pinned = job.pool if job.pool in self.layouts else None
            have = self.every_profile if pinned is None else self.layouts[pinned]
            if job.mig not in have:
                where = f"stack {stack!r}" if pinned is None else f"pool {pinned!r}"
                found.append(error("workload.unknown-mig-profile",
                                   f"MIG profile {job.mig!r} is in no MIG layout of {where}",
                                   _listing("MIG profiles", sorted(have), job.mig)))
        return found


def _unshared_fraction(stack: Stack, job: Job) -> Diagnostic | None:
    """Return a warning when no pool ``job`` may run on shares a GPU by fraction, else None.

    docs/workload.md: ``fraction`` is for fractional pools (KAI ``gpu-fraction``, HAMi slots).
    Elsewhere the simulation gives the pod what the pool's device plugin hands out (a whole
    GPU, or one time-slicing or MPS replica); a MIG pool gives the smallest profile covering the
    fraction, which is its way of sharing, so it is not warned about. A warning, not an error:
    the run is still the cluster's, and a workload written for a fractional stack is replayed on
    a ``--base`` stack without one to compare the two.
    """
    pools = _pools_for(stack, job)
    if not pools:
        return None  # an unknown tenant or pool: already an error
    cluster = cluster_of(stack)
    models = {m.name: m for m in cluster.pools}
    named, given = [], []
    for pool in pools:
        what = fraction_given(models[pool.name])
        if what is None:
            return None
        named.append(f"{pool.name!r} ({pool.sharing.kind.name})")
        given.append(what)
    hint = ("fraction is for fractional pools (sharing.mode: fractional, under KAI or HAMi): "
            "pin the row to one (pool), ask for whole gpus instead, or make the pool fractional.")
    if len(named) == 1:
        summary = (f"fraction on pool {named[0]}, which shares no GPU by fraction: each pod is "
                   f"given {given[0]}")
    else:
        kinds = " or ".join(sorted({g.split(",")[0] for g in given}))
        summary = (f"fraction on {len(named)} pools, none of which shares a GPU by fraction: "
                   f"each pod is given {kinds}")
        hint = "; ".join(f"{n}: {g}" for n, g in zip(named, given, strict=True)) + ". " + hint
    return warning("workload.fraction-unshared", summary, hint)


def _pools_for(stack: Stack, job: Job) -> list[Pool]:
    """Return the pools a job may run on: the one it pins, else its tenant's, else all."""
    if job.pool is not None:
        pinned = stack.pool(job.pool)
        return [pinned] if pinned is not None else []
    if job.tenant is None:
        return list(stack.pools)
    tenant = next((t for t in stack.tenants if t.name == job.tenant), None)
    if tenant is None:
        return []
    return [p for p in (stack.pool(n) for n in tenant.pools) if p is not None]


def _listing(what: str, names: Iterable[str], name: str) -> str:
    names = list(names)
    if not names:
        return f"The stack has no {what}."
    return f"The stack's {what}: {', '.join(names)}.{did_you_mean(name, names)}"


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """Return `` Did you mean 'x'?`` for the known name closest to ``name``, or nothing."""
    hits = didyoumean.closest(name, known, 1, cutoff=0.6, fold_case=False)
    return f" Did you mean {hits[0]!r}?" if hits else ""
