"""Volcengine prices through its Python SDK: spot from ECS's spot price history, in CNY.

This module is gpupool's only importer of the Volcengine SDK (``volcenginesdkcore`` and
``volcenginesdkecs``, the ``volcengine-catalog`` extra), imported when a refresh runs. It reads,
per instance type and region:

- the spot price: ECS ``DescribeSpotPriceHistory`` (API version 2020-04-01; it takes one
  ``InstanceTypeId`` per call and, without a ``ZoneId``, answers for every zone of the client's
  region), over the last day up to now, paged by ``NextToken``: the newest price of each zone,
  and of those the highest, the same conservative planning figure as AWS's;
- no on-demand price. The billing API's ``QueryPriceForPayAsYouGo`` (billing 2022-01-01, in the
  SDK's ``volcenginesdkbilling``) prices a ``Product`` and a ``ConfigList`` of
  ``ConfigurationCode`` and ``ChargeItemCode``, but Volcengine's pages for its price inquiries
  (QueryPriceForSubscription, volcengine.com/docs/6269/1477195; QueryPriceForRenew,
  6269/1477208) show those codes only as placeholders (``Product_1``, ``ConfigurationCode_1``),
  no page gives them for ECS, and ECS's own API does not expose them; a guessed code would price
  the wrong thing. So on-demand stays None: unknown, never zero.

Currency: ``SpotPrices[]`` carries ``InstanceTypeId``, ``ZoneId``, ``SpotPrice`` and
``Timestamp``, no currency. The SDK calls Volcengine's own endpoint (``open.volcengineapi.com``),
whose accounts are billed in CNY (the same billing pages: ``Currency: CNY``, "币种,CNY";
BytePlus, the international service billed in USD, has its own endpoint and SDK). The prices
are recorded as CNY (``RefreshedPrice.currency``), never converted at a rate that would go
stale; the plan never adds them to USD.

Clients: ``clients(region)`` builds the SDK's ``ApiClient`` from ``VOLCENGINE_ACCESS_KEY`` and
``VOLCENGINE_SECRET_KEY``, the variables the Pulumi Volcengine provider reads, and returns an
``ECSApi`` on it. Tests make one the same way and answer its HTTP pool with recorded bodies, so
the SDK's own request building, signing, error handling and deserialisation into its model
classes run. The module has the shape of ``gpupool.refresh.Vendor``.
"""

from __future__ import annotations

import ast
import json
import os
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta, timezone
from typing import Any

from gpupool.errors import InputError
from gpupool.refresh import RefreshedPrice

CLOUD = __name__.rpartition(".")[2]
"""The catalog cloud these prices are for (the module is named after it)."""

VENDOR = "Volcengine"
"""The vendor, for messages."""

EXTRA = "volcengine-catalog"
"""The pip extra that installs the Volcengine SDK."""

CURRENCY = "CNY"
"""What Volcengine (``open.volcengineapi.com``) bills, and so what its prices are in."""

ACCESS_KEY = "VOLCENGINE_ACCESS_KEY"
SECRET_KEY = "VOLCENGINE_SECRET_KEY"

SPOT_WINDOW = timedelta(days=1)
"""How far back the spot history is read (the API keeps 30 days and defaults to 3 hours)."""

PAGE_SIZE = 100
"""``MaxResults`` per call (the API's default; it allows 1 to 1000)."""


def _region(region: str) -> str:
    if not region:
        raise InputError(
            "gpupool catalog refresh --cloud volcengine needs --region (e.g. cn-beijing): the "
            "catalog has no reference region for Volcengine"
        )
    return region


def clients(region: str) -> Any:
    """Return an ECS client of the Volcengine SDK for ``region`` from the environment's keys.

    Raises:
        ModuleNotFoundError: the SDK is not installed (the ``volcengine-catalog`` extra).
        InputError: no region, or ``VOLCENGINE_ACCESS_KEY`` / ``VOLCENGINE_SECRET_KEY`` unset.

    """
    import volcenginesdkcore  # the optional SDK (volcengine-catalog extra), only for a refresh
    import volcenginesdkecs

    _region(region)
    key, secret = os.environ.get(ACCESS_KEY, ""), os.environ.get(SECRET_KEY, "")
    if not key or not secret:
        raise InputError(
            f"Volcengine prices need {ACCESS_KEY} and {SECRET_KEY} (the keys the Pulumi "
            "Volcengine provider reads)"
        )
    configuration = volcenginesdkcore.Configuration()
    configuration.ak, configuration.sk, configuration.region = key, secret, region
    return volcenginesdkecs.ECSApi(volcenginesdkcore.ApiClient(configuration))


