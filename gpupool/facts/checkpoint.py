"""Checkpoint intervals and an interrupted job's downtime: the formulas and each pool's figures.

This module owns the arithmetic ``validate`` and ``plan`` share about checkpoints
(docs/stack-file.md, Checkpoints and downtime):

* **the optimum interval** between checkpoints, for a write time ``d`` and a mean time between
  interruptions ``M``: Young's first-order ``sqrt(2 d M)`` (J. W. Young, "A first order
  approximation to the optimum checkpoint interval", CACM 17(9), 1974) and Daly's higher-order
  estimate, ``sqrt(2 d M) [1 + (1/3) sqrt(d / 2M) + (1/9) (d / 2M)] - d`` for ``d < 2M`` and
  ``M`` otherwise (J. T. Daly, "A higher order estimate of the optimum checkpoint interval for
  restart dumps", FGCS 22(3), 2006). The paper's own figures are the worked examples
  (tests/facts/test_checkpoint.py): for ``d`` 5 min and ``M`` 24 h, 6 h and 15 min it gives
  117, 57 and 9.1 min;
* **the expected loss** of an interval ``T``: ``d / T`` of each hour goes to writing, and an
  interruption, ``1 / M`` an hour, redoes on average half an interval, ``T / 2M``; per GPU, so
  a pool loses that fraction of its GPU-hours (Young's first-order cost, as above). The formula
  holds for intervals well under ``M``; past it a GPU-hour cannot lose more than itself, so the
  share is capped at 1;
* **the downtime** from an interruption to the job running again, in parts: the pod's stop (its
  ``terminationGracePeriodSeconds``: the drain time, else the write time, else Kubernetes' 30 s
  default), rescheduling, a node scale-up when no slot is free, the pod's start-up and the
  restore. The scale-up counts at the share of interruptions that find no free slot: a
  parameter, 1.0 (the worst case) where nothing has measured it.

The mean time between interruptions comes from the pool's ``interruption.perHour`` (per node):
the catalog holds no interruption rates, so a pool that states none has no optimum. It imports
the model and the catalog only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gpupool import catalog
from gpupool.checkpoint_model import Checkpoint, Recovery
from gpupool.model import Pool, Stack, Tenant

#: A pod with no ``terminationGracePeriodSeconds`` gets 30 s (Kubernetes ``PodSpec``,
#: ``k8s.io/api/core/v1`` ``DefaultTerminationGracePeriodSeconds``).
DEFAULT_GRACE_SECONDS = 30
#: From a pod deleted to its replacement bound: the job's controller creates it and a scheduler
#: binds it; KAI runs a scheduling cycle every second (KAI v0.17.0
#: ``cmd/scheduler/app/options/options.go`` ``defaultSchedulerPeriod``) and kube-scheduler acts
#: on the event. An allowance for the controllers' own loops, not a measurement.
RESCHEDULE_SECONDS = 10
#: From a node asked for to a node that takes pods: cluster-autoscaler's FAQ ("What are the
#: Service Level Objectives for Cluster Autoscaler?", kubernetes/autoscaler
#: ``cluster-autoscaler/FAQ.md``: "usually about 5 minutes"); the figure the services check and
#: the simulated autoscaler take too (a test holds them equal).
SCALE_UP_SECONDS = 300
#: How far a declared interval may be from the optimum before validate says so.
OFF_BY = 2.0
HOURS_A_DAY = 24


def young(write: float, mtbi: float) -> float:
    """Young's optimum interval, ``sqrt(2 write mtbi)``, in the units of its arguments."""
    return math.sqrt(2.0 * write * mtbi)


def daly(write: float, mtbi: float) -> float:
    """Daly's higher-order optimum interval (FGCS 22(3), 2006); ``mtbi`` when write >= 2 mtbi."""
    if write >= 2.0 * mtbi:
        return mtbi
    x = write / (2.0 * mtbi)
    return math.sqrt(2.0 * write * mtbi) * (1.0 + math.sqrt(x) / 3.0 + x / 9.0) - write


def loss_share(every: float, write: float, mtbi: float) -> float:
    """Return the share of a GPU's time an interval loses: ``write / every + every / (2 mtbi)``."""
    return write / every + every / (2.0 * mtbi)


@dataclass(frozen=True)
class Interval:
    """A declared interval against the optimum for the pool's interruption rate."""

    every_seconds: float
    write_seconds: float
    mtbi_seconds: float
    young_seconds: float
    optimum_seconds: float  # Daly's
    gpus: int  # the pool's GPUs at its top end (nodes.max)
    declared_loss: float  # share of each GPU-hour lost at the declared interval
    optimum_loss: float

    @property
    def off(self) -> bool:
        """Whether the declared interval is more than twice, or under half, the optimum."""
        ratio = self.every_seconds / self.optimum_seconds
        return ratio > OFF_BY or ratio < 1.0 / OFF_BY

    @property
    def gpu_hours_a_day(self) -> float:
        """GPU-hours a day the declared interval loses beyond the optimum's, every GPU busy."""
        return (self.declared_loss - self.optimum_loss) * self.gpus * HOURS_A_DAY


