"""What every node of a pool should advertise: the GPU facts merged with what each plug-in expects.

``expected`` is a merge. The base comes from the GPU facts (``gpupool.facts``): the product,
memory, allocatable (``PoolFacts.units`` times the GPUs per node: the same numbers the
device-plugin configs, HAMi's values, the quotas and the plan use), gpupool's own labels, the
instance type and the MIG geometry. Then one of three contributions, each owned by a plug-in:

* the scheduler's, where HAMi serves the pool: HAMi's plugin advertises and GFD may not run,
  so no GFD label is expected; HAMi's registration is (``gpupool.sharing.hami``);
* the sharing mode's (``SharingMode.node_devices``): the GPU Feature Discovery labels of its
  devices, named here: ``gpu.count``, ``gpu.replicas``, ``gpu.sharing-strategy``,
  ``mig-<profile>.count``, and under MIG strategy single the profile in the product and the
  slice's memory;
* where the cloud shares GPUs itself (GKE), the cloud's sharing labels
  (``Cloud.node_sharing_labels``) on top of the mode's, whose GFD labels become optional (GFD
  may not run) or, for a pool the cloud time-shares, are not expected at all.
"""

from __future__ import annotations

from dataclasses import replace

from gpupool import facts, schedulers
from gpupool.clouds import NodeSharing
from gpupool.drift.expectation import Expected
from gpupool.drift.gpu_names import spellings
from gpupool.drift.mig_state import is_mig_count
from gpupool.facts.names import GFD_COUNT, GFD_REPLICAS, GFD_SHARING_STRATEGY, mig_resource
from gpupool.model import Pool, Stack
from gpupool.modes import NodeDevices
from gpupool.sharing import hami


def expected(stack: Stack, pool: Pool) -> Expected:
    """Return what every node of ``pool`` should advertise, from the GPU facts and plug-ins."""
    pf = facts.pool_facts(stack, pool)
    base = _base(pool, pf)
    if schedulers.of(stack).own_device_plugin:
        return replace(base, hami=hami.node_registration(pf))
    s = pool.sharing
    strategy = facts.mig_strategy(stack) if s.kind.partitioned else None
    devices = s.kind.node_devices(s, base.gpus, mig_single=strategy == facts.MIG_SINGLE)
    cloud_shares = facts.of(stack).cloud_shares_gpus
    # where the cloud time-shares the GPUs, GFD's labels of the mode's devices do not apply
    time_shared = cloud_shares and devices.replicas
    want = base if time_shared else _with_devices(base, pf, devices, strategy)
    return _cloud_shared(stack, pool, want, devices) if cloud_shares else want


def _base(pool: Pool, pf: facts.PoolFacts) -> Expected:
    """Return what the GPU facts say of every node of the pool, whoever serves its GPUs."""
    gpu = pf.gpu
    n = pf.gpus_per_node
    alloc: dict[str, int] = {}
    for unit in pf.units:
        alloc[unit.resource] = alloc.get(unit.resource, 0) + n * unit.per_gpu
    geometry = gpu.mig if gpu is not None else None
    profiles = tuple(
        (p.name, p.memory_gib * 1024)
        for p in (geometry.profiles or () if geometry is not None else ())
    )
    inst = pool.instance
    return Expected(
        product=gpu.product_label if gpu else None,
        # a partial-GPU VM (Azure NV*ads_A10_v5) sees its slice's frame buffer, not the GPU's
        memory_mib=pf.gpu_memory_gib * 1024 if pf.gpu_memory_gib is not None else None,
        labels=dict(pf.node_labels),
        allocatable=alloc,
        instance_type=inst.machine_type if inst is not None else pool.instance_type,
        spellings=spellings(gpu) if gpu is not None else frozenset(),
        mig_memories_mib=tuple(memory for _, memory in profiles),
        mig_profiles=profiles,
        gpus=n,
        vgpu=inst is not None and inst.gpu_fraction < 1,
    )


def _with_devices(
    base: Expected, pf: facts.PoolFacts, devices: NodeDevices, strategy: str | None
) -> Expected:
    """Add the GFD labels of the mode's devices; under strategy single, the MIG device."""
    labels = dict(base.labels)
    optional: dict[str, str] = {}
    if devices.count is not None:
        labels[GFD_COUNT] = str(devices.count)
    for profile, count in devices.mig_counts:
        labels[f"{mig_resource(profile)}.count"] = str(count)
    if devices.replicas:
        labels[GFD_REPLICAS] = str(devices.replicas)
        optional[GFD_SHARING_STRATEGY] = devices.strategy or ""
    if devices.unshared:  # whole GPUs: GFD labels them "without sharing" (internal/lm/resource.go)
        optional[GFD_REPLICAS] = "1"
        optional[GFD_SHARING_STRATEGY] = "none"
    want = replace(base, labels=labels, optional_labels=optional, mig_strategy=strategy)
    if devices.mig_profile is None:
        return want
    geometry = pf.gpu.mig if pf.gpu is not None else None
    prof = geometry.profile(devices.mig_profile) if geometry is not None else None
    return replace(
        want,
        mig_profile=devices.mig_profile,
        product=f"{base.product}-MIG-{devices.mig_profile}" if base.product else None,
        memory_mib=prof.memory_gib * 1024 if prof else None,  # GFD reports the slice
    )


def _cloud_shared(stack: Stack, pool: Pool, want: Expected, devices: NodeDevices) -> Expected:
    """Add the cloud's sharing labels: its device plugin serves the GPUs, GFD's are optional."""
    s = pool.sharing
    kind = s.kind
    shares = NodeSharing(
        mode=s.mode,
        device_plugin_key=kind.device_plugin_key,
        clients=devices.replicas,
        replicated=kind.replicated,
        mig_profiles=tuple(p for p, _ in s.mig_layout) if kind.partitioned else (),
    )
    labeller = stack.cloud.node_sharing_labels
    cloud = labeller(shares) if labeller is not None else {}
    labels = dict(want.labels)
    optional = dict(want.optional_labels)
    for key in [k for k in labels if k in (GFD_COUNT, GFD_REPLICAS) or is_mig_count(k)]:
        optional[key] = labels.pop(key)
    return replace(
        want, labels=labels, optional_labels=optional, cloud_labels=cloud, mig_strategy=None
    )
