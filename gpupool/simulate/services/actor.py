"""Services on the simulator's clock: each autoscaler driven from the loop, each replica a pod.

This module owns ``ServiceActor``, what runs a stack's services inside ``engine.Simulation``
beside the batch workload (docs/services-simulation.md, In the simulation). It is attached as
an observer that also places pods (``places_pods``): at every KEDA poll and HPA sync (15 s) it
asks the loop to call it (``call_at``), steps each service's queue to that instant and runs its
controllers (``run.ServiceRun``). A replica is a pod the run takes like a workload's job
(``Simulation.submit_pod``): one pod of the service's request shape, its tenant, priority and
pool, so it waits in its queue under the scheduler's order, may preempt lower priorities, may
make the node autoscaler add a node, and is evicted (after the pool's drain) by a spot
interruption as a job is; an evicted replica waits again for a slot (its ReplicaSet makes a new
pod) and starts from the beginning.

When a replica serves (``PodReplicas``): ``startupSeconds`` after it starts on a node, and, on a
node a scale-up added, not before the node's GPUs are advertised: the node's provisioning
(``autoscaler.SCALE_UP_SECONDS``, the cluster-autoscaler FAQ's "about 5 minutes") plus
``DEVICE_PLUGIN_SECONDS`` for the NVIDIA device plugin to register its GPUs (about 90 s after
the node starts, NVIDIA/k8s-device-plugin#291 as reported with Karpenter; kubernetes/autoscaler
#1949/#3464 on the node being Ready before ``nvidia.com/gpu`` is allocatable). In a run with
services a scale-up node takes pods only from then on (the run's ``advertise_after``, for jobs
too), so a replica waiting for it takes a GPU freed elsewhere first, as kube-scheduler would
bind it; runs without services keep the provisioning time alone. The
replicas that stay at the start (``replicas.min``) run from instant 0 on the stack's first
nodes, ready at once.

A scale-down deletes pods in the ReplicaSet controller's order (kubernetes/kubernetes
``pkg/controller/replicaset/replica_set.go`` ``getPodsToDelete`` sorting by
``pkg/controller/controller_utils.go`` ``ActivePodsWithRanks.Less``, master as read in 2026):
unassigned (waiting) pods first, then assigned ones not ready, then ready ones that have been
ready the shortest time, the newest created first on ties. The ranks gpupool has no input for
(``pod-deletion-cost``, pods doubled up on a node, restart counts, the logarithmic bucketing of
ready times) are left out.

A scale-up the cluster holds back is counted per replica, once, with its cause: the tenant's
limit or quota (``tenant_limit``), or the pool at its ``nodes.max``, every node of it up, with
the pod waiting for capacity (``nodes_max``). A pod waiting for a node being provisioned is not
blocked.

The services end when their traces do (``until``): every replica is deleted then.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from gpupool.model import Stack
from gpupool.service_model import Service
from gpupool.simulate.gang import NEVER, REJECTED
from gpupool.simulate.jobs import Job
from gpupool.simulate.requests import Trace
from gpupool.simulate.services.replay import currency, gpu_hourly, gpus_per_replica
from gpupool.simulate.services.run import ServiceRun
from gpupool.simulate.tenancy import LIMIT, QUOTA

if TYPE_CHECKING:
    from gpupool.simulate.cluster import ClusterModel
    from gpupool.simulate.gang import Gang
    from gpupool.simulate.placement import Node

DEVICE_PLUGIN_SECONDS = 90.0
NODES_MAX = "nodes_max"
TENANT_LIMIT = "tenant_limit"
_WAITING_FOR_CAPACITY = ("waiting for capacity", "fragmentation")


class Host(Protocol):
    """What the actor reads and asks of the run (``engine.Simulation``)."""

    now: float
    scale_up: float
    advertise_after: float  # a new node's GPUs advertised this long after it is up
    inflight: dict[str, int]  # per pool, nodes asked for and not ready yet

    @property
    def cluster(self) -> ClusterModel:
        """The pools and node groups."""

    @property
    def nodes(self) -> Mapping[str, Sequence[Node]]:
        """Per pool, its nodes now."""

    def call_at(self, t: float, fn: Callable[[], None]) -> None:
        """Call ``fn`` at ``t``, after every other event of that instant."""

    def submit_pod(self, job: Job) -> Gang:
        """Submit a pod beside the workload; return its gang."""

    def withdraw(self, gang: Gang) -> None:
        """Delete a pod ``submit_pod`` made."""

    def drop_endless(self) -> None:
        """Forget the finishes of pods that never end."""


@dataclass(slots=True)
class Replica:
    """One pod of a service: its gang, when it was made, when it serves, what it held."""

    gang: Gang
    created: float
    ready_at: float = math.inf  # inf: not started (or evicted and waiting again)
    since: float | None = None  # holding a slot since
    node: Node | None = None  # where it holds it
    initial: bool = False  # one of replicas.min at the start: ready when it starts
    blocked: bool = False  # already counted as a blocked scale-up


def replica_job(service: Service) -> Job:
    """Return the pod a replica of ``service`` is: its request, tenant, priority and pool."""
    r = service.request
    return Job(name=f"{service.name}-replica", line=0, submit=0.0, duration=math.inf,
               tenant=service.tenant, gpus=r.gpus or 0, fraction=r.fraction, mig=r.mig,
               gpu_memory_gib=r.gpu_memory_gib, cpu=r.cpu or 0.0,
               memory_gib=r.memory_gib or 0.0, priority=service.priority, pool=service.pool)


class PodReplicas:
    """A service's replicas as pods of the run (``run.Replicas``)."""

    def __init__(self, host: Host, service: Service, gpus: float, initial_nodes: set[int]
                 ) -> None:
        self.host = host
        self.service = service
        self.job = replica_job(service)
        self.gpus = gpus
        self.initial_nodes = initial_nodes
        self.live: list[Replica] = []
        self.times: list[float] = []  # ready times of live started replicas, sorted
        self.closed: list[tuple[float, float]] = []  # [ready, stopped) of replicas gone since
        self.held = 0.0
        self.spent: float | None = 0.0
        self.causes: dict[str, int] = {}
        self.starting = False
        self.refused: str | None = None  # why admission refused its pods, if it did

    def count(self) -> int:
        """Return the pods that exist (waiting, starting or serving)."""
        return len(self.live)

    def ready(self, now: float) -> int:
        """Return the pods serving at ``now`` (a past instant of the run, or now)."""
        n = bisect.bisect_right(self.times, now)
        for a, b in self.closed:
            if a <= now < b:
                n += 1
        return n

    def forget_before(self, t: float) -> None:
        """Drop what no step from ``t`` on will ask about."""
        if self.closed:
            self.closed = [c for c in self.closed if c[1] > t]

    def scale(self, now: float, replicas: int) -> None:
        """Create pods up to ``replicas``, or delete the surplus in the ReplicaSet's order."""
        while len(self.live) < replicas:
            gang = self.host.submit_pod(self.job)
            if gang.state in (REJECTED, NEVER):
                self.refused = gang.reason
            self.live.append(Replica(gang, now, initial=self.starting))
        if len(self.live) > replicas:
            def rank(r: Replica) -> tuple[bool, bool, float, float, int]:
                ready = r.ready_at <= now
                return (r.since is not None, ready, -r.ready_at if ready else 0.0,
                        -r.created, -r.gang.id)

            doomed = sorted(self.live, key=rank)[:len(self.live) - replicas]
            for r in doomed:
                self.live.remove(r)
                self._stopped(r, now)
                self.host.withdraw(r.gang)

    def started(self, r: Replica, now: float) -> None:
        """Note that replica ``r`` got a slot at ``now``: it serves after startup."""
        r.since = now
        r.node = r.gang.placed[0][0]
        if r.initial and now == 0.0:
            r.ready_at = now
        else:
            node = r.node
            begin = now
            if node.id not in self.initial_nodes:
                begin = max(now, node.up_since + self.host.scale_up + DEVICE_PLUGIN_SECONDS)
            r.ready_at = begin + self.service.startup_seconds
        bisect.insort(self.times, r.ready_at)

    def _stopped(self, r: Replica, now: float) -> None:
        """Account the slot ``r`` held until ``now`` and take it off the serving ones."""
        if r.since is None:
            return
        ran = now - r.since
        self.held += ran
        node = r.node
        price = node.group.node_price(node.index) if node is not None else None
        if price is None or self.spent is None or not node.pm.gpu_equivalents_per_node:
            self.spent = None
        else:
            self.spent += ran / 3600.0 * self.gpus * price / node.pm.gpu_equivalents_per_node
        self.times.remove(r.ready_at)
        if r.ready_at < now:
            self.closed.append((r.ready_at, now))
        r.since, r.ready_at = None, math.inf

    def evicted(self, r: Replica, now: float) -> None:
        """Note that ``r`` lost its slot at ``now`` (preempted or on an interrupted node)."""
        self._stopped(r, now)

    def waited(self, reason: str) -> None:
        """Count the waiting replicas as blocked when the head's try failed for a limit."""
        cause = None
        if reason in (LIMIT, QUOTA):
            cause = TENANT_LIMIT
        elif reason in _WAITING_FOR_CAPACITY:
            pm = next((p for p in self.host.cluster.pools if p.name == self.service.pool), None)
            if (pm is not None and len(self.host.nodes[pm.name]) >= pm.nodes_max
                    and not self.host.inflight.get(pm.name, 0)):
                cause = NODES_MAX
        if cause is None:
            return
        for r in self.live:
            if r.since is None and not r.blocked:
                r.blocked = True
                self.causes[cause] = self.causes.get(cause, 0) + 1

    def pod_seconds(self) -> float | None:
        """Return the seconds the replicas held a slot."""
        return self.held

    def cost(self) -> float | None:
        """Return what the held slots cost at their nodes' prices (None: a price unknown)."""
        return self.spent

    def blocked(self) -> dict[str, int]:
        """Return the replicas the cluster held back, by cause."""
        return dict(sorted(self.causes.items()))


