"""The discrete-event simulation: a workload replayed on a stack's pools, on a simulated clock.

This module owns the event loop. Events sit in a heap keyed by (time, kind, sequence), so the
same workload, stack and seed always give the same run: at one instant pods finish, nodes become
ready and spot nodes are interrupted before new jobs are submitted, and the scheduler then runs
once over the pending jobs. A job's ``pods`` start together or not at all (a gang).

Per job, in order: admission (``tenancy.Tenancy.denied``: rejected with the policy's message),
the pools it may run on (its pin, else its tenant's pools, else every pool; a pod asking no GPU
may go anywhere), its request on each (``demand``), ceilings that can never be met (reason,
never started), then the queue. A scheduling pass takes the pending jobs by priority (KAI: the
queue order, ``schedulers.kai.queue_order``) then by time in the queue; a job blocked
by its tenant's ceiling waits (``limit``/``quota``); a job that fits nowhere may preempt, then
asks the autoscaler for nodes. Jobs wait in one queue per shape, tenant and priority level, and
a pass tries only the first of each (the others ask the same and would fail alike), so a long
backlog costs a pass no more than its distinct shapes. A queue whose first job failed is tried
again after a release; where a failed try leaves no trace (``Simulation._gated``) only after a
release onto a node that fits it, with the same outcome (``waiting``: the parked queues in order,
and their scale-up request kept per queue). KAI binpack's node is found by a walk
of each pool's busy nodes from the fullest (``placement.choose_packed``), the same node its full
scan would score highest. Preemption follows the scheduler:
kube-scheduler evicts pods of lower priority from one node; KAI preempts preemptible pods
(PriorityClass below 100) of the same queue that ran past its ``preemptMinRuntime``, and
reclaims preemptible pods of queues above their fair share that ran past their
``reclaimMinRuntime``, for a queue within its fair share. A single pod preempts on one node
(``_preempt``); a gang gathers such victims on its pools, lowest first, until the whole gang
fits, and evicts them only then (``_preempt_gang``, as KAI commits a scenario).

Evicted jobs (preempted, or on an interrupted spot node) go back to the queue with their whole
duration. The run ends when no event is left; what is still queued then never started.
"""

from __future__ import annotations

import bisect
import heapq
import math
import random
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpupool.facts import SCHEDULER_KAI
from gpupool.facts.tenancy import PRIORITY_VALUES
from gpupool.model import Stack
from gpupool.simulate import autoscaler
from gpupool.simulate.cluster import ClusterModel, GroupModel, PoolModel, cluster_of
from gpupool.simulate.demand import DOES_NOT_FIT, NO_POOL, Demand, demand
from gpupool.simulate.jobs import Job, Workload
from gpupool.simulate.placement import (
    BINPACK,
    KAI_PLACEMENT,
    Node,
    choose,
    choose_packed,
    inert,
)
from gpupool.simulate.tenancy import LIMIT, QUOTA, Tenancy, TenantState
from gpupool.simulate.waiting import Parked, Wanted

# event kinds, in the order they are handled at one instant
_FINISH, _EVICT, _GONE, _READY, _INTERRUPT, _WAKE, _SUBMIT, _IDLE, _UNFILLED = range(9)

PENDING, RUNNING, DONE, REJECTED, NEVER = "pending", "running", "done", "rejected", "never"
GAVE_UP_STATE = "gave up"
FRAGMENTATION = "fragmentation"
CAPACITY = "waiting for capacity"
GIVE_UP_FACTOR = 10
"""A job interrupted later than this many times its duration after its first start is not
resubmitted: at high interruption rates a long job would otherwise restart without end."""
GAVE_UP = (f"given up: still interrupted {GIVE_UP_FACTOR}x its duration after its first start "
           "(not resubmitted)")
CLOCK_EVERY = 64  # instants of the run between two calls of its clock (progress)


@dataclass(frozen=True)
class Settings:
    """What a run may vary beyond the stack and workload.

    Attributes:
        seed: seeds the spot interruptions (the only randomness).
        spot_interruptions_per_hour: interruptions per spot node and hour.
        scale_up_seconds: from a scale-up request to a ready node (None: ``SCALE_UP_SECONDS``).
        scale_down_seconds: how long a node stays empty before it goes.
        spot_shortage: the chance that a spot node asked for is one the cloud cannot fill
            (0 to 1; drawn from its own seeded stream, so the interruptions stay the same).

    """

    seed: int = 0
    spot_interruptions_per_hour: float = 0.0
    scale_up_seconds: float | None = None
    scale_down_seconds: float = autoscaler.SCALE_DOWN_UNNEEDED_SECONDS
    spot_shortage: float = 0.0


@dataclass(slots=True)
class Gang:
    """One job of the workload as it goes through the run."""

    id: int
    job: Job
    level: str
    priority: int
    tenant: TenantState | None
    options: list[Demand] = field(default_factory=list)  # shared by the gangs of one shape
    state: str = PENDING
    reason: str = ""
    queued_at: float = 0.0
    started_at: float | None = None
    first_start: float | None = None
    placed: list[tuple[Node, int]] | tuple[()] = ()
    preemptions: int = 0
    interruptions: int = 0
    gpu_seconds_lost: float = 0.0
    key: tuple[object, ...] = ()  # its queue: jobs of one shape, tenant and priority level
    queued: bool = False  # waiting in its queue
    last_nodes: tuple[str, ...] = ()  # where its pods last started: a node per entry (_place)
    last_devices: tuple[int, ...] = ()  # the GPUs its first pod last started on
    pools_used: frozenset[str] = frozenset()  # every pool its pods ever ran on

    @property
    def pods(self) -> int:
        """Pods in the gang."""
        return self.job.pods


