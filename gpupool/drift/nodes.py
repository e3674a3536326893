"""Effective GPU state from the Kubernetes API against what each pool declares.

Per pool, the nodes labelled ``gpupool.io/pool=<pool>`` are compared with what the stack implies
(the GPU facts, ``gpupool.facts``): GPU Feature Discovery's ``nvidia.com/gpu.product`` and
``gpu.memory`` against the pool's GPU, ``gpu.count``, ``gpu.replicas`` and
``gpu.sharing-strategy`` against the sharing mode, allocatable GPU resources against what the
pool's nodes advertise, the config labels gpupool set, ``nvidia.com/mig.config.state``
(``failed`` is drift), the instance type and the node count against nodes.min..max. Label names
and formats follow GPU Feature Discovery and the GPU Operator (see tests/fixtures/nodes/README.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gpupool import facts
from gpupool.cluster import ObservedNode
from gpupool.drift.items import DriftItem
from gpupool.facts.names import (
    GFD_COUNT,
    GFD_MEMORY,
    GFD_PRODUCT,
    GFD_REPLICAS,
    GFD_SHARING_STRATEGY,
    INSTANCE_TYPE_LABEL,
    MIG_CONFIG_STATE_LABEL,
    POOL_LABEL,
)
from gpupool.model import Pool, Stack

#: Nominal and reported GPU memory differ (an "80 GB" A100 reports 81920 MiB, an L4 23034 MiB).
MEMORY_TOLERANCE = 0.10


@dataclass(frozen=True)
class Expected:
    """What one node of a pool should advertise."""

    product: str | None
    memory_mib: float | None
    labels: dict[str, str]
    allocatable: dict[str, int]
    instance_type: str | None


def expected(stack: Stack, pool: Pool) -> Expected:
    """Return what every node of ``pool`` should advertise, from the GPU facts.

    Allocatable is each advertised resource times the GPUs per node (``PoolFacts.units``: the
    same numbers the device-plugin configs, HAMi's values, the quotas and the plan use). GPU
    Feature Discovery labels: ``gpu.count`` (GPUs, or MIG devices under strategy single), and
    for time-slicing and MPS ``gpu.replicas`` and ``gpu.sharing-strategy`` (GFD writes the
    mode's name); under MIG strategy single the product gets ``-MIG-<profile>`` and the memory
    is the slice's. Under HAMi, HAMi's own plugin advertises and GFD may not run, so no GFD
    count is expected.
    """
    pf = facts.pool_facts(stack, pool)
    gpu = pf.gpu
    n = pf.gpus_per_node
    s = pool.sharing
    kind = s.kind
    labels = dict(pf.node_labels)
    alloc: dict[str, int] = {}
    for unit in pf.units:
        alloc[unit.resource] = alloc.get(unit.resource, 0) + n * unit.per_gpu
    product = gpu.product_label if gpu else None
    memory_mib = gpu.memory_gib * 1024 if gpu else None
    if facts.uses_scheduler(stack, facts.SCHEDULER_HAMI):
        pass
    elif kind.replicated and s.replicas:
        labels[GFD_REPLICAS] = str(s.replicas)
        labels[GFD_SHARING_STRATEGY] = s.mode
        labels[GFD_COUNT] = str(n)
    elif kind.partitioned:
        if facts.mig_strategy(stack) == facts.MIG_SINGLE:
            [(profile, per_gpu)] = s.mig_layout
            product = f"{product}-MIG-{profile}" if product else None
            prof = gpu.mig.profile(profile) if gpu and gpu.mig else None
            memory_mib = prof.memory_gib * 1024 if prof else None  # GFD reports the slice
            labels[GFD_COUNT] = str(n * per_gpu)
    else:
        labels[GFD_COUNT] = str(n)
    inst = pool.instance
    return Expected(
        product=product,
        memory_mib=memory_mib,
        labels=labels,
        allocatable=alloc,
        instance_type=inst.machine_type if inst is not None else pool.instance_type,
    )


def _base_product(product: str) -> str:
    return product.removesuffix("-SHARED")


def _node(stack: Stack, pool: Pool, want: Expected, node: ObservedNode) -> list[DriftItem]:
    addr = f"pool.{pool.name}/node/{node.name}"
    out: list[DriftItem] = []

    def item(declared: object, observed: object, summary: str) -> None:
        out.append(DriftItem("cluster", addr, declared, observed, summary))

    got_type = node.labels.get(INSTANCE_TYPE_LABEL)
    if (
        stack.cloud.labels_instance_type
        and want.instance_type
        and got_type
        and got_type != want.instance_type
    ):
        item(
            want.instance_type,
            got_type,
            f"node runs {got_type}, pool declares {want.instance_type}",
        )
    got_product = node.labels.get(GFD_PRODUCT)
    if want.product and got_product and _base_product(got_product) != want.product:
        item(want.product, got_product, f"node has {got_product}, pool declares {want.product}")
    got_mem = node.labels.get(GFD_MEMORY)
    if (
        want.memory_mib
        and got_mem
        and got_mem.isdigit()
        and abs(int(got_mem) - want.memory_mib) > want.memory_mib * MEMORY_TOLERANCE
    ):
        item(
            f"{want.memory_mib:.0f} MiB",
            f"{got_mem} MiB",
            "GPU memory differs from the declared GPU's",
        )
    for key, value in sorted(want.labels.items()):
        got = node.labels.get(key)
        if got != value:
            item({key: value}, {key: got}, f"label {key} is {got!r}, expected {value!r}")
    state = node.labels.get(MIG_CONFIG_STATE_LABEL)
    if pool.sharing.kind.partitioned and state == "failed":
        item("success", state, "MIG reconfiguration failed on this node (mig.config.state=failed)")
    for res, count in sorted(want.allocatable.items()):
        got_n = node.allocatable_amount(res)
        if got_n is None or int(got_n) != count:
            item({res: count}, {res: got_n}, f"allocatable {res} is {got_n}, expected {count}")
    return out


def compare(stack: Stack, nodes: Sequence[ObservedNode]) -> list[DriftItem]:
    """Compare observed nodes with every pool of the stack."""
    out: list[DriftItem] = []
    for pool in stack.pools:
        members = [n for n in nodes if n.labels.get(POOL_LABEL) == pool.name]
        want = expected(stack, pool)
        if not stack.cloud.provisions:
            names = {n.name for n in members}
            for missing in sorted(set(pool.node_names) - names):
                out.append(
                    DriftItem(
                        "cluster",
                        f"pool.{pool.name}/node/{missing}",
                        pool.name,
                        None,
                        f"node {missing} is missing or not labelled {POOL_LABEL}={pool.name}",
                    )
                )
        elif not pool.nodes.min <= len(members) <= pool.nodes.max:
            out.append(
                DriftItem(
                    "cluster",
                    f"pool.{pool.name}",
                    {"min": pool.nodes.min, "max": pool.nodes.max},
                    len(members),
                    f"pool has {len(members)} node(s), declared {pool.nodes.min}..{pool.nodes.max}",
                )
            )
        for node in sorted(members, key=lambda n: n.name):
            out.extend(_node(stack, pool, want, node))
    return out
