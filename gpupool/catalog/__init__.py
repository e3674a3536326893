"""The GPU and instance catalog: the facts every check, plan and render leans on.

What it holds (JSON files in ``gpupool/catalog/data/``, each with its sources, as-of date and
notes on where sources disagreed):

- GPU models: memory, compute capability, NVLink, dense BF16/FP16 TFLOPS, the GPU Feature
  Discovery product label, the GKE accelerator type, the PCI device ids mig-parted filters by,
  and for MIG-capable parts the full profile table with per-profile limits and allowed
  placements; ``declared_gpu`` builds the model of a GPU a stack declares that the catalog lacks;
- instance types per cloud (AWS, GCP, Azure; Volcengine only where its specs have a source, with
  a confidence grade): GPU model and count, vCPU, host RAM, NVLink/NVSwitch/EFA/InfiniBand, the
  regions offering it where known, and hourly prices in a reference region, each row with its
  own price source and as-of date;
- cloud facts: the cloud's regions, whether node pools take spot capacity, whether they take a
  spot bid, and how much notice an interruption gives.

Typical use::

    from gpupool import catalog

    model = catalog.gpu("a100-80gb")                 # aliases, any case
    sizes = catalog.instances(cloud="aws", gpu="H100")
    fit = catalog.fit_layout(model, {"3g.40gb": 2, "1g.10gb": 1})
    fit.ok, fit.detail  # False, "3g.40gb x2 uses all 8 memory slots; 1g.10gb x1 has no slot left."

Files are read lazily on the first lookup and cached for the life of the process. A local
overlay (``overlay_dir()``, written by ``gpupool catalog refresh``) replaces the bundled prices of
the instance types it names, each row with its own source and as-of date, and may add instance
types the bundled catalog lacks (Volcengine's, read from ECS ``DescribeInstanceTypes``), which
then count as the cloud's own (``overlay_types``; ``bundled_instances`` reads past it). The
overlay is input, not shipped data: a file gpupool cannot use raises ``OverlayError``, which says
which file and what to do (``gpupool.catalog.overlay_file``).
"""

from __future__ import annotations

from gpupool.catalog.cloud_facts import cloud, clouds, is_region
from gpupool.catalog.gpu_models import declared_gpu, gpu, gpu_by_pci_id, gpu_names, gpus
from gpupool.catalog.instance_rows import bundled_instances
from gpupool.catalog.instance_types import instance, instances
from gpupool.catalog.mig import MigFit, PlacedInstance, fit_layout, mig_resource_name
from gpupool.catalog.models import (
    HOURS_PER_MONTH,
    CloudFacts,
    Dataset,
    GpuModel,
    InstanceType,
    Interconnect,
    MigGeometry,
    MigProfile,
    Price,
)
from gpupool.catalog.overlay_file import FORMAT_VERSION as OVERLAY_FORMAT_VERSION
from gpupool.catalog.overlay_file import OverlayError
from gpupool.catalog.price_overlay import (
    OVERLAY_ENV,
    overlay,
    overlay_dir,
    overlay_problem,
    overlay_types,
)
from gpupool.catalog.rows import INSTANCE_CLOUDS, CatalogDataError, dataset, datasets

__all__ = [
    "HOURS_PER_MONTH",
    "INSTANCE_CLOUDS",
    "OVERLAY_ENV",
    "OVERLAY_FORMAT_VERSION",
    "CatalogDataError",
    "CloudFacts",
    "Dataset",
    "GpuModel",
    "InstanceType",
    "Interconnect",
    "MigFit",
    "MigGeometry",
    "MigProfile",
    "OverlayError",
    "PlacedInstance",
    "Price",
    "bundled_instances",
    "cloud",
    "clouds",
    "dataset",
    "datasets",
    "declared_gpu",
    "fit_layout",
    "gpu",
    "gpu_by_pci_id",
    "gpu_names",
    "gpus",
    "instance",
    "instances",
    "is_region",
    "mig_resource_name",
    "overlay",
    "overlay_dir",
    "overlay_problem",
    "overlay_types",
]
