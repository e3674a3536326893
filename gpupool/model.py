"""The stack model: frozen dataclasses with every default applied.

This module owns the shape gpupool reasons about after validation. ``build`` turns schema-valid
data into a ``Stack``; nothing downstream reads raw dicts. Each object keeps the JSON path it came
from so later checks can point at the right line. GPU facts are looked up in the catalog on demand
(``Pool.instance``, ``Pool.gpu``); the model itself does no I/O. How a GPU is split (``Sharing``)
and what a cloud is (``Stack.cloud``) come from the plug-ins in ``gpupool.modes`` and
``gpupool.clouds``; the monitoring and fault-isolation values (``cluster.monitoring``,
``cluster.faultIsolation``) from ``gpupool.monitoring_model``, the services' from
``gpupool.service_model``, checkpoints from ``gpupool.checkpoint_model``. ``Stack.memo`` keeps
what other layers derive from a stack (its GPU facts) with the stack itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar

from gpupool import catalog, checkpoint_model, clouds, modes, schedulers, service_model
from gpupool.modes import Fractional, Sharing
from gpupool.monitoring_model import Monitoring, NVSentinel, monitoring, nvsentinel

if TYPE_CHECKING:
    from gpupool.catalog import GpuModel, InstanceType

__all__ = [
    "PRIORITIES", "Acknowledgement", "DeclaredPrice", "Fractional", "GpuNetwork", "Pool",
    "Sharing", "Simulation", "Stack", "Tenant", "acknowledgements", "build",
]

JsonPath = tuple[str | int, ...]
T = TypeVar("T")

PRIORITIES = ("critical", "high", "normal", "low", "preemptible")

DEFAULT_DISK_GIB = 200
"""Root disk of a pool's nodes when the file gives none: CUDA and NGC images take several GiB
each, and the clouds' defaults (EKS 20 GiB) fill up with a few of them."""


@dataclass(frozen=True)
class ProviderSettings:
    """Cloud-specific settings (docs/stack-file.md, Provider settings per cloud)."""

    subnet_ids: tuple[str, ...] = ()
    subnet_zones: tuple[tuple[str, str], ...] = ()  # (subnet id, zone) from ``subnets`` (aws)
    node_role_arn: str | None = None
    project: str | None = None
    resource_group: str | None = None
    security_group_ids: tuple[str, ...] = ()
    context: str | None = None


@dataclass(frozen=True)
class Provider:
    """Where the pools live."""

    cloud: str
    region: str | None
    cluster: str | None
    settings: ProviderSettings


@dataclass(frozen=True)
class GpuOperator:
    """NVIDIA GPU Operator installation."""

    install: bool
    version: str | None
    driver: str  # operator | preinstalled


@dataclass(frozen=True)
class Admission:
    """Admission policies for the tenants (``cluster.admission``)."""

    action: str = "deny"  # deny | warn | audit | off


@dataclass(frozen=True)
class ClusterConfig:
    """What gpupool installs inside the cluster."""

    gpu_operator: GpuOperator
    scheduler: str  # default | kai | hami
    monitoring: Monitoring
    # The KAI or HAMi scheduler runs highly available (``schedulerHighAvailability``; default
    # on in production under kai or hami); ``scheduler_ha_stated``: the file says so itself.
    scheduler_ha: bool = False
    scheduler_ha_stated: bool = False
    admission: Admission = Admission()
    kubernetes_version: str | None = None  # "1.31"; None: not stated (taken as 1.30 or newer)
    nvsentinel: NVSentinel | None = None  # None: not installed
    autoscaling: service_model.Autoscaling = field(default_factory=service_model.Autoscaling)


@dataclass(frozen=True)
class NodeRange:
    """Node counts of a pool."""

    min: int
    max: int
    desired: int


@dataclass(frozen=True)
class Capacity:
    """On-demand or spot capacity."""

    type: str  # on-demand | spot
    on_demand_base: int
    max_price_per_hour: float | None
    fallback_to_on_demand: bool

    @property
    def spot(self) -> bool:
        """True for spot pools."""
        return self.type == "spot"


@dataclass(frozen=True)
class Interruption:
    """How a spot pool handles interruption."""

    drain_seconds: int | None
    checkpoint: str
    per_hour: float | None = None  # interruptions per node and hour the team expects; None: unknown