@dataclass
class PoolStats:
    """Time integrals of one pool over the run."""

    allocated_gpu_seconds: float = 0.0
    capacity_gpu_seconds: float = 0.0
    node_seconds: float = 0.0
    cost: float = 0.0
    cost_known: bool = True
    peak_nodes: int = 0
    nodes: int = 0  # billed nodes now (asked for or ready)
    ready_gpus: float = 0.0
    allocated_gpus: float = 0.0
    cost_rate: float = 0.0  # per hour
    spot_unfilled: int = 0  # spot nodes asked for that the cloud could not fill
    # on-demand nodes a split spot pool's autoscaler grew because its spot group could not:
    # how many, why (the spot group at its most nodes, or backed off), and the GPU-seconds
    # its pods ran there
    fallback_nodes: int = 0
    fallback_at_max: int = 0
    fallback_backed_off: int = 0
    fallback_gpu_seconds: float = 0.0


@dataclass
class TenantStats:
    """What one tenant's pods used, and the ceilings it reached."""

    gpu_seconds: float = 0.0
    cost: float = 0.0
    peak_units: dict[str, int] = field(default_factory=dict)
    peak_kai: float = 0.0


class Timeline(Sequence[tuple[float, int, float]]):
    """The (time, pods queued, GPUs allocated) samples of a run, kept as three flat arrays.

    A long run keeps a sample for each instant something changed (over a million for a
    million jobs); as tuples of boxed numbers that was about 120 bytes a sample, here 24.
    """

    def __init__(self) -> None:
        self._t = array("d")
        self._q = array("q")
        self._a = array("d")

    def append(self, sample: tuple[float, int, float]) -> None:
        """Add a sample at the end."""
        t, q, a = sample
        self._t.append(t)
        self._q.append(q)
        self._a.append(a)

    def __len__(self) -> int:
        return len(self._t)

    def __getitem__(self, i: int) -> tuple[float, int, float]:  # type: ignore[override]
        return self._t[i], self._q[i], self._a[i]

    def __iter__(self) -> Iterator[tuple[float, int, float]]:
        return zip(self._t, self._q, self._a, strict=True)


@dataclass(frozen=True)
class Preemption:
    """One eviction by preemption, kept to check min runtimes afterwards."""

    time: float
    victim: int  # gang id
    tenant: str
    ran_seconds: float
    min_seconds: float
    reclaim: bool


@dataclass
class Outcome:
    """Everything a run produced, for the report."""

    stack: Stack
    cluster: ClusterModel
    workload: Workload
    settings: Settings
    gangs: list[Gang]
    pools: dict[str, PoolStats]
    tenants: dict[str, TenantStats]
    preemptions: list[Preemption]
    end: float
    timeline: Sequence[tuple[float, int, float]]  # (time, pods queued, GPUs allocated)


