"""The types every sharing-mode plug-in is made of: its traits, and the QoS tiers.

``SharingMode`` states a mode's traits once; ``Fractional`` is the ``sharing.fractional`` block.
``NodeDevices`` is what GPU Feature Discovery says of a node's devices under a mode, which drift
checks the node's labels against. The QoS tier names live here too because one of them
(``exclusive``) is also a mode's name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpupool.modes import Sharing

QOS_EXCLUSIVE = "exclusive"
QOS_GUARANTEED = "guaranteed"
QOS_SHARED = "shared"
QOS_TIERS = (QOS_EXCLUSIVE, QOS_GUARANTEED, QOS_SHARED)


@dataclass(frozen=True)
class Fractional:
    """Scheduler-enforced fractional slots (the ``sharing.fractional`` section)."""

    slots_per_gpu: int
    memory_gib: float | None
    memory_percent: int | None
    cores_percent: int | None
    memory_overcommit: float


@dataclass(frozen=True)
class ClientLimit:
    """The most pods one GPU may serve under a mode, because its runtime caps its clients.

    Attributes:
        clients: the cap on GPUs of compute capability ``older_below`` or newer.
        older_clients: the cap on older GPUs.
        older_below: the compute capability (``major.minor``) below which ``older_clients``
            applies.

    """

    clients: int
    older_clients: int
    older_below: str


@dataclass(frozen=True)
class NodeDevices:
    """What GPU Feature Discovery writes of a node's devices under a mode: values, not labels.

    ``gpupool.drift`` names the labels (``nvidia.com/gpu.count``, ``gpu.replicas``,
    ``gpu.sharing-strategy``, ``mig-<profile>.count``: NVIDIA/k8s-device-plugin
    ``docs/gpu-feature-discovery/README.md``, ``internal/lm/resource.go``).

    Attributes:
        count: ``gpu.count``: GPUs, or MIG devices under strategy single; None under strategy
            mixed, which counts per profile.
        mig_counts: (MIG profile, devices on the node) under strategy mixed.
        replicas: ``gpu.replicas`` when the mode replicates ``nvidia.com/gpu``, else None.
        strategy: ``gpu.sharing-strategy``'s value when the mode replicates (written only from
            GFD v0.15.0 on, so never required).
        unshared: GFD labels the node "without sharing" (``gpu.replicas`` 1, strategy
            ``none``), where it writes those labels.
        mig_profile: the MIG profile GFD names in the product under strategy single.

    """

    count: int | None = None
    mig_counts: tuple[tuple[str, int], ...] = ()
    replicas: int | None = None
    strategy: str | None = None
    unshared: bool = False
    mig_profile: str | None = None


@dataclass(frozen=True)
class SharingMode:
    """One sharing mode's traits.

    Attributes:
        name: the value of ``sharing.mode`` in a stack file.
        whole: one pod owns a whole GPU.
        replicated: ``nvidia.com/gpu`` is advertised ``replicas`` times per GPU by the device
            plugin (time-slicing, MPS); ``sharing.replicas`` applies.
        partitioned: the GPU is cut into MIG instances (``sharing.mig`` applies).
        scheduler_slots: slots are enforced by a GPU-sharing scheduler (HAMi, KAI), not by the
            device plugin (``sharing.fractional`` applies).
        section: the key of the mode's own block under ``sharing`` (``mig``, ``fractional``),
            or None.
        device_plugin_key: the key under the NVIDIA device plugin's ``sharing`` config
            (``timeSlicing``, ``mps``), or None when the plugin does not share.
        isolates: the mode isolates memory and compute by itself (MIG, MPS), so its QoS tier
            is ``guaranteed`` by default.
        mig_mixed_ok: the mode works while the cluster's MIG strategy is ``mixed`` (the device
            plugin refuses to start MPS then).
        client_limit: the most clients the mode's runtime serves per GPU, which caps
            ``sharing.replicas`` (MPS), or None when nothing caps them.

    """

    name: str
    whole: bool = False
    replicated: bool = False
    partitioned: bool = False
    scheduler_slots: bool = False
    section: str | None = None
    device_plugin_key: str | None = None
    isolates: bool = False
    mig_mixed_ok: bool = True
    client_limit: ClientLimit | None = None

    def slots_per_gpu(self, sharing: Sharing) -> int:
        """Return the schedulable units one GPU offers (MIG: instances per GPU)."""
        if self.replicated:
            return sharing.replicas or 1
        if self.partitioned:
            return sum(count for _, count in sharing.mig_layout) or 1
        if self.scheduler_slots and sharing.fractional is not None:
            return sharing.fractional.slots_per_gpu
        return 1

    def node_devices(self, sharing: Sharing, gpus: int, *, mig_single: bool) -> NodeDevices:
        """Return what GFD writes of the devices of a node with ``gpus`` GPUs under this mode.

        ``mig_single``: the cluster runs MIG strategy single (one profile per GPU, counted in
        ``gpu.count``), else mixed.
        """
        if self.replicated and sharing.replicas:
            return NodeDevices(count=gpus, replicas=sharing.replicas, strategy=self.name)
        if self.partitioned and mig_single:
            [(profile, per_gpu)] = sharing.mig_layout
            return NodeDevices(count=gpus * per_gpu, mig_profile=profile)
        if self.partitioned:
            return NodeDevices(mig_counts=tuple((p, gpus * c) for p, c in sharing.mig_layout))
        return NodeDevices(count=gpus, unshared=True)

    def default_qos(self, sharing: Sharing) -> str:
        """Return the QoS tier this mode gives by default (docs/stack-file.md, QoS tiers)."""
        if self.whole:
            return QOS_EXCLUSIVE
        if self.isolates:
            return QOS_GUARANTEED
        if self.scheduler_slots and sharing.fractional and sharing.fractional.cores_percent:
            return QOS_GUARANTEED
        return QOS_SHARED