@dataclass(frozen=True)
class DeclaredPrice:
    """A price the stack file states for a pool's GPUs (``pools[].price``), per GPU and hour.

    The plan's cost, the tenant cost and the showback rules use it instead of the catalog's list
    price (a chargeback or negotiated rate is what the pool costs the team); advice keeps
    comparing catalog list prices. Nothing converts ``currency``.
    """

    per_gpu_hour: float  # on-demand nodes (a spot pool's on-demand base and fallback too)
    spot_per_gpu_hour: float | None  # spot nodes; spot pools only
    currency: str  # ISO 4217
    source: str  # where the figure comes from, as the team states it


@dataclass(frozen=True)
class Taint:
    """A Kubernetes node taint."""

    key: str
    value: str
    effect: str


@dataclass(frozen=True)
class GpuNetwork:
    """One secondary NIC of a GPUDirect machine type: its VPC network and subnet (GKE)."""

    network: str
    subnetwork: str


@dataclass(frozen=True)
class Pool:
    """A GPU pool."""

    name: str
    path: JsonPath
    instance_type: str | None
    node_names: tuple[str, ...]
    gpu_model: str | None  # declared model (cloud kubernetes); else from the instance type
    declared_gpu_count: int | None
    declared_gpu_memory_gib: float | None  # a GPU the catalog lacks (cloud kubernetes)
    declared_mig_profiles: tuple[str, ...]
    host_memory_gib: float | None
    workload: str
    nodes: NodeRange
    capacity: Capacity
    interruption: Interruption
    sharing: Sharing
    policy: str
    qos: str
    qos_declared: bool
    zones: tuple[str, ...]
    topology: str
    labels: Mapping[str, str] = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()
    cloud: str = ""
    disk_gib: int = DEFAULT_DISK_GIB
    price: DeclaredPrice | None = None  # pools[].price; None: the catalog's list price
    gpu_networks: tuple[GpuNetwork, ...] = ()  # placement.gpuNetworks, in NIC order
    host_vcpus: int | None = None  # host.vcpus; None: the instance type's, or unknown
    recovery: checkpoint_model.Recovery = checkpoint_model.NONE  # checkpoint, maxDowntimeSeconds

    @property
    def instance(self) -> InstanceType | None:
        """The catalog instance type, when the pool names one the catalog knows."""
        if self.instance_type is None:
            return None
        return catalog.instance(self.cloud, self.instance_type)

    @property
    def gpu(self) -> GpuModel | None:
        """The GPU model each node carries, when known."""
        if self.gpu_model is not None:
            known = catalog.gpu(self.gpu_model)
            if known is None and self.declared_gpu_memory_gib is not None:
                return catalog.declared_gpu(
                    self.gpu_model, self.declared_gpu_memory_gib, self.declared_mig_profiles
                )
            return known
        inst = self.instance
        return catalog.gpu(inst.gpu) if inst is not None else None

    @property
    def gpus_per_node(self) -> int:
        """GPUs on each node (0 when unknown)."""
        if self.declared_gpu_count is not None:
            return self.declared_gpu_count
        inst = self.instance
        return inst.gpu_count if inst is not None else 0


@dataclass(frozen=True)
class Tenant:
    """A tenant of the pools."""

    name: str
    path: JsonPath
    namespace: str
    pools: tuple[str, ...]
    priority: str
    quota_gpus: float | None
    fair_share_weight: float | None
    limit_gpus: float | None
    preempt_min_runtime: str | None = None  # Go duration (KAI Queue preemptMinRuntime)
    reclaim_min_runtime: str | None = None  # Go duration (KAI Queue reclaimMinRuntime)
    recovery: checkpoint_model.Recovery = checkpoint_model.NONE  # checkpoint, maxDowntimeSeconds


@dataclass(frozen=True)
class Simulation:
    """The workload a stack names for ``gpupool plan`` and ``gpupool simulate`` (``simulation``).

    ``workload`` is the path as written, relative to the stack file's folder; the commands
    resolve it (``gpupool.usecases.simulate.prepare``) and a ``--workload`` flag wins.
    """

    workload: str
    format: str | None  # csv | jsonl | openb; None: by the file's suffix
    seed: int
    spot_interruptions_per_hour: float = 0.0
    spot_shortage: float = 0.0
    requests: tuple[str, ...] = ()  # request traces (``FILE`` or ``SERVICE=FILE``), as written


@dataclass(frozen=True)
class Acknowledgement:
    """One ``acknowledge`` entry: a warning code the team weighed, why, and (optionally) where.

    ``path`` is as written (``pools.train``: a pool or tenant by its name); None: everywhere.
    """

    code: str
    reason: str
    path: str | None
    index: int  # the entry's place in the list, for diagnostics about it


