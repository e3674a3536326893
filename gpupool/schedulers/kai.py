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
