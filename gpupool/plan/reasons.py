"""Why a resource changes, in the words a GPU engineer would use.

This module owns the sentences of a plan's ``reasons``, derived from the resources' ``facts``
(never from provider-specific inputs): GPU model and memory, capacity type, instance type,
sharing mode, time-slicing and MPS replicas (with the memory share of a slot), MIG layouts,
fractional slots, node counts and a mixed spot pool's on-demand base and fallback, quotas and
limits (and why a tenant's ResourceQuota loses its GPU lines where its KAI queue holds the
ceiling), MIG strategy, versions, a service's replicas (``gpupool.plan.services``); how many GPUs
leave at once when a node pool is replaced; what a
new resource needs of the cluster that gpupool does not install (its ``needs`` fact); and, when
no fact explains a change, the changed inputs with their old and new values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpupool import clouds, modes
from gpupool.graph import Resource, ResourceGraph
from gpupool.plan import services
from gpupool.plan.changes import (
    CREATE,
    MISSING,
    REPLACE_DELETE_FIRST,
    InputChange,
    InputPath,
    dotted,
    replace_actions,
    show_value,
)
from gpupool.plan.cost import node_pools
from gpupool.sharing import kai
from gpupool.sharing.keda import SCALED_OBJECT

# How scalar facts read in reasons: key -> (label, unit). Other keys read as themselves.
_FACT_LABELS = {
    "quota_gpus": ("GPU quota", " GPUs"),
    "limit_gpus": ("GPU limit", " GPUs"),
    "fair_share_weight": ("fair-share weight", ""),
    "mig_strategy": ("MIG strategy", ""),
    "gpu_memory_percent": ("GPU memory alert", "%"),
    "gpu_memory_minutes": ("GPU memory alert after", " minutes"),
    "memory_full_within_minutes": ("GPU memory early warning", " minutes ahead"),
    "throttle_percent": ("GPU throttling alert", "%"),
    "throttle_minutes": ("GPU throttling alert after", " minutes"),
    "exporter_down_minutes": ("DCGM exporter down alert after", " minutes"),
    "idle_hours": ("GPU idle alert after", " hours"),
    "pod_pending_minutes": ("GPU pod pending alert after", " minutes"),
    "device_split_count": ("HAMi deviceSplitCount", ""),
    "device_memory_scaling": ("HAMi deviceMemoryScaling", ""),
    "split_count": ("HAMi deviceSplitCount", ""),
    "memory_scaling": ("HAMi deviceMemoryScaling", ""),
}
# Facts that identify a resource or are explained elsewhere, never read as a change.
_QUIET_FACTS = frozenset(
    {"kind", "pool", "tenant", "mode", "replicas", "mig_layout", "slots_per_gpu", "config", "needs"}
)


@dataclass(frozen=True)
class Context:
    """What reasons need beyond the two resources: the cloud and each pool's node-pool facts."""

    cloud: str
    base_pools: Mapping[str, Mapping[str, Any]]
    desired_pools: Mapping[str, Mapping[str, Any]]
    #: tenants whose desired queue holds their GPU ceiling (``queued_tenants``)
    queued: frozenset[str] = frozenset()


QUOTA_TYPE = "kubernetes:core/v1:ResourceQuota"
QUEUE_TYPE = f"kubernetes:{kai.QUEUE_API}:Queue"
QUEUE_CEILING = (
    "the tenant's queue limit is its GPU ceiling now: a ResourceQuota line on its pools' GPUs "
    "would refuse the pods KAI preempts and reclaims for"
)


def queued_tenants(graph: ResourceGraph) -> frozenset[str]:
    """Return the tenants with a queue in ``graph`` (KAI's limit is their ceiling there)."""
    return frozenset(str(r.facts["tenant"]) for r in graph.resources
                     if r.type == QUEUE_TYPE and "tenant" in r.facts)


