"""Volcengine through its Python SDK: GPU instance types from ECS, spot prices in CNY.

This module is gpupool's only importer of the Volcengine SDK (``volcenginesdkcore`` and
``volcenginesdkecs``, the ``volcengine-catalog`` extra), imported when a refresh runs.

Volcengine publishes no static instance catalog, so ``instance_types`` reads the region's types
from ECS ``DescribeInstanceTypes`` (API version 2020-04-01, every type unless ``InstanceTypeIds``
narrows it, paged by ``NextToken`` with ``MaxResults`` 1 to 1000; SDK 5.0.54's
``InstanceTypeForDescribeInstanceTypesOutput``) and keeps the GPU ones:

- ``InstanceTypeId``; GPUs from ``Gpu.GpuDevices[]`` (``ProductName``, ``Count``,
  ``Memory.Size``), a type without GPU devices is not a GPU type; vCPUs from
  ``Processor.Cpus``; host memory from ``Memory.Size`` in MiB (the unit Volcengine's Terraform
  provider documents for it); RDMA where ``Rdma.RdmaNetworkInterfaces`` is above 0;
- ``Memory.Size`` of a GPU device has no documented unit; it is read as MiB like the host's
  (the same SDK type, ``MemoryForDescribeInstanceTypesOutput``, and the unit Volcengine's ML
  platform gives GPU memory in, ``GpuMemoryMiB``). It only picks and checks the catalog GPU:
  the product name is looked up as the catalog's ``gpu()`` takes names (aliases, any case),
  also without a leading ``NVIDIA``/``Tesla``; a family name (``Tesla-V100``) picks the one
  catalog model of that family whose memory is nearest the API's, within
  ``GPU_MEMORY_TOLERANCE``. A product that maps to no catalog GPU, or to several, or whose
  memory contradicts its model, is kept out with the reason (``RefreshedType.skip``): a pool on
  it declares its GPUs as before, since a Volcengine GPU must be a catalog GPU.

DescribeInstanceTypes says what a type is, not where it is sold (that is
``DescribeAvailableResource``), so the rows list no regions. NVLink is not in the answer and is
recorded as absent, as in the bundled rows.

Prices, per instance type and region:

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

from gpupool import catalog
from gpupool.errors import InputError
from gpupool.refresh import RefreshedPrice, RefreshedType

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
"""``MaxResults`` per call (DescribeSpotPriceHistory's default; both calls allow 1 to 1000)."""

TYPES_CALL = "ECS DescribeInstanceTypes"
"""The call the instance types come from, for each overlay row's source."""

GPU_MEMORY_TOLERANCE = 0.10
"""How far the API's memory per GPU may be from the catalog model's, as a share of the model's:
NVIDIA's nominal sizes are more than a device reports (a 24 GB A10 shows 23028 MiB)."""

_VENDOR_WORDS = ("nvidia", "tesla")


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
    """Say where the types and prices came from, for the overlay's provenance."""
    return (
        f"Volcengine ECS DescribeInstanceTypes (GPU types the bundled catalog lacks) and "
        f"DescribeSpotPriceHistory ({region}; spot: newest price per zone, the highest; "
        f"{CURRENCY}); no on-demand price (none readable for ECS types)"
    )


def _fold(name: str) -> str:
    """Fold case and separators the way the catalog's ``gpu()`` does (``nvidia-a10``)."""
    return "-".join(name.strip().lower().replace("_", " ").replace("-", " ").split())


def _spellings(product: str) -> list[str]:
    """Return the product name as the API gives it, then without leading vendor words."""
    words = _fold(product).split("-")
    while words and words[0] in _VENDOR_WORDS:
        words = words[1:]
    return list(dict.fromkeys(s for s in (_fold(product), "-".join(words)) if s))


def _near(model_gib: float, api_gib: float) -> bool:
    return abs(model_gib - api_gib) <= GPU_MEMORY_TOLERANCE * model_gib


def _catalog_gpu(product: str, memory_gib: float | None) -> tuple[str | None, str]:
    """Map the API's GPU product (and memory per GPU) to a catalog GPU: (name, "") or (None, why).

    A name the catalog knows counts when its memory agrees (or the API gives none); else the
    catalog's models of that family (names starting with it) whose memory is the API's, the
    nearest one if it is one; otherwise the reason it maps to none.
    """
    spellings = _spellings(product)
    named = [m for m in (catalog.gpu(s) for s in spellings) if m is not None]
    for model in named:
        if memory_gib is None or _near(model.memory_gib, memory_gib):
            return model.name, ""
    prefixes = tuple(f"{s}-" for s in spellings)
    family = [
        m
        for m in catalog.gpus()
        if any(
            _fold(key).startswith(prefixes) for key in (m.name, *m.aliases, m.product_label)
        )
    ]
    memory = "" if memory_gib is None else f" with {memory_gib:g} GiB"
    if memory_gib is not None:
        fits = [m for m in family if _near(m.memory_gib, memory_gib)]
        if fits:
            gap = min(abs(m.memory_gib - memory_gib) for m in fits)
            nearest = [m for m in fits if abs(m.memory_gib - memory_gib) == gap]
            if len(nearest) == 1:
                return nearest[0].name, ""
            names = ", ".join(m.name for m in nearest)
            return None, f"GPU product '{product}'{memory} could be any of {names}"
    elif len(family) == 1:
        return family[0].name, ""
    elif family:
        names = ", ".join(m.name for m in family)
        return None, f"GPU product '{product}' could be any of {names} (the API gives no memory)"
    if named:
        model = named[0]
        return None, (
            f"GPU product '{product}' is {model.name} by name, but the API gives "
            f"{memory_gib:g} GiB per GPU and the catalog {model.memory_gib:g} GiB"
        )
    return None, f"GPU product '{product}'{memory} is not a catalog GPU (gpupool catalog gpus)"


def _described(row: Any) -> RefreshedType | None:
    """One ``InstanceTypeForDescribeInstanceTypesOutput`` as a GPU type, or None (no GPUs)."""
    devices = [d for d in (row.gpu.gpu_devices or ()) if d is not None] if row.gpu else []
    if not devices or all(d.count == 0 for d in devices):
        return None
    name = str(row.instance_type_id)
    vcpus = row.processor.cpus if row.processor else None
    memory = row.memory.size if row.memory else None
    rdma = bool(row.rdma and (row.rdma.rdma_network_interfaces or 0) > 0)
    products = list(dict.fromkeys(str(d.product_name or "").strip() for d in devices))
    count = sum(d.count or 0 for d in devices)
    sizes = {d.memory.size for d in devices if d.memory and d.memory.size}

    def skipped(why: str) -> RefreshedType:
        return RefreshedType(name, None, count, vcpus or 0, (memory or 0) / 1024, rdma, why)

    if len(products) != 1 or not products[0]:
        return skipped(f"GPU products {products} (one product per type is needed)")
    if any(d.count is None for d in devices) or count <= 0:
        return skipped("no GPU count")
    if not vcpus or not memory:
        return skipped("no vCPU count or host memory")
    per_gpu = sizes.pop() / 1024 if len(sizes) == 1 else None
    gpu, why = _catalog_gpu(products[0], per_gpu)
    return RefreshedType(name, gpu, count, int(vcpus), memory / 1024, rdma, why)


def instance_types(region: str, clients: Any) -> tuple[RefreshedType, ...]:
    """Read the GPU instance types ECS describes in ``region``, in the API's order.

    Args:
        region: The region (the client's region).
        clients: An ``ECSApi`` of the Volcengine SDK for ``region`` (``clients`` makes it).

    Returns:
        One ``RefreshedType`` per type with GPUs (a type without is left out); one whose GPU
        maps to no catalog GPU has ``gpu`` None and the reason in ``skip``.

    Raises:
        InputError: no region, or Volcengine refused a call (its error code and message).

    """
    from volcenginesdkcore.rest import ApiException
    from volcenginesdkecs.models import DescribeInstanceTypesRequest

    _region(region)
    found: dict[str, RefreshedType] = {}
    token: str | None = None
    while True:
        try:
            page = clients.describe_instance_types(
                DescribeInstanceTypesRequest(max_results=PAGE_SIZE, next_token=token)
            )
        except ApiException as exc:
            raise InputError(
                f"Volcengine refused the instance type lookup: {_refusal(exc)}"
            ) from exc
        for row in page.instance_types or ():
            described = _described(row) if row.instance_type_id else None
            if described is not None:
                found.setdefault(described.instance_type, described)
        token = page.next_token
        if not token:
            break
    return tuple(found.values())


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
