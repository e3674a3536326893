"""What one pod of a job asks of one pool: its request in the units that pool's nodes offer.

This module owns the mapping from a workload row (``jobs.Job``) to the request a pod of it makes
on a given pool (``Demand``), or why it cannot run there:

* whole GPUs (``gpus``) take that many units of ``nvidia.com/gpu`` on an exclusive,
  time-slicing or MPS pool (a replica each: the device plugin hands out replicas as GPUs), that
  many MIG devices under strategy single, that many whole GPUs under KAI, and that many vGPUs
  under HAMi;
* a fraction (``fraction``, or ``gpu_memory_gib`` alone) takes one unit on a device-plugin pool
  (a whole GPU, a replica, or the smallest MIG profile of the layout whose share and memory
  cover it), a share of one GPU under KAI (``gpu-fraction``; ``gpu-memory`` as its share of the
  GPU's memory), and one vGPU with that memory and those cores under HAMi;
* a MIG profile (``mig``) takes one instance of it on a MIG pool whose layout has it;
* a pod asking for no GPU takes CPU and memory only, on any pool.

``gpus`` (whole-GPU equivalents) is what the report counts as allocated and prices;
``quota_units`` is what a ResourceQuota counts (``requests.<resource>``); ``kai_gpus`` what a
KAI queue counts (``gpupool.facts``: a replica or single-strategy MIG device is one GPU, a mixed
MIG slice ``g`` GPUs, a fraction its share).
"""

from __future__ import annotations

from dataclasses import dataclass

from gpupool.facts.names import GPU_RESOURCE, mig_resource
from gpupool.schedulers.base import DEVICES_FRACTION, DEVICES_VGPU
from gpupool.simulate.cluster import PoolModel
from gpupool.simulate.jobs import Job

NO_POOL = "no pool matches"
DOES_NOT_FIT = "does not fit anywhere"

_EPS = 1e-9


@dataclass(frozen=True, slots=True)
class Demand:
    """One pod's request on one pool.

    Attributes:
        pool: the pool.
        cpu: cores.
        memory_gib: host memory.
        units: counted resources (resource, count) a node's free units must cover.
        devices: GPUs the pod is placed on one by one (KAI, HAMi), 0 for counted pools.
        share: KAI: the share of each such GPU (1.0 whole).
        device_memory_gib: HAMi: memory of each vGPU.
        device_cores: HAMi: cores (percent of a GPU) of each vGPU.
        gpus: whole-GPU equivalents the pod holds.
        quota_units: what the tenant's ResourceQuota counts, (resource, count).
        kai_gpus: what a KAI queue counts.

    """

    pool: PoolModel
    cpu: float
    memory_gib: float
    units: tuple[tuple[str, int], ...] = ()
    devices: int = 0
    share: float = 1.0
    device_memory_gib: float = 0.0
    device_cores: float = 0.0
    gpus: float = 0.0
    quota_units: tuple[tuple[str, int], ...] = ()
    kai_gpus: float = 0.0

    @property
    def uses_gpu(self) -> bool:
        """Whether the pod asks for a GPU at all (admission applies to such pods only)."""
        return self.gpus > 0


def _fraction(job: Job, pm: PoolModel) -> float | None:
    """Return the share of one GPU a fractional job asks (memory over the GPU's, if only memory)."""
    if job.fraction is not None:
        return job.fraction
    if job.gpu_memory_gib is not None and pm.gpu_memory_gib:
        return min(job.gpu_memory_gib / pm.gpu_memory_gib, 1.0)
    return None


def demand(job: Job, pm: PoolModel) -> Demand | str:
    """Return the request of one pod of ``job`` on pool ``pm``, or why it cannot run there."""
    if job.gpu_models and (pm.gpu_name is None or pm.gpu_name not in job.gpu_models):
        return NO_POOL
    cpu, mem = job.cpu, job.memory_gib
    if cpu > pm.cpu + _EPS or mem > pm.memory_gib + _EPS:
        return DOES_NOT_FIT
    wants_fraction = job.fraction is not None or (job.gpus == 0 and job.gpu_memory_gib is not None)
    if job.gpus == 0 and not wants_fraction and job.mig is None:
        return Demand(pm, cpu, mem)
    if pm.device_kind == DEVICES_FRACTION:
        return _shares(job, pm, cpu, mem)
    if pm.device_kind == DEVICES_VGPU:
        return _vgpus(job, pm, cpu, mem)
    return _counted(job, pm, cpu, mem, wants_fraction)


