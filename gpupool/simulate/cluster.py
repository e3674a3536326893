"""The simulated cluster: each pool's node groups and nodes, built from the stack's GPU facts.

This module owns what one node of a pool holds as the consuming components count it, read from
``gpupool.facts`` (the same ``PoolFacts`` the plan's capacity and the rendered configs use) and
``gpupool.facts.groups`` (the node groups the plan counts and prices), so the simulated
capacity at rest equals the plan's:

* CPU and host memory: the instance type's vCPUs and RAM from the catalog, or the pool's
  declared ``host.vcpus`` and ``host.memoryGiB`` on existing nodes; unknown stays unbounded.
  kube-scheduler's NodeResourcesFit counts a node's allocatable against the pods' requests;
  gpupool knows no kube-reserved figures, so the whole host is allocatable here;
* counted GPU resources (``units``): what the device plugin advertises and kube-scheduler
  counts as integers: whole GPUs, time-slicing and MPS replicas, MIG instances per profile
  (strategy mixed) or as ``nvidia.com/gpu`` (strategy single);
* devices, where a scheduler places pods on individual GPUs, as the scheduler plug-in's
  ``Emulation.device_kind`` says: shares of each GPU (``DEVICES_FRACTION``, KAI's fractions)
  or vGPU slots, memory and cores of each GPU (``DEVICES_VGPU``, HAMi's).

Prices per node and hour come from ``providers.common.facts``, the figures the plan's cost reads
off every node-pool resource, so a pool costs here what the plan says it costs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from gpupool import facts, schedulers
from gpupool.facts.groups import capacity_groups
from gpupool.model import Pool, Stack
from gpupool.providers.common import facts as node_pool_facts
from gpupool.schedulers.base import DEVICES_FRACTION, DEVICES_VGPU, Emulation

UNBOUNDED = float("inf")


@dataclass(frozen=True)
class GroupModel:
    """One node group of a pool (``facts.groups.capacity_groups``) with its prices.

    Attributes:
        name: the group's logical name (the pool's name, ``-od`` for an on-demand companion).
        spot: its nodes are spot (a mixed group's first ``on_demand_base`` nodes are not).
        min: fewest nodes (also the nodes at the start).
        max: most nodes.
        desired: nodes at creation.
        on_demand_base: nodes of a mixed spot group the cloud keeps on-demand.
        price_hourly: price of one of its nodes per hour (spot nodes at spot), or None.
        on_demand_price_hourly: price of one on-demand node per hour, or None.

    """

    name: str
    spot: bool
    min: int
    max: int
    desired: int
    on_demand_base: int
    price_hourly: float | None
    on_demand_price_hourly: float | None

    def node_price(self, index: int) -> float | None:
        """Return the hourly price of the group's ``index``-th node (0-based)."""
        if self.spot and index < self.on_demand_base:
            return self.on_demand_price_hourly
        return self.price_hourly

    def node_is_spot(self, index: int) -> bool:
        """Return whether the group's ``index``-th node is a spot node."""
        return self.spot and index >= self.on_demand_base


@dataclass(frozen=True)
class PoolModel:
    """What one node of a pool holds, and the pool's node groups.

    Attributes:
        pool: the pool.
        gpus_per_node: physical GPUs per node.
        gpu_equivalents_per_node: whole-GPU equivalents per node (a fractional instance size
            counts its share), what the plan's capacity counts.
        cpu: vCPUs per node (``UNBOUNDED`` when unknown).
        memory_gib: host memory per node in GiB (``UNBOUNDED`` when unknown).
        gpu_memory_gib: memory of one GPU, or None when unknown.
        units: counted GPU resources per node, resource name -> count.
        unit_share: resource name -> the share of one GPU one unit is.
        unit_kai_gpus: resource name -> how many GPUs KAI counts one unit as.
        device_kind: how its GPUs are modelled, ``schedulers.base.DEVICES_UNITS``,
            ``DEVICES_FRACTION`` or ``DEVICES_VGPU`` (the scheduler's ``Emulation``).
        slots_per_gpu: slots one GPU offers (KAI fractions' slots, HAMi's split).
        slot_memory_gib: memory of one slot, or None.
        slot_cores: cores (percent of a GPU) one HAMi slot may use, or None.
        hami_memory_gib: memory HAMi counts on one GPU (the GPU's times its memory scaling).
        groups: the node groups, spot first.
        existing: the pool names existing nodes, which no autoscaler adds or removes.
        drain_seconds: what a spot node's pods get to stop (``interruption.drainSeconds``).
        number: the pool's place in the stack's pools (``ClusterModel.pools``), which the
            node index's walk over every pool's nodes reads to find a node's pool.

    """

    pool: Pool
    gpus_per_node: int
    gpu_equivalents_per_node: float
    cpu: float
    memory_gib: float
    gpu_memory_gib: float | None
    units: dict[str, int]
    unit_share: dict[str, float]
    unit_kai_gpus: dict[str, float]
    device_kind: str
    slots_per_gpu: int
    slot_memory_gib: float | None
    slot_cores: float | None
    hami_memory_gib: float | None
    groups: tuple[GroupModel, ...]
    existing: bool
    drain_seconds: float | None = None
    mig_profiles: tuple[str, ...] = field(default=())
    currency: str | None = None  # the currency of the groups' prices (None: unpriced)
    gpu_name: str | None = None  # the GPU model's name, None when unknown
    number: int = 0

    @cached_property
    def name(self) -> str:
        """The pool's name (kept: every placement reads it)."""
        return self.pool.name

    @property
    def nodes_min(self) -> int:
        """Nodes the groups hold together at their fewest."""
        return sum(g.min for g in self.groups)

    @property
    def nodes_max(self) -> int:
        """Nodes the groups hold together at their most."""
        return sum(g.max for g in self.groups)


@dataclass(frozen=True)
class ClusterModel:
    """The simulated cluster: one ``PoolModel`` per pool, in stack order.

    ``emulation``: the rules its scheduler's plug-in says ``gpupool simulate`` follows.
    """

    pools: tuple[PoolModel, ...]
    scheduler: str
    emulation: Emulation
    autoscales: bool  # the cloud provisions nodes (an autoscaler adds and removes them)

    def pool(self, name: str) -> PoolModel | None:
        """Return the model of the pool called ``name``."""
        for p in self.pools:
            if p.name == name:
                return p
        return None


def _host(pool: Pool) -> tuple[float, float]:
    inst = pool.instance
    if inst is not None:
        return float(inst.vcpus), float(inst.memory_gib)
    cpu = float(pool.host_vcpus) if pool.host_vcpus is not None else UNBOUNDED
    mem = float(pool.host_memory_gib) if pool.host_memory_gib is not None else UNBOUNDED
    return cpu, mem


def _groups(stack: Stack, pool: Pool) -> tuple[GroupModel, ...]:
    if not stack.cloud.provisions:
        price = node_pool_facts(stack, pool, None)
        n = len(pool.node_names) or pool.nodes.max
        return (GroupModel(pool.name, False, n, n, n, 0, price["price_hourly"],
                           price["on_demand_price_hourly"]),)
    out = []
    for g in capacity_groups(pool, stack.cloud):
        price = node_pool_facts(stack, pool, g)
        out.append(GroupModel(
            pool.name + g.suffix, g.spot, g.min, g.max, g.desired, g.on_demand_base,
            price["price_hourly"], price["on_demand_price_hourly"],
        ))
    return tuple(out)


def _mig_share(layout: tuple[tuple[str, int], ...]) -> dict[str, float]:
    """Share of a GPU each profile of a layout takes: its compute slices over the layout's."""
    total = sum(facts.kai_compute_slices(p) * c for p, c in layout) or 1
    return {p: facts.kai_compute_slices(p) / total for p, _ in layout}


def pool_model(stack: Stack, pool: Pool, number: int = 0) -> PoolModel:
    """Return what one node of ``pool`` holds, from the stack's GPU facts.

    ``number``: the pool's place in the stack's pools.
    """
    pf = facts.pool_facts(stack, pool)
    inst = pool.instance
    per_node = pf.gpus_per_node
    equivalents = inst.gpus if inst is not None else float(per_node)
    cpu, mem = _host(pool)
    units: dict[str, int] = {}
    share: dict[str, float] = {}
    kai: dict[str, float] = {}
    kind = pool.sharing.kind
    mig_share = _mig_share(pool.sharing.mig_layout) if kind.partitioned else {}
    for u in pf.units:
        units[u.resource] = units.get(u.resource, 0) + u.per_gpu * per_node
        kai[u.resource] = u.kai_gpus
        share[u.resource] = mig_share.get(u.slot, 1.0 / u.per_gpu)
    # how the scheduler's devices model the pool's GPUs (its plug-in's ``Emulation``)
    device = schedulers.of(stack).emulation.device_kind(kind.scheduler_slots)
    slot = pf.slot_kinds[0] if pf.slot_kinds else None
    frac = pool.sharing.fractional if kind.scheduler_slots else None
    # vGPUs: the device plugin's split of each GPU; otherwise the sharing mode's slots
    slots = (pf.hami_split or 1) if device == DEVICES_VGPU else pf.slots_per_gpu
    scaling = pf.hami_memory_scaling or 1.0
    return PoolModel(
        pool=pool,
        gpus_per_node=per_node,
        gpu_equivalents_per_node=equivalents,
        cpu=cpu,
        memory_gib=mem,
        gpu_memory_gib=pf.gpu_memory_gib,
        units=units,
        unit_share=share,
        unit_kai_gpus=kai,
        device_kind=device,
        slots_per_gpu=slots,
        slot_memory_gib=slot.memory_gib if slot is not None else None,
        slot_cores=float(frac.cores_percent) if frac and frac.cores_percent else None,
        hami_memory_gib=None if pf.gpu_memory_gib is None else pf.gpu_memory_gib * scaling,
        groups=_groups(stack, pool),
        existing=not stack.cloud.provisions,
        drain_seconds=None if pool.interruption.drain_seconds is None
        else float(pool.interruption.drain_seconds),
        mig_profiles=tuple(p for p, _ in pool.sharing.mig_layout) if kind.partitioned else (),
        currency=node_pool_facts(stack, pool, None)["price_currency"],
        gpu_name=pf.gpu.name if pf.gpu is not None else None,
        number=number,
    )


def cluster_of(stack: Stack) -> ClusterModel:
    """Return the simulated cluster of ``stack``, kept with the stack (``Stack.memo``)."""
    return stack.memo("gpupool.simulate.cluster", lambda: ClusterModel(
        pools=tuple(pool_model(stack, p, i) for i, p in enumerate(stack.pools)),
        scheduler=stack.cluster.scheduler,
        emulation=schedulers.of(stack).emulation,
        autoscales=stack.cloud.provisions,
    ))


def gpus_at(model: PoolModel, nodes: int) -> float:
    """Whole-GPU equivalents ``nodes`` nodes of the pool hold."""
    return nodes * model.gpu_equivalents_per_node


def fraction_given(pm: PoolModel) -> str | None:
    """Return what a ``fraction`` pod is given on a pool that shares no GPU by fraction.

    None where the pool does share by fraction (KAI ``gpu-fraction``, HAMi slots) or by MIG
    (the smallest profile covering it). Elsewhere the device plugin hands out a whole GPU or
    one time-slicing or MPS replica, and the run allocates and bills that. The workload check's
    warning (``simulate.fit``) and the report's statement (``simulate.report``) both say this.
    """
    kind = pm.pool.sharing.kind
    if (pm.device_kind == DEVICES_FRACTION or kind.partitioned
            or (pm.device_kind == DEVICES_VGPU and pm.slots_per_gpu > 1)):
        return None
    replicas = pm.pool.sharing.replicas if kind.replicated else None
    return f"one replica, 1/{replicas} of a GPU" if replicas else "a whole GPU"
