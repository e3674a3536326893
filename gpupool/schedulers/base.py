"""The types every scheduler plug-in is made of: its traits, and the facts its emulation reads.

``Scheduler`` states once what a GPU scheduler means for a stack: whether gpupool installs it,
what it enforces on fractional slots, whether tenants become its queues, whether its own device
plugin replaces NVIDIA's. Validation, the GPU facts, the sharing configuration, render, the plan
and drift ask these traits instead of comparing ``cluster.scheduler`` with a name.

``Emulation`` is the simulate-facing half: the rules ``gpupool simulate`` follows for the
scheduler, each a named choice among the rules the simulator implements (filter, score, queue
order, victim selection; see ``Emulation``). The simulator reads it and no scheduler's name:
``cluster`` sets each pool's device model from it once, ``placement`` scores nodes by its
``score`` and keeps a node's GPUs by its pool's device model, and the engine, ``tenancy``,
``demand`` and ``metered`` read the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Devices as the simulator models a node's GPUs (the values of ``PoolModel.device_kind``).
DEVICES_UNITS = "units"  # counted extended resources only (the device plugin's)
DEVICES_FRACTION = "kai-fraction"  # a share of each GPU; a pod's share lies on one GPU
DEVICES_VGPU = "hami"  # vGPU slots, memory and cores of each GPU

#: Node scores (``placement.choose``).
SCORE_LEAST_ALLOCATED = "least-allocated"  # NodeResourcesFit LeastAllocated over the request
SCORE_GPU_BINPACK = "gpu-binpack"  # fullest GPUs first, shares that fill a used GPU first
SCORE_NODE_BINPACK = "node-binpack"  # the node whose GPUs' memory and cores are most used

#: Queue orders (the engine's ``_order``).
ORDER_PRIORITY = "priority"  # higher priority first, then arrival
ORDER_BELOW_QUOTA = "below-quota-first"  # KAI's queue order (kai.queue_order): quota first

#: Victim selections (the engine's ``_victims``).
VICTIMS_LOWER_PRIORITY = "lower-priority"  # pods of lower priority on one node, at once
VICTIMS_QUEUE_RECLAIM = "queue-reclaim"  # preempt within a queue, reclaim across queues by share


@dataclass(frozen=True)
class Emulation:
    """What ``gpupool simulate`` emulates of one scheduler: the rule of each scheduling step.

    Each field replaces one branch on the scheduler's name in ``gpupool/simulate/``:

    Attributes:
        fraction_devices: how a fractional pool's GPUs are modelled (``DEVICES_*``), or None
            when fractions are not this scheduler's (the pool's counted units stand).
        devices_everywhere: ``fraction_devices`` applies to every pool, not only fractional
            ones (HAMi's device plugin serves all GPUs; ``cluster.pool_model``).
        score: how a node is scored among those that pass the filter (``SCORE_*``;
            ``placement.choose``).
        score_gpu_pods_only: pods asking for no GPU device are scored as kube-scheduler scores
            them (HAMi is an extender for its own resources only).
        packs: the binpack walk over the fullest nodes applies (the engine's ``packed`` index).
        order: the queue order (``ORDER_*``; the engine's ``_order``).
        victims: whom a pending pod may evict (``VICTIMS_*``; the engine's ``_victims``,
            ``_fair_share``, ``_preempt*``).
        queue_quotas: tenants' quotas and limits count in the scheduler's own GPU units
            (``tenancy.Tenancy``: ``kai_quota``, ``kai_limit``), with minimum runtimes.
        slot_admission: the admission policy's per-slot memory and core caps apply to
            fractional pods (``tenancy.Tenancy.refusal``).

    """

    fraction_devices: str | None = None
    devices_everywhere: bool = False
    score: str = SCORE_LEAST_ALLOCATED
    score_gpu_pods_only: bool = False
    packs: bool = False
    order: str = ORDER_PRIORITY
    victims: str = VICTIMS_LOWER_PRIORITY
    queue_quotas: bool = False
    slot_admission: bool = False

    def device_kind(self, fractional: bool) -> str:
        """Return how a pool's GPUs are modelled (``DEVICES_*``); ``fractional``: its mode's."""
        if self.fraction_devices is not None and (fractional or self.devices_everywhere):
            return self.fraction_devices
        return DEVICES_UNITS

    def scores_as_default(self, devices: int) -> bool:
        """Whether a pod asking ``devices`` GPU devices is scored as kube-scheduler scores it."""
        return self.score == SCORE_LEAST_ALLOCATED or (self.score_gpu_pods_only and devices <= 0)


@dataclass(frozen=True)
class Scheduler:
    """One GPU scheduler's traits.

    Attributes:
        name: the value of ``cluster.scheduler`` in a stack file.
        title: what the rendered README calls it, or None when gpupool installs nothing.
        pod_scheduler_name: the ``schedulerName`` its pods set, or None (kube-scheduler's).
        installs: gpupool renders its Helm release and objects (the builder half,
            ``gpupool.sharing.<name>``), and its own pods place GPU pods (high availability
            applies).
        enforces_fractions: it places pods on fractional slots (``sharing.fractional``).
        caps_fractions: it caps each fractional slot's memory and compute (``coresPercent``
            is enforced, so ``strict`` and ``guaranteed`` are possible on fractions).
        virtualises_memory: it overcommits GPU memory (``memoryOvercommit``).
        priority_preemption: it preempts by tenant priority on shared GPUs (policy
            ``priority``).
        queues: each tenant becomes one of its queues, which guarantee ``quota.gpus``, divide
            the rest by ``fairShare.weight``, keep ``minRuntime`` and ask pods for a queue label.
        fractions_by_annotation: pods ask for part of a GPU by annotation, not by a resource.
        own_device_plugin: its device plugin advertises the GPUs in place of NVIDIA's (which
            implements time-slicing, MPS and MIG layouts), on nodes it labels, and registers them
            in a node annotation.
        ha_keeps_off_spot: with high availability its pods keep off spot nodes by affinity.
        queue_limits: its queues enforce each tenant's GPU ceiling themselves, when they
            place a pod, counting what a preemption or reclaim evicts first; so the tenant's
            ResourceQuota carries no line on its pools' GPU resources, which would refuse the
            pending pod such an eviction is for before the scheduler sees it
            (``gpupool.facts.tenancy.quota_lines``).
        emulation: what ``gpupool simulate`` emulates of it.

    """

    name: str
    title: str | None = None
    pod_scheduler_name: str | None = None
    installs: bool = False
    enforces_fractions: bool = False
    caps_fractions: bool = False
    virtualises_memory: bool = False
    priority_preemption: bool = False
    queues: bool = False
    fractions_by_annotation: bool = False
    own_device_plugin: bool = False
    ha_keeps_off_spot: bool = False
    queue_limits: bool = False
    emulation: Emulation = Emulation()

    @property
    def uncapped_fractions(self) -> bool:
        """It places pods on fractional slots but caps neither their memory nor compute."""
        return self.enforces_fractions and not self.caps_fractions
