"""Rules on what the in-cluster configuration can render faithfully.

These are combinations the schema and the sharing checks allow but the device plugin, HAMi or
KAI refuse or silently mishandle.

Each rule names the component that would fail and what to change. Errors are combinations that
cannot work at all; warnings are ones that work with a caveat the user should know.
"""

from __future__ import annotations

from gpupool import facts, schedulers
from gpupool.facts.names import (
    GPU_OPERATOR_NAMESPACE,
    HAMI_CORES,
    HAMI_MEMORY_PERCENT,
    NVSENTINEL_NAMESPACE,
)
from gpupool.facts.tenancy import (
    KAI_DEFAULT_QUEUES,
    KAI_NON_PREEMPTIBLE,
    PRIORITY_VALUES,
    parent_queue_name,
)
from gpupool.model import Pool, Stack
from gpupool.modes import SharingMode
from gpupool.spec.diagnostics import Diagnostic, Path, error, warning

# Namespaces that exist already or belong to what gpupool installs.
_RESERVED_NAMESPACES = {
    "default",
    "kube-system",
    "kube-public",
    "kube-node-lease",
    GPU_OPERATOR_NAMESPACE,
    NVSENTINEL_NAMESPACE,
    "kai-scheduler",
    "kai-resource-reservation",
    "kai-scale-adjust",
}


def _section(pool: Pool) -> Path:
    """Return the path of the pool's own sharing block (``sharing.fractional``, ``sharing.mig``)."""
    return (*pool.path, "sharing", pool.sharing.kind.section or "")


def _mps_and_mixed(stack: Stack) -> list[Diagnostic]:
    if facts.mig_strategy(stack) != facts.MIG_MIXED:
        return []
    mixed = next(
        p for p in stack.pools if p.sharing.kind.partitioned and len(p.sharing.mig_layout) > 1
    )
    return [
        error(
            "sharing.mps-with-mig-mixed",
            "MPS cannot run while a MIG pool mixes profiles",
            f"Pool {mixed.name} uses several MIG profile types, which needs mig.strategy mixed "
            "for the whole cluster, and the NVIDIA device plugin refuses to start MPS under "
            f"mixed. Give pool {mixed.name} a single profile type, or use time-slicing here.",
            (*pool.path, "sharing", "mode"),
        )
        for pool in stack.pools
        if not pool.sharing.kind.mig_mixed_ok
    ]


def _hami_runs(kind: SharingMode) -> bool:
    """Return True for modes HAMi serves: whole GPUs and its own slots.

    Replicas and MIG layouts are the NVIDIA device plugin's, which HAMi replaces.
    """
    return kind.whole or kind.scheduler_slots


def _hami_split_on_whole(stack: Stack, pool: Pool) -> list[Diagnostic]:
    """Warn when HAMi's chart-wide split turns a pool of whole GPUs into vGPUs.

    HAMi's ``devicePlugin.deviceSplitCount`` is chart-wide; ``devicePlugin.nodeConfiguration``
    overrides it per node, keyed by node name (HAMi 2.10.0 ``charts/hami/values.yaml``). Only
    pools of existing nodes (``nodeNames``) have names, so every other pool's nodes advertise
    the fractional pools' split.
    """
    split = facts.pool_facts(stack, pool).hami_split or 1
    # fractional pools ask for the split; replicas and MIG under HAMi are errors already
    if split <= 1 or not pool.sharing.kind.whole:
        return []
    return [
        warning(
            "hami.split-reaches-whole-gpus",
            f"HAMi advertises each GPU of pool {pool.name} as {split} vGPUs",
            "HAMi's deviceSplitCount is chart-wide, and it overrides it per node only by node "
            "name, which only pools of existing nodes (nodeNames) have. Pool "
            f"{pool.name}'s GPUs are therefore advertised as {split} vGPUs each, so quotas and "
            f"capacity count {split} units per GPU. Pods that want a whole GPU should ask for "
            f"{HAMI_MEMORY_PERCENT}: 100 and {HAMI_CORES}: 100, or put the pool on named nodes.",
            (*pool.path, "sharing", "mode"),
        )
    ]