def interval(pool: Pool, checkpoint: Checkpoint) -> Interval | None:
    """Return the declared interval against the optimum; None where the pool states no rate."""
    rate = pool.interruption.per_hour
    if rate is None or not pool.capacity.spot:
        return None
    mtbi = 3600.0 / rate
    every, write = checkpoint.every_seconds, checkpoint.write_seconds
    best = daly(write, mtbi)
    return Interval(
        every_seconds=every, write_seconds=write, mtbi_seconds=mtbi,
        young_seconds=young(write, mtbi), optimum_seconds=best,
        gpus=pool.nodes.max * pool.gpus_per_node,
        declared_loss=min(1.0, loss_share(every, write, mtbi)),
        optimum_loss=min(1.0, loss_share(best, write, mtbi)),
    )


@dataclass(frozen=True)
class Downtime:
    """The expected seconds from an interruption to the job running again, part by part."""

    drain_seconds: float
    reschedule_seconds: float
    scale_up_seconds: float  # the full scale-up times the share that finds no free slot
    startup_seconds: float
    restore_seconds: float
    no_slot_share: float
    budget_seconds: float | None  # maxDowntimeSeconds; None: none declared

    @property
    def total_seconds(self) -> float:
        """The parts added up."""
        return (self.drain_seconds + self.reschedule_seconds + self.scale_up_seconds
                + self.startup_seconds + self.restore_seconds)

    @property
    def over(self) -> bool:
        """Whether the parts exceed the declared budget."""
        return self.budget_seconds is not None and self.total_seconds > self.budget_seconds

    def parts(self) -> tuple[tuple[str, float], ...]:
        """Each part's name and seconds, in the order they happen."""
        return (("drain", self.drain_seconds), ("rescheduling", self.reschedule_seconds),
                ("scale-up", self.scale_up_seconds), ("startup", self.startup_seconds),
                ("restore", self.restore_seconds))


def grace_seconds(pool: Pool, recovery: Recovery) -> int | None:
    """Return the ``terminationGracePeriodSeconds`` of pods on ``pool``; None: the default.

    A spot pool's ``drainSeconds`` when set (validate refuses a write longer than it), else,
    where a checkpoint applies, its write time or Kubernetes' default, the longer, so the pod
    can write its last checkpoint before it is killed.
    """
    if pool.capacity.spot and pool.interruption.drain_seconds is not None:
        return pool.interruption.drain_seconds
    if recovery.checkpoint is not None:
        return max(int(recovery.checkpoint.write_seconds), DEFAULT_GRACE_SECONDS)
    return None


def downtime(stack: Stack, pool: Pool, recovery: Recovery, no_slot_share: float = 1.0) -> Downtime:
    """Return the expected downtime of a job on ``pool`` with ``recovery`` (tenant's over pool's).

    ``no_slot_share`` is the share of interruptions that find no free slot, so that the job
    waits for a new node; 1.0, the worst case, where nothing has measured it (validate).
    A pool that cannot grow (existing nodes, or ``nodes.min`` equal to ``nodes.max``) has no
    scale-up to wait for.
    """
    grace = grace_seconds(pool, recovery)
    grows = stack.cloud.provisions and pool.nodes.max > pool.nodes.min
    ckpt = recovery.checkpoint
    return Downtime(
        drain_seconds=float(DEFAULT_GRACE_SECONDS if grace is None else grace),
        reschedule_seconds=float(RESCHEDULE_SECONDS),
        scale_up_seconds=SCALE_UP_SECONDS * no_slot_share if grows else 0.0,
        startup_seconds=recovery.startup_seconds or 0.0,
        restore_seconds=0.0 if ckpt is None else ckpt.restore_seconds,
        no_slot_share=no_slot_share,
        budget_seconds=recovery.max_downtime_seconds,
    )


def notice_seconds(stack: Stack) -> int | None:
    """Seconds a spot node's interruption notice gives on the stack's cloud (``clouds.json``)."""
    try:
        return catalog.cloud(stack.provider.cloud).spot_notice_seconds
    except LookupError:
        return None


@dataclass(frozen=True)
class Scope:
    """What applies to one pool, or to one tenant on one of its pools."""

    pool: Pool
    tenant: Tenant | None
    recovery: Recovery  # the tenant's over the pool's


def scopes(stack: Stack) -> list[Scope]:
    """Every pool that states something, and every tenant that does on each of its pools."""
    out = [Scope(p, None, p.recovery) for p in stack.pools if p.recovery.stated]
    for t in stack.tenants:
        if not t.recovery.stated:
            continue
        for name in t.pools:
            pool = stack.pool(name)
            if pool is not None:
                out.append(Scope(pool, t, t.recovery.over(pool.recovery)))
    return out


def applying(stack: Stack, tenant: Tenant, pool: Pool) -> Recovery:
    """Return what applies to ``tenant``'s pods on ``pool``: its fields over the pool's."""
    return tenant.recovery.over(pool.recovery)


def tenant_write_seconds(stack: Stack, tenant: Tenant) -> float | None:
    """Return the longest checkpoint write on the tenant's pools; None: no checkpoint applies."""
    writes = []
    for name in tenant.pools:
        pool = stack.pool(name)
        if pool is None:
            continue
        ckpt = applying(stack, tenant, pool).checkpoint
        if ckpt is not None:
            writes.append(ckpt.write_seconds)
    return max(writes, default=None)