def _shares(job: Job, pm: PoolModel, cpu: float, mem: float) -> Demand | str:
    """Return the request on a pool of GPU shares (``DEVICES_FRACTION``: KAI's fractions)."""
    if job.mig is not None:
        return NO_POOL
    if job.gpus > 0:
        if job.gpus > pm.gpus_per_node:
            return DOES_NOT_FIT
        n = job.gpus
        return Demand(pm, cpu, mem, devices=n, share=1.0, gpus=float(n),
                      quota_units=((GPU_RESOURCE, n),), kai_gpus=float(n))
    f = _fraction(job, pm)
    if f is None or f > 1.0 + _EPS or pm.gpus_per_node == 0:
        return DOES_NOT_FIT
    # a gpu-fraction pod asks for no nvidia.com/gpu: no ResourceQuota counts it, its queue does
    return Demand(pm, cpu, mem, devices=1, share=f, gpus=f, kai_gpus=f)


def _vgpus(job: Job, pm: PoolModel, cpu: float, mem: float) -> Demand | str:
    """Return the request on a pool of vGPU slots (``DEVICES_VGPU``: HAMi's)."""
    if job.mig is not None or pm.hami_memory_gib is None:
        return NO_POOL
    fractional = pm.pool.sharing.kind.scheduler_slots
    if job.gpus > 0:
        n = job.gpus
        if n > pm.gpus_per_node:  # HAMi puts one pod's vGPUs on distinct GPUs
            return DOES_NOT_FIT
        if fractional:  # the admission policy holds each container to one slot
            vmem = pm.slot_memory_gib or pm.hami_memory_gib / pm.slots_per_gpu
            cores = pm.slot_cores or 0.0
        else:  # no gpumem: HAMi gives the whole memory; 100% cores
            vmem, cores = pm.hami_memory_gib, 100.0
    else:
        n = 1
        f = _fraction(job, pm)
        if f is None:
            return DOES_NOT_FIT
        asked = job.gpu_memory_gib
        vmem = asked if asked is not None else f * (pm.gpu_memory_gib or 0)
        cores = 100.0 * job.fraction if job.fraction is not None else 0.0
    if vmem > pm.hami_memory_gib + _EPS or cores > 100 + _EPS:
        return DOES_NOT_FIT
    share = min(vmem / pm.hami_memory_gib, 1.0) if pm.hami_memory_gib else 1.0 / pm.slots_per_gpu
    per = max(share, 1.0 / pm.slots_per_gpu)
    return Demand(pm, cpu, mem, devices=n, device_memory_gib=vmem, device_cores=cores,
                  gpus=n * per, quota_units=((GPU_RESOURCE, n),), kai_gpus=float(n))


def _counted(job: Job, pm: PoolModel, cpu: float, mem: float, wants_fraction: bool) -> Demand | str:
    profiles = pm.mig_profiles
    if job.mig is not None:
        if job.mig not in profiles:
            return NO_POOL
        res = mig_resource(job.mig) if mig_resource(job.mig) in pm.units else GPU_RESOURCE
        return _units(pm, cpu, mem, res, max(job.gpus, 1) if res == GPU_RESOURCE else 1)
    if profiles:
        if job.gpus > 0:
            if GPU_RESOURCE not in pm.units:  # strategy mixed: no nvidia.com/gpu
                return NO_POOL
            return _units(pm, cpu, mem, GPU_RESOURCE, job.gpus)
        f = _fraction(job, pm) or 0.0
        best = _smallest_profile(job, pm, f)
        if best is None:
            return DOES_NOT_FIT
        res = mig_resource(best) if mig_resource(best) in pm.units else GPU_RESOURCE
        return _units(pm, cpu, mem, res, 1)
    if GPU_RESOURCE not in pm.units:
        return NO_POOL
    slot_mem = pm.slot_memory_gib
    if wants_fraction:
        if (job.gpu_memory_gib is not None and slot_mem is not None
                and job.gpu_memory_gib > slot_mem + _EPS):
            return DOES_NOT_FIT
        return _units(pm, cpu, mem, GPU_RESOURCE, 1)
    return _units(pm, cpu, mem, GPU_RESOURCE, job.gpus)


def _smallest_profile(job: Job, pm: PoolModel, f: float) -> str | None:
    """Return the layout's MIG profile with the smallest share covering ``f`` and the memory."""
    want_mem = job.gpu_memory_gib
    best: tuple[float, str] | None = None
    for profile in pm.mig_profiles:
        res = mig_resource(profile) if mig_resource(profile) in pm.units else GPU_RESOURCE
        share = pm.unit_share.get(res, 1.0)
        slices = int(profile.split("g", 1)[0]) / 7
        if slices + _EPS < f:
            continue
        if want_mem is not None:
            mem_gib = float(profile.split(".", 1)[1].split("gb", 1)[0])
            if mem_gib + _EPS < want_mem:
                continue
        if best is None or share < best[0]:
            best = (share, profile)
    return best[1] if best else None


def _units(pm: PoolModel, cpu: float, mem: float, res: str, count: int) -> Demand | str:
    if count > pm.units.get(res, 0):
        return DOES_NOT_FIT
    return Demand(pm, cpu, mem, units=((res, count),), gpus=count * pm.unit_share.get(res, 1.0),
                  quota_units=((res, count),), kai_gpus=count * pm.unit_kai_gpus.get(res, 1.0))
