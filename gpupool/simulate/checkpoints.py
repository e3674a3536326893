"""Checkpoints in a run: what a job's writes cost, where an evicted job resumes, and downtime.

This module owns the part of ``engine.Simulation`` that follows each job's checkpoints (issue
40; docs/workload.md, Checkpoints in a run):

* **which checkpoint a job keeps**: its row's ``checkpoint_*`` columns, each over its tenant's
  ``checkpoint``, else its pool's (``checkpoint_model.Recovery.over``), on the pool its first
  pod is placed on; a write or restore nobody states is 0. A job with no interval anywhere
  does not checkpoint and, evicted, starts again from zero as before;
* **the run of a job that checkpoints**: after every ``every`` seconds of work it writes for
  ``write`` seconds of GPU time (not after the last interval: the job ends there), so a run
  lasts its work plus its writes (``run_seconds``); placed again after an eviction (preempted,
  interrupted, drained) it first reads its latest completed checkpoint back for ``restore``
  seconds, then does the work that checkpoint had not saved (``split``);
* **what a stop cost**, per tenant and per pool (in GPU-seconds: seconds times the GPUs of the
  job's pods there): the work redone (done since the latest completed checkpoint, or all of it
  for a job that does not checkpoint) and the overhead (writes and restores, of every run);
* **the interruptions a job meets**, per pool: evictions and give-ups over the seconds jobs
  ran there (the simulated mean time between interruptions, for Young's and Daly's interval),
  and, on pools where a ``maxDowntimeSeconds`` applies, each interruption's downtime: from the
  eviction to the job placed again, plus its ``startupSeconds`` and the restore it paid;
* **how often an evicted job found no free slot**, per pool of its first pod: of the evicted
  jobs placed again, those placed on a node that was not ready when they were evicted (asked
  for since, or still provisioning then: ids from ``node_id`` on, or in ``provisioning``), so
  that they waited for a scale-up (``returns``, ``scaled_up``; ``plan`` counts the downtime's
  scale-up at that share, ``facts.checkpoint.downtime``).

A run with no checkpoint, budget or start-up anywhere (``checkpoints_on`` false) calls none of
this, so its figures are the bytes they were. ``Checkpointing`` is the part; its hooks are
``_checkpoint_start`` (from ``scheduling._start``: the run's length) and ``_checkpoint_stop``
(from ``scheduling._stop``: the split of the stop, and the GPU-seconds the gang lost).
"""

from __future__ import annotations

from gpupool.checkpoint_model import Recovery
from gpupool.model import Stack
from gpupool.simulate.gang import Gang
from gpupool.simulate.jobs import Job, Workload
from gpupool.simulate.placement import Node
from gpupool.simulate.resume import (
    EPS,
    CheckpointRun,
    Lost,
    Plan,
    PoolRecovery,
    Progress,
    Split,
    run_seconds,
    split,
    writes,
)


def stated(stack: Stack, workload: Workload) -> bool:
    """Whether anything of checkpoints or downtime is stated, so that the part has work."""
    return (any(p.recovery.stated for p in stack.pools)
            or any(t.recovery.stated for t in stack.tenants)
            or any(j.checkpoint_every is not None or j.checkpoint_write is not None
                   or j.checkpoint_restore is not None for j in workload.jobs))


def plan_of(job: Job, recovery: Recovery) -> Plan | None:
    """Return the job's checkpoint: its columns over ``recovery``'s; None: it keeps none."""
    block = recovery.checkpoint
    every = job.checkpoint_every if job.checkpoint_every is not None else (
        None if block is None else block.every_seconds)
    if every is None:
        return None
    write = job.checkpoint_write if job.checkpoint_write is not None else (
        0.0 if block is None else block.write_seconds)
    restore = job.checkpoint_restore if job.checkpoint_restore is not None else (
        0.0 if block is None else block.restore_seconds)
    return Plan(every, write, restore)