def _queue_ceiling(before: Resource, after: Resource | None, ctx: Context) -> list[str]:
    """Say why a tenant's ResourceQuota loses lines or goes (``facts.tenancy.quota_lines``)."""
    if before.type != QUOTA_TYPE or before.facts.get("tenant") not in ctx.queued:
        return []
    hard = before.inputs.get("spec", {}).get("hard", {})
    left = after.inputs.get("spec", {}).get("hard", {}) if after is not None else {}
    return [QUEUE_CEILING] if set(hard) - set(left) else []


def pool_facts(graph: ResourceGraph) -> dict[str, Mapping[str, Any]]:
    """Map each pool to its first node-pool facts (a pool's node pools share one GPU)."""
    out: dict[str, Mapping[str, Any]] = {}
    for r in node_pools(graph):
        out.setdefault(str(r.facts.get("pool")), r.facts)
    return out


def _cloud_words(name: str) -> tuple[str, str]:
    """Return how people name the cloud and its node pools.

    A cloud gpupool does not know (a name from an older record) reads as its name and
    "node pool".
    """
    cloud = clouds.find(name) if isinstance(name, str) else None
    return (cloud.display, cloud.node_pool_noun) if cloud else (str(name), "node pool")


def _recreates_nodes(name: str) -> bool:
    """Whether the cloud recreates a node pool's nodes when their machine settings change in place.

    A cloud gpupool does not know (a name from an older record) is assumed to.
    """
    cloud = clouds.find(name) if isinstance(name, str) else None
    return cloud.recreates_nodes_on_update if cloud else True


def _mode(name: Any) -> modes.SharingMode | None:
    """Return the sharing mode a fact names, or None (no mode, or one gpupool no longer knows)."""
    return modes.find(name) if isinstance(name, str) else None


def _num(v: Any) -> str:
    """Format a number without a pointless ``.0`` (``8``, ``0.5``, ``2.7``)."""
    if isinstance(v, float):
        return f"{round(v, 2):g}"
    return str(v)


def _gib(v: Any) -> str:
    return "unknown" if v is None else f"{round(float(v), 1):g} GiB"


def _plural(n: Any, word: str) -> str:
    return f"{_num(n)} {word}{'' if n == 1 else 's'}"


def _layout(v: Any) -> str:
    """Format a MIG layout given as a mapping or as ``[profile, count]`` pairs."""
    pairs = v.items() if isinstance(v, Mapping) else (v or ())
    return "{" + ", ".join(f"{p}: {c}" for p, c in pairs) + "}"


def _share(a: Any, b: Any, mem_a: Any, mem_b: Any) -> str:
    """Say how one slot's memory share moves when slots per GPU go from ``a`` to ``b``."""
    if not a or not b:
        return "changes"
    known = mem_a is not None and mem_b is not None
    old, new = (mem_a / a, mem_b / b) if known else (1 / a, 1 / b)
    word = (
        "halves" if abs(new * 2 - old) < 1e-9 else
        "doubles" if abs(old * 2 - new) < 1e-9 else
        "shrinks" if new < old else "grows" if new > old else "stays the same"
    )  # fmt: skip
    return f"{word} ({_gib(old)} -> {_gib(new)})" if known else word


_MIG_MANAGER = "MIG manager reconfigures the GPUs; running pods on those GPUs are evicted"
_MIG_NODES = "the node pool sets the MIG partitions when it creates nodes, so nodes are replaced"