@dataclass(frozen=True)
class Stack:
    """One stack file, fully defaulted."""

    name: str
    environment: str
    labels: Mapping[str, str]
    provider: Provider
    backend: str
    cluster: ClusterConfig
    pools: tuple[Pool, ...]
    tenants: tuple[Tenant, ...]
    source: str = ""
    simulation: Simulation | None = None
    acknowledge: tuple[Acknowledgement, ...] = ()
    services: tuple[service_model.Service, ...] = ()  # services:, service_model

    @property
    def cloud(self) -> clouds.Cloud:
        """The plug-in of the stack's cloud."""
        return clouds.get(self.provider.cloud)

    def memo(self, key: str, compute: Callable[[], T]) -> T:
        """Return what ``compute`` gives, computed once for this stack and kept with it.

        Derived views of a stack (its GPU facts) are asked for by many modules; the stack is
        frozen, so an answer kept in the instance cannot go stale, and no module-level cache is
        needed.
        """
        memo = self._memo
        if key not in memo:
            memo[key] = compute()
        return memo[key]  # type: ignore[no-any-return]

    @cached_property
    def _memo(self) -> dict[str, Any]:
        return {}

    def pool(self, name: str) -> Pool | None:
        """Return the pool called ``name`` (the first, should two share it)."""
        return self._pools_by_name.get(name)

    @cached_property
    def _pools_by_name(self) -> dict[str, Pool]:
        # Built on first use and kept in the instance (``pools`` is a tuple of frozen pools, so
        # the index cannot go stale); tenants look their pools up once each.
        index: dict[str, Pool] = {}
        for p in self.pools:
            index.setdefault(p.name, p)
        return index


def derive_qos(sharing: Sharing) -> str:
    """Return the QoS tier a sharing mode gives by default (docs/stack-file.md, QoS tiers)."""
    return sharing.kind.default_qos(sharing)


def _pool(raw: Mapping[str, Any], index: int, cloud: str) -> Pool:
    sharing = modes.parse(raw.get("sharing", {}))
    node_names = tuple(raw.get("nodeNames", ()))
    if not clouds.get(cloud).provisions and node_names:
        count = len(node_names)
        nodes = NodeRange(count, count, count)
    else:
        n = raw.get("nodes", {})
        lo, hi = int(n.get("min", 0)), int(n.get("max", max(1, int(n.get("min", 0)))))
        nodes = NodeRange(lo, hi, int(n.get("desired", lo)))
    cap = raw.get("capacity", {})
    intr = raw.get("interruption", {})
    gpu = raw.get("gpu", {})
    placement = raw.get("placement", {})
    qos = raw.get("qos")
    return Pool(
        name=raw["name"],
        path=("pools", index),
        instance_type=raw.get("instanceType"),
        node_names=node_names,
        gpu_model=gpu.get("model"),
        declared_gpu_count=gpu.get("count"),
        declared_gpu_memory_gib=gpu.get("memoryGiB"),
        declared_mig_profiles=tuple(gpu.get("migProfiles", ())),
        host_memory_gib=raw.get("host", {}).get("memoryGiB"),
        workload=raw.get("workload", "mixed"),
        nodes=nodes,
        capacity=Capacity(
            type=cap.get("type", "on-demand"),
            on_demand_base=int(cap.get("onDemandBase", 0)),
            max_price_per_hour=cap.get("maxPricePerHour"),
            fallback_to_on_demand=bool(cap.get("fallbackToOnDemand", False)),
        ),
        interruption=Interruption(
            drain_seconds=intr.get("drainSeconds"),
            checkpoint=intr.get("checkpoint", "recommended"),
            per_hour=None if intr.get("perHour") is None else float(intr["perHour"]),
        ),
        sharing=sharing,
        policy=raw.get("compute", {}).get("policy", "fair"),
        qos=qos or derive_qos(sharing),
        qos_declared=qos is not None,
        zones=tuple(placement.get("zones", ())),
        topology=placement.get("topology", "any"),
        labels=dict(raw.get("labels", {})),
        taints=tuple(
            Taint(t["key"], t.get("value", ""), t["effect"]) for t in raw.get("taints", ())
        ),
        cloud=cloud,
        disk_gib=int(raw.get("disk", {}).get("sizeGiB", DEFAULT_DISK_GIB)),
        price=_price(raw.get("price")),
        gpu_networks=tuple(
            GpuNetwork(n["network"], n["subnetwork"]) for n in placement.get("gpuNetworks", ())
        ),
        host_vcpus=raw.get("host", {}).get("vcpus"),
        recovery=checkpoint_model.build(raw, ("pools", index)),
    )


