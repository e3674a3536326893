"""The catalog's value types: GPU models, MIG geometry, instance types, cloud facts, datasets.

This module owns the shapes only. Every type is a frozen dataclass so catalog entries can be
shared, hashed and compared freely; nothing here reads files. Loading and lookups live in
``gpupool.catalog.rows`` (the data files), ``gpu_models``, ``instance_rows``, ``instance_types``,
``price_overlay`` and ``cloud_facts``, MIG placement search in ``gpupool.catalog.mig``.

Units: memory in GiB as NVIDIA and the clouds name it (an "80GB" GPU is 80), prices per hour in
the currency their row names (USD in the bundled catalog; a refreshed overlay row keeps the
vendor's, e.g. CNY for Volcengine), TFLOPS dense (without structured sparsity).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MigProfile:
    """One MIG GPU-instance profile of a GPU model, e.g. ``3g.40gb`` on an A100 80GB.

    Attributes:
        name: The profile as mig-parted and ``nvidia-smi`` write it, e.g. ``1g.10gb+me``.
        compute_slices: Compute slices (the ``g`` in the name) the instance takes.
        memory_slots: Memory slots it takes on the GPU's memory axis (8 on A100/H100, 4 on A30).
        memory_gib: Memory in GiB as the name states it (NVIDIA rounds: 1g.10gb is 9856 MB).
        max_count: The most instances of this profile one GPU can hold.
        placements: Memory-slot indices where an instance of this profile may start.

    """

    name: str
    compute_slices: int
    memory_slots: int
    memory_gib: float
    max_count: int
    placements: tuple[int, ...]

    @property
    def media_extensions(self) -> bool:
        """Whether the profile carries the GPU's media engines (``+me``); one per GPU at most."""
        attributes = self.name.partition("+")[2].split(",")
        return "me" in attributes or "me.all" in attributes


@dataclass(frozen=True)
class MigGeometry:
    """How a MIG-capable GPU model can be partitioned.

    An empty ``profiles`` tuple means the model supports MIG but the catalog has no profile
    table for it (``profiles_known`` is then false), so layouts cannot be checked offline.

    Attributes:
        compute_slices: Compute slices per GPU (7, or 4 on A30).
        memory_slots: Memory slots per GPU (8, or 4 on A30).
        profiles: The model's profiles, in catalog order (small to large).

    """

    compute_slices: int
    memory_slots: int
    profiles: tuple[MigProfile, ...]

    @property
    def profiles_known(self) -> bool:
        """Whether the catalog has a profile table for this model."""
        return bool(self.profiles)

    def profile(self, name: str) -> MigProfile | None:
        """Return the profile called ``name`` (case-insensitive), or None.

        Args:
            name: A profile name such as ``1g.10gb`` or ``1g.10gb+me``.

        Returns:
            The matching profile, or None when this model has no such profile.

        """
        wanted = name.strip().lower()
        for candidate in self.profiles:
            if candidate.name.lower() == wanted:
                return candidate
        return None


def _version_tuple(version: str) -> tuple[int, ...]:
    """Turn ``"8.0"`` into ``(8, 0)`` for ordering compute capabilities."""
    return tuple(int(part) for part in version.strip().split("."))


@dataclass(frozen=True)
class GpuModel:
    """A GPU model as gpupool reasons about it.

    Attributes:
        name: Canonical name in NVIDIA product style, e.g. ``A100-SXM4-80GB``, ``L4``.
        aliases: Other names users and tools write (``A100-80GB``, ``nvidia-a100-80gb``).
        memory_gib: Nominal GPU memory in GiB.
        compute_capability: CUDA compute capability as a string, e.g. ``"8.0"``; empty when
            unknown (a declared GPU).
        nvlink: Whether the part has NVLink links (SXM, or a PCIe card with bridge connectors).
        bf16_tflops: Dense BF16 tensor TFLOPS; None when unsupported or unknown.
        fp16_tflops: Dense FP16 tensor TFLOPS; None when unknown.
        product_label: GPU Feature Discovery's ``nvidia.com/gpu.product`` value (best effort).
        gke_accelerator: GKE/Compute Engine accelerator type, or None when GCP has none.
        mig: MIG geometry, or None when the model does not support MIG.
        pci_device_ids: PCI device ids (vendor 0x10DE) as mig-parted's ``device-filter`` writes
            them without the vendor, e.g. ``0x2330``; empty where the catalog has none.
        catalogued: False for a GPU a stack declares itself (``declared_gpu``): only its name,
            memory and MIG profile names are known, so gpupool cannot check more.

    """

    name: str
    aliases: tuple[str, ...]
    memory_gib: float
    compute_capability: str
    nvlink: bool
    bf16_tflops: float | None
    fp16_tflops: float | None
    product_label: str
    gke_accelerator: str | None
    mig: MigGeometry | None
    pci_device_ids: tuple[str, ...] = ()
    catalogued: bool = True

    @property
    def mig_capable(self) -> bool:
        """Whether the model supports MIG at all (its profile table may still be unknown)."""
        return self.mig is not None

    def cc_at_least(self, version: str) -> bool:
        """Return whether the compute capability is ``version`` or newer.

        Args:
            version: A compute capability such as ``"7.5"``.

        Returns:
            True when this model's compute capability is at least ``version``; False when it
            is unknown (a declared GPU).

        """
        if not self.compute_capability:
            return False
        return _version_tuple(self.compute_capability) >= _version_tuple(version)


