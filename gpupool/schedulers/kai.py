"""KAI Scheduler (v0.17.0): queues per tenant, GPU fractions by annotation, binpack.

* Tenants become queues that guarantee ``quota``, cap at ``limit``, share the rest by
  ``overQuotaWeight`` and keep ``preemptMinRuntime``/``reclaimMinRuntime`` (KAI v0.17.0
  ``docs/queues/README.md``); pods name their queue by the ``kai.scheduler/queue`` label.
* Fractions are the ``gpu-fraction`` annotation on a whole-GPU resource; KAI places by them but
  caps neither memory nor compute (``docs/gpu-sharing/README.md``).
* ``placementStrategy: binpack`` (``deployments/kai-scheduler/values.yaml``): the
  ``binpack``/``gpupack``/``gpusharingorder`` node-order plug-ins; queues under quota are served
  first (``pkg/scheduler/plugins/proportion``), and reclaim goes by fair share.
* With high availability its components keep off spot nodes by node affinity.
"""

from gpupool.schedulers.base import (
    DEVICES_FRACTION,
    ORDER_BELOW_QUOTA,
    SCORE_GPU_BINPACK,
    VICTIMS_QUEUE_RECLAIM,
    Emulation,
    Scheduler,
)

SCHEDULER = Scheduler(
    name="kai",
    title="The KAI Scheduler",
    pod_scheduler_name="kai-scheduler",
    installs=True,
    enforces_fractions=True,
    priority_preemption=True,
    queues=True,
    # the queue's limit is the tenant's GPU ceiling, not a ResourceQuota (max_allowed_check.go)
    queue_limits=True,
    fractions_by_annotation=True,
    ha_keeps_off_spot=True,
    emulation=Emulation(
        fraction_devices=DEVICES_FRACTION,
        score=SCORE_GPU_BINPACK,
        packs=True,
        order=ORDER_BELOW_QUOTA,
        victims=VICTIMS_QUEUE_RECLAIM,
        queue_quotas=True,
    ),
)


# -- KAI's queue rules for gpupool simulate, as pure functions of one queue's GPU figures -------
#
# KAI v0.17.0 (commit f218c69) weighs CPU and memory too, but gpupool renders every queue's cpu
# and memory as quota -1 and limit -1 (unlimited; ``gpupool.sharing.kai``), and an unlimited
# quantity passes every comparison below, so each rule reduces to the GPU figures. All figures
# are in the GPU units KAI counts (``gpupool.facts``).

NO_FAIR_SHARE_PENALTY = 1000.0
"""The dominant-share multiplier of a queue whose allocatable share is 0 (KAI's
``noFairShareDrfMultiplier``, ``proportion/resource_share/queue_resource_share.go``)."""


def allocatable(deserved: float, fair: float, limit: float | None) -> float:
    """Return a queue's allocatable share: the larger of quota and fair share, within its limit.

    ``proportion/resource_share/resource_share.go``, ``GetAllocatableShare``.
    """
    share = max(deserved, fair)
    return share if limit is None else min(limit, share)


def over_limit(allocated: float, request: float, limit: float | None) -> bool:
    """Whether a job's ``request`` takes its queue past its limit, counting every pod it holds.

    ``proportion/capacity_policy/max_allowed_check.go``.
    """
    return limit is not None and allocated + request > limit + 1e-9


def non_preemptible_over_quota(allocated_non_preemptible: float, request: float,
                               deserved: float) -> bool:
    """Whether a non-preemptible job's ``request`` takes its queue past its quota.

    Only the queue's non-preemptible pods count; its preemptible pods do not
    (``proportion/capacity_policy/quota_check.go``).
    """
    return allocated_non_preemptible + request > deserved + 1e-9


def queue_order(allocated: float, job: float, deserved: float, fair: float,
                limit: float | None, priority: int, created: int) -> tuple[float, ...]:
    """Return the key ordering queues in allocate (smallest first) for a next job of ``job``.

    ``proportion/queue_order/queue_order.go``, ``GetQueueOrderResult``, step by step:

    1. queues over their fair share after queues within it: with cpu and memory unlimited their
       fair share of those is at least what they hold, and the step compares every resource, so
       it never separates two of gpupool's queues (left out);
    2. a queue whose allocation plus the job stays within its quota first;
    3. higher queue priority first;
    4. a queue with no allocatable share that would hold GPUs after the queues that would not;
    5. the smaller dominant share with the job (allocation plus job over allocatable share);
    6. the smaller dominant share without it; 7. the smaller allocatable share;
    8. the queue created first.
    """
    share = allocatable(deserved, fair, limit)
    starved = 0.0 if allocated + job <= deserved + 1e-9 else 1.0
    zero = 1.0 if share == 0 and allocated + job > 0 else 0.0
    with_job = _dominant(allocated + job, share)
    return (starved, -float(priority), zero, with_job, _dominant(allocated, share), share,
            float(created))


def _dominant(allocated: float, share: float) -> float:
    return allocated * NO_FAIR_SHARE_PENALTY if share == 0 else allocated / share


def can_reclaim(allocated: float, request: float, fair: float, allocated_non_preemptible: float,
                deserved: float, *, preemptible: bool) -> bool:
    """Whether a job's queue may reclaim at all.

    It must stay within its fair share with the job, and a non-preemptible job within its quota
    (``proportion/reclaimable/reclaimable.go``, ``CanReclaimResources``).
    """
    if allocated + request > fair + 1e-9:
        return False
    return preemptible or not non_preemptible_over_quota(allocated_non_preemptible, request,
                                                         deserved)


def reclaim_candidate(reclaimer_allocated: float, request: float, reclaimer_deserved: float,
                      victim_allocated: float, victim_deserved: float,
                      victim_allocatable: float) -> bool:
    """Whether another queue's jobs are candidates to reclaim from at all.

    ``proportion/reclaimable/filter_victims.go``: a reclaimer that would go past its quota may
    take only from a queue above its allocatable share; one within its quota, from a queue at or
    above its quota.
    """
    if reclaimer_allocated + request > reclaimer_deserved + 1e-9:
        return victim_allocated > victim_allocatable + 1e-9
    return victim_allocated >= victim_deserved - 1e-9


def reclaim_step(reclaimer_within_quota: bool, victim_remaining: float, victim_deserved: float,
                 victim_allocatable: float) -> bool:
    """Whether one more victim may go from a queue holding ``victim_remaining`` now.

    ``victim_remaining`` is what the queue holds once the victims already chosen are gone.

    ``proportion/reclaimable/reclaimable.go``, ``reclaimResourcesFromReclaimees``, with
    ``strategies/strategies.go``: each victim in turn, its queue's remaining allocation must be
    above its allocatable share (maintain fair share), or above its quota while the reclaimer
    stays within its own (guarantee deserved quota). The queue's figure falls as victims are
    chosen, so a reclaim stops taking from a queue once it is down to its share.
    """
    if victim_remaining > victim_allocatable + 1e-9:
        return True
    return reclaimer_within_quota and victim_remaining > victim_deserved + 1e-9
