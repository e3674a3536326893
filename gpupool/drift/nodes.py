"""Effective GPU state from the Kubernetes API against what each pool declares.

Per pool, the nodes labelled ``gpupool.io/pool=<pool>`` are compared with what the stack implies:
GPU Feature Discovery's ``nvidia.com/gpu.product`` and ``gpu.memory`` against the pool's GPU,
``gpu.count``, ``gpu.replicas`` and ``gpu.sharing-strategy`` against the sharing mode, allocatable
``nvidia.com/gpu`` or ``nvidia.com/mig-*`` against count x replicas or the MIG layout, the config
labels gpupool set, ``nvidia.com/mig.config.state`` (``failed`` is drift), the instance type and
the node count against nodes.min..max. Label names and formats follow GPU Feature Discovery and
the GPU Operator (see tests/fixtures/nodes/README.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gpupool.cluster import ObservedNode
from gpupool.drift.report import DriftItem
from gpupool.model import Pool, Stack

POOL_LABEL = "gpupool.io/pool"
PRODUCT = "nvidia.com/gpu.product"
MEMORY = "nvidia.com/gpu.memory"
COUNT = "nvidia.com/gpu.count"
REPLICAS = "nvidia.com/gpu.replicas"
STRATEGY = "nvidia.com/gpu.sharing-strategy"
MIG_STATE = "nvidia.com/mig.config.state"
INSTANCE_TYPE = "node.kubernetes.io/instance-type"
GPU = "nvidia.com/gpu"
#: Nominal and reported GPU memory differ (an "80 GB" A100 reports 81920 MiB, an L4 23034 MiB).
MEMORY_TOLERANCE = 0.10


def mig_strategy(stack: Stack) -> str:
    """Return the cluster-wide MIG strategy: mixed when any MIG pool mixes profiles."""
    mixed = any(p.sharing.mode == "mig" and len(p.sharing.mig_layout) > 1 for p in stack.pools)
    return "mixed" if mixed else "single"


@dataclass(frozen=True)
class Expected:
    """What one node of a pool should advertise."""

    product: str | None
    memory_mib: float | None
    labels: dict[str, str]
    allocatable: dict[str, int]
    instance_type: str | None


def expected(stack: Stack, pool: Pool) -> Expected:
    """Return what every node of ``pool`` should advertise."""
    from gpupool import sharing

    gpu = pool.gpu
    n = pool.gpus_per_node
    s = pool.sharing
    labels = dict(sharing.node_labels(stack, pool))
    alloc: dict[str, int] = {}
    product = gpu.product_label if gpu else None
    memory_mib = gpu.memory_gib * 1024 if gpu else None
    hami = stack.cluster.scheduler == "hami"
    if s.mode in ("time-slicing", "mps") and s.replicas:
        labels[REPLICAS] = str(s.replicas)
        labels[STRATEGY] = s.mode
        labels[COUNT] = str(n)
        alloc[GPU] = n * s.replicas
    elif s.mode == "mig":
        if mig_strategy(stack) == "single":
            [(profile, per_gpu)] = s.mig_layout
            product = f"{product}-MIG-{profile}" if product else None
            prof = gpu.mig.profile(profile) if gpu and gpu.mig else None
            memory_mib = prof.memory_gib * 1024 if prof else None  # GFD reports the slice
            labels[COUNT] = str(n * per_gpu)
            alloc[GPU] = n * per_gpu
        else:
            for profile, per_gpu in s.mig_layout:
                alloc["nvidia.com/mig-" + profile.replace("+", ".")] = n * per_gpu
    elif s.mode == "fractional" and hami and s.fractional is not None:
        alloc[GPU] = n * s.fractional.slots_per_gpu
    elif not hami:
        labels[COUNT] = str(n)
        alloc[GPU] = n
    if hami:
        labels.pop(COUNT, None)  # HAMi's own plugin advertises; GFD may not run
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

    got_type = node.labels.get(INSTANCE_TYPE)
    if (
        stack.provider.cloud != "kubernetes"
        and want.instance_type
        and got_type
        and got_type != want.instance_type
    ):
        item(
            want.instance_type,
            got_type,
            f"node runs {got_type}, pool declares {want.instance_type}",
        )
    got_product = node.labels.get(PRODUCT)
    if want.product and got_product and _base_product(got_product) != want.product:
        item(want.product, got_product, f"node has {got_product}, pool declares {want.product}")
    got_mem = node.labels.get(MEMORY)
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
    state = node.labels.get(MIG_STATE)
    if pool.sharing.mode == "mig" and state == "failed":
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
        if stack.provider.cloud == "kubernetes":
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
