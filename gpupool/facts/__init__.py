"""GPU facts: what each pool's GPUs become in the cluster, decided once per stack.

This package owns the answers every other part of gpupool derives from, so they cannot disagree:

* which extended resources a pool's nodes advertise and how many units one physical GPU yields
  (``PoolFacts.units``; ``exposure`` as a mapping), with each unit's slot name, memory and
  share of a GPU;
* how many slots one GPU offers to pods (``PoolFacts.slots_per_gpu``: replicas, MIG instances,
  fractional slots, or HAMi's vGPU split, which is chart-wide on nodes HAMi cannot address by
  name);
* how each consumer counts those units: a Kubernetes ResourceQuota counts the advertised
  resource one for one; KAI counts ``nvidia.com/gpu`` one for one and a MIG slice
  ``nvidia.com/mig-<g>g.<m>gb`` as ``g`` GPUs (``Unit.kai_gpus``; KAI v0.17.0
  ``pkg/scheduler/api/resource_info/gpu_resource_requirment.go`` ``GetGpusQuota``);
* the cluster-wide MIG strategy (``mixed`` as soon as one layout has several profile types),
  whether the cloud rather than the GPU Operator shares the GPUs (GKE with its own driver),
  whether the operator's device plugin and MIG Manager read gpupool's configs, HAMi's chart-wide
  split, the labels each pool's nodes must carry and the taints they have;
* which pools' pods ask KAI for part of a GPU by annotation rather than by a resource
  (``kai_fractional_pools``), which kube-state-metrics' resource requests never show.

``of(stack)`` computes the facts once and keeps them with the stack (``Stack.memo``); the helper
functions below read from there. This package imports nothing of gpupool but the model, the
plug-ins under it (``gpupool.clouds``, ``gpupool.modes``, ``gpupool.schedulers``) and the
catalog.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

from gpupool import schedulers
from gpupool.catalog import GpuModel
from gpupool.clouds import DRIVER_PREINSTALLED
from gpupool.facts.names import (
    DEVICE_PLUGIN_CONFIG_LABEL,
    GPU_RESOURCE,
    HAMI_NODE_LABEL,
    MIG_CONFIG_LABEL,
    MIG_DISABLED,
    OPERATOR_RUNTIME_CLASS,
    POOL_LABEL,
    device_plugin_config_name,
    mig_config_name,
    mig_resource,
)
from gpupool.model import Pool, Stack, Taint

MIG_SINGLE = "single"
MIG_MIXED = "mixed"

_MIG_COMPUTE = re.compile(r"^(\d+)g\.")


@dataclass(frozen=True)
class Unit:
    """One extended resource a pool's nodes advertise.

    Attributes:
        resource: the resource name (``nvidia.com/gpu``, ``nvidia.com/mig-3g.40gb``).
        per_gpu: units one physical GPU yields.
        slot: what one unit is, for people (``whole GPU``, ``1/4 GPU``, ``3g.40gb``).
        memory_gib: GPU memory one unit may use, or None when the GPU is unknown.
        kai_gpus: how many GPUs KAI counts one unit as toward a queue's quota and limit.

    """

    resource: str
    per_gpu: int
    slot: str
    memory_gib: float | None
    kai_gpus: float


@dataclass(frozen=True)
class SlotKind:
    """One kind of slot a pool's GPUs offer to pods (a MIG profile, or the single slot kind).

    Attributes:
        name: for people (``whole GPU``, ``1/4 GPU``, ``3g.40gb``).
        per_gpu: slots of this kind per physical GPU.
        memory_gib: GPU memory one slot may use, or None when unknown.

    """

    name: str
    per_gpu: int
    memory_gib: float | None


@dataclass(frozen=True)
class PoolFacts:
    """What one pool's GPUs become in the cluster.

    Attributes:
        pool: the pool.
        gpu: its GPU model, when the catalog knows it.
        gpus_per_node: physical GPUs per node (0 when unknown).
        gpu_memory_gib: memory of one GPU (a fractional instance's share), or None.
        slots_per_gpu: schedulable slots one GPU offers to pods.
        units: the extended resources its nodes advertise, in a stable order.
        slot_kinds: what pods share one GPU as: the units, except on KAI fractional pools,
            whose slots are pod annotations on a whole-GPU resource.
        node_labels: labels every node of the pool must carry for the sharing configuration.
        taints: the pool's declared taints plus those the cloud adds.
        hami_split: vGPUs per GPU HAMi applies on its nodes (None without HAMi).
        hami_memory_scaling: HAMi's memory overcommit on its nodes (None without HAMi).

    """

    pool: Pool
    gpu: GpuModel | None
    gpus_per_node: int
    gpu_memory_gib: float | None
    slots_per_gpu: int
    units: tuple[Unit, ...]
    slot_kinds: tuple[SlotKind, ...]
    node_labels: Mapping[str, str]
    taints: tuple[Taint, ...]
    hami_split: int | None = None
    hami_memory_scaling: float | None = None

    @property
    def exposure(self) -> dict[str, int]:
        """Resource name -> units per physical GPU."""
        return {u.resource: u.per_gpu for u in self.units}

    @property
    def capacity_gpus(self) -> int:
        """Physical GPUs the pool holds at ``nodes.max``."""
        return self.pool.nodes.max * self.gpus_per_node

    @property
    def kai_gpus_per_gpu(self) -> float:
        """How many GPUs KAI counts one physical GPU of this pool as, all its units used."""
        return sum(u.per_gpu * u.kai_gpus for u in self.units)


@dataclass(frozen=True)
class StackFacts:
    """The GPU facts of one stack.

    Attributes:
        mig_strategy: the cluster-wide ``mig.strategy`` (``single`` or ``mixed``).
        cloud_shares_gpus: the cloud's node pools, not the GPU Operator, implement sharing.
        device_plugin_configs: the operator's device plugin runs and reads gpupool's configs.
        mig_manager: the operator's MIG Manager partitions the GPUs.
        hami_chart_split: HAMi's chart-wide ``deviceSplitCount`` (None without HAMi).
        hami_chart_memory_scaling: HAMi's chart-wide ``deviceMemoryScaling``.
        gpu_runtime_class: the RuntimeClass GPU containers outside the operator's own operands
            (HAMi's device plugin, KAI's fractional pods) must run with: the operator's
            ``nvidia``, or the cloud's runtime when its image carries driver and toolkit.
        pools: facts per pool name.

    """

    mig_strategy: str
    cloud_shares_gpus: bool
    device_plugin_configs: bool
    mig_manager: bool
    hami_chart_split: int | None
    hami_chart_memory_scaling: float | None
    gpu_runtime_class: str = OPERATOR_RUNTIME_CLASS
    pools: Mapping[str, PoolFacts] = field(default_factory=dict)

    def pool(self, pool: Pool | str) -> PoolFacts:
        """Return the facts of a pool (by object or name)."""
        return self.pools[pool if isinstance(pool, str) else pool.name]

    @cached_property
    def exposed_resources(self) -> frozenset[str]:
        """Every GPU resource any pool of the stack advertises.

        Computed once: every tenant's quota and admission policy asks, and the facts are frozen.
        """
        return frozenset(u.resource for f in self.pools.values() for u in f.units)


def of(stack: Stack) -> StackFacts:
    """Return the GPU facts of ``stack``, computed on first use and kept with it."""
    return stack.memo("gpupool.facts", lambda: _compute(stack))


def pool_facts(stack: Stack, pool: Pool) -> PoolFacts:
    """Return the facts of one pool of ``stack``."""
    return of(stack).pool(pool)


def exposure(stack: Stack, pool: Pool) -> dict[str, int]:
    """Return the extended resources a pool's nodes advertise, with units per physical GPU."""
    return of(stack).pool(pool).exposure


def mig_strategy(stack: Stack) -> str:
    """Return the cluster-wide ``mig.strategy``."""
    return of(stack).mig_strategy


def node_labels(stack: Stack, pool: Pool) -> dict[str, str]:
    """Return the labels every node of ``pool`` must carry for the sharing configuration."""
    return dict(of(stack).pool(pool).node_labels)


def open_spot_pools(stack: Stack) -> list[Pool]:
    """Return the spot pools whose nodes take a pod that tolerates nothing.

    A spot pool whose nodes carry a ``NoSchedule`` or ``NoExecute`` taint (declared, or the
    cloud's own spot taint) keeps such pods off; one without lets the scheduler place them there.
    """
    return [
        p for p in stack.pools
        if p.capacity.spot
        and not any(t.effect in ("NoSchedule", "NoExecute") for t in of(stack).pool(p).taints)
    ]


def kai_fractional_pools(stack: Stack) -> list[Pool]:
    """Return the pools whose pods ask KAI for part of a GPU: by annotation, with no resource."""
    if not schedulers.of(stack).fractions_by_annotation:
        return []
    return [p for p in stack.pools if p.sharing.kind.scheduler_slots]


def kai_compute_slices(profile: str) -> int:
    """Return the compute slices ``g`` of a MIG profile name ``<g>g.<m>gb[...]`` (1 if unnamed).

    KAI reads them from the resource name with the pattern ``nvidia.com/mig-<g>g.<m>gb``
    (KAI v0.17.0 ``pkg/scheduler/api/common_info/resources/mig.go``).
    """
    m = _MIG_COMPUTE.match(profile)
    return int(m.group(1)) if m else 1


def _compute(stack: Stack) -> StackFacts:
    cloud = stack.cloud
    op = stack.cluster.gpu_operator
    # GKE's own driver comes with GKE's device plugin, which shares from node-pool settings
    shares = cloud.shares_gpus_itself and op.driver == DRIVER_PREINSTALLED
    hami = schedulers.of(stack).own_device_plugin
    layouts = [p.sharing.mig_layout for p in stack.pools if p.sharing.kind.partitioned]
    strategy = MIG_MIXED if any(len(layout) > 1 for layout in layouts) else MIG_SINGLE
    device_plugin = not hami and not shares
    mig_manager = not shares
    chart_split: int | None = None
    chart_scaling: float | None = None
    if hami:
        chart_split, chart_scaling = _hami_chart_wide(stack)
    pools = {}
    for pool in stack.pools:
        pools[pool.name] = _pool(
            stack,
            pool,
            strategy=strategy,
            shares=shares,
            device_plugin=device_plugin,
            mig_manager=mig_manager,
            hami=(chart_split, chart_scaling) if hami else None,
        )
    runtime = OPERATOR_RUNTIME_CLASS
    if op.driver == DRIVER_PREINSTALLED and cloud.preinstalled_runtime_class:
        runtime = cloud.preinstalled_runtime_class
    return StackFacts(
        gpu_runtime_class=runtime,
        mig_strategy=strategy,
        cloud_shares_gpus=shares,
        device_plugin_configs=device_plugin,
        mig_manager=mig_manager,
        hami_chart_split=chart_split,
        hami_chart_memory_scaling=chart_scaling,
        pools=pools,
    )


def hami_own_split(pool: Pool) -> int:
    """Return the vGPUs per GPU a pool asks HAMi for (1 unless fractional)."""
    return pool.sharing.slots_per_gpu if pool.sharing.kind.scheduler_slots else 1


def hami_own_memory_scaling(pool: Pool) -> float:
    """Return the memory overcommit a pool asks HAMi for (1.0 unless fractional says more)."""
    f = pool.sharing.fractional
    return f.memory_overcommit if pool.sharing.kind.scheduler_slots and f else 1.0


def _hami_chart_wide(stack: Stack) -> tuple[int, float]:
    """Return HAMi's chart-wide ``(deviceSplitCount, deviceMemoryScaling)``.

    HAMi's split and scaling are chart-wide, with per-node overrides keyed by node *name*
    (HAMi 2.10.0 ``charts/hami/values.yaml`` ``devicePlugin.nodeConfiguration``). Names are
    known only for pools of existing nodes, so the chart-wide values come from the fractional
    pools whose node names are unknown (the largest split; their overcommit), or from all
    fractional pools when every name is known.
    """
    fractional = [p for p in stack.pools if p.sharing.kind.scheduler_slots]
    unnamed = [p for p in fractional if not p.node_names]
    basis = unnamed or fractional
    split = max((hami_own_split(p) for p in basis), default=1)
    scaling = max((hami_own_memory_scaling(p) for p in unnamed), default=1.0)
    return split, scaling


def _taints(stack: Stack, pool: Pool) -> tuple[Taint, ...]:
    out = list(pool.taints)
    spot = stack.cloud.spot_taint
    if spot is not None and pool.capacity.spot:
        taint = Taint(*spot)
        if taint not in out:
            out.append(taint)
    return tuple(out)


def _labels(
    stack: Stack, pool: Pool, *, shares: bool, device_plugin: bool, mig: bool
) -> dict[str, str]:
    """Return the labels a pool's nodes need.

    * ``gpupool.io/pool: <pool>`` on every pool (snippets, alerts and drift select by it);
    * ``nvidia.com/device-plugin.config: pool-<pool>`` when the operator's device plugin reads
      gpupool's configs;
    * ``nvidia.com/mig.config``: ``pool-<pool>`` for MIG pools, else ``all-disabled``, when MIG
      Manager partitions;
    * ``gpu: "on"`` under HAMi (its device plugin runs only on such nodes);
    * the cloud's device-plugin opt-out label (GKE) when another plugin serves the GPUs: the
      operator's (its driver) or HAMi's.
    """
    labels = {POOL_LABEL: pool.name}
    if device_plugin:
        labels[DEVICE_PLUGIN_CONFIG_LABEL] = device_plugin_config_name(pool)
    if mig:
        labels[MIG_CONFIG_LABEL] = (
            mig_config_name(pool) if pool.sharing.kind.partitioned else MIG_DISABLED
        )
    hami = schedulers.of(stack).own_device_plugin
    if hami:
        labels[HAMI_NODE_LABEL] = "on"
    opt_out = stack.cloud.device_plugin_opt_out_label
    if opt_out and ((stack.cluster.gpu_operator.install and not shares) or hami):
        labels[opt_out] = "true"
    return labels


def _pool(
    stack: Stack,
    pool: Pool,
    *,
    strategy: str,
    shares: bool,
    device_plugin: bool,
    mig_manager: bool,
    hami: tuple[int | None, float | None] | None,
) -> PoolFacts:
    gpu = pool.gpu
    inst = pool.instance
    memory = gpu.memory_gib * (inst.gpu_fraction if inst else 1.0) if gpu else None
    s = pool.sharing
    kind = s.kind
    split = scaling = None
    if hami is not None:
        chart_split, chart_scaling = hami
        own = (hami_own_split(pool), hami_own_memory_scaling(pool))
        # a named node whose pool differs from the chart-wide values gets its own override
        if pool.node_names and own != (chart_split, chart_scaling):
            split, scaling = own
        else:
            split, scaling = chart_split or 1, chart_scaling or 1.0
        units = (_slot_unit(pool, memory, split, scaling),)
        slots = split
        kinds = _kinds(units)
    elif kind.partitioned:
        units = _mig_units(pool, gpu, mixed=strategy == MIG_MIXED)
        slots = s.slots_per_gpu
        kinds = _kinds(units)
    elif kind.replicated:
        n = s.replicas or 1
        mem = None if memory is None else memory / n
        units = (Unit(GPU_RESOURCE, n, f"1/{n} GPU", mem, 1.0),)
        slots = n
        kinds = _kinds(units)
    elif kind.scheduler_slots:
        # KAI: fractions are pod annotations, not resources; nodes keep whole GPUs
        units = (Unit(GPU_RESOURCE, 1, "whole GPU", memory, 1.0),)
        slots = s.slots_per_gpu
        slot = _slot_unit(pool, memory, slots, 1.0)
        kinds = (SlotKind(slot.slot, slot.per_gpu, slot.memory_gib),)
    else:
        units = (Unit(GPU_RESOURCE, 1, "whole GPU", memory, 1.0),)
        slots = 1
        kinds = _kinds(units)
    return PoolFacts(
        pool=pool,
        gpu=gpu,
        gpus_per_node=pool.gpus_per_node,
        gpu_memory_gib=memory,
        slots_per_gpu=slots,
        units=units,
        slot_kinds=kinds,
        node_labels=_labels(
            stack, pool, shares=shares, device_plugin=device_plugin, mig=mig_manager
        ),
        taints=_taints(stack, pool),
        hami_split=split,
        hami_memory_scaling=scaling,
    )


def _kinds(units: tuple[Unit, ...]) -> tuple[SlotKind, ...]:
    return tuple(SlotKind(u.slot, u.per_gpu, u.memory_gib) for u in units)


def _slot_unit(pool: Pool, memory: float | None, split: int, scaling: float) -> Unit:
    """Return ``split`` slots per GPU of ``pool`` as one unit of ``nvidia.com/gpu``.

    Memory per slot: ``memoryGiB``; else ``memoryPercent`` of the GPU; else an equal share of
    the (with HAMi, possibly overcommitted) memory.
    """
    if split == 1:
        return Unit(GPU_RESOURCE, 1, "whole GPU", memory, 1.0)
    f = pool.sharing.fractional if pool.sharing.kind.scheduler_slots else None
    if f is not None and f.memory_gib is not None:
        mem: float | None = float(f.memory_gib)
    elif memory is None:
        mem = None
    elif f is not None and f.memory_percent is not None:
        mem = memory * f.memory_percent / 100
    else:  # an equal share of the (overcommitted) memory
        mem = memory * scaling / split
    return Unit(GPU_RESOURCE, split, f"1/{split} GPU", mem, 1.0)


def _mig_units(pool: Pool, gpu: GpuModel | None, *, mixed: bool) -> tuple[Unit, ...]:
    geometry = gpu.mig if gpu is not None else None
    out = []
    for profile, count in pool.sharing.mig_layout:
        prof = geometry.profile(profile) if geometry is not None else None
        mem = prof.memory_gib if prof is not None else None
        if mixed:
            g = kai_compute_slices(profile)
            out.append(Unit(mig_resource(profile), count, profile, mem, g))
        else:
            # strategy single: every MIG device is an nvidia.com/gpu, counted once by KAI
            out.append(Unit(GPU_RESOURCE, count, profile, mem, 1.0))
    return tuple(out)
