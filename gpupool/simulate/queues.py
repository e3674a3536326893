"""The queues: what a job meets at submission, where it waits, and which queues a pass tries.

This module owns the part of ``engine.Simulation`` between a job's submission and its tries.
Per job, in order: admission (``tenancy.Tenancy.denied``: rejected with the policy's message),
the pools it may run on (its pin, else its tenant's pools, else every pool; a pod asking no GPU
may go anywhere), its request on each (``demand``), ceilings that can never be met (reason,
never started), then its queue. Jobs wait in one queue per shape, tenant and priority level,
in submit order, and a pass tries only the first of each (the others ask the same and would
fail alike), so a long backlog costs a pass no more than its distinct shapes; queues are taken
in the scheduler's order (``_order``: KAI, its queue order, ``schedulers.kai.queue_order``, then
priority and the job's creation; others by priority and time in the queue).

Its speed-ups: a job's requests are kept per job shape (``shapes``), what a shape meets at
submission per shape, tenant and priority (``admitted``), and one list, key and pool map per
value. Where a failed try leaves no trace (``_gated``) a failed queue is parked
(``waiting.Parked``) and tried again only after a release onto a node that fits its first job,
with the same outcome, and its scale-up request is kept per queue (``waiting.Wanted``).
Elsewhere a queue its tenant's ceiling stopped is held (``held.Holds``) until that tenant's
usage moves; the others (``loose``) are retried after every release, as in the original rule.
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Callable, Iterable

from gpupool.facts.tenancy import PRIORITY_VALUES
from gpupool.model import Stack
from gpupool.simulate import autoscaler
from gpupool.simulate.cluster import ClusterModel
from gpupool.simulate.demand import DOES_NOT_FIT, NO_POOL, Demand, demand
from gpupool.simulate.gang import NEVER, PENDING, REJECTED, Gang
from gpupool.simulate.held import Holds, Static
from gpupool.simulate.jobs import Job, Workload
from gpupool.simulate.placement import Node
from gpupool.simulate.tenancy import LIMIT, QUOTA, Tenancy, TenantState
from gpupool.simulate.waiting import Parked, Wanted

Head = tuple[tuple[float, ...], tuple[object, ...]]  # (the scheduler's order, the queue's key)


class Queues:
    """The part of a run that keeps the waiting jobs (state set by ``_init_queues``)."""

    stack: Stack
    workload: Workload
    cluster: ClusterModel
    tenancy: Tenancy
    below_quota_first: bool
    now: float
    version: int
    last_activity: float
    touched: dict[int, Node]
    _on_queue: list[Callable[[Gang, float], None]]

    def _init_queues(self) -> None:
        self.gangs: list[Gang] = []
        self.shapes: dict[tuple[object, ...], list[Demand | str]] = {}
        self.per_node: dict[int, float] = {}  # id of a kept Demand -> empty nodes one pod takes
        # the queue, by shape: jobs of one request, tenant and priority level wait in submit
        # order, and only the first of each is tried (the rest would fail alike)
        self.queues: dict[tuple[object, ...], list[Gang]] = {}
        self.queue_pods: dict[tuple[object, ...], int] = {}
        self.queue_failed: dict[tuple[object, ...], tuple[int, str]] = {}  # version, reason
        self.queued_pods = 0  # sum of queue_pods, kept as queues change
        self.option_lists: dict[tuple[int, ...], list[Demand]] = {}  # one list per shape
        self.option_pools: dict[int, dict[str, Demand]] = {}  # id of an option list -> by pool
        self.keys: dict[tuple[object, ...], tuple[object, ...]] = {}  # one queue key per value
        # (queue key, the row's priority) -> what a job of that shape meets at submission
        self.admitted: dict[tuple[object, ...], tuple[str, str, list[Demand]]] = {}
        # retrying a queue only when a release could fit its first job (see _gated)
        self.gated = self._gated()
        self.parked = Parked()  # gated queues whose first job failed, in order (waiting.py)
        self.wanted = Wanted()  # gated, autoscaled: the queues' scale-up request (waiting.py)
        # the free GPUs per pool once something changed them after the last full retry
        # without a release (a drain, an idle node removed): the skipped tries' state
        self.bump_free: dict[str, float] | None = None
        self.untried: dict[tuple[object, ...], None] = {}  # queues made since the last pass
        self.gang_keys: dict[tuple[object, ...], None] = {}  # queues of gangs (original rule)
        self.tried_pass: dict[tuple[object, ...], int] = {}  # the pass a parked head last ran
        self.pass_no = 0
        self.pass_version = 0
        self.bump_pass = 0  # the last pass that followed a release (the last full retry)
        # not gated: queues held by their tenant's ceiling (held.py), and the others, which
        # are kept in the order the queues were made (the scale-up scan's, ``_waiting``)
        self.hold_ceilings = True  # off: every queue is retried after every release
        self.holds = Holds()
        self.loose: dict[tuple[object, ...], None] = {}
        self.loose_late: set[tuple[object, ...]] = set()  # loose again: out of its place
        self.queue_serial: dict[tuple[object, ...], int] = {}
        self.serial = 0

    def _gated(self) -> bool:
        """Whether a failed queue may wait for a release that could fit its first job.

        In the original rule every release retries every waiting queue's first job. Skipping
        the retries that must fail changes nothing only where a failed try leaves no trace:
        no tenants (no ceilings, no reclaim) and one priority level over the whole workload
        (no pod may preempt another). A failed try's scale-up request is kept per queue
        (``waiting.Wanted``), not redone. Gangs keep the original rule (a gang's failed try
        takes and gives back its first pods). What a skipped try would have said (its reason)
        is worked out at the end (``run``).
        """
        if self.stack.tenants:
            return False
        levels = {j.priority for j in self.workload.jobs if j.tenant is None}
        return len(levels) <= 1

    def _submit(self, gang_id: int) -> None:
        self._submit_job(gang_id, self.workload.jobs[gang_id])

    def _submit_job(self, gang_id: int, job: Job) -> None:
        """Submit ``job`` as gang ``gang_id`` (a workload row, or a service's replica pod)."""
        self.last_activity = self.now
        level = self.tenancy.priority_level(job.tenant, job.priority)
        st = self.tenancy.state(job.tenant)
        gang = Gang(gang_id, job, level, PRIORITY_VALUES.get(level, 100), st, queued_at=self.now)
        self.gangs.append(gang)
        if st is None:
            gang.state, gang.reason = REJECTED, f"{job.tenant} is not a tenant of the stack"
            return
        key = (*self._shape(job), job.tenant, level)
        found = self.admitted.get((key, job.priority))
        if found is None:
            found = self._admit(job, level, st)
            key = self.keys.setdefault(key, key)
            self.admitted[(key, job.priority)] = found
        state, reason, options = found
        if state != PENDING:
            gang.state, gang.reason = state, reason
            return
        gang.options = options
        gang.key = self.keys[key]
        self._enqueue(gang)

    def _admit(self, job: Job, level: str,
               st: TenantState) -> tuple[str, str, list[Demand]]:
        """Return what a job meets at submission: (state, reason, the pools' requests it may use).

        It depends only on the job's shape, tenant, priority and level and on the stack, so
        ``_submit`` keeps it per those (``admitted``).
        """
        allowed = self.tenancy.pools(job.tenant)
        options: list[Demand] = []
        reasons: list[str] = []
        pin_demand: Demand | None = None
        for d in self._demands(job):
            if isinstance(d, str):
                reasons.append(d)
                continue
            if d.pool.name == job.pool:
                pin_demand = d
            if allowed is not None and d.pool.name not in allowed and d.uses_gpu:
                reasons.append(NO_POOL)
                continue
            options.append(d)
        uses_gpu = any(o.uses_gpu for o in options) or (
            pin_demand is not None and pin_demand.uses_gpu)
        wants_gpu = job.gpus > 0 or job.fraction is not None or job.mig is not None or (
            job.gpu_memory_gib is not None)
        if wants_gpu or uses_gpu:
            denied = self.tenancy.denied(job.tenant, job.priority, job.pool, pin_demand)
            if denied is not None:
                return REJECTED, denied, []
        if not options:
            return NEVER, DOES_NOT_FIT if DOES_NOT_FIT in reasons else NO_POOL, []
        never = None
        fitting = []
        for d in options:
            why = self.tenancy.never(st, d, job.pods, level) if st.tenant is not None else None
            if why is None and self._fits_at_most(d, job.pods):
                fitting.append(d)
            else:
                never = never or why
        if not fitting:
            return NEVER, never or DOES_NOT_FIT, []
        ids = tuple(id(d) for d in fitting)
        return PENDING, "", self.option_lists.setdefault(ids, fitting)

    def _demands(self, job: Job) -> list[Demand | str]:
        """Return the request of one pod of ``job`` on each pool it may pin, kept per job shape."""
        shape = (job.pool, job.gpus, job.fraction, job.mig, job.gpu_memory_gib, job.cpu,
                 job.memory_gib, job.gpu_models)
        found = self.shapes.get(shape)
        if found is None:
            found = [demand(job, pm) for pm in self.cluster.pools
                     if job.pool is None or pm.name == job.pool]
            self.shapes[shape] = found
        return found

    def _fits_at_most(self, d: Demand, pods: int) -> bool:
        """Whether one pod fits an empty node and ``pods`` pods the pool at its most nodes."""
        per_node = self.per_node.get(id(d))
        if per_node is None:
            per_node = self.per_node[id(d)] = autoscaler.nodes_for(d.pool, d, 1)
        if per_node > 1 + 1e-9:
            return False
        return per_node <= 0 or pods * per_node <= d.pool.nodes_max + 1e-9

    def _order(self, gang: Gang) -> tuple[float, ...]:
        if self.below_quota_first and gang.tenant is not None and gang.tenant.tenant is not None:
            queue = self.tenancy.order(gang.tenant, gang.options[0].kai_gpus * gang.pods,
                                       self._fair_share())
            # KAI's job order in a queue: priority, then the PodGroup's creation, which an
            # evicted job keeps (plugins/priority/priority.go, framework/session_plugins.go)
            return (*queue, -gang.priority, gang.job.submit, gang.id)
        return (0.0, 0.0, -gang.priority, gang.queued_at, gang.id)

    def _shape(self, job: Job) -> tuple[object, ...]:
        return (job.pool, job.gpus, job.fraction, job.mig, job.gpu_memory_gib, job.cpu,
                job.memory_gib, job.pods, job.gpu_models)

    def _enqueue(self, gang: Gang) -> None:
        queue = self.queues.get(gang.key)
        if queue is None:
            queue = self.queues[gang.key] = []
            self.untried[gang.key] = None
            if gang.pods != 1:
                self.gang_keys[gang.key] = None
            self.loose[gang.key] = None
            self.serial += 1
            self.queue_serial[gang.key] = self.serial
        elif gang.key in self.holds:
            self._let_go(gang.key)  # its first job may change, its observers see one more
        kept = self.below_quota_first  # KAI: an evicted job keeps its creation's place
        bisect.insort(queue, gang, key=lambda g: (g.job.submit if kept else g.queued_at, g.id))
        self.queue_pods[gang.key] = self.queue_pods.get(gang.key, 0) + gang.pods
        self.queued_pods += gang.pods
        gang.queued = True
        self.tenancy.wait(gang.tenant, gang.options, gang.pods, 1)
        if self.gated and self.cluster.autoscales:
            self.wanted.update(gang.key, gang.options, self.queue_pods[gang.key])
        for hook in self._on_queue:
            hook(gang, self.now)

    def _dequeue(self, gang: Gang) -> None:
        if gang.key in self.holds:
            self._let_go(gang.key)
        queue = self.queues[gang.key]
        if queue[0] is gang:
            queue.pop(0)
        else:
            queue.remove(gang)
        gang.queued = False
        self.tenancy.wait(gang.tenant, gang.options, gang.pods, -1)
        self.queue_pods[gang.key] -= gang.pods
        self.queued_pods -= gang.pods
        if self.gated and self.cluster.autoscales:
            self.wanted.update(gang.key, gang.options, self.queue_pods[gang.key])
        if not queue:
            del self.queues[gang.key]
            del self.queue_pods[gang.key]
            self.queue_failed.pop(gang.key, None)
            self.parked.discard(gang.key)
            self.untried.pop(gang.key, None)
            self.tried_pass.pop(gang.key, None)
            self.gang_keys.pop(gang.key, None)
            del self.loose[gang.key]
            self.loose_late.discard(gang.key)
            del self.queue_serial[gang.key]

    def _gated_heads(self) -> tuple[list[tuple[tuple[float, ...], tuple[object, ...]]],
                                     list[Node]]:
        """Return the queues a pass tries first, and the nodes touched since the last pass.

        Where failed queues wait (``_gated``), the queues are those the original rule tries
        besides parked ones: new queues, and gangs' queues (still retried after every
        release). A parked queue's first job failed, and every node it did not fit has only
        lost room since, except the touched ones; so
        ``_next`` walks the parked queues in order only while a touched node has room.
        """
        self.pass_no += 1
        if self.version != self.pass_version:
            self.pass_version = self.version
            self.bump_pass = self.pass_no
            self.bump_free = None
        touched = self.touched
        self.touched = {}
        heap: list[tuple[tuple[float, ...], tuple[object, ...]]] = []
        for key in self.untried:
            heap.append((self._order(self.queues[key][0]), key))
        self.untried = {}
        nodes = [n for n in touched.values() if n.schedulable] if self.parked else []
        if self.gang_keys:
            seen = {k for _, k in heap}
            for key in self.gang_keys:
                failed = self.queue_failed.get(key)
                if key not in seen and (failed is None or failed[0] != self.version):
                    heap.append((self._order(self.queues[key][0]), key))
        return heap, nodes

    def _next(self, heap: list[tuple[tuple[float, ...], tuple[object, ...]]], nodes: list[Node],
              skipped: list[tuple[tuple[float, ...], tuple[object, ...]]],
              ) -> tuple[object, ...] | None:
        """Return the next queue a pass tries, in the scheduler's order, or None at the end.

        Parked queues come in between the others, each only if a touched node in ``nodes``
        fits its first job now; the others are ``skipped`` (still parked), and the walk stops
        once no touched node has room for the smallest request parked on its pool. Not gated,
        held queues come in between the others as ``_next_held`` says.
        """
        if not self.gated:
            if self.holds.heap is None:  # no held queue in this pass
                return heapq.heappop(heap)[1] if heap else None
            return self._next_held(heap)
        filtered = False
        while True:
            top = self.parked.peek() if nodes else None
            if top is None or (heap and heap[0][0] < top[0]):
                return heapq.heappop(heap)[1] if heap else None
            self.parked.pop()
            key = top[1]
            by_pool = self._by_pool(self.queues[key][0])
            if not filtered:
                # once a call: nothing a node or the parked minima hold changes in this walk
                nodes[:] = [n for n in nodes if self.parked.may_fit(n)]
                filtered = True
            for node in nodes:
                d = by_pool.get(node.pm.name)
                if d is not None and node.fits(d):
                    self.parked.discard(key)
                    return key
            skipped.append(top)

    def _by_pool(self, gang: Gang) -> dict[str, Demand]:
        """Return the gang's requests by pool name (kept per option list)."""
        by_pool = self.option_pools.get(id(gang.options))
        if by_pool is None:
            by_pool = self.option_pools[id(gang.options)] = {
                d.pool.name: d for d in gang.options}
        return by_pool

    def _ceiling(self, gang: Gang) -> str | None:
        st = gang.tenant
        if st is None or st.tenant is None:
            return None
        reasons = [self.tenancy.blocked(st, d, gang.pods, gang.level) for d in gang.options]
        if any(r is None for r in reasons):
            return None
        return QUOTA if QUOTA in reasons else LIMIT

    # -- queues held by their tenant's ceiling (not gated; held.py) ----------------------------
    def _static(self, gang: Gang) -> Static:
        """Return the last three of ``_order`` for a tenant's job (they order a held group)."""
        return (-gang.priority, gang.job.submit if self.below_quota_first else gang.queued_at,
                gang.id)

    def _ungated_heads(self) -> list[Head]:
        """Return the queues a pass tries first where failed queues are not parked.

        The original rule's: every queue not tried since the last release or addition
        (``version``), the held ones through one entry per group (``Holds.begin``).
        """
        version = self.version
        failed_of = self.queue_failed
        heap = []
        for key, queue in self._waiting():
            failed = failed_of.get(key)
            if failed is None or failed[0] != version:
                heap.append((self._order(queue[0]), key))
        self.tenancy.take_changed()
        if self.holds.groups:
            self.holds.begin(heap, version, lambda key: self._order(self.queues[key][0]))
        return heap

    def _next_held(self, heap: list[Head]) -> tuple[object, ...] | None:
        """Return the next queue of a pass that is not gated, or None at its end.

        The groups of held queues follow what moved since the last call: the run's version
        (``Holds.bump``) and their tenants' usage (``Holds.wake``).
        """
        holds = self.holds
        if self.version != holds.version:
            holds.bump(self.version)
        changed = self.tenancy.take_changed()
        if changed:
            holds.wake(changed)
        while heap:
            order, key = heapq.heappop(heap)
            tried = holds.pop(order, key)
            if tried is not None:
                if tried not in self.loose:
                    self._loosen(tried)
                return tried
        holds.end(self.version)
        return None

    def _held(self, key: tuple[object, ...], gang: Gang) -> None:
        """Hold queue ``key``, whose first job its tenant's ceiling just stopped (a hook).

        ``Scheduling._schedule`` calls it where the ceiling is one preemption cannot lift.
        """
        if not self.hold_ceilings or self.gated or gang.tenant is None:
            return
        size = gang.options[0].kai_gpus * gang.pods if self.below_quota_first else None
        self.holds.hold(key, gang.tenant, size, self._static(gang), self.version)
        del self.loose[key]
        self.loose_late.discard(key)

    def _let_go(self, key: tuple[object, ...]) -> None:
        """Let a held queue go, with the version its last try (skipped or not) left it."""
        version = self.holds.release(key)
        if version is not None:
            self.queue_failed[key] = (version, self.queue_failed[key][1])
        self._loosen(key)

    def _loosen(self, key: tuple[object, ...]) -> None:
        self.loose[key] = None
        self.loose_late.add(key)

    def _waiting(self) -> Iterable[tuple[tuple[object, ...], list[Gang]]]:
        """Return the queues not held, in the order they were made (that of ``queues``)."""
        if not self.holds:
            return self.queues.items()  # the same keys as ``loose``, in that order
        if self.loose_late:
            serial = self.queue_serial
            self.loose = dict.fromkeys(sorted(self.loose, key=serial.__getitem__))
            self.loose_late.clear()
        queues = self.queues
        return ((key, queues[key]) for key in self.loose)
