"""The run's accounting: what each pool and tenant used over time, and what a run produced.

This module owns the time integrals of each pool (``PoolStats``: allocated and ready GPU-seconds,
node-seconds, cost, peaks, the spot shortfall and on-demand fallback counts), each tenant's use
and peaks (``TenantStats``), the timeline of queued pods and allocated GPUs (``Timeline``, kept
as flat arrays), the preemptions done (``Preemption``) and the ``Outcome`` the report reads.
``Accounting`` is the part of ``engine.Simulation`` that advances the integrals as the clock
moves (``_advance``) and samples the timeline after each instant (``_sample``).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from gpupool.model import Stack
from gpupool.simulate.cluster import ClusterModel
from gpupool.simulate.gang import Gang, Settings
from gpupool.simulate.jobs import Workload
from gpupool.simulate.resume import CheckpointRun
from gpupool.simulate.tenancy import Tenancy, TenantState


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
    checkpoints: CheckpointRun | None = None  # where the run followed checkpoints or downtime



class Accounting:
    """The part of a run that keeps the pools' and tenants' figures (see ``_init_accounting``)."""

    cluster: ClusterModel
    tenancy: Tenancy
    now: float
    queued: int

    def _init_accounting(self) -> None:
        self.pool_stats = {p.name: PoolStats() for p in self.cluster.pools}
        self.tenant_stats = {name or "-": TenantStats() for name in self.tenancy.states}
        self.preemptions: list[Preemption] = []
        self.timeline = Timeline()
        self.last_t = 0.0

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


    def _peaks(self, gang: Gang) -> None:
        st: TenantState | None = gang.tenant
        if st is None:
            return
        ts = self.tenant_stats[st.name]
        for res, used in st.used.items():
            ts.peak_units[res] = max(ts.peak_units.get(res, 0), used)
        ts.peak_kai = max(ts.peak_kai, st.kai_used)
