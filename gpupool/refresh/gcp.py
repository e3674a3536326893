"""GCP prices through the Cloud Billing Catalog API (``google-cloud-billing``), composed per VM.

This module is gpupool's only importer of ``google.cloud.billing_v1`` (the ``gcp-catalog``
extra), imported when a refresh runs. Compute Engine sells no GPU machine as one SKU: a VM is
billed as its vCPUs, its memory and its GPUs, each a SKU of the service ``6F81-5844-456A``. So
one ``CloudCatalogClient.list_skus`` walk (paged, ``next_page_token``) reads every SKU once, and
each catalog machine type is priced as::

    vcpus x <family> Core  +  memory_gib x <family> Ram  +  gpu_count x <GPU>

from the SKUs serving the region (``service_regions``), usage type ``OnDemand`` for the on-demand
price and ``Preemptible`` (the "Spot Preemptible ..." SKUs) for the spot price. The matching
follows SkyPilot's GCP catalog fetcher (skypilot-org/skypilot@21fd5541
sky/catalog/data_fetchers/fetch_gcp.py): the same pruning (Compute SKUs only; no commitment,
custom, premium, reserved or sole-tenancy SKUs), the family names per machine series
(``SERIES_TO_DESCRIPTION``), the GPU names (``get_gpu_df``), the first tier's unit price. Where
SkyPilot is known to be coarser, gpupool is stricter:

- a machine family is its series *and* shape where Google bills them apart: A3 Mega hosts are
  ``A3Plus Instance`` SKUs (dstackai/gpuhunt@22bb64ee src/gpuhunt/providers/gcp.py), A3 Ultra hosts
  ``A3Ultra Instance`` SKUs (cloudpilot-ai/karpenter-provider-gcp@dc6099e8
  pkg/providers/pricing/instanceprice/families.go); SkyPilot prices both at A3 High's rates;
- a name must lead the description (after "Spot Preemptible "), not merely occur in it, so
  "DWS Calendar Mode ..." and "Commitment v1: ..." SKUs never stand in for the plain ones;
- several SKUs for one part and region: the highest price, the conservative planning figure.

What cannot be composed is ``None``, never 0: a machine family with no known SKU family
(``a3-edgegpu``: SkyPilot maps no accelerator to it and no source names its SKUs), a GPU with
no known SKU name, and any part (core, RAM or GPU) the catalog has no positive hourly price for
in the region. Local SSD that A2 Ultra and A3 machines come with is billed apart and left out,
as SkyPilot leaves it out. The client comes from the caller, so tests pass a real
``CloudCatalogClient`` whose REST session answers from recorded responses; ``clients`` makes one
from application default credentials. The module has the shape of ``gpupool.refresh.Vendor``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from gpupool import catalog
from gpupool.errors import InputError
from gpupool.refresh import RefreshedPrice

CLOUD = __name__.rpartition(".")[2]
"""The catalog cloud these prices are for (the module is named after it)."""

VENDOR = "Google Cloud"
"""The vendor, for messages."""

EXTRA = "gcp-catalog"
"""The pip extra that installs google-cloud-billing."""

SERVICE = "services/6F81-5844-456A"
"""Compute Engine in the Cloud Billing Catalog (SkyPilot's ``GCE_SERVICE_ID``)."""

ON_DEMAND, SPOT = "OnDemand", "Preemptible"
"""The usage types of the SKUs for each price (Spot VMs bill as ``Preemptible``)."""

FAMILIES: tuple[tuple[str, str], ...] = (
    ("a2-", "A2 Instance"),
    ("a3-highgpu-", "A3 Instance"),
    ("a3-megagpu-", "A3Plus Instance"),
    ("a3-ultragpu-", "A3Ultra Instance"),
    ("g2-", "G2 Instance"),
    ("n1-", "N1 Predefined Instance"),
)
"""Machine type prefix -> the leading words of its host SKUs' descriptions ("<...> Core/Ram")."""

GPUS: Mapping[str, tuple[str, ...]] = {
    "nvidia-tesla-a100": ("A100 GPU",),
    "nvidia-a100-80gb": ("A100 80GB GPU",),
    "nvidia-h100-80gb": ("H100 80GB GPU",),
    "nvidia-h100-mega-80gb": ("H100 80GB Mega GPU", "H100 Mega 80GB GPU", "H100 80GB Plus GPU"),
    "nvidia-h200-141gb": ("H200 141GB GPU",),
    "nvidia-l4": ("L4 GPU",),
    "nvidia-tesla-t4": ("T4 GPU",),
    "nvidia-tesla-v100": ("V100 GPU",),
}
"""Guest accelerator -> the names its GPU SKUs go by (SkyPilot's ``gpu_names``)."""

_PRUNED = ("custom", "premium", "reserved", "sole tenancy")
_LEAD = re.compile(r"^(?:Spot Preemptible |Preemptible )?(?:Nvidia )?(?:Tesla )?", re.IGNORECASE)
_UNITS = {"CPU": "h", "RAM": "GiBy.h", "GPU": "h"}


@dataclass(frozen=True)
class _Rate:
    """One SKU's hourly USD price for one unit (a vCPU, a GiB, a GPU), where it applies."""

    description: str
    part: str  # "CPU", "RAM" or "GPU"
    usage: str  # ON_DEMAND or SPOT
    regions: tuple[str, ...]
    price: float


def clients(region: str) -> Any:
    """Return a ``CloudCatalogClient`` (REST) from application default credentials.

    Raises:
        ModuleNotFoundError: google-cloud-billing is not installed
            (``pip install 'gpupool[gcp-catalog]'``).
        InputError: no application default credentials are set up.

    """
    try:  # the optional SDK (gcp-catalog extra), loaded only for a refresh
        from google.auth.exceptions import DefaultCredentialsError
        from google.cloud import billing_v1
    except ModuleNotFoundError as exc:
        raise ModuleNotFoundError(str(exc), name="google-cloud-billing") from exc
    try:
        return billing_v1.CloudCatalogClient(transport="rest")
    except DefaultCredentialsError as exc:
        said = " ".join(str(exc).split())
        raise InputError(
            f"no Google Cloud credentials for the Cloud Billing Catalog API ({said}): run "
            "'gcloud auth application-default login' or set GOOGLE_APPLICATION_CREDENTIALS"
        ) from exc


def _unit_price(sku: Any) -> float | None:
    """Return the current first-tier hourly USD price of ``sku``, or None where it has none."""
    if not sku.pricing_info:
        return None
    # pricing_info is a timeline in chronological order; without start/end times the API
    # returns the current entry only (SkyPilot reads [0], the same entry then)
    expression = sku.pricing_info[-1].pricing_expression
    if not expression.tiered_rates:
        return None
    money = min(expression.tiered_rates, key=lambda t: t.start_usage_amount).unit_price
    if money.currency_code not in ("", "USD"):
        return None
    price = money.units + money.nanos / 1e9
    return price if price > 0 else None


def _part(sku: Any) -> str | None:
    """Whether ``sku`` prices a vCPU, a GiB of RAM or a GPU (SkyPilot's resource groups)."""
    group = sku.category.resource_group
    if group == "N1Standard":  # N1 cores and RAM share one resource group
        return "CPU" if " Core" in sku.description else "RAM" if " Ram" in sku.description else None
    return group if group in _UNITS else None


def _rates(skus: Iterable[Any]) -> list[_Rate]:
    """Return the per-unit hourly rates among ``skus``, pruned as SkyPilot's ``get_skus`` is."""
    rates: list[_Rate] = []
    for sku in skus:
        description = sku.description
        if sku.category.resource_family != "Compute":
            continue
        if sku.category.usage_type not in (ON_DEMAND, SPOT):
            continue
        if any(word in description.lower() for word in _PRUNED):
            continue
        part = _part(sku)
        if part is None or not sku.pricing_info:
            continue
        if sku.pricing_info[-1].pricing_expression.usage_unit != _UNITS[part]:
            continue  # a price per something else than a vCPU-, GiB- or GPU-hour
        price = _unit_price(sku)
        if price is not None:
            regions = tuple(sku.service_regions)
            rates.append(_Rate(description, part, sku.category.usage_type, regions, price))
    return rates


def _leads(description: str, name: str) -> bool:
    """Whether ``name`` is what ``description`` prices (it leads, whole words)."""
    lead = _LEAD.match(description)
    rest = description[lead.end() if lead else 0 :].lower()
    return rest.startswith(name.lower()) and rest[len(name) : len(name) + 1] in ("", " ")


def _highest(
    rates: Iterable[_Rate], part: str, usage: str, region: str, names: Iterable[str]
) -> float | None:
    names = tuple(names)
    found = [
        r.price
        for r in rates
        if r.part == part and r.usage == usage and region in r.regions
        and any(_leads(r.description, n) for n in names)
    ]  # fmt: skip
    return max(found) if found else None


def _family(machine_type: str) -> str | None:
    return next((family for prefix, family in FAMILIES if machine_type.startswith(prefix)), None)


def _compose(entry: Any, rates: list[_Rate], region: str, usage: str) -> float | None:
    family = _family(entry.machine_type)
    gpu_names = GPUS.get(entry.accelerator or "")
    if family is None or gpu_names is None:
        return None
    core = _highest(rates, "CPU", usage, region, [f"{family} Core"])
    ram = _highest(rates, "RAM", usage, region, [f"{family} Ram"])
    gpu = _highest(rates, "GPU", usage, region, gpu_names)
    if core is None or ram is None or gpu is None:
        return None
    return round(entry.vcpus * core + entry.memory_gib * ram + entry.gpu_count * gpu, 6)


def source(region: str) -> str:
    """Say where the prices came from, for the overlay's provenance."""
    return (
        f"Cloud Billing Catalog API {SERVICE} skus (Compute Engine, {region}): vCPU, RAM and "
        "GPU SKUs composed per machine type, Spot Preemptible SKUs for spot"
    )


def fetch(
    instance_types: Iterable[str],
    region: str,
    clients: Any,
    now: datetime | None = None,
) -> tuple[RefreshedPrice, ...]:
    """Read the on-demand and spot prices of ``instance_types`` in ``region``.

    Args:
        instance_types: gpupool catalog names of GCP instance types (``n1-standard-4-t4x1``).
        region: The region the prices are for.
        clients: A ``google.cloud.billing_v1.CloudCatalogClient`` (``clients`` makes one).
        now: Unused: the catalog answers with current prices.

    Returns:
        One ``RefreshedPrice`` per instance type, in the order given.

    Raises:
        InputError: the API refused the call or the credentials failed (one line).

    """
    from google.api_core.exceptions import GoogleAPIError  # the SDK's own errors
    from google.auth.exceptions import GoogleAuthError

    names = list(dict.fromkeys(instance_types))
    if not names:
        return ()
    try:
        rates = _rates(clients.list_skus(request={"parent": SERVICE, "currency_code": "USD"}))
    except (GoogleAPIError, GoogleAuthError) as exc:
        said = " ".join(str(exc).split())
        raise InputError(f"{VENDOR} refused the price lookup ({SERVICE} skus): {said}") from exc
    found: list[RefreshedPrice] = []
    # the bundled rows: a corrupt overlay must not stop the refresh that replaces it
    bundled = {e.name: e for e in catalog.bundled_instances(CLOUD)}
    for name in names:
        entry = bundled.get(name)
        if entry is None:
            found.append(RefreshedPrice(name, None, None))
            continue
        found.append(
            RefreshedPrice(
                name,
                _compose(entry, rates, region, ON_DEMAND),
                _compose(entry, rates, region, SPOT),
            )
        )
    return tuple(found)