def _price(raw: Mapping[str, Any] | None) -> DeclaredPrice | None:
    if not raw:
        return None
    spot = raw.get("spotPerGpuHour")
    return DeclaredPrice(
        per_gpu_hour=float(raw["perGpuHour"]),
        spot_per_gpu_hour=None if spot is None else float(spot),
        currency=str(raw["currency"]),
        source=str(raw["source"]),
    )


def _tenant(raw: Mapping[str, Any], index: int) -> Tenant:
    return Tenant(
        name=raw["name"],
        path=("tenants", index),
        namespace=raw.get("namespace", raw["name"]),
        pools=tuple(raw.get("pools", ())),
        priority=raw.get("priority", "normal"),
        quota_gpus=raw.get("quota", {}).get("gpus"),
        fair_share_weight=raw.get("fairShare", {}).get("weight"),
        limit_gpus=raw.get("limit", {}).get("gpus"),
        preempt_min_runtime=raw.get("minRuntime", {}).get("preempt"),
        reclaim_min_runtime=raw.get("minRuntime", {}).get("reclaim"),
        recovery=checkpoint_model.build(raw, ("tenants", index)),
    )


def build(data: Mapping[str, Any], source: str = "") -> Stack:
    """Build a ``Stack`` from data that passed the JSON Schema, applying every default."""
    meta = data["metadata"]
    prov = data["provider"]
    cloud = prov["cloud"]
    s = prov.get("settings", {})
    clus = data.get("cluster", {})
    op = clus.get("gpuOperator", {})
    # Managed GPU node images (EKS NVIDIA AMIs, GKE, AKS, VKE) carry the driver already; on
    # existing clusters the operator installs it unless the file says otherwise.
    default_driver = clouds.get(cloud).default_driver
    return Stack(
        name=meta["name"],
        environment=meta.get("environment", "development"),
        labels=dict(meta.get("labels", {})),
        provider=Provider(
            cloud=cloud,
            region=prov.get("region"),
            cluster=prov.get("cluster"),
            settings=ProviderSettings(
                subnet_ids=tuple(s.get("subnetIds", ())),
                subnet_zones=tuple((n["id"], n["zone"]) for n in s.get("subnets", ())),
                node_role_arn=s.get("nodeRoleArn"),
                project=s.get("project"),
                resource_group=s.get("resourceGroup"),
                security_group_ids=tuple(s.get("securityGroupIds", ())),
                context=s.get("context"),
            ),
        ),
        backend=data.get("state", {}).get("backend", "file://.gpupool/state"),
        cluster=ClusterConfig(
            gpu_operator=GpuOperator(
                install=bool(op.get("install", True)),
                version=op.get("version"),
                driver=op.get("driver", default_driver),
            ),
            scheduler=clus.get("scheduler", schedulers.default().name),
            scheduler_ha=bool(
                clus.get(
                    "schedulerHighAvailability",
                    meta.get("environment") == "production"
                    and schedulers.get(clus.get("scheduler", schedulers.default().name)).installs,
                )
            ),
            scheduler_ha_stated="schedulerHighAvailability" in clus,
            monitoring=monitoring(clus.get("monitoring", {})),
            admission=Admission(action=clus.get("admission", {}).get("action", "deny")),
            kubernetes_version=clus.get("kubernetesVersion"),
            nvsentinel=nvsentinel(clus.get("faultIsolation", {}).get("nvsentinel")),
            autoscaling=service_model.autoscaling(clus.get("autoscaling", {})),
        ),
        pools=tuple(_pool(p, i, cloud) for i, p in enumerate(data["pools"])),
        tenants=tuple(_tenant(t, i) for i, t in enumerate(data.get("tenants", ()))),
        source=source,
        simulation=_simulation(data.get("simulation")),
        acknowledge=acknowledgements(data),
        services=service_model.build(data.get("services", ())),
    )


def acknowledgements(data: Mapping[str, Any]) -> tuple[Acknowledgement, ...]:
    """Build the ``acknowledge`` list of schema-valid data (validation applies it)."""
    return tuple(Acknowledgement(a["code"], a["reason"], a.get("path"), i)
                 for i, a in enumerate(data.get("acknowledge", ())))


def _simulation(raw: Mapping[str, Any] | None) -> Simulation | None:
    if raw is None:
        return None
    return Simulation(workload=raw["workload"], format=raw.get("format"),
                      seed=int(raw.get("seed", 0)),
                      spot_interruptions_per_hour=float(raw.get("spotInterruptionsPerHour", 0)),
                      spot_shortage=float(raw.get("spotShortage", 0)),
                      requests=tuple(raw.get("requests", ())))