def _hami(stack: Stack) -> list[Diagnostic]:
    if not schedulers.of(stack).own_device_plugin:
        return []
    out = [
        error(
            "hami.mode-unsupported",
            f"mode {pool.sharing.mode} does not work with scheduler hami",
            "HAMi replaces the NVIDIA device plugin, which is what implements time-slicing, MPS "
            "and the MIG layouts gpupool renders. Use mode fractional (or exclusive) on HAMi, "
            "or another scheduler.",
            (*pool.path, "sharing", "mode"),
        )
        for pool in stack.pools
        if not _hami_runs(pool.sharing.kind)
    ]
    for pool in stack.pools:
        out += _hami_split_on_whole(stack, pool)
    unnamed = [p for p in stack.pools if not p.node_names and p.sharing.kind.scheduler_slots]
    overcommits = {p.sharing.fractional.memory_overcommit for p in unnamed if p.sharing.fractional}
    if len(overcommits) > 1:
        out.append(
            error(
                "hami.overcommit-differs",
                "HAMi applies one memoryOvercommit to all cloud node pools",
                "HAMi overrides deviceMemoryScaling per node name only, and the node names of "
                "cloud pools are not known in advance. Use the same memoryOvercommit on "
                f"pools {', '.join(p.name for p in unnamed)}.",
                (*_section(unnamed[-1]), "memoryOvercommit"),
            )
        )
    slots = {p.sharing.slots_per_gpu for p in unnamed}
    if len(slots) > 1:
        out.append(
            warning(
                "hami.split-count-shared",
                "HAMi advertises the largest slotsPerGpu on every cloud pool",
                f"Pools {', '.join(p.name for p in unnamed)} differ in slotsPerGpu; HAMi sets "
                f"deviceSplitCount {max(slots)} on all of them (it overrides per node name "
                "only). Smaller pools stay within their slots only through the memory each pod "
                "requests, as the workload snippets do.",
                (*_section(unnamed[-1]), "slotsPerGpu"),
            )
        )
    if not stack.cluster.gpu_operator.install:
        out.append(
            warning(
                "hami.nvidia-plugin-running",
                "Turn off the NVIDIA device plugin of your GPU Operator",
                "HAMi and the NVIDIA device plugin both register nvidia.com/gpu and must not run "
                "together; gpupool does not install the operator here, so set "
                "devicePlugin.enabled=false in yours.",
                ("cluster", "gpuOperator", "install"),
            )
        )
    return out


def _namespaces(stack: Stack) -> list[Diagnostic]:
    return [
        error(
            "tenant.reserved-namespace",
            f"Namespace {t.namespace} is reserved",
            f"{t.namespace} exists already or belongs to a component gpupool installs; gpupool "
            "creates and labels each tenant's namespace, so give the tenant its own.",
            (*t.path, "namespace"),
        )
        for t in stack.tenants
        if t.namespace in _RESERVED_NAMESPACES
    ]


def _kai(stack: Stack) -> list[Diagnostic]:
    if not schedulers.of(stack).queues:
        return []
    out = []
    taken = {parent_queue_name(stack), *KAI_DEFAULT_QUEUES}
    for t in stack.tenants:
        if t.name in taken:
            out.append(
                error(
                    "kai.queue-name-taken",
                    f"Tenant name {t.name} is already a KAI queue",
                    f"Each tenant gets a KAI queue named after it; {t.name} is the stack's parent "
                    "queue or one of KAI's default queues. Rename the tenant.",
                    (*t.path, "name"),
                )
            )
        if PRIORITY_VALUES[t.priority] >= KAI_NON_PREEMPTIBLE and not t.quota_gpus:
            out.append(
                warning(
                    "kai.non-preemptible-without-quota",
                    f"Tenant {t.name} can never run on KAI",
                    f"Priority {t.priority} is non-preemptible under KAI, and non-preemptible "
                    "pods only run within their queue's quota, which is 0. Give the tenant a "
                    "quota or priority low or preemptible.",
                    (*t.path, "priority"),
                )
            )
        known = facts.of(stack)
        units = set()
        for name in t.pools:
            pool = stack.pool(name)
            if pool is not None:
                units.add(known.pool(pool).kai_gpus_per_gpu)
        if len(units) > 1:
            out.append(
                warning(
                    "kai.queue-units-differ",
                    f"KAI counts tenant {t.name}'s pools in different units",
                    "KAI counts each time-slicing or MPS replica (and each MIG instance under "
                    "strategy single) as one GPU, and a mixed-strategy MIG slice by its compute "
                    "slices. The tenant's pools offer "
                    f"{', '.join(f'{u:g}' for u in sorted(units))} units per GPU, so its queue "
                    f"uses the smallest, {min(units):g}; on the other pools the quota covers "
                    "fewer physical GPUs than written.",
                    (*t.path, "pools"),
                )
            )
    return out


def run(stack: Stack) -> list[Diagnostic]:
    """Check that the stack's sharing can be rendered as in-cluster configuration."""
    return [
        *_mps_and_mixed(stack),
        *_hami(stack),
        *_namespaces(stack),
        *_kai(stack),
    ]