class ServiceActor:
    """Every traced service of a stack, run on the simulation's clock (attach it as observer)."""

    places_pods = True  # engine.Simulation: turns off the gating that assumes the workload's

    def __init__(self, stack: Stack, traces: Mapping[str, Trace], *, step_seconds: float = 1.0,
                 until: float | None = None) -> None:
        self.stack = stack
        self.services = [s for s in stack.services if s.name in traces]
        self.traces = traces
        self.dt = step_seconds
        if until is None:
            last = max((traces[s.name].end for s in self.services), default=0.0)
            until = (math.floor(last / step_seconds) + 1) * step_seconds
        self.until = until
        self.runs: list[ServiceRun] = []
        self.pods: list[PodReplicas] = []
        self.by_gang: dict[int, tuple[PodReplicas, Replica]] = {}
        self.done = False

    def attach(self, run: Host) -> None:
        """Keep the run and ask it for the first instant (0)."""
        self.host = run
        if self.services:
            # kube-scheduler binds no GPU pod to a node before the device plugin advertises
            # its GPUs: a replica waiting then takes a GPU freed elsewhere first
            run.advertise_after = DEVICE_PLUGIN_SECONDS
            run.call_at(0.0, self._first)

    def _first(self) -> None:
        initial = {n.id for nodes in self.host.nodes.values() for n in nodes}
        for s in self.services:
            gpus = gpus_per_replica(self.stack, s)
            pods = PodReplicas(self.host, s, gpus, initial)
            run = ServiceRun(s, self.traces[s.name], gpus_per_replica=gpus,
                             gpu_hourly=gpu_hourly(self.stack, s), step_seconds=self.dt,
                             replicas=pods)
            pods.starting = True
            pods.scale(0.0, s.replicas_min)
            pods.starting = False
            self._note(pods)
            self.runs.append(run)
            self.pods.append(pods)
        self._tick()

    def _note(self, pods: PodReplicas) -> None:
        for r in pods.live:
            self.by_gang.setdefault(r.gang.id, (pods, r))

    def _tick(self) -> None:
        now = min(self.host.now, self.until)
        for run, pods in zip(self.runs, self.pods, strict=True):
            run.advance(now)
            pods.forget_before(now)
        if now >= self.until:
            self._end(now)
            return
        for run, pods in zip(self.runs, self.pods, strict=True):
            run.control(now)
            self._note(pods)
        nxt = min(run.next_control for run in self.runs)
        self.host.call_at(min(nxt, self.until), self._tick)

    def _end(self, now: float) -> None:
        self.done = True
        for pods in self.pods:
            pods.scale(now, 0)
        self.host.drop_endless()

    # -- the hooks ----------------------------------------------------------------------------
    def on_start(self, gang: Gang, now: float) -> None:
        """Note that a replica got its slot: it serves after the device plugin and its startup."""
        found = self.by_gang.get(gang.id)
        if found is not None:
            found[0].started(found[1], now)

    def on_stop(self, gang: Gang, now: float, requeued: bool) -> None:
        """Note that a replica lost its slot (evicted: it waits again; deleted: it is gone)."""
        found = self.by_gang.get(gang.id)
        if found is None:
            return
        pods, r = found
        if requeued:
            pods.evicted(r, now)
        else:
            self.by_gang.pop(gang.id, None)

    def on_wait(self, gang: Gang, now: float, reason: str) -> None:
        """Note that a replica's try failed: its service's waiting replicas may be blocked."""
        found = self.by_gang.get(gang.id)
        if found is not None:
            found[0].waited(reason)

    def reports(self) -> list[dict[str, Any]]:
        """Return each service's counters (the report's ``services[]``), in the stack's order."""
        out = []
        for run, pods in zip(self.runs, self.pods, strict=True):
            out.append({**run.report(), "currency": currency(self.stack, run.service),
                        "refused": pods.refused})
        return out
