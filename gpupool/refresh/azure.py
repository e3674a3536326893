"""Azure prices from the public Retail Prices API, through the standard library.

Microsoft's Azure Retail Prices API (``https://prices.azure.com/api/retail/prices``, "Azure
Retail Prices overview" in the Cost Management REST reference) answers without credentials, so
there is no SDK and no extra: ``clients`` returns a ``Fetcher`` (``urllib.request``: a URL in,
the parsed JSON out) and tests pass a stand-in fetcher serving recorded pages. It reads, per
region, for the instance types asked about:

- one OData ``$filter`` per batch of at most ``BATCH`` types: ``serviceName eq 'Virtual
  Machines' and armRegionName eq '<region>' and priceType eq 'Consumption' and (armSkuName eq
  '<a>' or armSkuName eq '<b>' ...)``, with ``api-version=2023-01-01-preview`` (whose filter
  values are case-sensitive: the catalog's names are Azure's own). The types are asked for in
  sorted order, so the requests are the same on every run;
- every page of each answer (``Items``, following ``NextPageLink`` until it is empty);
- of those items, Linux pay-as-you-go meters only (``meters``): type ``Consumption``, unit
  ``1 Hour``, USD, a positive ``retailPrice``; not Windows (``productName`` naming ``Windows``
  or ``Win``), not Cloud Services (classic Cloud Services share the VM sizes' ``armSkuName`` at
  the Windows rate), not ``Low Priority``. A meter whose ``skuName`` ends in `` Spot`` is the
  spot price, any other the on-demand price;
- when several meters of a type are left for one of the two (a size sold under two products,
  or a meter listed again for a non-primary meter region), the highest, the same conservative
  planning figure the AWS refresh takes.

The module has the shape of ``gpupool.refresh.Vendor``.
"""

from __future__ import annotations

import http.client
import json
import re
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any
from urllib.parse import quote

from gpupool.errors import InputError
from gpupool.refresh import RefreshedPrice

CLOUD = __name__.rpartition(".")[2]
"""The catalog cloud these prices are for (the module is named after it)."""

VENDOR = "Azure"
"""The vendor, for messages."""

EXTRA = ""
"""No pip extra: the Retail Prices API needs only the standard library."""

ENDPOINT = "https://prices.azure.com/api/retail/prices"
"""The Retail Prices API (public, no credentials)."""

API_VERSION = "2023-01-01-preview"
"""The API version asked for (filter values are case-sensitive from this version on)."""

BATCH = 10
"""Instance types per ``$filter``: an ``or`` of ``armSkuName`` terms, kept short.

Microsoft's overview states no limit on a filter's length; a third-party probe of the live endpoint
found 15 names accepted and 20 refused with HTTP 400 "Invalid OData parameters supplied", so
10 stays well inside. Ten GPU sizes also have fewer meters (Linux, Windows, spot, low priority)
than one page holds (100 items, Microsoft's documentation says), so an answer is usually one
page.
"""

MAX_PAGES = 50
"""Pages followed for one filter before the answer is taken as broken (a looping link)."""

TIMEOUT_S = 30.0
"""Seconds one request may take."""

_WINDOWS = re.compile(r"\bWin(dows)?\b")
_CLOUD_SERVICES = re.compile(r"Cloud ?Services")

Fetch = Callable[[str], Any]
"""What ``fetch`` calls: a URL in, the answer's parsed JSON out (``Fetcher`` is the real one)."""


class Fetcher:
    """GET a Retail Prices API URL and parse its JSON, every failure an ``InputError``."""

    def __init__(
        self,
        urlopen: Callable[..., Any] = urllib.request.urlopen,
        timeout: float = TIMEOUT_S,
    ) -> None:
        """Use ``urlopen`` (``urllib.request.urlopen``; tests pass a stand-in) with ``timeout``."""
        self._urlopen = urlopen
        self._timeout = timeout

    def __call__(self, url: str) -> Any:
        """Return the parsed JSON ``url`` answers with.

        Raises:
            InputError: the API answered with an HTTP error, could not be reached, or answered
                with something other than JSON.

        """
        request = urllib.request.Request(
            url, headers={"Accept": "application/json", "User-Agent": "gpupool catalog refresh"}
        )
        try:
            with self._urlopen(request, timeout=self._timeout) as response:
                body = response.read()
        except urllib.error.HTTPError as exc:
            raise InputError(
                f"the Azure Retail Prices API answered HTTP {exc.code} ({_line(exc.reason)}) "
                f"for {url}"
            ) from exc
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
            raise InputError(
                f"could not reach the Azure Retail Prices API ({_line(reason)})"
            ) from exc
        try:
            return json.loads(body)
        except (UnicodeDecodeError, ValueError) as exc:
            raise InputError(
                f"the Azure Retail Prices API answered with something other than JSON for "
                f"{url} ({_line(exc)})"
            ) from exc


