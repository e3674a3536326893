"""The scheduling pass: the queues' first jobs placed, started, stopped and requeued.

This module owns the part of ``engine.Simulation`` that runs once after every instant's events:
the queues' first jobs in the scheduler's order (``queues``), each queue until one fails. A job
blocked by its tenant's ceiling waits (``limit``/``quota``); a job that fits nowhere may
preempt (``preempt``), then asks the autoscaler for nodes (``node_autoscaler``); its reason is
``fragmentation`` where its pools have the GPUs free in total, else waiting for capacity. A
job's ``pods`` start together or not at all (a gang): ``_place`` takes every pod's node in turn
(``node_index._choose_among``, one choice over all the pod's pools) and gives them all back if
one fails. A started job finishes after its duration; an evicted one (preempted, or on an
interrupted spot node) goes back to its queue with its whole duration, or, where it
checkpoints, with what its latest checkpoint had not saved (``checkpoints``: the hooks
``_checkpoint_start`` and ``_checkpoint_stop``). Observers are told of each start, stop and
failed try.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import Any

from gpupool.simulate.accounting import PoolStats, TenantStats
from gpupool.simulate.cluster import ClusterModel, PoolModel
from gpupool.simulate.demand import Demand
from gpupool.simulate.events import FINISH, IDLE
from gpupool.simulate.gang import CAPACITY, DONE, FRAGMENTATION, PENDING, RUNNING, Gang, Settings
from gpupool.simulate.placement import Node, inert
from gpupool.simulate.tenancy import LIMIT, QUOTA, Tenancy, TenantState
from gpupool.simulate.waiting import Parked, Wanted


class Scheduling:
    """The part of a run that places and releases jobs (state set by ``_init_scheduling``)."""

    cluster: ClusterModel
    tenancy: Tenancy
    settings: Settings
    now: float
    version: int
    gated: bool
    queues: dict[tuple[object, ...], list[Gang]]
    queue_pods: dict[tuple[object, ...], int]
    queue_failed: dict[tuple[object, ...], tuple[int, str]]
    queued_pods: int
    parked: Parked
    wanted: Wanted
    tried_pass: dict[tuple[object, ...], int]
    pass_no: int
    nodes: dict[str, list[Node]]
    pool_models: dict[str, PoolModel]
    pool_stats: dict[str, PoolStats]
    tenant_stats: dict[str, TenantStats]
    fallback_ids: set[int]
    checkpoints_on: bool  # checkpoints: whether the run follows checkpoints and downtime
    _push: Callable[[float, int, object], None]
    _on_start: list[Callable[[Gang, float], None]]
    _on_stop: list[Callable[[Gang, float, bool], None]]
    _on_wait: list[Callable[[Gang, float, str], None]]

    def _init_scheduling(self) -> None:
        self.running: dict[int, Gang] = {}
        self.owner: dict[int, Gang] = {}  # pod key -> gang
        self.pod_key = 0
        self.pool_sets: dict[frozenset[str], frozenset[str]] = {}  # one frozenset per value
        self.last_activity = 0.0
        self.queued = 0  # pods queued after the last pass (the timeline's)

    def _schedule(self) -> None:
        """One scheduling pass: the queues' first jobs in order, each queue until one fails.

        The first jobs are taken in the scheduler's order (``_order``) through a heap; a queue
        whose first job fails is done for this pass, and is not tried again until something
        is released or added (``version``), since its other jobs ask the same.
        """
        nodes: list[Node] = []
        if self.gated:
            heap, nodes = self._gated_heads()
        else:
            heap = self._ungated_heads()  # queues: every queue not tried since the version
        heapq.heapify(heap)
        skipped: list[tuple[tuple[float, ...], tuple[object, ...]]] = []
        while (key := self._next(heap, nodes, skipped)) is not None:
            gang = self.queues[key][0]
            why = self._ceiling(gang)
            # gated: one priority level and no tenants, so no pod may evict another
            preempt = self._preempt if gang.pods == 1 else self._preempt_gang
            lift = why == LIMIT and self.tenancy.lifted_by_preemption(
                gang.tenant, gang.options, gang.pods, gang.level)
            if (why is None and self._place(gang)) or (
                    (why is None or lift) and not self.gated and preempt(gang)):
                if key in self.queues:
                    self.queue_failed.pop(key, None)
                    heapq.heappush(heap, (self._order(self.queues[key][0]), key))
                continue
            gang.reason = why or self._capacity_reason(gang)
            self.queue_failed[key] = (self.version, gang.reason)
            for hook in self._on_wait:
                hook(gang, self.now, gang.reason)
            if self.gated and gang.pods == 1:
                self.parked.add(key, self._order(gang), gang.options)
                self.tried_pass[key] = self.pass_no
            elif why is not None and not lift:
                self._held(key, gang)  # queues: waits until its tenant's usage moves
        self.parked.push_back(skipped)
        self.queued = self.queued_pods
        if not self.cluster.autoscales:
            return  # nothing to ask for (_want adds nothing)
        if self.gated:
            # every waiting queue has failed its last try by now (each is tried when made)
            self._scale_up(*self.wanted.want(
                lambda name: len(self.nodes[name]) < self.pool_models[name].nodes_max))
            return
        want: dict[str, float] = {}
        first_option: dict[str, Demand] = {}
        for key, queue in self._waiting():  # queues: the held ones wait for a ceiling
            failed = self.queue_failed.get(key)
            if failed is not None and failed[1] not in (LIMIT, QUOTA):
                self._want(queue[0], self.queue_pods[key], want, first_option)
        self._scale_up(want, first_option)

    def _place(self, gang: Gang, *, trial: bool = False) -> bool:
        """Place every pod of the gang, or none; start it on success.

        ``trial``: only say whether it would be placed, leaving every node and tenant as it was.
        """
        taken: list[list[Any]] = []  # [node, entry key, request, pods] per entry
        st = gang.tenant
        left = gang.pods
        while left > 0:
            left -= 1
            options = gang.options
            if st is not None and st.tenant is not None:
                allowed = [d for d in options if not self.tenancy.blocked(st, d, 1, gang.level)]
                if len(allowed) < len(options):
                    options = allowed
            # one walk over all the pod's pools (the scores compare across them)
            node, d = self._choose_among(options, options is gang.options)
            if node is None or d is None:
                self._untake(taken, st, gang.level)
                return False
            last = taken[-1] if taken else None
            if last is not None and last[0] is node and last[2] is d and not d.devices:
                self._take(node, last[1], d)  # one more pod of the entry
                last[3] += 1
                if inert(d):
                    # it changed nothing a score or a ceiling sees, so the rest follow it
                    node.allocs[last[1]] = (d, (), last[3] + left)
                    last[3] += left
                    left = 0
            else:
                self.pod_key += 1
                self._take(node, self.pod_key, d)
                taken.append([node, self.pod_key, d, 1])
            if st is not None:
                self.tenancy.hold(st, d, 1, gang.level)
        if trial:
            self._untake(taken, st, gang.level)
            self.pod_key -= len(taken)
            return True
        self._start(gang, [(n, k) for n, k, _, _ in taken])
        return True

    def _untake(self, taken: list[list[Any]], st: TenantState | None, level: str) -> None:
        """Give back the entries ``_place`` took, last first."""
        for node, key, d, pods in reversed(taken):
            self._give_back(node, key)
            if st is not None:
                for _ in range(1 if inert(d) else pods):
                    self.tenancy.hold(st, d, -1, level)

    def _start(self, gang: Gang, placed: list[tuple[Node, int]]) -> None:
        if gang.queued:
            self._dequeue(gang)
        self.last_activity = self.now
        gang.state = RUNNING
        gang.reason = ""
        gang.placed = placed
        gang.started_at = self.now
        if gang.first_start is None:
            gang.first_start = self.now
        gang.last_nodes = tuple([node.name for node, _ in placed])
        names = {node.pm.name for node, _ in placed}
        if not names <= gang.pools_used:  # else the gang's set is already the one kept
            used = gang.pools_used.union(names)
            gang.pools_used = self.pool_sets.setdefault(used, used)
        first, first_key = placed[0]
        gang.last_devices = first.allocs[first_key][1]
        for node, key in placed:
            self.owner[key] = gang
            d, _, pods = node.allocs[key]
            stats = self.pool_stats[node.pm.name]
            for _ in range(0 if inert(d) else pods):
                stats.allocated_gpus += d.gpus
        self.running[gang.id] = gang
        self._peaks(gang)
        run = self._checkpoint_start(gang) if self.checkpoints_on else gang.job.duration
        self._push(self.now + run, FINISH, (gang.id, gang.started_at))
        for hook in self._on_start:
            hook(gang, self.now)

    def _finish(self, obj: object) -> None:
        gang_id, started = obj  # type: ignore[misc]
        gang = self.running.get(gang_id)
        if gang is None or gang.started_at != started:
            return  # evicted since: this finish belongs to an earlier start
        self._stop(gang, requeue=False)

    def _stop(self, gang: Gang, *, requeue: bool) -> float:
        """Release the gang's pods; account its use; requeue or finish it.

        Returns the GPU-seconds the run lost if it was given up: all it used, or, for a gang
        that checkpoints, what ``checkpoints._checkpoint_stop`` says.
        """
        self.last_activity = self.now
        ran = self.now - self._since(gang)
        # checkpoints: what the run lost, where the gang checkpoints (None: all of an evicted run)
        lost = self._checkpoint_stop(gang, ran, requeue) if self.checkpoints_on else None
        gpu_seconds = 0.0
        ts = self.tenant_stats[gang.tenant.name] if gang.tenant is not None else None
        for node, key in gang.placed:
            d, pods = self._give_back(node, key)
            self.owner.pop(key, None)
            stats = self.pool_stats[node.pm.name]
            price = node.group.node_price(node.index)
            equiv = node.pm.gpu_equivalents_per_node
            fallback = node.id in self.fallback_ids
            # pod by pod, so that the sums are the same floats; an inert pod adds nothing
            for _ in range(1 if inert(d) else pods):
                if gang.tenant is not None:
                    self.tenancy.hold(gang.tenant, d, -1, gang.level)
                used = d.gpus * ran
                gpu_seconds += used
                stats.allocated_gpus = max(0.0, stats.allocated_gpus - d.gpus)
                if fallback:
                    stats.fallback_gpu_seconds += used
                if ts is not None:
                    ts.gpu_seconds += used
                    if price is not None and equiv > 0:
                        ts.cost += used / 3600.0 * price / equiv
            if not node.allocs and not node.removed and self.cluster.autoscales:
                self._push(self.now + self.settings.scale_down_seconds, IDLE, (node, self.now))
        gang.placed = ()
        self.running.pop(gang.id, None)
        self.version += 1
        if requeue:
            gang.state = PENDING
            gang.started_at = None
            gang.queued_at = self.now
            gang.gpu_seconds_lost += gpu_seconds if lost is None else lost
            self._enqueue(gang)
        else:
            gang.state = DONE
        for hook in self._on_stop:
            hook(gang, self.now, requeue)
        return gpu_seconds if lost is None else lost

    def _since(self, gang: Gang) -> float:
        """When the gang last started (now if it is not running)."""
        return self.now if gang.started_at is None else gang.started_at

    def _wake(self, _: object) -> None:
        """Let waiting jobs try again: a victim reached its minimum runtime."""
        self.version += 1

    # -- the autoscaler -------------------------------------------------------------------
    def _capacity_reason(self, gang: Gang, free: dict[str, float] | None = None) -> str:
        """``fragmentation`` where the pools have the GPUs free in total, else waiting.

        ``free``: the pools' free GPUs to judge by (default: as they are now).
        """
        for d in gang.options:
            if d.gpus <= 0:
                continue
            have = self._free_gpus(d.pool.name) if free is None else free[d.pool.name]
            if have + 1e-9 >= d.gpus * gang.pods:
                return FRAGMENTATION
        return CAPACITY

