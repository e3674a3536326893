"""Reading current prices from a vendor's own API, for ``gpupool catalog refresh``.

One module per vendor, named after the catalog cloud, each the only importer of that vendor's
SDK, which it imports only inside ``clients`` when a refresh runs (the SDK is an optional
extra). Every vendor module has the same shape, ``Vendor``: a ``clients(region)`` that makes
ready clients from the environment's credentials, and a ``fetch(instance_types, region, clients)``
that returns one ``RefreshedPrice`` per instance type, plain data in the vendor's own currency;
tests pass clients wrapped in the SDK's own stubbing instead (Azure's public API has no SDK:
a stand-in HTTP fetcher). The use case (``gpupool.usecases.catalog.refresh``) writes what
``fetch`` returns as the catalog's local overlay.

A vendor whose cloud publishes no static catalog (Volcengine) also has
``instance_types(region, clients)``: the GPU instance types its API describes, as
``RefreshedType`` with the GPU mapped to a catalog name, and ``TYPES_CALL``, the call each
row's source names; the use case writes the types the bundled catalog lacks as full instance
rows of the overlay, and prices them too.

Adding a vendor is adding its module; ``VENDORS`` finds it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from importlib import import_module
from pkgutil import iter_modules
from typing import Any, Protocol, cast

VENDORS = tuple(sorted(m.name for m in iter_modules(__path__) if not m.name.startswith("_")))
"""Clouds with a vendor module here (each module is named after its cloud), sorted."""


@dataclass(frozen=True)
class RefreshedPrice:
    """The hourly prices read for one instance type in one region (None: the API had none).

    ``currency`` is what the vendor bills them in (ISO 4217), recorded as it is: gpupool
    converts no currency (a rate would go stale), and the plan adds no prices of two currencies.
    """

    instance_type: str
    on_demand_hourly: float | None
    spot_hourly: float | None
    currency: str = "USD"


@dataclass(frozen=True)
class RefreshedType:
    """One GPU instance type as a vendor's API describes it, the GPU in catalog names.

    ``gpu`` is a canonical catalog GPU model name, or None when the API's GPU product maps to
    none (``skip`` then says why, and the type cannot be a catalog row: a pool on it declares
    its GPUs as before). ``rdma`` is whether the API lists RDMA network interfaces for it.
    """

    instance_type: str
    gpu: str | None
    gpu_count: int
    vcpus: int
    memory_gib: float
    rdma: bool
    skip: str = ""


class Vendor(Protocol):
    """What every vendor module provides (module attributes and functions)."""

    CLOUD: str
    """The catalog cloud (the module's own name)."""
    VENDOR: str
    """The vendor as people name it, for messages ("AWS")."""
    EXTRA: str
    """The pip extra that installs the vendor's SDK ("" where none is needed)."""

    def clients(self, region: str) -> Any:
        """Return ready clients for ``region`` from the environment's credentials.

        Raises:
            ModuleNotFoundError: the vendor's SDK is not installed.

        """

    def fetch(
        self,
        instance_types: Iterable[str],
        region: str,
        clients: Any,
        now: datetime | None = None,
    ) -> tuple[RefreshedPrice, ...]:
        """Read the prices of ``instance_types`` in ``region``, one per type, in order given."""

    def source(self, region: str) -> str:
        """Say which API calls the prices came from, for the overlay's provenance."""


def vendor(cloud: str) -> Vendor:
    """Return the vendor module of ``cloud`` (one of ``VENDORS``)."""
    if cloud not in VENDORS:
        raise KeyError(cloud)
    return cast(Vendor, import_module(f"{__name__}.{cloud}"))
