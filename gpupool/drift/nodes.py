"""Effective GPU state from the Kubernetes API against what each pool declares.

Per pool, the nodes labelled ``gpupool.io/pool=<pool>`` are compared with what the stack implies
(the GPU facts, ``gpupool.facts``): GPU Feature Discovery's ``nvidia.com/gpu.product`` and
``gpu.memory`` against the pool's GPU, ``gpu.count``, ``gpu.replicas`` and
``gpu.sharing-strategy`` against the sharing mode, allocatable GPU resources against what the
pool's nodes advertise, the config labels gpupool set, the MIG Manager's
``nvidia.com/mig.strategy`` and ``nvidia.com/mig.config.state``, the instance type and the node
count against nodes.min..max; each node's GPU health conditions, cordon and fault-isolation
taints are ``gpupool.drift.conditions``'s. Where the cloud shares GPUs itself (GKE), GKE's
sharing labels stand in for GFD's; under HAMi, HAMi's ``hami.io/node-nvidia-register``
annotation says which GPUs the node has. Label names and formats follow GPU Feature Discovery,
the GPU Operator, GKE and HAMi (see tests/fixtures/nodes/README.md and
tests/fixtures/nodes/docs/README.md).

What real nodes write, and what is tolerated:

* product names differ across driver generations: before driver 470 NVML names carry no
  ``NVIDIA`` prefix (``A100-SXM4-40GB``), later ones do (``NVIDIA-A100-SXM4-40GB``); GFD appends
  ``-SHARED`` under time-slicing and ``-MIG-<profile>`` under MIG strategy single, with ``.`` for
  ``+`` (``…-MIG-1g.10gb.me``). Every spelling the catalog knows for a GPU matches;
* GFD v0.6.0 and v0.6.1 wrote ``nvidia.com/gpu.memory`` in bytes, not MiB;
* ``nvidia.com/gpu.sharing-strategy`` exists from GFD v0.15.0 on; older GFDs write only
  ``gpu.replicas`` (they cannot run MPS, which needs v0.15.0);
* a MIG device's memory is its real size, up to ~11% below the profile's name (H200 ``1g.18gb``
  is 16 GiB, H100 NVL ``1g.12gb`` 10.75 GiB): the memory must be nearer the declared profile's
  than any other profile's of the catalog's geometry.

A pool of whole GPUs expects GFD's "without sharing" labels where GFD writes them
(``gpu.replicas`` 1, ``gpu.sharing-strategy`` none), no MIG product suffix or MIG profiles, and,
where GKE shares GPUs, none of GKE's sharing labels.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from gpupool import facts
from gpupool.catalog.models import GpuModel
from gpupool.cluster import ObservedNode
from gpupool.drift import conditions, legacy_gfd
from gpupool.drift.items import DriftItem
from gpupool.facts.names import (
    GFD_COUNT,
    GFD_MEMORY,
    GFD_PRODUCT,
    GFD_REPLICAS,
    GFD_SHARING_STRATEGY,
    INSTANCE_TYPE_LABEL,
    MIG_CONFIG_STATE_LABEL,
    MIG_RESOURCE_PREFIX,
    POOL_LABEL,
    mig_resource,
)
from gpupool.model import Pool, Stack

#: Nominal and reported GPU memory differ (an "80 GB" A100 reports 81920 MiB, an L4 23034 MiB).
MEMORY_TOLERANCE = 0.10

#: The MIG strategy GFD and the device plugin run with (GFD ``internal/lm/mig-strategy.go``).
MIG_STRATEGY_LABEL = "nvidia.com/mig.strategy"
#: GFD's per-profile MIG labels under strategy mixed: ``nvidia.com/mig-<profile>.count``.
_MIG_COUNT_LABEL = re.compile(r"^nvidia\.com/mig-(?P<profile>.+)\.count$")
#: mig.config.state values of a reconfiguration still under way (mig-parted
#: ``deployments/container/reconfigure-mig.sh``).
MIG_STATES_IN_PROGRESS = ("pending", "rebooting")

#: GKE's node labels on node pools it shares itself (GKE docs, "About GPU time-sharing":
#: ``cloud.google.com/gke-gpu-sharing-strategy: time-sharing``,
#: ``cloud.google.com/gke-max-shared-clients-per-gpu: "3"``).
CLOUD_SHARING_STRATEGY_LABEL = "cloud.google.com/gke-gpu-sharing-strategy"
CLOUD_MAX_CLIENTS_LABEL = "cloud.google.com/gke-max-shared-clients-per-gpu"
#: GKE's label on MIG-partitioned node pools (kubernetes/autoscaler
#: ``cluster-autoscaler/cloudprovider/gce``: ``GPUPartitionSizeLabel``, next to the two above).
CLOUD_PARTITION_SIZE_LABEL = "cloud.google.com/gke-gpu-partition-size"
#: GKE's strategy value where it differs from the device plugin's key: time-slicing is GKE's
#: "time-sharing"; MPS is written as the mode's name.
_CLOUD_STRATEGY_BY_PLUGIN_KEY = {"timeSlicing": "time-sharing"}

#: HAMi's node annotation: the devices HAMi's device plugin registered. HAMi v2.x writes a JSON
#: list (``pkg/device/devices.go`` ``MarshalNodeDevices``: ``id``, ``count``, ``devmem`` MiB,
#: ``devcore``, ``type``, ``numa``, ``health``, ``mode``); HAMi before 2.4 wrote
#: ``id,count,devmem,devcore,type,numa,health[,index,mode]:`` per device (``EncodeNodeDevices``;
#: HAMi website, "Protocol design").
HAMI_REGISTER_ANNOTATION = "hami.io/node-nvidia-register"

#: A ``gpu.memory`` value this large is bytes (GFD v0.6.0/v0.6.1), never MiB: no GPU has 1 PiB.
_BYTES_THRESHOLD = 2**30
#: Device-plugin sharing keys GFD before v0.15.0 (no ``gpu.sharing-strategy`` label) served.
_BEFORE_STRATEGY_LABEL = ("timeSlicing",)
#: NVIDIA vGPU type names end in ``-<frame buffer GB><series>`` (``NVIDIA A10-4Q``; series
#: A, B, C, Q: NVIDIA Virtual GPU software docs, "Virtual GPU Types").
_VGPU_TYPE = re.compile(r"-\d+[ABCQ]$")
_PREFIX = "NVIDIA-"
_MIG_INFIX = "-MIG-"
_SHARED_SUFFIX = "-SHARED"


@dataclass(frozen=True)
class Expected:
    """What one node of a pool should advertise.

    Attributes:
        product: the catalog's GFD product label (with ``-MIG-<profile>`` under strategy
            single), for reports.
        memory_mib: the memory of one GPU (or MIG device) in MiB, or None.
        labels: labels the node must carry with exactly these values.
        allocatable: extended resources and their counts.
        instance_type: the machine type, or None.
        spellings: every normalised name of the pool's GPU (see :func:`normalise_product`).
        mig_profile: the MIG profile GFD names in the product under strategy single.
        mig_strategy: the MIG strategy a MIG pool's nodes must run, else None.
        mig_memories_mib: the memory (MiB) of each profile of the GPU's MIG geometry.
        cloud_labels: labels of the cloud's own sharing (GKE), checked instead of GFD's; a
            ``None`` value means the label must be absent (the pool does not share GPUs).
        optional_labels: GFD labels that may be absent (older GFDs write no
            ``gpu.sharing-strategy``; where the cloud shares GPUs GFD may not run at all),
            checked only when present.
        hami_split: HAMi's vGPUs per GPU, when HAMi serves the pool.
        mig_profiles: the GPU's MIG profiles and their memory (MiB), for reading the labels
            of 2020 GFD releases (``gpupool.drift.legacy_gfd``).
        hami_memory_mib: the memory HAMi registers per GPU (after ``deviceMemoryScaling``).
        gpus: physical GPUs per node.
        vgpu: the instance has a slice of one GPU (a vGPU, ``gpu_fraction`` < 1): the driver
            names the GPU with its vGPU type (``NVIDIA A10-4Q``).

    """

    product: str | None
    memory_mib: float | None
    labels: dict[str, str]
    allocatable: dict[str, int]
    instance_type: str | None
    spellings: frozenset[str] = frozenset()
    mig_profile: str | None = None
    mig_strategy: str | None = None
    mig_memories_mib: tuple[float, ...] = ()
    cloud_labels: dict[str, str | None] = field(default_factory=dict)
    optional_labels: dict[str, str] = field(default_factory=dict)
    hami_split: int | None = None
    mig_profiles: tuple[tuple[str, float], ...] = ()
    hami_memory_mib: float | None = None
    gpus: int = 0
    vgpu: bool = False


def normalise_product(name: str) -> str:
    """Return ``name`` as drift compares GPU names: spaces as ``-``, upper case, no ``NVIDIA-``.

    NVML names (``NVIDIA A100-SXM4-40GB``, before driver 470 ``A100-SXM4-40GB``), GFD's sanitised
    labels (``NVIDIA-A100-SXM4-40GB``), HAMi's types (``NVIDIA-NVIDIA L40S``) and the catalog's
    names all reduce to the same string.
    """
    out = "-".join(name.strip().split()).upper()
    while out.startswith(_PREFIX):
        out = out[len(_PREFIX) :]
    return out


def spellings(gpu: GpuModel) -> frozenset[str]:
    """Return every normalised spelling the catalog knows for ``gpu``."""
    names = (gpu.name, gpu.product_label, *gpu.aliases)
    return frozenset(normalise_product(n) for n in names if n)


def split_product(label: str) -> tuple[str, str | None, bool]:
    """Split a GFD product label into (GPU name, MIG profile or None, shared).

    ``A100-SXM4-40GB-MIG-1g.5gb-SHARED`` gives ``("A100-SXM4-40GB", "1g.5gb", True)``.
    """
    shared = label.endswith(_SHARED_SUFFIX)
    base = label.removesuffix(_SHARED_SUFFIX)
    name, sep, profile = base.partition(_MIG_INFIX)
    return name, (profile if sep else None), shared


def _is_mig_count(key: str) -> bool:
    return _MIG_COUNT_LABEL.match(key) is not None


def _profile_key(profile: str) -> str:
    """GFD and the device plugin write ``+`` as ``.`` (``1g.10gb+me`` -> ``1g.10gb.me``)."""
    return profile.replace("+", ".").lower()


def expected(stack: Stack, pool: Pool) -> Expected:
    """Return what every node of ``pool`` should advertise, from the GPU facts.

    Allocatable is each advertised resource times the GPUs per node (``PoolFacts.units``: the
    same numbers the device-plugin configs, HAMi's values, the quotas and the plan use). GPU
    Feature Discovery labels: ``gpu.count`` (GPUs, or MIG devices under strategy single), for
    time-slicing and MPS ``gpu.replicas`` and ``gpu.sharing-strategy`` (GFD writes the mode's
    name; the strategy label only from GFD v0.15.0), under MIG strategy mixed
    ``mig-<profile>.count``; under strategy single the product gets ``-MIG-<profile>`` and the
    memory is the slice's. Where the cloud shares GPUs (GKE), its own labels replace GFD's
    sharing labels. Under HAMi, HAMi's plugin advertises and GFD may not run, so no GFD count is
    expected; HAMi's annotation is checked instead.
    """
    pf = facts.pool_facts(stack, pool)
    sf = facts.of(stack)
    gpu = pf.gpu
    n = pf.gpus_per_node
    s = pool.sharing
    kind = s.kind
    labels = dict(pf.node_labels)
    optional: dict[str, str] = {}
    cloud: dict[str, str | None] = {}
    alloc: dict[str, int] = {}
    for unit in pf.units:
        alloc[unit.resource] = alloc.get(unit.resource, 0) + n * unit.per_gpu
    product = gpu.product_label if gpu else None
    # a partial-GPU VM (Azure NV*ads_A10_v5) sees its slice's frame buffer, not the whole GPU's
    memory_mib = pf.gpu_memory_gib * 1024 if pf.gpu_memory_gib is not None else None
    inst = pool.instance
    vgpu = inst is not None and inst.gpu_fraction < 1
    geometry = gpu.mig if gpu is not None else None
    mig_memories = tuple(
        p.memory_gib * 1024 for p in (geometry.profiles or () if geometry is not None else ())
    )
    mig_profiles = tuple(
        (p.name, p.memory_gib * 1024)
        for p in (geometry.profiles or () if geometry is not None else ())
    )
    mig_profile: str | None = None
    mig_strategy: str | None = None
    hami = facts.uses_scheduler(stack, facts.SCHEDULER_HAMI)
    if hami:
        pass
    elif kind.replicated and s.replicas and sf.cloud_shares_gpus:
        key = kind.device_plugin_key or ""
        cloud[CLOUD_SHARING_STRATEGY_LABEL] = _CLOUD_STRATEGY_BY_PLUGIN_KEY.get(key, s.mode)
        cloud[CLOUD_MAX_CLIENTS_LABEL] = str(s.replicas)
    elif kind.replicated and s.replicas:
        labels[GFD_REPLICAS] = str(s.replicas)
        optional[GFD_SHARING_STRATEGY] = s.mode
        labels[GFD_COUNT] = str(n)
    elif kind.partitioned:
        mig_strategy = facts.mig_strategy(stack)
        if mig_strategy == facts.MIG_SINGLE:
            [(profile, per_gpu)] = s.mig_layout
            mig_profile = profile
            product = f"{product}-MIG-{profile}" if product else None
            prof = geometry.profile(profile) if geometry is not None else None
            memory_mib = prof.memory_gib * 1024 if prof else None  # GFD reports the slice
            labels[GFD_COUNT] = str(n * per_gpu)
        else:
            for profile, per_gpu in s.mig_layout:
                labels[f"{mig_resource(profile)}.count"] = str(n * per_gpu)
    else:
        labels[GFD_COUNT] = str(n)
        # whole GPUs: GFD labels them "without sharing" (internal/lm/resource.go)
        optional[GFD_REPLICAS] = "1"
        optional[GFD_SHARING_STRATEGY] = "none"
    if sf.cloud_shares_gpus and not hami and not kind.replicated:
        cloud[CLOUD_SHARING_STRATEGY_LABEL] = None  # GKE labels only the pools it shares
        cloud[CLOUD_MAX_CLIENTS_LABEL] = None
    if sf.cloud_shares_gpus and not hami:
        # the cloud's device plugin serves the GPUs: GFD may not run, its labels are optional
        for key in [k for k in labels if k in (GFD_COUNT, GFD_REPLICAS) or _is_mig_count(k)]:
            optional[key] = labels.pop(key)
        if kind.partitioned and len(s.mig_layout) == 1:
            cloud[CLOUD_PARTITION_SIZE_LABEL] = s.mig_layout[0][0]
        mig_strategy = None  # no MIG Manager labels: the cloud partitions
    hami_memory = None
    if hami and pf.gpu_memory_gib is not None:
        hami_memory = pf.gpu_memory_gib * 1024 * (pf.hami_memory_scaling or 1.0)
    return Expected(
        product=product,
        memory_mib=memory_mib,
        labels=labels,
        allocatable=alloc,
        instance_type=inst.machine_type if inst is not None else pool.instance_type,
        spellings=spellings(gpu) if gpu is not None else frozenset(),
        mig_profile=mig_profile,
        mig_strategy=mig_strategy,
        mig_memories_mib=mig_memories,
        cloud_labels=cloud,
        optional_labels=optional,
        hami_split=pf.hami_split if hami else None,
        mig_profiles=mig_profiles,
        hami_memory_mib=hami_memory,
        gpus=n,
        vgpu=vgpu,
    )


def _memory_mib(raw: str) -> tuple[float, str] | None:
    """Return (MiB, how the raw value reads) for a ``gpu.memory`` label, None if not a number."""
    if not raw.isdigit():
        return None
    value = int(raw)
    if value >= _BYTES_THRESHOLD:  # GFD v0.6.0/v0.6.1 wrote bytes
        return value / 2**20, f"{raw} bytes (GFD v0.6.0/v0.6.1 writes bytes)"
    return float(value), f"{raw} MiB"


def _memory_matches(want: Expected, got_mib: float) -> bool:
    """Return True when ``got_mib`` fits the declared GPU or MIG device.

    A MIG device must be nearer (by ratio) the declared profile's memory than any other
    profile's of the catalog's geometry; anything else within :data:`MEMORY_TOLERANCE`.
    """
    assert want.memory_mib is not None
    if want.mig_profile is not None and want.mig_memories_mib and got_mib > 0:
        nearest = min(want.mig_memories_mib, key=lambda m: abs(m - got_mib) / m)
        return abs(nearest - want.memory_mib) < 1e-6
    return abs(got_mib - want.memory_mib) <= want.memory_mib * MEMORY_TOLERANCE


def _amount(value: float) -> str:
    return str(int(value)) if value == int(value) else str(value)


def hami_devices(annotation: str) -> list[dict[str, object]] | None:
    """Parse HAMi's ``hami.io/node-nvidia-register`` annotation; None when unreadable.

    Returns one dict per device with ``type`` (str), ``count`` and ``devmem`` (int, MiB).
    """
    text = annotation.strip()
    if text.startswith("["):
        try:
            data = json.loads(text)
        except ValueError:
            return None
        if not isinstance(data, list):
            return None
        out = []
        for d in data:
            if not isinstance(d, Mapping):
                return None
            try:
                out.append(
                    {"type": str(d["type"]), "count": int(d["count"]), "devmem": int(d["devmem"])}
                )
            except (KeyError, TypeError, ValueError):
                return None
        return out
    devices = []
    for part in text.split(":"):
        if "," not in part:
            continue
        items = part.split(",")
        if len(items) < 5:
            return None
        try:
            devices.append({"type": items[4], "count": int(items[1]), "devmem": int(items[2])})
        except ValueError:
            return None
    return devices


def _hami(want: Expected, node: ObservedNode, item: _Emit) -> None:
    raw = node.annotations.get(HAMI_REGISTER_ANNOTATION)
    if raw is None:
        item(
            HAMI_REGISTER_ANNOTATION,
            None,
            f"HAMi has registered no GPUs on this node "
            f"(no {HAMI_REGISTER_ANNOTATION} annotation: is HAMi's device plugin running?)",
        )
        return
    devices = hami_devices(raw)
    if devices is None:
        item(HAMI_REGISTER_ANNOTATION, raw, f"{HAMI_REGISTER_ANNOTATION} cannot be read")
        return
    if want.gpus and len(devices) != want.gpus:
        item(
            want.gpus,
            len(devices),
            f"HAMi registered {len(devices)} GPU(s), pool declares {want.gpus}",
        )
    types = sorted({str(d["type"]) for d in devices})
    wrong = [t for t in types if want.spellings and normalise_product(t) not in want.spellings]
    if wrong:
        item(
            want.product,
            ", ".join(wrong),
            f"HAMi registered {', '.join(wrong)}, pool declares {want.product}",
        )
    splits = sorted({int(str(d["count"])) for d in devices})
    if want.hami_split is not None and splits != [want.hami_split]:
        shown = ", ".join(map(str, splits))
        item(
            want.hami_split,
            shown,
            f"HAMi splits each GPU into {shown} vGPUs, expected {want.hami_split}",
        )
    if not wrong and want.hami_memory_mib:
        for mem in sorted({int(str(d["devmem"])) for d in devices}):
            if abs(mem - want.hami_memory_mib) > want.hami_memory_mib * MEMORY_TOLERANCE:
                item(
                    f"{want.hami_memory_mib:.0f} MiB",
                    f"{mem} MiB",
                    "GPU memory HAMi registered differs from the declared GPU's",
                )


class _Emit:
    """Collects one node's findings under its address."""

    def __init__(self, addr: str) -> None:
        self.addr = addr
        self.items: list[DriftItem] = []

    def __call__(self, declared: object, observed: object, summary: str) -> None:
        self.items.append(DriftItem("cluster", self.addr, declared, observed, summary))


def _product(want: Expected, pool: Pool, got: str, item: _Emit) -> None:
    name, profile, _shared = split_product(got)
    base = normalise_product(name)
    if want.vgpu:
        base = _VGPU_TYPE.sub("", base)
    if want.spellings and base not in want.spellings:
        item(want.product, got, f"node has {got}, pool declares {want.product}")
        return
    if profile is not None and not pool.sharing.kind.partitioned:
        item(want.product, got, f"node has {got} (MIG profile {profile}), pool declares no MIG")
        return
    if want.mig_profile is not None and (
        profile is None or _profile_key(profile) != _profile_key(want.mig_profile)
    ):
        shown = f"MIG profile {profile}" if profile else "no MIG profile"
        item(
            want.product,
            got,
            f"node has {got} ({shown}), pool declares MIG profile {want.mig_profile}",
        )


def _mig_state(stack: Stack, pool: Pool, want: Expected, node: ObservedNode, item: _Emit) -> bool:
    """Report the MIG strategy and reconfiguration state; True when GPU checks should stop.

    A node on the other strategy or in the middle of a reconfiguration advertises what it had
    before: naming that cause replaces the product, memory, count and allocatable findings it
    implies. The reconfiguration state matters on every pool the MIG Manager serves (a pool
    leaving MIG is reconfigured too); the strategy only on MIG pools.
    """
    partitioned = pool.sharing.kind.partitioned
    if not partitioned and not facts.of(stack).mig_manager:
        return False
    strategy = node.labels.get(MIG_STRATEGY_LABEL)
    if partitioned and want.mig_strategy and strategy and strategy != want.mig_strategy:
        item(
            want.mig_strategy,
            strategy,
            f"node runs MIG strategy {strategy}, the stack needs {want.mig_strategy} "
            f"({MIG_STRATEGY_LABEL}; set by the GPU Operator's mig.strategy)",
        )
        return True
    state = node.labels.get(MIG_CONFIG_STATE_LABEL)
    if state in MIG_STATES_IN_PROGRESS:
        item(
            "success",
            state,
            f"MIG reconfiguration is still under way on this node "
            f"(mig.config.state={state}); GPU labels and allocatable follow when it ends",
        )
        return True
    if state == "failed":
        item("success", state, "MIG reconfiguration failed on this node (mig.config.state=failed)")
    return False


def _mig_extra(want: Expected, pool: Pool, node: ObservedNode, item: _Emit) -> None:
    """Report MIG profiles (strategy mixed) the node offers that the pool does not declare."""
    offered: dict[str, str] = {}
    for key, value in node.labels.items():
        m = _MIG_COUNT_LABEL.match(key)
        if m and value not in ("", "0"):
            offered[MIG_RESOURCE_PREFIX + m["profile"]] = value
    for res, value in node.allocatable.items():
        if res.startswith(MIG_RESOURCE_PREFIX) and value not in ("", "0"):
            offered.setdefault(res, value)
    for res in sorted(set(offered) - set(want.allocatable)):
        profile = res.removeprefix(MIG_RESOURCE_PREFIX)
        why = (
            "which the pool no longer declares"
            if pool.sharing.kind.partitioned
            else "and the pool declares no MIG"
        )
        item(None, {res: offered[res]}, f"node offers {offered[res]} x {profile}, {why}")


def _node(stack: Stack, pool: Pool, want: Expected, node: ObservedNode) -> list[DriftItem]:
    item = _Emit(f"pool.{pool.name}/node/{node.name}")
    labels, renames = legacy_gfd.relabel(want.mig_profiles, node.labels)
    if renames:
        node = replace(node, labels=MappingProxyType(labels))
        for old, new in sorted(renames.items()):
            item.items.append(DriftItem(
                "cluster", item.addr, new, old,
                f"labels nvidia.com/mig-{old}.* come from a GPU Feature Discovery of 2020, "
                f"which named MIG profiles by rounded memory: read as {new} "
                f"(the device plugin advertises nvidia.com/mig-{new})",
                kind="note",
            ))

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
    stop = _mig_state(stack, pool, want, node, item)
    if want.hami_split is not None:
        _hami(want, node, item)
    got_product = node.labels.get(GFD_PRODUCT)
    if not stop and want.product and got_product:
        _product(want, pool, got_product, item)
    got_mem = node.labels.get(GFD_MEMORY)
    mem = _memory_mib(got_mem) if got_mem else None
    if not stop and want.memory_mib and mem is not None and not _memory_matches(want, mem[0]):
        item(f"{want.memory_mib:.0f} MiB", mem[1], "GPU memory differs from the declared GPU's")
    for key, value in sorted(want.labels.items()):
        got = node.labels.get(key)
        if stop and (key == GFD_COUNT or _is_mig_count(key)):
            continue  # follows the reconfiguration or the strategy, named above
        if got != value:
            shown = "missing" if got is None else repr(got)
            item({key: value}, {key: got}, f"label {key} is {shown}, expected {value!r}")
    for key, value in sorted(want.optional_labels.items()):
        got = node.labels.get(key)
        if got is not None and got != value:
            item({key: value}, {key: got}, f"label {key} is {got!r}, expected {value!r}")
        elif (
            got is None
            and key == GFD_SHARING_STRATEGY
            and pool.sharing.kind.replicated
            and not want.cloud_labels
            and pool.sharing.kind.device_plugin_key not in _BEFORE_STRATEGY_LABEL
        ):
            item(
                {key: value},
                {key: None},
                f"label {key} is missing: GFD older than v0.15.0 writes none, and its "
                f"device plugin cannot run {value}",
            )
    for key, cloud_value in sorted(want.cloud_labels.items()):
        got = node.labels.get(key)
        if cloud_value is None:
            if got is not None:
                item(
                    {key: None},
                    {key: got},
                    f"label {key} is {got!r}: the cloud shares this node's GPUs, the pool "
                    "declares no sharing",
                )
            continue
        value = cloud_value
        if got != value:
            shown = "missing" if got is None else repr(got)
            item({key: value}, {key: got}, f"label {key} is {shown}, expected {value!r}")
    partitioned = pool.sharing.kind.partitioned
    if not stop and ((partitioned and want.mig_strategy == facts.MIG_MIXED) or not partitioned):
        _mig_extra(want, pool, node, item)
    if not stop:
        for res, count in sorted(want.allocatable.items()):
            raw = node.allocatable.get(res)
            if raw is None:
                item({res: count}, {res: None}, f"allocatable {res} is missing, expected {count}")
                continue
            got_n = node.allocatable_amount(res)
            if got_n != count:
                item(
                    {res: count},
                    {res: int(got_n) if got_n == int(got_n) else got_n},
                    f"allocatable {res} is {_amount(got_n)}, expected {count}",
                )
    return item.items


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
            out.extend(conditions.node_items(pool.name, node))
    return out
