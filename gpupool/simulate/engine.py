"""The discrete-event simulation: a workload replayed on a stack's pools, on a simulated clock.

This module owns the wiring: ``Simulation`` is the loop (``loop``: the clock, the heap keyed by
``(time, kind, sequence)``, the observers) over the run's named parts, each a module with one job:

- ``queues``: what a job meets at submission, its queue, and which queues a pass tries (with
  the gating that skips tries that must fail);
- ``scheduling``: the pass over the queues' first jobs, placing, starting, stopping, requeueing;
- ``preempt``: the victims a waiting job may evict under the scheduler's rules, and evicting;
- ``node_index``: which nodes a pod may go on, kept as pods come and go;
- ``node_autoscaler``: nodes added, made ready, interrupted and removed; scale-ups;
- ``accounting``: the pools' and tenants' figures over time, and the ``Outcome``;
- ``checkpoints``: where an evicted job resumes, what checkpoints cost, interruptions and
  downtime.

Observers (``observers``: fragmentation metering, ``metered``) watch a run through hooks and
never change it. The run ends when no event is left; what is still queued then never started.
Capacity mode (``saturate``) drives the same parts through ``start_full`` and ``place_now``.
"""

from __future__ import annotations

import heapq
import math
import random
from collections.abc import Callable, Mapping, Sequence

from gpupool import schedulers
from gpupool.model import Stack
from gpupool.schedulers.base import ORDER_BELOW_QUOTA, VICTIMS_QUEUE_RECLAIM
from gpupool.simulate.accounting import (
    Accounting,
    Outcome,
    PoolStats,
    Preemption,
    TenantStats,
    Timeline,
)
from gpupool.simulate.checkpoints import Checkpointing
from gpupool.simulate.cluster import cluster_of
from gpupool.simulate.events import EVICT, FINISH, GONE, IDLE, INTERRUPT, READY, UNFILLED, WAKE
from gpupool.simulate.gang import (
    CAPACITY,
    DONE,
    FRAGMENTATION,
    GAVE_UP,
    GAVE_UP_STATE,
    GIVE_UP_FACTOR,
    NEVER,
    PENDING,
    REJECTED,
    RUNNING,
    Gang,
    Settings,
)
from gpupool.simulate.jobs import Job, Workload
from gpupool.simulate.loop import CLOCK_EVERY, Loop
from gpupool.simulate.metered import FragmentationMeter
from gpupool.simulate.node_autoscaler import NodeAutoscaler
from gpupool.simulate.node_index import NodeIndex
from gpupool.simulate.preempt import Preempting
from gpupool.simulate.queues import Queues
from gpupool.simulate.scheduling import Scheduling
from gpupool.simulate.tenancy import Tenancy

__all__ = [
    "CAPACITY", "CLOCK_EVERY", "DONE", "FRAGMENTATION", "GAVE_UP", "GAVE_UP_STATE",
    "GIVE_UP_FACTOR", "NEVER", "PENDING", "REJECTED", "RUNNING", "Gang", "Outcome", "PoolStats",
    "Preemption", "Settings", "Simulation", "TenantStats", "Timeline", "simulate",
    "simulate_metered",
]


