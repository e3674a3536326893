"""What one node of a pool should advertise: the ``Expected`` that drift compares a node with.

``gpupool.drift.expected`` builds it from the GPU facts and the plug-ins; the checks of
``gpupool.drift.gpu_identity``, ``mig_state`` and ``labels`` read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpupool.sharing.hami import NodeRegistration


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
        spellings: every normalised name of the pool's GPU (``gpupool.drift.gpu_names``).
        mig_profile: the MIG profile GFD names in the product under strategy single.
        mig_strategy: the MIG strategy a MIG pool's nodes must run, else None.
        mig_memories_mib: the memory (MiB) of each profile of the GPU's MIG geometry.
        cloud_labels: labels of the cloud's own sharing (GKE), checked instead of GFD's; a
            ``None`` value means the label must be absent (the pool does not share GPUs).
        optional_labels: GFD labels that may be absent (older GFDs write no
            ``gpu.sharing-strategy``; where the cloud shares GPUs GFD may not run at all),
            checked only when present.
        hami: what HAMi should register on the node, when HAMi serves the pool.
        mig_profiles: the GPU's MIG profiles and their memory (MiB), for reading the labels
            of 2020 GFD releases (``gpupool.drift.legacy_gfd``).
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
    hami: NodeRegistration | None = None
    mig_profiles: tuple[tuple[str, float], ...] = ()
    gpus: int = 0
    vgpu: bool = False