class Simulation:
    """One run of a workload on a stack."""

    def __init__(self, stack: Stack, workload: Workload, settings: Settings | None = None,
                 progress: Callable[[int, int], None] | None = None,
                 clock: Callable[[float], None] | None = None) -> None:
        self.stack = stack
        self.workload = workload
        self.settings = settings or Settings()
        self.cluster = cluster_of(stack)
        self.tenancy = Tenancy(stack)
        self.scheduler = stack.cluster.scheduler
        self.kai = self.scheduler == SCHEDULER_KAI
        self.rng = random.Random(self.settings.seed)
        self.progress = progress
        self.clock = clock  # told the simulated time every CLOCK_EVERY instants (progress)
        self.heap: list[tuple[float, int, int, object]] = []
        self.seq = 0
        self.now = 0.0
        self.version = 0
        self.nodes: dict[str, list[Node]] = {p.name: [] for p in self.cluster.pools}
        # the scheduling index: per pool, the nodes holding pods, and the ids of the empty
        # schedulable ones (sorted); empty nodes of a pool are alike, so only the first counts
        self.busy: dict[str, dict[int, Node]] = {p.name: {} for p in self.cluster.pools}
        self.empty: dict[str, list[int]] = {p.name: [] for p in self.cluster.pools}
        self.by_id: dict[int, Node] = {}
        self.shapes: dict[tuple[object, ...], list[Demand | str]] = {}
        self.per_node: dict[int, float] = {}  # id of a kept Demand -> empty nodes one pod takes
        self.group_nodes: dict[str, list[Node]] = {}
        self.node_id = 0
        self.pod_key = 0
        self.gangs: list[Gang] = []
        # the queue, by shape: jobs of one request, tenant and priority level wait in submit
        # order, and only the first of each is tried (the rest would fail alike)
        self.queues: dict[tuple[object, ...], list[Gang]] = {}
        self.queue_pods: dict[tuple[object, ...], int] = {}
        self.queue_failed: dict[tuple[object, ...], tuple[int, str]] = {}  # version, reason
        self.running: dict[int, Gang] = {}
        self.owner: dict[int, Gang] = {}  # pod key -> gang
        self.pool_stats = {p.name: PoolStats() for p in self.cluster.pools}
        self.tenant_stats = {name or "-": TenantStats() for name in self.tenancy.states}
        self.preemptions: list[Preemption] = []
        self.timeline = Timeline()
        self.last_t = 0.0
        up = self.settings.scale_up_seconds
        self.scale_up = autoscaler.SCALE_UP_SECONDS if up is None else up
        self.notice = autoscaler.notice_seconds(stack.provider.cloud)
        self.inflight: dict[str, int] = {}
        self.fallback_ids: set[int] = set()  # on-demand nodes grown in place of spot ones
        self.provisioning: set[int] = set()
        self.wakes: set[float] = set()
        self.last_activity = 0.0
        self.queued = 0
        self.rate = self.settings.spot_interruptions_per_hour / 3600.0
        self.shortage_rng = random.Random(f"spot-shortage:{self.settings.seed}")
        self.unfilled: dict[str, int] = {}  # per group: requests that will fail
        self.backoff: dict[str, tuple[float, float]] = {}  # group -> (failed at, backoff)
        self.queued_pods = 0  # sum of queue_pods, kept as queues change
        self.pool_sets: dict[frozenset[str], frozenset[str]] = {}  # one frozenset per value
        self.option_lists: dict[tuple[int, ...], list[Demand]] = {}  # one list per shape
        self.option_pools: dict[int, dict[str, Demand]] = {}  # id of an option list -> by pool
        self.keys: dict[tuple[object, ...], tuple[object, ...]] = {}  # one queue key per value
        # (queue key, the row's priority) -> what a job of that shape meets at submission
        self.admitted: dict[tuple[object, ...], tuple[str, str, list[Demand]]] = {}
        # KAI binpack places a GPU pod by walking its pool's busy nodes from the fullest
        # (placement.choose_packed): per pool, (non-allocated GPUs, id) of each busy node
        self.packed = self.kai and KAI_PLACEMENT == BINPACK
        self.free_index: dict[str, list[tuple[float, int]]] = {
            p.name: [] for p in self.cluster.pools}
        # and (non-allocated CPU, id) for pods asking no GPU, where the nodes say their CPU
        self.cpu_index: dict[str, list[tuple[float, int]]] | None = {
            p.name: [] for p in self.cluster.pools
            if p.cpu != float("inf")} if self.packed else None
        # a pool's free GPUs summed over its schedulable nodes, kept until the pool changes
        self.pool_rev: dict[str, int] = dict.fromkeys(self.nodes, 0)
        self.free_sums: dict[str, tuple[int, float]] = {}
        # retrying a queue only when a release could fit its first job (see _gated)
        self.gated = self._gated()
        self.touched: dict[int, Node] = {}  # nodes released or made ready since the last pass
        self.parked = Parked()  # gated queues whose first job failed, in order (waiting.py)
        self.wanted = Wanted()  # gated, autoscaled: the queues' scale-up request (waiting.py)
        self.pool_models = {p.name: p for p in self.cluster.pools}
        # the free GPUs per pool once something changed them after the last full retry
        # without a release (a drain, an idle node removed): the skipped tries' state
        self.bump_free: dict[str, float] | None = None
        self.untried: dict[tuple[object, ...], None] = {}  # queues made since the last pass
        self.gang_keys: dict[tuple[object, ...], None] = {}  # queues of gangs (original rule)
        self.tried_pass: dict[tuple[object, ...], int] = {}  # the pass a parked head last ran
        self.pass_no = 0
        self.pass_version = 0
        self.bump_pass = 0  # the last pass that followed a release (the last full retry)

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

    # -- events ---------------------------------------------------------------------------
    def _push(self, t: float, kind: int, obj: object) -> None:
        self.seq += 1
        heapq.heappush(self.heap, (t, kind, self.seq, obj))

    def run(self) -> Outcome:
        """Run to the end and return what happened."""
        for pm in self.cluster.pools:
            for g in pm.groups:
                start = g.desired if self.cluster.autoscales else g.max
                for _ in range(start):
                    self._add_node(pm, g, ready_at=0.0)
        # the jobs are in submit order, so they are taken from the workload as the clock
        # reaches them rather than pushed as events: the same order as (time, kind, sequence)
        # with every submit pushed first, since only submits are of kind _SUBMIT
        jobs = self.workload.jobs
        total = len(jobs)
        submitted = 0
        handlers = {
            _FINISH: self._finish, _EVICT: self._evict_node_pods, _GONE: self._gone,
            _READY: self._ready, _INTERRUPT: self._interrupt, _IDLE: self._idle,
            _WAKE: self._wake, _UNFILLED: self._unfilled,
        }
        end = 0.0
        heap = self.heap
        instants = 0
        while heap or submitted < total:
            t = heap[0][0] if heap else jobs[submitted].submit
            instants += 1
            if self.clock is not None and instants % CLOCK_EVERY == 0:
                self.clock(t)
            if submitted < total and jobs[submitted].submit < t:
                t = jobs[submitted].submit
            self._advance(t)
            while True:
                due = submitted < total and jobs[submitted].submit == t
                if heap and heap[0][0] == t and (not due or heap[0][1] < _SUBMIT):
                    _, kind, _, obj = heapq.heappop(heap)
                    handlers[kind](obj)
                elif due:
                    self._submit(submitted)
                    submitted += 1
                    if self.progress is not None and submitted % 10000 == 0:
                        self.progress(submitted, total)
                else:
                    break
            self._schedule()
            self._sample()
            end = self.last_activity
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
        return Outcome(
            stack=self.stack, cluster=self.cluster, workload=self.workload,
            settings=self.settings, gangs=self.gangs, pools=self.pool_stats,
            tenants=self.tenant_stats, preemptions=self.preemptions, end=end,
            timeline=self.timeline,
        )

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

    def allocated_gpus(self) -> float:
        """GPUs (whole-GPU equivalents) allocated now, over every pool."""
        return sum(s.allocated_gpus for s in self.pool_stats.values())

    def _advance(self, t: float) -> None:
        dt = t - self.last_t
        if dt > 0:
            for s in self.pool_stats.values():
                s.allocated_gpu_seconds += s.allocated_gpus * dt
                s.capacity_gpu_seconds += s.ready_gpus * dt
                s.node_seconds += s.nodes * dt
                s.cost += s.cost_rate * dt / 3600.0
        self.last_t = t
        self.now = t

    def _sample(self) -> None:
        queued = self.queued
        allocated = sum(s.allocated_gpus for s in self.pool_stats.values())
        if self.timeline and self.timeline[-1][1:] == (queued, allocated):
            return
        self.timeline.append((self.now, queued, allocated))

    # -- nodes ----------------------------------------------------------------------------
    def _add_node(self, pm: PoolModel, g: GroupModel, ready_at: float, *,
                  asked: bool = False) -> Node:
        """Add a node ready at ``ready_at``; ``asked``: by a scale-up, ready through an event.

        A node a scale-up asks for is made ready by a ``_READY`` event even when it is ready at
        once (``--scale-up-seconds 0``), so a scheduling pass follows at the same instant; made
        ready on the spot it would wait for the next event, which may be hours away.
        """
        members = self.group_nodes.setdefault(g.name, [])
        node = Node(self.node_id, pm, g, len(members), self.now)
        self.by_id[node.id] = node
        self.node_id += 1
        members.append(node)
        self.nodes[pm.name].append(node)
        stats = self.pool_stats[pm.name]
        stats.nodes += 1
        stats.peak_nodes = max(stats.peak_nodes, stats.nodes)
        price = g.node_price(node.index)
        if price is None:
            stats.cost_known = False
        else:
            stats.cost_rate += price
        if ready_at <= self.now and not asked:
            self._ready(node)
        else:
            self.inflight[pm.name] = self.inflight.get(pm.name, 0) + 1
            self.provisioning.add(node.id)
            self._push(ready_at, _READY, node)
        return node

    # -- the scheduling index -------------------------------------------------------------
    def _candidates(self, pool: str) -> Iterator[Node]:
        """Yield the nodes a pod of ``pool`` may go on: those holding pods, the first empty one.

        Every empty node of a pool offers the same and scores the same, and ties go to the
        lowest id, so the first empty node stands for all of them.
        """
        yield from self.busy[pool].values()
        empty = self.empty[pool]
        if empty:
            yield self.by_id[empty[0]]

    def _unindex(self, node: Node) -> None:
        """Take a node out of the empty index (it holds a pod, drains, or is gone)."""
        empty = self.empty[node.pm.name]
        i = bisect.bisect_left(empty, node.id)
        if i < len(empty) and empty[i] == node.id:
            del empty[i]

    def _take(self, node: Node, key: int, d: Demand,
              devices: tuple[int, ...] | None = None, pods: int = 1) -> None:
        """Allocate a pod on the node as entry ``key`` (one more pod where it exists).

        With ``devices``, put a released entry of ``pods`` pods back on its GPUs.
        """
        if not node.allocs:
            self._unindex(node)
            self.busy[node.pm.name][node.id] = node
        if devices is None:
            node.take(key, d)
        else:
            _retake(node, key, d, devices, pods)
        self._reindex(node)

    def _give_back(self, node: Node, key: int) -> tuple[Demand, int]:
        """Release entry ``key``'s pods; return its request and pods."""
        d = node.give_back(key, self.now)
        if not node.allocs:
            self.busy[node.pm.name].pop(node.id, None)
            if node.schedulable:
                bisect.insort(self.empty[node.pm.name], node.id)
        self._reindex(node)
        self.touched[node.id] = node
        return d

    def _reindex(self, node: Node) -> None:
        """Put the node at its place in the free index (only while it holds pods)."""
        name = node.pm.name
        self.pool_rev[name] += 1
        index = self.free_index[name]
        old = node.indexed
        if old is not None:
            del index[bisect.bisect_left(index, old)]
        if node.allocs and not node.removed:
            node.indexed = (node.non_allocated_gpus(), node.id)
            bisect.insort(index, node.indexed)
        else:
            node.indexed = None
        by_cpu = self.cpu_index.get(name) if self.cpu_index is not None else None
        if by_cpu is not None:
            if node.cpu_indexed is not None:
                del by_cpu[bisect.bisect_left(by_cpu, node.cpu_indexed)]
            if node.allocs and not node.removed:
                node.cpu_indexed = (node.cpu_free, node.id)
                bisect.insort(by_cpu, node.cpu_indexed)
            else:
                node.cpu_indexed = None

    def _choose(self, d: Demand, beat: tuple[float, float, int] | None = None,
                ) -> tuple[Node | None, tuple[float, float, int]]:
        """Return the node the scheduler puts one pod of ``d`` on, and its score (``choose``)."""
        name = d.pool.name
        if self.packed:
            index = self.free_index[name] if d.gpus > 0 else (
                self.cpu_index.get(name) if self.cpu_index is not None else None)
            if index is not None:
                empty = self.empty[name]
                first = self.by_id[empty[0]] if empty else None
                return choose_packed(index, self.by_id, first, d, beat)
        return choose(self.scheduler, self._candidates(name), d)

    def _ready(self, node: Node) -> None:  # type: ignore[override]
        if node.ready or node.removed:
            return
        if node.id in self.provisioning:
            self.provisioning.discard(node.id)
            self.inflight[node.pm.name] -= 1
        node.ready = True
        node.idle_since = self.now
        self.pool_rev[node.pm.name] += 1
        self.touched[node.id] = node
        bisect.insort(self.empty[node.pm.name], node.id)
        self.pool_stats[node.pm.name].ready_gpus += node.pm.gpu_equivalents_per_node
        self.version += 1
        if self.cluster.autoscales:
            self._push(self.now + self.settings.scale_down_seconds, _IDLE, (node, self.now))
        if node.spot and self.rate > 0:
            self._push(self.now + self.rng.expovariate(self.rate), _INTERRUPT, node)

    def _freeze(self) -> None:
        """Keep the pools' free GPUs as the last full retry left them, before a change."""
        if self.gated and self.bump_free is None and self.parked:
            self.bump_free = {name: self._free_gpus(name) for name in self.nodes}

    def _remove(self, node: Node) -> None:
        self._freeze()
        node.removed = True
        stats = self.pool_stats[node.pm.name]
        stats.nodes -= 1
        if node.ready:
            stats.ready_gpus -= node.pm.gpu_equivalents_per_node
        price = node.group.node_price(node.index)
        if price is not None:
            stats.cost_rate -= price
        self.nodes[node.pm.name].remove(node)
        self.group_nodes[node.group.name].remove(node)
        self._unindex(node)
        self.busy[node.pm.name].pop(node.id, None)
        self._reindex(node)

    def _since(self, gang: Gang) -> float:
        """When the gang last started (now if it is not running)."""
        return self.now if gang.started_at is None else gang.started_at

    def _wake(self, _: object) -> None:
        """Let waiting jobs try again: a victim reached its minimum runtime."""
        self.version += 1

    def _idle(self, obj: object) -> None:
        node, since = obj  # type: ignore[misc]
        if node.removed or node.allocs or not self.cluster.autoscales:
            return
        if node.idle_since != since:  # busy since; the check of its later idle time decides
            return
        live = [n for n in self.group_nodes[node.group.name] if not n.removed]
        if len(live) > node.group.min:
            self._remove(node)

    def _interrupt(self, node: Node) -> None:  # type: ignore[override]
        if node.removed or node.draining:
            return
        self._freeze()
        node.draining = True
        self.pool_rev[node.pm.name] += 1
        self._unindex(node)
        drain = node.pm.drain_seconds if node.pm.drain_seconds is not None else self.notice
        drain = min(drain, self.notice)
        self._push(self.now + drain, _EVICT, node)
        self._push(self.now + self.notice, _GONE, node)

    def _evict_node_pods(self, node: Node) -> None:  # type: ignore[override]
        for key in sorted(node.allocs):
            gang = self.owner.get(key)
            if gang is not None and gang.state == RUNNING:
                gang.interruptions += 1
                first = gang.first_start if gang.first_start is not None else self.now
                give_up = self.now - first > GIVE_UP_FACTOR * gang.job.duration
                lost = self._stop(gang, requeue=not give_up)
                if give_up:
                    gang.state, gang.reason = GAVE_UP_STATE, GAVE_UP
                    gang.gpu_seconds_lost += lost

    def _gone(self, node: Node) -> None:  # type: ignore[override]
        if node.removed:
            return
        self._evict_node_pods(node)
        self._remove(node)
        self.version += 1

    # -- jobs -----------------------------------------------------------------------------
    def _submit(self, gang_id: int) -> None:
        job = self.workload.jobs[gang_id]
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
        if self.kai and gang.tenant is not None and gang.tenant.tenant is not None:
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
        bisect.insort(queue, gang, key=lambda g: (g.job.submit if self.kai else g.queued_at, g.id))
        self.queue_pods[gang.key] = self.queue_pods.get(gang.key, 0) + gang.pods
        self.queued_pods += gang.pods
        gang.queued = True
        self.tenancy.wait(gang.tenant, gang.options, gang.pods, 1)
        if self.gated and self.cluster.autoscales:
            self.wanted.update(gang.key, gang.options, self.queue_pods[gang.key])

    def _dequeue(self, gang: Gang) -> None:
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
            heap = []
            for key, queue in self.queues.items():
                failed = self.queue_failed.get(key)
                if failed is None or failed[0] != self.version:
                    heap.append((self._order(queue[0]), key))
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
            if self.gated and gang.pods == 1:
                self.parked.add(key, self._order(gang), gang.options)
                self.tried_pass[key] = self.pass_no
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
        for key, queue in self.queues.items():
            failed = self.queue_failed.get(key)
            if failed is not None and failed[1] not in (LIMIT, QUOTA):
                self._want(queue[0], self.queue_pods[key], want, first_option)
        self._scale_up(want, first_option)

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
        once no touched node has room for the smallest request parked on its pool.
        """
        while True:
            top = self.parked.peek() if nodes else None
            if top is None or (heap and heap[0][0] < top[0]):
                return heapq.heappop(heap)[1] if heap else None
            self.parked.pop()
            key = top[1]
            by_pool = self._by_pool(self.queues[key][0])
            nodes[:] = [n for n in nodes if self.parked.may_fit(n)]
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

    def _place(self, gang: Gang, *, trial: bool = False) -> bool:
        """Place every pod of the gang, or none; start it on success.

        ``trial``: only say whether it would be placed, leaving every node and tenant as it was.
        """
        taken: list[list[Any]] = []  # [node, entry key, request, pods] per entry
        st = gang.tenant
        left = gang.pods
        while left > 0:
            left -= 1
            best: tuple[Node, Demand] | None = None
            best_key: tuple[float, float, int] | None = None
            for d in gang.options:
                if st is not None and st.tenant is not None and self.tenancy.blocked(
                    st, d, 1, gang.level
                ):
                    continue
                node, key = self._choose(d, best_key)
                if node is not None and (best_key is None or key > best_key):
                    best, best_key = (node, d), key
            if best is None:
                self._untake(taken, st, gang.level)
                return False
            node, d = best
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
        gang.last_nodes = tuple(node.name for node, _ in placed)
        used = gang.pools_used.union(node.pm.name for node, _ in placed)
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
        self._push(self.now + gang.job.duration, _FINISH, (gang.id, gang.started_at))

    def _peaks(self, gang: Gang) -> None:
        st = gang.tenant
        if st is None:
            return
        ts = self.tenant_stats[st.name]
        for res, used in st.used.items():
            ts.peak_units[res] = max(ts.peak_units.get(res, 0), used)
        ts.peak_kai = max(ts.peak_kai, st.kai_used)

    def _finish(self, obj: object) -> None:
        gang_id, started = obj  # type: ignore[misc]
        gang = self.running.get(gang_id)
        if gang is None or gang.started_at != started:
            return  # evicted since: this finish belongs to an earlier start
        self._stop(gang, requeue=False)

    def _stop(self, gang: Gang, *, requeue: bool) -> float:
        """Release the gang's pods; account its use; requeue or finish it. Returns GPU-seconds."""
        self.last_activity = self.now
        ran = self.now - self._since(gang)
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
                self._push(self.now + self.settings.scale_down_seconds, _IDLE, (node, self.now))
        gang.placed = ()
        self.running.pop(gang.id, None)
        self.version += 1
        if requeue:
            gang.state = PENDING
            gang.started_at = None
            gang.queued_at = self.now
            gang.gpu_seconds_lost += gpu_seconds
            self._enqueue(gang)
        else:
            gang.state = DONE
        return gpu_seconds

    # -- preemption -----------------------------------------------------------------------
    def _victims(self, gang: Gang, node: Node,
                 share: dict[str, float]) -> list[tuple[Gang, float, bool]]:
        """Return the gangs on ``node`` that ``gang`` may evict: (gang, min runtime, reclaim)."""
        out: dict[int, tuple[Gang, float, bool]] = {}
        for key in node.allocs:
            v = self.owner.get(key)
            if v is None or v.id in out or v.state != RUNNING:
                continue
            ran = self.now - self._since(v)
            if not self.kai:
                if v.priority < gang.priority:
                    out[v.id] = (v, 0.0, False)
                continue
            if not self.tenancy.preemptible(v.level) or v.tenant is None or gang.tenant is None:
                continue
            if v.tenant is gang.tenant:
                if v.priority < gang.priority:
                    if ran >= v.tenant.preempt_min:
                        out[v.id] = (v, v.tenant.preempt_min, False)
                    else:
                        self._eligible_at(v, v.tenant.preempt_min)
                continue
            me, them = gang.tenant, v.tenant
            need = gang.options[0].kai_gpus * gang.pods
            if self.tenancy.reclaims_from(me, need, gang.level, them, share):
                if ran >= them.reclaim_min:
                    out[v.id] = (v, them.reclaim_min, True)
                else:
                    self._eligible_at(v, them.reclaim_min)
        return sorted(out.values(), key=lambda x: (x[0].priority, -self._since(x[0]), x[0].id))

    def _eligible_at(self, victim: Gang, min_seconds: float) -> None:
        """Wake the waiting jobs when ``victim`` reaches its minimum runtime (once per time)."""
        at = self._since(victim) + min_seconds
        if at > self.now and at not in self.wakes:
            self.wakes.add(at)
            self._push(at, _WAKE, None)

    def _reclaim_walk(self, gang: Gang, victims: list[tuple[Gang, float, bool]],
                      share: dict[str, float]) -> list[tuple[Gang, float, bool]]:
        """Drop the reclaim victims, in order, whose queue is down to its share by then."""
        held = [(v.tenant, sum(n.allocs[k][0].kai_gpus * n.allocs[k][2] for n, k in v.placed), r)
                for v, _, r in victims]
        keep = self.tenancy.reclaim_walk(gang.tenant, gang.options[0].kai_gpus * gang.pods, held,
                                         share) if self.kai else [True] * len(victims)
        return [v for v, k in zip(victims, keep, strict=True) if k]

    def _blocked_without(self, gang: Gang, d: Demand, chosen: list[tuple[Gang, float, bool]],
                         ) -> bool:
        """Whether the tenant's ceilings still refuse one pod of ``d`` with ``chosen`` gone."""
        st = gang.tenant
        if st is None or st.tenant is None:
            return False
        freed = [(v.tenant, n.allocs[k][0], n.allocs[k][2], v.level)
                 for v, _, _ in chosen for n, k in v.placed]
        return self.tenancy.blocked_without(st, d, 1, gang.level, freed) is not None

    def _fair_share(self) -> dict[str, float]:
        kept = self.tenancy.kept_share(self.now)
        if kept is not None:
            return kept
        total = 0.0
        for pm in self.cluster.pools:
            per_gpu = max(pm.unit_kai_gpus.values(), default=1.0)
            total += sum(n.ready for n in self.nodes[pm.name]) * pm.gpus_per_node * per_gpu
        return self.tenancy.fair_share(total, self.now)

    def _preempt(self, gang: Gang) -> bool:
        """Evict the fewest, lowest-priority victims from one node so the pod fits there."""
        best: tuple[tuple[float, ...], Node, Demand, list[tuple[Gang, float, bool]]] | None
        best = None
        share = self._fair_share() if self.kai else {}
        for d in gang.options:
            for node in self.busy[d.pool.name].values():
                if not node.schedulable:
                    continue
                victims = self._reclaim_walk(gang, self._victims(gang, node, share), share)
                if not victims:
                    continue
                chosen = self._enough(node, d, victims)
                if chosen is None or self._blocked_without(gang, d, chosen):
                    continue
                # KAI grows one list of victims, in its order, until the job fits somewhere
                # (actions/common/solvers/job_solver.go): the node whose last victim comes first
                last = max((v.priority, -self._since(v), v.id) for v, _, _ in chosen)
                key = (*last, node.id) if self.kai else (
                    max(v.priority for v, _, _ in chosen), len(chosen), node.id)
                if best is None or key < best[0]:
                    best = (key, node, d, chosen)
        if best is None:
            return False
        _, node, d, chosen = best
        for v, min_seconds, reclaim in chosen:
            ran = self.now - self._since(v)
            self.preemptions.append(Preemption(
                self.now, v.id, v.tenant.name if v.tenant else "-", ran, min_seconds, reclaim,
            ))
            v.preemptions += 1
            self._stop(v, requeue=True)
        st = gang.tenant
        if st is not None and st.tenant is not None and self.tenancy.blocked(st, d, 1, gang.level):
            return False
        if not node.fits(d):
            return False
        self.pod_key += 1
        self._take(node, self.pod_key, d)
        if st is not None:
            self.tenancy.hold(st, d, 1, gang.level)
        self._start(gang, [(node, self.pod_key)])
        return True

    def _preempt_gang(self, gang: Gang) -> bool:
        """Evict victims, lowest first, until every pod of the gang fits; none if it never does.

        KAI decides on a job, not a pod: its reclaim and preempt actions add victims to a
        scenario one job at a time, place the whole pending job on the cluster as it would be
        without them, and commit the evictions only if that succeeds, else roll them back (KAI
        v0.17.0 ``docs/developer/action-framework.md``: scenarios, simulation, statement). The
        candidates are every job ``_victims`` allows on the gang's pools (min runtimes, fair
        share), in its order; victims found not needed once the gang fits are spared.
        """
        share = self._fair_share() if self.kai else {}
        found: dict[int, tuple[Gang, float, bool]] = {}
        needs_gpus = all(d.gpus > 0 for d in gang.options)
        for d in gang.options:
            for node in list(self.busy[d.pool.name].values()):
                if node.schedulable:
                    for victim in self._victims(gang, node, share):
                        found.setdefault(victim[0].id, victim)
        candidates = sorted(
            (v for v in found.values()
             if not needs_gpus or any(n.allocs[k][0].gpus > 0 for n, k in v[0].placed)),
            key=lambda x: (x[0].priority, -self._since(x[0]), x[0].id),
        )
        candidates = self._reclaim_walk(gang, candidates, share)
        chosen: list[tuple[Gang, float, bool]] = []
        fits = False
        for victim in candidates:
            chosen.append(victim)
            if self._fits_without(gang, [v for v, _, _ in chosen]):
                fits = True
                break
        if not fits:
            return False
        for victim in reversed(chosen[:-1]):  # spare the ones the gang turns out not to need
            rest = [v for v, _, _ in chosen if v is not victim[0]]
            if self._fits_without(gang, rest):
                chosen.remove(victim)
        for v, min_seconds, reclaim in chosen:
            self.preemptions.append(Preemption(
                self.now, v.id, v.tenant.name if v.tenant else "-", self.now - self._since(v),
                min_seconds, reclaim,
            ))
            v.preemptions += 1
            self._stop(v, requeue=True)
        return self._place(gang)

    def _fits_without(self, gang: Gang, victims: list[Gang]) -> bool:
        """Return whether the whole gang would be placed were ``victims`` gone (nothing moves)."""
        released: list[tuple[Node, int, Demand, tuple[int, ...], int, Gang]] = []
        for v in victims:
            for node, key in v.placed:
                dem, devices, pods = node.allocs[key]
                self._give_back(node, key)
                if v.tenant is not None:
                    for _ in range(1 if inert(dem) else pods):
                        self.tenancy.hold(v.tenant, dem, -1, v.level)
                released.append((node, key, dem, devices, pods, v))
        fits = self._place(gang, trial=True)
        for node, key, dem, devices, pods, v in reversed(released):
            self._take(node, key, dem, devices, pods)
            if v.tenant is not None:
                for _ in range(1 if inert(dem) else pods):
                    self.tenancy.hold(v.tenant, dem, 1, v.level)
        return fits

    def _enough(self, node: Node, d: Demand,
                victims: list[tuple[Gang, float, bool]]) -> list[tuple[Gang, float, bool]] | None:
        """Return the first victims whose pods, off ``node``, let ``d`` fit there."""
        released: list[tuple[int, Demand, tuple[int, ...], int]] = []
        chosen = []
        ok = False
        for victim in victims:
            gang = victim[0]
            held = [node.allocs[key][0] for n, key in gang.placed if n is node]
            if (d.gpus > 0 and all(h.gpus <= 0 for h in held)
                    and node.cpu_free >= d.cpu and node.mem_free >= d.memory_gib):
                continue  # it holds no GPU here, and CPU and memory are not short: spare it
            for n, key in gang.placed:
                if n is node:
                    dem, devices, pods = node.allocs[key]
                    node.give_back(key, self.now)
                    released.append((key, dem, devices, pods))
            chosen.append(victim)
            if node.fits(d):
                ok = True
                break
        for key, dem, devices, pods in reversed(released):
            _retake(node, key, dem, devices, pods)
        self._reindex(node)  # the same pods, but float sums may differ in the last place
        return chosen if ok else None

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

    def _free_gpus(self, pool: str) -> float:
        """Non-allocated GPUs over the pool's schedulable nodes (kept until the pool changes)."""
        rev = self.pool_rev[pool]
        kept = self.free_sums.get(pool)
        if kept is None or kept[0] != rev:
            free = sum(n.non_allocated_gpus() for n in self.nodes[pool] if n.schedulable)
            kept = self.free_sums[pool] = (rev, free)
        return kept[1]

    def _want(self, gang: Gang, pods: int, want: dict[str, float],
              first: dict[str, Demand]) -> None:
        """Add what ``pods`` pods shaped like ``gang``'s need to the first pool with room."""
        if not self.cluster.autoscales:
            return
        for d in gang.options:
            pm = d.pool
            live = len(self.nodes[pm.name])
            if live < pm.nodes_max:
                want[pm.name] = want.get(pm.name, 0.0) + max(
                    autoscaler.nodes_for(pm, d, pods), 1e-6)
                first.setdefault(pm.name, d)
                return

    def _scale_up(self, want: dict[str, float], first: dict[str, Demand]) -> None:
        for name, nodes in want.items():
            pm = first[name].pool
            need = math.ceil(nodes - 1e-9) - self.inflight.get(name, 0)
            backed_off = False  # a spot group of the pool was skipped as backed off
            for g in autoscaler.growth_order(pm):
                if need <= 0:
                    break
                held = self.backoff.get(g.name)
                if held is not None and held[0] + held[1] > self.now:
                    backed_off = backed_off or g.spot
                    continue  # backed off after a scale-up the cloud could not fill
                live = len([n for n in self.group_nodes.get(g.name, []) if not n.removed])
                room = g.max - live - self.unfilled.get(g.name, 0)
                for _ in range(min(room, need)):
                    need -= 1
                    if g.spot and self.settings.spot_shortage > 0 and (
                            self.shortage_rng.random() < self.settings.spot_shortage):
                        self._ask_unfilled(pm, g)
                    else:
                        node = self._add_node(pm, g, ready_at=self.now + self.scale_up,
                                              asked=True)
                        if not g.spot and pm.groups[0].spot:
                            self._fell_back(node, backed_off=backed_off)

    def _fell_back(self, node: Node, *, backed_off: bool) -> None:
        """Count an on-demand node grown because the pool's spot group could not grow.

        cluster-autoscaler leaves a node group whose target size is at its max out of a
        scale-up's options (``core/scaleup/orchestrator/orchestrator.go``,
        ``filterValidScaleUpNodeGroups``: "max size reached"), and a backed-off one too
        (``IsNodeGroupReadyToScaleUp``); the priority expander then picks the on-demand group
        among what is left. Draining and provisioning spot nodes count in the target size.
        """
        stats = self.pool_stats[node.pm.name]
        stats.fallback_nodes += 1
        if backed_off:
            stats.fallback_backed_off += 1
        else:
            stats.fallback_at_max += 1
        self.fallback_ids.add(node.id)

    def _ask_unfilled(self, pm: PoolModel, g: GroupModel) -> None:
        """Ask for a spot node that never comes; the autoscaler gives up on it later."""
        self.unfilled[g.name] = self.unfilled.get(g.name, 0) + 1
        self.inflight[pm.name] = self.inflight.get(pm.name, 0) + 1
        self.pool_stats[pm.name].spot_unfilled += 1
        self._push(self.now + autoscaler.MAX_NODE_PROVISION_SECONDS, _UNFILLED, (pm.name, g.name))

    def _unfilled(self, obj: object) -> None:
        """Give up on a node not come in the provision time: back its group off."""
        pool, group = obj  # type: ignore[misc]
        self.unfilled[group] -= 1
        self.inflight[pool] -= 1
        held = self.backoff.get(group)
        length = autoscaler.backoff_seconds(
            None if held is None else held[1], None if held is None else self.now - held[0])
        self.backoff[group] = (self.now, length)
        if self.settings.spot_shortage < 1:
            # the group may grow again then; at a shortage of 1 no spot request is ever filled,
            # so retries ride on other events and the run still ends
            self._push(self.now + length, _WAKE, None)


def _retake(node: Node, key: int, d: Demand, devices: tuple[int, ...], pods: int) -> None:
    """Put a released entry of ``pods`` pods back exactly where it was (same GPUs)."""
    for _ in range(0 if inert(d) else pods - 1):
        node.cpu_free -= d.cpu
        node.mem_free -= d.memory_gib
        for res, count in d.units:
            node.units[res] -= count
        node.gpus_used += d.gpus
    node.cpu_free -= d.cpu
    node.mem_free -= d.memory_gib
    for res, count in d.units:
        node.units[res] -= count
    if devices:
        if node.dev_mem:
            for i in devices:
                node.dev_free[i] -= 1
                node.dev_mem[i] -= d.device_memory_gib
                node.dev_cores[i] -= d.device_cores
        else:
            for i in devices:
                node.dev_free[i] -= d.share
    node.gpus_used += d.gpus
    node.allocs[key] = (d, devices, pods)


def simulate(stack: Stack, workload: Workload, settings: Settings | None = None,
             progress: Callable[[int, int], None] | None = None,
             clock: Callable[[float], None] | None = None) -> Outcome:
    """Replay ``workload`` on ``stack`` and return what happened."""
    return Simulation(stack, workload, settings, progress, clock).run()