class Simulation(Loop, Queues, Scheduling, Preempting, NodeIndex, NodeAutoscaler, Accounting,
                 Checkpointing):
    """One run of a workload on a stack: the loop over its parts."""

    def __init__(self, stack: Stack, workload: Workload, settings: Settings | None = None,
                 progress: Callable[[int, int], None] | None = None,
                 clock: Callable[[float], None] | None = None, *,
                 observers: Sequence[object] = ()) -> None:
        self.stack = stack
        self.workload = workload
        self.settings = settings or Settings()
        self.cluster = cluster_of(stack)
        self.tenancy = Tenancy(stack)
        # the scheduler's rules, as its plug-in states them (gpupool/schedulers/base.py)
        emulation = schedulers.of(stack).emulation
        self.below_quota_first = emulation.order == ORDER_BELOW_QUOTA  # queues._order
        self.queue_reclaim = emulation.victims == VICTIMS_QUEUE_RECLAIM  # preempt._victims
        self.rng = random.Random(self.settings.seed)
        self.progress = progress
        self.clock = clock  # told the simulated time every CLOCK_EVERY instants (progress)
        self.version = 0  # counts releases and additions: a failed queue waits for the next
        self._init_loop(observers)
        # binpack places a GPU pod by walking its pool's busy nodes from the fullest
        self._init_index(packed=emulation.packs)
        self._init_autoscaler(stack.provider.cloud)
        self._init_accounting()
        self._init_scheduling()
        self._init_preempting()
        self._init_queues()
        # a service's replicas add priorities and tenants the workload alone does not show,
        # so the gating that skips failed tries (queues._gated) is off beside them
        self.extra_pods = 0
        if any(getattr(o, "places_pods", False) for o in self.observers):
            self.gated = False
        self._init_checkpoints()
        self._attach()

    def _handlers(self) -> Mapping[int, Callable[[object], None]]:
        return {
            FINISH: self._finish, EVICT: self._evict_node_pods, GONE: self._gone,
            READY: self._ready, INTERRUPT: self._interrupt, IDLE: self._idle,  # type: ignore
            WAKE: self._wake, UNFILLED: self._unfilled,
        }

    def run(self) -> Outcome:
        """Run to the end and return what happened."""
        for pm in self.cluster.pools:
            for g in pm.groups:
                start = g.desired if self.cluster.autoscales else g.max
                for _ in range(start):
                    self._add_node(pm, g, ready_at=0.0)
        end = self._run_events(self.workload.jobs, self._handlers())
        self._never_started()
        jobs = len(self.workload.jobs)
        gangs = self.gangs if not self.extra_pods else [g for g in self.gangs if g.id < jobs]
        outcome = Outcome(
            stack=self.stack, cluster=self.cluster, workload=self.workload,
            settings=self.settings, gangs=gangs, pools=self.pool_stats,
            tenants=self.tenant_stats, preemptions=self.preemptions, end=end,
            timeline=self.timeline, checkpoints=self._checkpoint_outcome(),
        )
        for hook in self._on_end:
            hook(outcome)
        return outcome

    def _never_started(self) -> None:
        """Give every job still queued at the end its state and the reason it waited."""
        for key in self.parked:
            if self.tried_pass.get(key, 0) < self.bump_pass:
                # its try in the last pass after a release was skipped; nothing has started
                # since that pass (a start ends later in a release), so the state is that
                # pass's and its reason is what that try would have said
                gang = self.queues[key][0]
                gang.reason = self._capacity_reason(gang, self.bump_free)
                self.queue_failed[key] = (self.version, gang.reason)
        for key, queue in self.queues.items():
            failed = self.queue_failed.get(key)
            for gang in queue:
                gang.state = NEVER
                gang.reason = gang.reason or (failed[1] if failed else "") or CAPACITY

    # -- services (simulate.services.actor): pods that are no row of the workload --------
    def submit_pod(self, job: Job) -> Gang:
        """Submit ``job`` as a pod beside the workload (a service's replica); return its gang.

        It meets what a workload's job meets (admission, its queue, the scheduler's order,
        preemption, scale-ups); the run's ``Outcome`` leaves it out of the jobs.
        """
        self._submit_job(len(self.workload.jobs) + self.extra_pods, job)
        self.extra_pods += 1
        return self.gangs[-1]

    def withdraw(self, gang: Gang) -> None:
        """Delete a pod ``submit_pod`` made: released where it runs, taken from its queue."""
        if gang.state == RUNNING:
            self._stop(gang, requeue=False)
        elif gang.queued:
            self._dequeue(gang)
            gang.state = DONE

    def drop_endless(self) -> None:
        """Forget the finishes of pods that never end (replicas run until withdrawn)."""
        self.heap[:] = [e for e in self.heap if e[0] != math.inf]
        heapq.heapify(self.heap)

    # -- capacity mode (simulate.saturate) -------------------------------------------------
    def start_full(self) -> None:
        """Start every node group at its most nodes, all ready, for pods that never leave."""
        for pm in self.cluster.pools:
            for g in pm.groups:
                for _ in range(g.max):
                    self._add_node(pm, g, ready_at=0.0)

    def place_now(self, index: int) -> bool:
        """Submit job ``index`` and place it at once; False where it fits nowhere (no queue)."""
        self._submit(index)
        gang = self.gangs[-1]
        if gang.state != PENDING:
            return False
        self._dequeue(gang)
        return self._place(gang)


def simulate(stack: Stack, workload: Workload, settings: Settings | None = None,
             progress: Callable[[int, int], None] | None = None,
             clock: Callable[[float], None] | None = None) -> Outcome:
    """Replay ``workload`` on ``stack`` and return what happened."""
    return Simulation(stack, workload, settings, progress, clock).run()


def simulate_metered(stack: Stack, workload: Workload, settings: Settings | None = None,
                     progress: Callable[[int, int], None] | None = None,
                     clock: Callable[[float], None] | None = None, *,
                     observers: Sequence[object] = (),
                     ) -> tuple[Outcome, Mapping[str, float | None]]:
    """Replay ``workload`` on ``stack``; return what happened and each pool's fragmentation.

    ``observers`` watch the run beside the meter (a ``services.actor.ServiceActor`` runs the
    stack's services in it; ``records.JobRecords`` writes per-job records).
    """
    meter = FragmentationMeter(workload)
    outcome = Simulation(stack, workload, settings, progress, clock,
                         observers=[meter, *observers]).run()
    return outcome, meter.fragmentation(outcome.end)