def _stamp(moment: datetime) -> str:
    """Write a time as the API takes it (``YYYY-mm-ddTHH:MM:SSZ``)."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _parse(stamp: str | None) -> datetime | None:
    """Read a ``Timestamp`` (``...Z`` or ``...+08:00``); one without an offset is UTC."""
    if not stamp:
        return None
    text = stamp.strip()
    try:
        moment = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _spot(ecs: Any, instance_type: str, start: datetime, end: datetime) -> float | None:
    """Return the highest of each zone's newest price over ``start``..``end``, or None."""
    from volcenginesdkecs.models import DescribeSpotPriceHistoryRequest

    newest: dict[str, tuple[datetime, float]] = {}
    token: str | None = None
    while True:
        page = ecs.describe_spot_price_history(
            DescribeSpotPriceHistoryRequest(
                instance_type_id=instance_type,
                max_results=PAGE_SIZE,
                next_token=token,
                timestamp_start=_stamp(start),
                timestamp_end=_stamp(end),
            )
        )
        for row in page.spot_prices or ():
            stamp, price = _parse(row.timestamp), row.spot_price
            if row.instance_type_id not in (None, instance_type) or stamp is None:
                continue
            if price is None or price <= 0 or not row.zone_id:
                continue
            if row.zone_id not in newest or stamp > newest[row.zone_id][0]:
                newest[row.zone_id] = (stamp, float(price))
        token = page.next_token
        if not token:
            break
    return max((price for _, price in newest.values()), default=None)


def _refusal(exc: Any) -> str:
    """One line from the SDK's ``ApiException``: the API's error code and message."""
    error: Mapping[str, Any] = {}
    try:
        body = json.loads(exc.body) if exc.body else {}
        error = (body.get("ResponseMetadata") or {}).get("Error") or {}
    except (TypeError, ValueError, AttributeError):
        pass
    if not error and isinstance(exc.reason, str) and exc.reason.startswith("{"):
        try:  # an error in a 200 answer: the SDK puts str(dict) in reason
            parsed = ast.literal_eval(exc.reason)
            error = parsed if isinstance(parsed, dict) else {}
        except (ValueError, SyntaxError):
            pass
    status = f" (HTTP {exc.status})" if exc.status else ""
    if error:
        text = f"{error.get('Code', '?')}: {error.get('Message', '')}"
    else:
        text = str(exc.reason or "no reason given")
    return " ".join(f"{text}{status}".split())


def source(region: str) -> str:
    """Say where the prices came from, for the overlay's provenance."""
    return (
        f"Volcengine ECS DescribeSpotPriceHistory ({region}; spot: newest price per zone, the "
        f"highest; {CURRENCY}); no on-demand price (none readable for ECS types)"
    )


def fetch(
    instance_types: Iterable[str],
    region: str,
    clients: Any,
    now: datetime | None = None,
) -> tuple[RefreshedPrice, ...]:
    """Read the spot prices of ``instance_types`` in ``region`` (on-demand is always None).

    Args:
        instance_types: ECS instance type ids (``ecs.gni2.3xlarge``).
        region: The region the prices are for (the client's region).
        clients: An ``ECSApi`` of the Volcengine SDK for ``region`` (``clients`` makes it).
        now: The end of the spot history read (default: the current time, UTC).

    Returns:
        One ``RefreshedPrice`` per instance type, in the order given, in CNY.

    Raises:
        InputError: no region, or Volcengine refused a call (its error code and message).

    """
    from volcenginesdkcore.rest import ApiException

    _region(region)
    end = now or datetime.now(timezone.utc)
    found: list[RefreshedPrice] = []
    for name in dict.fromkeys(instance_types):
        try:
            spot = _spot(clients, name, end - SPOT_WINDOW, end)
        except ApiException as exc:
            raise InputError(f"Volcengine refused the price lookup: {_refusal(exc)}") from exc
        found.append(RefreshedPrice(name, None, spot, CURRENCY))
    return tuple(found)