def _line(reason: object) -> str:
    """Write ``reason`` on one line (an error's text may carry newlines)."""
    return " ".join(str(reason).split()) or "no reason given"


def clients(region: str) -> Fetcher:
    """Return the fetcher the Retail Prices API is read with (no credentials are needed)."""
    del region  # one public endpoint serves every region
    return Fetcher()


def _literal(value: str) -> str:
    """Write ``value`` as an OData string literal (a quote inside is doubled)."""
    return "'" + value.replace("'", "''") + "'"


def price_filter(region: str, instance_types: Sequence[str]) -> str:
    """Return the ``$filter`` asking for the pay-as-you-go VM meters of ``instance_types``."""
    skus = " or ".join(f"armSkuName eq {_literal(n)}" for n in instance_types)
    return (
        f"serviceName eq 'Virtual Machines' and armRegionName eq {_literal(region)} "
        f"and priceType eq 'Consumption' and ({skus})"
    )


def price_url(region: str, instance_types: Sequence[str]) -> str:
    """Return the first page's URL for ``price_filter``.

    The filter is percent-encoded, as the API's own ``NextPageLink`` writes it.
    """
    query = quote(price_filter(region, instance_types), safe="")
    return f"{ENDPOINT}?api-version={API_VERSION}&$filter={query}"


def meters(item: Mapping[str, Any], region: str) -> tuple[str, bool, float] | None:
    """Read one answered item as ``(instance type, is spot, hourly USD)``, or None.

    None for anything that is not a Linux pay-as-you-go (or spot) meter of ``region`` with a
    positive hourly price: reservations, dev/test, Windows, Cloud Services, low priority, other
    units or currencies, a zero or missing price.
    """
    name = item.get("armSkuName")
    price = item.get("retailPrice")
    product = str(item.get("productName", ""))
    sku = str(item.get("skuName", ""))
    meter = str(item.get("meterName", ""))
    if (
        not isinstance(name, str)
        or not name
        or isinstance(price, bool)
        or not isinstance(price, (int, float))
        or not price > 0
        or item.get("type") != "Consumption"
        or item.get("unitOfMeasure") != "1 Hour"
        or item.get("currencyCode", "USD") != "USD"
        or item.get("armRegionName", region) != region
        or _WINDOWS.search(product)
        or _CLOUD_SERVICES.search(product)
        or "Low Priority" in sku
        or "Low Priority" in meter
    ):
        return None
    return name, sku.endswith(" Spot"), float(price)


def _items(get: Fetch, url: str) -> list[Mapping[str, Any]]:
    """Every item of every page the answer to ``url`` has (``NextPageLink`` followed)."""
    found: list[Mapping[str, Any]] = []
    seen: set[str] = set()
    next_url: str | None = url
    while next_url:
        if next_url in seen or len(seen) >= MAX_PAGES:
            raise InputError(
                f"the Azure Retail Prices API kept linking to further pages after {len(seen)} "
                f"for {url}"
            )
        seen.add(next_url)
        page = get(next_url)
        rows = page.get("Items") if isinstance(page, dict) else None
        if not isinstance(rows, list):
            raise InputError(
                f"the Azure Retail Prices API answered without an Items list for {url}"
            )
        found.extend(r for r in rows if isinstance(r, dict))
        link = page.get("NextPageLink")
        next_url = link if isinstance(link, str) and link else None
    return found


def source(region: str) -> str:
    """Say where the prices came from, for the overlay's provenance."""
    return (
        f"Azure Retail Prices API {API_VERSION} (Virtual Machines, {region}, Consumption: Linux "
        "meters; spot: skuName '... Spot'; the highest where several match)"
    )


def fetch(
    instance_types: Iterable[str],
    region: str,
    clients: Fetch,
    now: datetime | None = None,
) -> tuple[RefreshedPrice, ...]:
    """Read the on-demand and spot prices of ``instance_types`` in ``region``.

    Args:
        instance_types: Azure VM sizes (``armSkuName``: ``Standard_NC24ads_A100_v4``).
        region: The region (``armRegionName``: ``eastus``).
        clients: The fetcher (``clients`` makes it; tests pass a stand-in).
        now: Unused: the API answers with current prices only.

    Returns:
        One ``RefreshedPrice`` per instance type, in the order given.

    Raises:
        InputError: the API could not be read (see ``Fetcher``) or answered out of shape.

    """
    del now
    names = list(dict.fromkeys(instance_types))
    wanted = sorted(names)
    on_demand: dict[str, float] = {}
    spot: dict[str, float] = {}
    for start in range(0, len(wanted), BATCH):
        batch = wanted[start : start + BATCH]
        for item in _items(clients, price_url(region, batch)):
            read = meters(item, region)
            if read is None:
                continue
            name, is_spot, price = read
            into = spot if is_spot else on_demand
            into[name] = max(price, into.get(name, 0.0))
    return tuple(RefreshedPrice(n, on_demand.get(n), spot.get(n)) for n in names)