class Checkpointing:
    """The part of a run that follows checkpoints (state set by ``_init_checkpoints``)."""

    stack: Stack
    workload: Workload
    now: float
    node_id: int  # the id the next node added takes
    provisioning: set[int]  # nodes asked for, not yet ready

    def _init_checkpoints(self) -> None:
        self.checkpoints_on = stated(self.stack, self.workload)
        self.resumes: dict[int, Progress] = {}
        self.evicted: dict[int, tuple[float, str, float, float]] = {}
        # gang -> (its first pod's pool, the next node id, the nodes provisioning) at eviction
        self.evicted_nodes: dict[int, tuple[str, int, frozenset[int]]] = {}
        self.recovery_pools: dict[str, PoolRecovery] = {}
        self.recovery_tenants: dict[str, Lost] = {}
        self.recoveries: dict[tuple[str | None, str], Recovery] = {}

    def _recovery(self, gang: Gang, node: Node) -> Recovery:
        """Return what applies to ``gang`` on ``node``'s pool: its tenant's over the pool's."""
        tenant = gang.tenant.tenant if gang.tenant is not None else None
        key = (None if tenant is None else tenant.name, node.pm.name)
        found = self.recoveries.get(key)
        if found is None:
            pool = node.pm.pool
            found = pool.recovery if tenant is None else tenant.recovery.over(pool.recovery)
            self.recoveries[key] = found
        return found

    def _checkpoint_start(self, gang: Gang) -> float:
        """Return how long the gang's run lasts now; resume it from its latest checkpoint."""
        node = gang.placed[0][0]
        rec = self._recovery(gang, node)
        plan = plan_of(gang.job, rec)
        prog = self.resumes.get(gang.id)
        if plan is None:
            if prog is not None:
                prog.saved, prog.plan, prog.restore = 0.0, None, 0.0
            run = gang.job.duration
        else:
            if prog is None:
                prog = self.resumes[gang.id] = Progress()
            prog.plan = plan
            prog.restore = plan.restore if prog.saved > 0 else 0.0
            prog.run = run = run_seconds(gang.job.duration - prog.saved, plan, prog.restore)
        self._count_return(gang)
        back = self.evicted.pop(gang.id, None)
        if back is not None:
            at, pool, budget, startup = back
            restore = prog.restore if prog is not None else 0.0
            self._pool_recovery(pool).downtimes.append((self.now - at + startup + restore, budget))
        return run

    def _count_return(self, gang: Gang) -> None:
        """Count an evicted gang placed again, and whether it waited for a node to be ready."""
        back = self.evicted_nodes.pop(gang.id, None)
        if back is None:
            return
        pool, mark, provisioning = back
        pr = self._pool_recovery(pool)
        pr.returns += 1
        if any(node.id >= mark or node.id in provisioning for node, _ in gang.placed):
            pr.scaled_up += 1

    def _pool_recovery(self, name: str) -> PoolRecovery:
        found = self.recovery_pools.get(name)
        if found is None:
            found = self.recovery_pools[name] = PoolRecovery()
        return found

    def _tenant_lost(self, gang: Gang) -> Lost:
        name = gang.tenant.name if gang.tenant is not None else "-"
        found = self.recovery_tenants.get(name)
        if found is None:
            found = self.recovery_tenants[name] = Lost()
        return found

    def _checkpoint_stop(self, gang: Gang, ran: float, requeue: bool) -> float | None:
        """Account a stop of the gang's run; return the GPU-seconds it lost (None: as before).

        Called before its pods are released. Evicted (``requeue``): its work since the latest
        completed checkpoint is redone, and the run's writes and restore are overhead; finished:
        its writes and restore were overhead (added to the gang here; 0 returned); given up (not
        requeued, not finished): the whole run and the work it had saved are lost.
        """
        gpus: dict[str, float] = {}
        for node, key in gang.placed:
            d, _, pods = node.allocs[key]
            gpus[node.pm.name] = gpus.get(node.pm.name, 0.0) + d.gpus * pods
        first = gang.placed[0][0] if gang.placed else None
        prog = self.resumes.get(gang.id)
        plan = None if prog is None else prog.plan
        finished = not requeue and (
            ran >= (prog.run if plan is not None and prog is not None else gang.job.duration)
            * (1 - EPS) - EPS)
        if plan is None or prog is None:
            part = Split(0.0, 0.0 if finished else ran, 0.0, 0.0)
            saved_before = 0.0
        else:
            work = gang.job.duration - prog.saved
            part = (Split(work, 0.0, writes(work, plan.every) * plan.write, prog.restore)
                    if finished else split(ran, work, plan, prog.restore))
            saved_before = prog.saved
            prog.saved += part.saved
        redone = part.redone
        if not requeue and not finished:  # given up: everything it did is lost
            redone += part.saved + saved_before
        tenant = self._tenant_lost(gang)
        lost = 0.0
        for name, n in gpus.items():
            pr = self._pool_recovery(name)
            for acc in (pr.lost, tenant):
                acc.redone += redone * n
                acc.write += part.write * n
                acc.restore += part.restore * n
            lost += (redone + part.write + part.restore) * n
        if first is not None:
            pr = self._pool_recovery(first.pm.name)
            pr.job_seconds += ran
            if not finished:
                pr.interruptions += 1
                self._interrupted(gang, first, requeue)
                if requeue:
                    self.evicted_nodes[gang.id] = (first.pm.name, self.node_id,
                                                   frozenset(self.provisioning))
        if plan is None:
            return None  # it loses what it lost before: all of an evicted run
        if finished:
            gang.gpu_seconds_lost += lost
            return 0.0
        return lost

    def _interrupted(self, gang: Gang, node: Node, requeue: bool) -> None:
        """Note an interruption where a downtime budget applies, to measure its downtime."""
        rec = self._recovery(gang, node)
        if rec.max_downtime_seconds is None:
            return
        if requeue:
            self.evicted[gang.id] = (self.now, node.pm.name, rec.max_downtime_seconds,
                                     rec.startup_seconds or 0.0)
        else:
            self._pool_recovery(node.pm.name).never_back.append(rec.max_downtime_seconds)

    def _checkpoint_outcome(self) -> CheckpointRun | None:
        """Return what the part measured (None where it had no work)."""
        if not self.checkpoints_on:
            return None
        for _, pool, budget, _ in self.evicted.values():  # evicted, never placed again
            self._pool_recovery(pool).never_back.append(budget)
        return CheckpointRun(dict(self.recovery_pools), dict(self.recovery_tenants))