def _sharing_reasons(
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    mem_a: Any,
    mem_b: Any,
    replace: bool = False,
) -> list[str]:
    """Explain a change of a pool's sharing facts (mode, replicas, MIG layout, slots).

    ``replace`` says the resource that changes is replaced (a cloud node pool that partitions
    its GPUs itself, like GKE's ``gpu_partition_size``), not reconfigured by the MIG manager.
    """
    mode_a, mode_b = old.get("mode"), new.get("mode")
    if not old or not new:
        return []
    kind_a, kind = _mode(mode_a), _mode(mode_b)
    mig_then = _MIG_NODES if replace else _MIG_MANAGER
    if mode_a != mode_b:
        if any(k is not None and k.partitioned for k in (kind_a, kind)):
            then = mig_then
        else:
            then = "the device plugin restarts; pods must request what the new mode advertises"
        return [f"sharing {mode_a} -> {mode_b}: {then}"]
    out = []
    ra, rb = old.get("replicas"), new.get("replicas")
    replicated = kind is not None and kind.replicated
    isolates = kind is not None and kind.isolates
    if replicated and not isolates and ra != rb:
        share = _share(ra, rb, mem_a, mem_b)
        out.append(f"time-slicing replicas {ra} -> {rb}: slot memory share {share}, no isolation")
    if replicated and isolates and ra != rb:
        share = _share(ra, rb, mem_a, mem_b)
        out.append(
            f"MPS replicas {ra} -> {rb}: each client's memory limit {share}, enforced by MPS"
        )
    la, lb = old.get("mig_layout"), new.get("mig_layout")
    if kind is not None and kind.partitioned and _layout(la) != _layout(lb):
        out.append(f"MIG layout {_layout(la)} -> {_layout(lb)}: {mig_then}")
    sa, sb = old.get("slots_per_gpu"), new.get("slots_per_gpu")
    if kind is not None and kind.scheduler_slots and sa != sb:
        share = _share(sa, sb, mem_a, mem_b)
        out.append(f"fractional slots per GPU {sa} -> {sb}: equal memory share {share}")
    return out


def _node_pool_reasons(
    old: Mapping[str, Any], new: Mapping[str, Any], replace: bool, ctx: Context
) -> tuple[list[str], bool]:
    """Explain a node-pool change; also say whether a reason accounts for a replacement."""
    cloud, noun = _cloud_words(ctx.cloud)
    out: list[str] = []
    explained = False
    if old.get("instance_type") != new.get("instance_type"):
        out.append(f"instance type {old.get('instance_type')} -> {new.get('instance_type')}")
    if old.get("gpu") != new.get("gpu"):
        out.append(f"GPU model {old.get('gpu')} -> {new.get('gpu')}")
    mem_a, mem_b = old.get("gpu_memory_gib"), new.get("gpu_memory_gib")
    if mem_a != mem_b:
        memory = f"GPU memory {_gib(mem_a)} -> {_gib(mem_b)}"
        if replace:
            out.append(f"{memory}: GPU memory cannot be resized in place, nodes are replaced")
        elif _recreates_nodes(ctx.cloud):
            out.append(
                f"{memory}: GPU memory cannot be resized in place; {cloud} updates the {noun} "
                "in place and recreates its nodes"
            )
        else:
            out.append(
                f"{memory}: {cloud} updates the {noun} in place; nodes it creates from now on "
                "get the new GPUs, running nodes keep the old ones until they are removed"
            )
        explained = True
    cap_a, cap_b = old.get("capacity"), new.get("capacity")
    if cap_a != cap_b:
        then = f"replaces the {noun}" if replace else f"updates the {noun} in place"
        out.append(f"{cap_a} -> {cap_b}: {cloud} {then}")
        explained = explained or replace
    if old.get("gpus_per_node") != new.get("gpus_per_node"):
        out.append(
            f"GPUs per node {_num(old.get('gpus_per_node'))} -> {_num(new.get('gpus_per_node'))}"
        )
    sharing = _sharing_reasons(
        old.get("sharing") or {}, new.get("sharing") or {}, mem_a, mem_b, replace
    )
    explained = explained or (replace and any(_MIG_NODES in r for r in sharing))
    out += sharing
    for key, label in (("nodes_min", "nodes min"), ("nodes_max", "nodes max")):
        if old.get(key) != new.get(key):
            out.append(f"{label} {old.get(key)} -> {new.get(key)}")
    # a mixed spot node pool's own on-demand share (VKE); records from before these facts
    # existed had neither, which means 0 and off
    base_a, base_b = old.get("on_demand_base") or 0, new.get("on_demand_base") or 0
    if base_a != base_b:
        out.append(f"on-demand base {base_a} -> {base_b}")
    fall_a, fall_b = bool(old.get("on_demand_fallback")), bool(new.get("on_demand_fallback"))
    if fall_a != fall_b:
        onoff = {False: "off", True: "on"}
        out.append(f"on-demand fallback {onoff[fall_a]} -> {onoff[fall_b]}")
    return out, explained