@dataclass(frozen=True)
class Interconnect:
    """How an instance's GPUs and nodes talk to each other.

    Attributes:
        nvlink: GPUs in the instance are linked by NVLink.
        nvswitch: All GPUs reach each other through NVSwitch (full NVLink mesh).
        efa: The instance supports AWS Elastic Fabric Adapter.
        infiniband: The instance has an InfiniBand (RDMA) fabric (Azure ND sizes).
        efa_interfaces: How many EFA interfaces the instance takes (EC2's
            ``EfaInfo.MaximumEfaInterfaces``; one per network card), 0 without EFA.
        gpudirect: The GPUDirect stack whose GPU traffic runs over secondary NICs (GKE A3:
            ``GPUDirect-TCPX``, ``GPUDirect-TCPXO``), or None.
        gpudirect_nics: How many secondary NICs, each in its own VPC network, that stack needs.

    """

    nvlink: bool
    nvswitch: bool
    efa: bool
    infiniband: bool = False
    efa_interfaces: int = 0
    gpudirect: str | None = None
    gpudirect_nics: int = 0

    @property
    def high_speed_network(self) -> bool:
        """Whether nodes can form a low-latency training island (EFA or InfiniBand)."""
        return self.efa or self.infiniband


HOURS_PER_MONTH = 730
"""Hours in a billing month, as the clouds' calculators and Infracost count them: the one factor
every monthly amount gpupool shows (plan, advice) is an hourly price times."""


@dataclass(frozen=True)
class Price:
    """Hourly list prices of one instance type in one region.

    Attributes:
        region: Region the prices were read for.
        currency: The ISO 4217 code of both prices: ``"USD"`` in the bundled catalog; an
            overlay row written by ``gpupool catalog refresh`` keeps what the vendor bills in
            (``"CNY"`` for Volcengine). Nothing converts between currencies.
        on_demand_hourly: On-demand price per hour, or None when unknown.
        spot_hourly: A spot price sample per hour, or None when unknown or unsupported.
        source: Where these numbers come from (file and commit, API, page).
        as_of: When they were read or generated (ISO 8601 date).

    """

    region: str
    currency: str
    on_demand_hourly: float | None
    spot_hourly: float | None
    source: str = ""
    as_of: str = ""


@dataclass(frozen=True)
class InstanceType:
    """A machine size a cloud sells with GPUs attached.

    Attributes:
        cloud: ``aws``, ``gcp``, ``azure`` or ``volcengine``.
        name: The name users write in a stack (``g6.xlarge``, ``n1-standard-8-t4x1``).
        machine_type: The name the provider SDK takes (differs from ``name`` for GCP n1+GPU).
        gpu: Canonical GPU model name.
        gpu_count: GPUs per instance (1 for a fractional size).
        vcpus: Host vCPUs.
        memory_gib: Host RAM in GiB.
        interconnect: NVLink / NVSwitch / EFA / InfiniBand facts.
        price: Hourly prices.
        gpu_fraction: Share of one GPU a fractional (vGPU) size gets, 1.0 otherwise.
        accelerator: The cloud's accelerator type for the GPUs (GCP guest accelerators), or None.
        regions: The regions the type is offered in, where the catalog knows them; empty when
            it does not (nothing is then checked).
        confidence: How strong the row's sources are where they are not the cloud's own
            catalog (Volcengine: ``A`` its own docs, repositories or API, as a refreshed
            overlay's rows from ECS ``DescribeInstanceTypes``, ``B`` ByteDance-affiliated open
            source, ``C`` third-party observations); empty for the cloud's own data.

    """

    cloud: str
    name: str
    machine_type: str
    gpu: str
    gpu_count: int
    vcpus: int
    memory_gib: float
    interconnect: Interconnect
    price: Price
    gpu_fraction: float = 1.0
    accelerator: str | None = None
    regions: tuple[str, ...] = ()
    confidence: str = ""
    gpu_memory_gib: float = 0.0  # memory of one whole GPU of model ``gpu``, set by the loader

    @property
    def total_gpu_memory_gib(self) -> float:
        """GPU memory of the whole instance in GiB (a fractional size gets its share)."""
        return self.gpu_memory_gib * self.gpu_count * self.gpu_fraction

    @property
    def gpus(self) -> float:
        """Whole-GPU equivalents the instance provides (``gpu_count * gpu_fraction``)."""
        return self.gpu_count * self.gpu_fraction


@dataclass(frozen=True)
class CloudFacts:
    """What a cloud's managed node pools can do with spot capacity.

    Attributes:
        name: ``aws``, ``gcp``, ``azure``, ``volcengine`` or ``kubernetes``.
        spot_node_pools: Whether node pools can use spot capacity.
        spot_bid: Whether a node pool takes a maximum spot price.
        spot_notice_seconds: Seconds between the interruption notice and the stop, or None.
        reference_region: Region the catalog's prices are for, or None.
        display_name: Human name for reports.
        regions: The cloud's region names; empty where the catalog has no confirmed list
            (then a stack's region is not checked).

    """

    name: str
    spot_node_pools: bool
    spot_bid: bool
    spot_notice_seconds: int | None
    reference_region: str | None
    display_name: str = ""
    regions: tuple[str, ...] = ()


@dataclass(frozen=True)
class Dataset:
    """Provenance of one catalog data file.

    Attributes:
        name: The file's stem, e.g. ``instances-aws``.
        source: Where the facts came from (URLs, repositories at commits, documents).
        as_of: Date the data was read or generated (ISO 8601).
        notes: Choices made where sources disagreed.

    """

    name: str
    source: tuple[str, ...]
    as_of: str
    notes: tuple[str, ...] = ()
