"""AWS prices through boto3: on-demand from the Price List API, spot from EC2's spot history.

This module is gpupool's only importer of boto3 (the ``aws-catalog`` extra), imported when a
refresh runs. It reads, per instance type and region:

- the on-demand price: ``pricing.get_products`` (service ``AmazonEC2``, Linux, shared tenancy,
  no pre-installed software, capacity status ``Used``), the ``OnDemand`` term's hourly USD price
  (the Price List API's documented ``aws_v1`` product JSON). The API answers from
  ``us-east-1`` whatever the region asked about;
- the spot price: ``ec2.describe_spot_price_history`` (``Linux/UNIX``, from now), the newest
  price of each availability zone, and of those the highest, the same conservative planning
  figure the bundled catalog records.

Both calls are paged (``NextToken``). Clients come from the caller as a ``(pricing, ec2)`` pair,
so tests pass boto3 clients wrapped in botocore's ``Stubber``; ``clients`` makes them from the
environment's credentials. The module has the shape of ``gpupool.refresh.Vendor``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from gpupool.refresh import RefreshedPrice

CLOUD = __name__.rpartition(".")[2]
"""The catalog cloud these prices are for (the module is named after it)."""

VENDOR = "AWS"
"""The vendor, for messages."""

EXTRA = "aws-catalog"
"""The pip extra that installs boto3."""

PRICING_REGION = "us-east-1"
"""Where the Price List API is called (it also serves eu-central-1 and ap-south-1)."""

_FILTERS = (
    ("operatingSystem", "Linux"),
    ("tenancy", "Shared"),
    ("preInstalledSw", "NA"),
    ("capacitystatus", "Used"),
)


def clients(region: str) -> tuple[Any, Any]:
    """Return boto3 ``pricing`` and ``ec2`` clients from the environment's credentials.

    Raises:
        ModuleNotFoundError: boto3 is not installed (``pip install 'gpupool[aws-catalog]'``).

    """
    import boto3  # the optional SDK (aws-catalog extra), loaded only for a refresh

    session = boto3.session.Session()
    return (
        session.client("pricing", region_name=PRICING_REGION),
        session.client("ec2", region_name=region),
    )


def _on_demand(pricing: Any, region: str, instance_type: str) -> float | None:
    filters = [
        {"Type": "TERM_MATCH", "Field": field, "Value": value}
        for field, value in (("instanceType", instance_type), ("regionCode", region), *_FILTERS)
    ]
    request: dict[str, Any] = {
        "ServiceCode": "AmazonEC2",
        "Filters": filters,
        "FormatVersion": "aws_v1",
        "MaxResults": 100,
    }
    found: list[float] = []
    while True:
        page = pricing.get_products(**request)
        for item in page.get("PriceList", []):
            product = json.loads(item)
            for term in product.get("terms", {}).get("OnDemand", {}).values():
                for dimension in term.get("priceDimensions", {}).values():
                    usd = dimension.get("pricePerUnit", {}).get("USD")
                    if dimension.get("unit") == "Hrs" and usd is not None and float(usd) > 0:
                        found.append(float(usd))
        token = page.get("NextToken")
        if not token:
            break
        request["NextToken"] = token
    return max(found) if found else None


def _spot(ec2: Any, instance_types: Sequence[str], now: datetime) -> Mapping[str, float]:
    request: dict[str, Any] = {
        "InstanceTypes": list(instance_types),
        "ProductDescriptions": ["Linux/UNIX"],
        "StartTime": now,
    }
    newest: dict[tuple[str, str], tuple[datetime, float]] = {}
    while True:
        page = ec2.describe_spot_price_history(**request)
        for row in page.get("SpotPriceHistory", []):
            key = (row["InstanceType"], row["AvailabilityZone"])
            stamp, price = row["Timestamp"], float(row["SpotPrice"])
            if price > 0 and (key not in newest or stamp > newest[key][0]):
                newest[key] = (stamp, price)
        token = page.get("NextToken")
        if not token:
            break
        request["NextToken"] = token
    highest: dict[str, float] = {}
    for (instance_type, _), (_, price) in newest.items():
        highest[instance_type] = max(price, highest.get(instance_type, 0.0))
    return highest


def source(region: str) -> str:
    """Say where the prices came from, for the overlay's provenance."""
    return (
        f"AWS Price List API get_products (on-demand, {region}); EC2 "
        "describe_spot_price_history (spot: newest price per zone, the highest)"
    )


def fetch(
    instance_types: Iterable[str],
    region: str,
    clients: tuple[Any, Any],
    now: datetime | None = None,
) -> tuple[RefreshedPrice, ...]:
    """Read the on-demand and spot prices of ``instance_types`` in ``region``.

    Args:
        instance_types: EC2 instance type names.
        region: The region the prices are for.
        clients: A boto3 ``pricing`` client and an ``ec2`` client for ``region`` (``clients``
            makes them).
        now: The spot history's start time (default: the current time, UTC).

    Returns:
        One ``RefreshedPrice`` per instance type, in the order given.

    """
    pricing, ec2 = clients
    names = list(dict.fromkeys(instance_types))
    spot = _spot(ec2, names, now or datetime.now(timezone.utc)) if names else {}
    return tuple(RefreshedPrice(n, _on_demand(pricing, region, n), spot.get(n)) for n in names)