def _blast_radius(facts: Mapping[str, Any]) -> str | None:
    """Say how many GPUs leave at once when a node pool is replaced (or deleted)."""
    nodes, per = facts.get("nodes_max"), facts.get("gpus_per_node")
    if not isinstance(nodes, int) or not isinstance(per, (int, float)) or nodes * per <= 0:
        return None
    each, total = _plural(per, "GPU"), _plural(nodes * per, "GPU")
    return f"{_plural(nodes, 'node')} x {each} = up to {total} leave at once at nodes.max"


def _scalar(v: Any) -> str | None:
    """Render a fact for a reason; None for values too rich to read in one line."""
    if v is None:
        return "none"
    if isinstance(v, (list, tuple)):
        if all(isinstance(x, (str, int, float)) for x in v):
            return ", ".join(_num(x) for x in v) or "none"
        return None
    return None if isinstance(v, Mapping) else _num(v)


def _facts_reasons(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """Explain changed scalar facts: quotas, limits, MIG strategy, versions, thresholds."""
    out = []
    for key in [*new, *(k for k in old if k not in new)]:
        a, b = old.get(key), new.get(key)
        if key in _QUIET_FACTS or a == b:
            continue
        a_text, b_text = _scalar(a), _scalar(b)
        if a_text is None or b_text is None:
            continue
        label, unit = _FACT_LABELS.get(key, (key.replace("_", " "), ""))
        text = f"{label} {a_text} -> {b_text}{unit if b is not None else ''}"
        if key == "mig_strategy":
            text += ": MIG devices are advertised under new resource names; pods must request them"
        out.append(text)
    return out


def _pools_reasons(old: Mapping[str, Any], new: Mapping[str, Any], ctx: Context) -> list[str]:
    """Explain a cluster-wide config whose facts hold one entry per pool (``pools``)."""
    before: Mapping[str, Any] = old["pools"] if isinstance(old.get("pools"), Mapping) else {}
    after: Mapping[str, Any] = new["pools"] if isinstance(new.get("pools"), Mapping) else {}
    out = []
    for name in [*after, *(k for k in before if k not in after)]:
        a, b = before.get(name), after.get(name)
        if a == b:
            continue
        if not isinstance(a, Mapping) or not isinstance(b, Mapping):
            out.append(f"pool {name} {'added' if a is None else 'removed'}")
            continue
        mem_a = ctx.base_pools.get(name, {}).get("gpu_memory_gib")
        mem_b = ctx.desired_pools.get(name, {}).get("gpu_memory_gib")
        found = _sharing_reasons(a, b, mem_a, mem_b) + _facts_reasons(a, b)
        out += [f"pool {name}: {r}" for r in found]
    return out


def _input_reasons(changes: Sequence[InputChange], limit: int = 4) -> list[str]:
    """Fallback: name the changed inputs with their old and new values."""
    out = []
    for c in changes[:limit]:
        if c.before is MISSING:
            out.append(f"{c.dotted} added: {show_value(c.after)}")
        elif c.after is MISSING:
            out.append(f"{c.dotted} removed (was {show_value(c.before)})")
        else:
            out.append(f"{c.dotted} {show_value(c.before)} -> {show_value(c.after)}")
    if len(changes) > limit:
        out.append(f"and {len(changes) - limit} more changed inputs")
    return out


def explain(
    before: Resource,
    after: Resource,
    changes: Sequence[InputChange],
    replace_paths: Sequence[InputPath],
    ctx: Context,
) -> list[str]:
    """Explain an update or a replacement, from facts where they say why, else from inputs.

    Args:
        before: the base resource.
        after: the desired resource.
        changes: the inputs that differ.
        replace_paths: the ``replace_on`` paths that force a replacement (empty: an update).
        ctx: the cloud and each pool's node-pool facts.

    Returns:
        The reasons, most important first.

    """
    old, new = before.facts, after.facts
    replace = bool(replace_paths)
    explained = False
    if new.get("kind") == "node-pool":
        out, explained = _node_pool_reasons(old, new, replace, ctx)
    elif new.get("kind") == SCALED_OBJECT:  # a service's ScaledObject, in service terms
        out = services.reasons(old, new)
    else:
        out = _pools_reasons(old, new, ctx)
        if "mode" in new and "pool" in new:  # one pool's sharing config
            pool = str(new["pool"])
            mem_a = ctx.base_pools.get(pool, {}).get("gpu_memory_gib")
            mem_b = ctx.desired_pools.get(pool, {}).get("gpu_memory_gib")
            out += _sharing_reasons(old, new, mem_a, mem_b)
        out += _facts_reasons(old, new) + _queue_ceiling(before, after, ctx)
    if not out:
        out = _input_reasons(changes)
    if replace and not explained:
        cloud, noun = _cloud_words(ctx.cloud)
        forcing = ", ".join(dotted(p) for p in replace_paths)
        who = f"{cloud} replaces the {noun}" if new.get("kind") == "node-pool" else "replaced"
        out.append(f"{forcing} cannot change in place: {who}")
    if replace and new.get("kind") == "node-pool":
        out.append(_replace_order(after.type, ctx))
    if replace and old.get("kind") == "node-pool" and (radius := _blast_radius(old)):
        out.append(radius)
    return out


def _replace_order(type_token: str, ctx: Context) -> str:
    """Say in which order Pulumi replaces a node pool (``changes.replace_actions``)."""
    _, noun = _cloud_words(ctx.cloud)
    if replace_actions(type_token) == REPLACE_DELETE_FIRST:
        return (
            f"Pulumi deletes the old {noun} before it creates the new one (the new one takes its "
            f"name): its GPUs are gone until the new {noun} is up"
        )
    return f"Pulumi creates the new {noun} before it deletes the old one"


def _needs(facts: Mapping[str, Any]) -> list[str]:
    """Say what a new resource needs of the cluster that gpupool does not install (``needs``)."""
    needs = facts.get("needs")
    if not isinstance(needs, (list, tuple)):
        return []
    return [f"needs {n}" for n in needs if isinstance(n, str)]


def lifecycle(res: Resource, actions: tuple[str, ...], ctx: Context) -> list[str]:
    """Say what a node pool that comes or goes adds or takes away, and what a new resource needs."""
    f = res.facts
    if f.get("kind") == SCALED_OBJECT and actions == CREATE:
        return services.created(f)
    if f.get("kind") != "node-pool":
        return _needs(f) if actions == CREATE else _queue_ceiling(res, None, ctx)
    gpu, per = f.get("gpu") or "GPU", f.get("gpus_per_node")
    lo, hi = f.get("nodes_min"), f.get("nodes_max")
    if actions == CREATE:
        if not isinstance(per, (int, float)) or not isinstance(lo, int) or not isinstance(hi, int):
            return []
        gpus = _num(lo * per) if lo == hi else f"{_num(lo * per)}-{_num(hi * per)}"
        nodes = _plural(lo, "node") if lo == hi else f"{lo}-{hi} nodes"
        noun = f"{gpu} GPU" + ("" if hi * per == 1 else "s")
        return [f"adds {gpus} {noun} ({nodes} x {_plural(per, 'GPU')}, {f.get('capacity')})"]
    radius = _blast_radius(f)
    return [f"removes {gpu} nodes: {radius}"] if radius else []
