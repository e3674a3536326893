"""gpupool catalog refresh --cloud azure: the Retail Prices API through a stand-in, no network.

The stand-in answers the way Microsoft's "Azure Retail Prices overview"
(learn.microsoft.com/en-us/rest/api/cost-management/retail-prices/azure-retail-prices) documents:
the items of the region and the ``armSkuName`` values the ``$filter`` names, paged, each page
linking the next with ``NextPageLink`` (the same query plus ``$skip``), in the envelope
Microsoft Q&A 348412 quotes. The items are in ``tests/refresh/recorded/azure-retail-prices.json``,
an answer in the API's shape written for these tests (sources of its figures in its ``about``),
with meters of every kind the refresh must leave out. Each request is
checked against the filter this test writes from the documented filter fields (serviceName,
armRegionName, priceType, armSkuName) and the ``api-version``. The overlay the refresh writes
must then price an example stack in ``gpupool plan``, dated by the refresh, run as a separate
process the way a user runs it.
"""

from __future__ import annotations

import io
import json
import os
import re
import urllib.error
from datetime import date
from email.message import Message
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from gpupool import catalog
from gpupool.errors import InputError
from gpupool.refresh import RefreshedPrice, azure
from gpupool.usecases import catalog as catalog_use
from tests.paths import ROOT, TESTS
from tests.refresh.planned import plan

RECORDED = json.loads(
    (TESTS / "refresh" / "recorded" / "azure-retail-prices.json").read_text("utf-8")
)
TODAY = date(2026, 12, 1)
KAI_FAIR = ROOT / "stacks" / "examples" / "azure-kai-fair.yaml"
NEXT_PAGE = "https://prices.azure.com:443/api/retail/prices"  # the documented NextPageLink's base


def _expected_filter(region: str, names: list[str]) -> str:
    """The filter Microsoft's field names and gpupool's choices make (Linux is picked later)."""
    skus = " or ".join(f"armSkuName eq '{n}'" for n in names)
    return (
        f"serviceName eq 'Virtual Machines' and armRegionName eq '{region}' and "
        f"priceType eq 'Consumption' and ({skus})"
    )


class RetailPrices:
    """Answers like prices.azure.com: the filter's region and SKUs, a few a page, $skip links."""

    def __init__(self, items: list[dict[str, Any]], per_page: int = 5) -> None:
        self.items = items
        self.per_page = per_page
        self.asked: list[str] = []
        self.served = 0

    def __call__(self, url: str) -> dict[str, Any]:
        self.asked.append(url)
        # percent-encoded the way the documentation's NextPageLink is (%20eq%20%27...%27):
        # http.client refuses a URL with a space
        assert not set(url) & set(" '()"), url
        parts = urlsplit(url)
        assert (parts.scheme, parts.hostname, parts.path) == (
            "https", "prices.azure.com", "/api/retail/prices"
        )  # fmt: skip
        query = parse_qs(parts.query)
        assert query["api-version"] == ["2023-01-01-preview"]
        (text,) = query["$filter"]
        names = re.findall(r"armSkuName eq '([^']*)'", text)
        (region,) = re.findall(r"armRegionName eq '([^']*)'", text)
        assert text == _expected_filter(region, names)
        skip = int(query.get("$skip", ["0"])[0])
        matching = [
            i for i in self.items if i["armSkuName"] in names and i["armRegionName"] == region
        ]
        page = matching[skip : skip + self.per_page]
        self.served += len(page)
        first = re.sub(r"&\$skip=\d+", "", parts.query)
        more = skip + self.per_page < len(matching)
        link = f"{NEXT_PAGE}?{first}&$skip={skip + self.per_page}"
        return {
            "BillingCurrency": "USD", "CustomerEntityId": "Default",
            "CustomerEntityType": "Retail", "Items": page,
            "NextPageLink": link if more else None, "Count": len(page),
        }  # fmt: skip


def test_fetch_reads_linux_meters_in_batches_following_every_page() -> None:
    """Linux pay-as-you-go meters only; spot = skuName '... Spot'; the highest of several.

    Upstream: Microsoft's Azure Retail Prices overview (filters, NextPageLink paging; productName
    '... Windows' for Windows meters) and skypilot-org/skypilot@0089fca0
    sky/catalog/data_fetchers/fetch_azure.py (leaves out ' Win' and ' Cloud Services' products;
    ' Spot' and ' Low Priority' skuNames).
    """
    names = [e.name for e in catalog.instances("azure")]
    api = RetailPrices(RECORDED["Items"])
    found = {p.instance_type: p for p in azure.fetch(names, "eastus", api)}
    assert list(found) == list(dict.fromkeys(names))  # one per type, in the order given
    # the Windows and Cloud Services meters (0.71) are not the Linux price
    assert found["Standard_NC4as_T4_v3"] == RefreshedPrice("Standard_NC4as_T4_v3", 0.526, 0.062699)
    # of three spot meters the highest; the low-priority meter is neither price
    assert found["Standard_NC16as_T4_v3"] == RefreshedPrice(
        "Standard_NC16as_T4_v3", 1.204, 0.143517
    )
    assert found["Standard_NV6ads_A10_v5"] == RefreshedPrice(
        "Standard_NV6ads_A10_v5", 0.454, 0.1135
    )
    # no spot meter; a Windows and a low-priority meter only; a zero price; no meter at all
    assert found["Standard_NC40ads_H100_v5"].spot_hourly is None
    assert found["Standard_NC40ads_H100_v5"].on_demand_hourly == 6.98
    for nothing in ("Standard_NC6s_v3", "Standard_ND96isr_H100_v5", "Standard_ND40rs_v2"):
        assert found[nothing] == RefreshedPrice(nothing, None, None)

    # sorted, ten types a filter: three first pages, and each page the answer linked to
    firsts = [u for u in api.asked if "$skip" not in u]
    wanted = sorted(set(names))
    # a third-party probe of the live API had 15 names in one filter accepted, 20 refused
    assert azure.BATCH <= 15
    batches = [wanted[i : i + azure.BATCH] for i in range(0, len(wanted), azure.BATCH)]
    assert [re.findall(r"armSkuName eq '([^']*)'", parse_qs(urlsplit(u).query)["$filter"][0])
            for u in firsts] == batches  # fmt: skip
    assert len(api.asked) > len(firsts)  # later pages were read, each once
    assert len(set(api.asked)) == len(api.asked)
    eastus = [i for i in RECORDED["Items"] if i["armRegionName"] == "eastus"]
    assert api.served == sum(1 for i in eastus if i["armSkuName"] in wanted)


def _other(**match: str) -> dict[str, Any]:
    """The one answered item with these field values."""
    (item,) = [i for i in RECORDED["Items"] if all(i.get(k) == v for k, v in match.items())]
    return item


def test_other_meter_kinds_are_read_by_their_fields() -> None:
    """A Windows dev/test spot meter, a reservation, a EUR price: none is a price; the same
    meter as Linux pay-as-you-go is, spot or not, in its region and hourly unit only.

    Upstream: the item fields and `type` values (Consumption, DevTestConsumption, Reservation,
    with `reservationTerm`) of Microsoft's Azure Retail Prices overview.
    """
    spot_windows = _other(type="DevTestConsumption")
    reservation = _other(type="Reservation")
    euro = _other(currencyCode="EUR")
    assert reservation["reservationTerm"] == "1 Year"
    for item in (spot_windows, reservation, euro):
        assert azure.meters(item, item["armRegionName"]) is None
    linux = {**spot_windows, "type": "Consumption",
             "productName": "Virtual Machines NCasT4 v3 Series"}  # fmt: skip
    assert azure.meters(linux, "eastus") == ("Standard_NC8as_T4_v3", True, 0.118)
    assert azure.meters({**linux, "skuName": "NC8as T4 v3", "meterName": "NC8as T4 v3"},
                        "eastus") == ("Standard_NC8as_T4_v3", False, 0.118)  # fmt: skip
    assert azure.meters(linux, "westeurope") is None  # another region's meter
    assert azure.meters({**linux, "unitOfMeasure": "1/Month"}, "eastus") is None
    assert azure.meters({**linux, "currencyCode": "EUR"}, "eastus") is None
    assert azure.meters({**euro, "currencyCode": "USD"}, "eastus") == (
        "Standard_NV12ads_A10_v5", False, 0.8353
    )  # fmt: skip


def _pool(cost: dict[str, Any], name: str) -> dict[str, Any]:
    return next(p for p in cost["pools"] if p["pool"] == name)


def test_refresh_writes_an_overlay_that_plan_uses(tmp_path: Path, monkeypatch: Any) -> None:
    """The example AKS stack is priced from the overlay, dated by the refresh.

    In eastus (the catalog's region) Azure's list prices are the ones bundled, so the plan's
    figures stay and its date moves; the types the bundle had no price for get one.
    """
    overlay = tmp_path / "overlay"
    monkeypatch.setenv(catalog.OVERLAY_ENV, str(overlay))
    before = plan(KAI_FAIR, overlay)["cost"]
    assert before["pricesAsOf"] == ["2026-08-21"]
    assert catalog.instance("azure", "Standard_NV6ads_A10_v5").price.on_demand_hourly is None

    result = catalog_use.refresh("azure", None, RetailPrices(RECORDED["Items"]), TODAY)
    assert result.path == overlay / "instances-azure.json" and result.region == "eastus"
    assert "Standard_NC6s_v3" in result.missing and "Standard_ND96isr_H100_v5" in result.missing
    written = json.loads(result.path.read_text("utf-8"))
    assert written["as_of"] == "2026-12-01" and written["cloud"] == "azure"
    rows = {r["name"]: r["price"] for r in written["prices"]}
    assert set(rows) == set(result.priced)
    assert (rows["Standard_NV6ads_A10_v5"]["on_demand_hourly"],
            rows["Standard_NV6ads_A10_v5"]["spot_hourly"]) == (0.454, 0.1135)  # fmt: skip
    # no spot meter: the bundled figure (none) stays, and the row says so
    assert rows["Standard_NC40ads_H100_v5"]["spot_hourly"] is None
    assert rows["Standard_NC40ads_H100_v5"]["source"].endswith("spot from the bundled catalog")

    after = plan(KAI_FAIR, overlay)["cost"]
    assert after["pricesAsOf"] == ["2026-12-01"] and after["unpriced"] == []
    assert after["priceRegion"] == "eastus"
    assert _pool(after, "a100")["hourly"]["min"] == pytest.approx(2 * 14.692)
    assert _pool(after, "t4-spot")["hourly"]["min"] == pytest.approx(0.143517, abs=5e-5)


def test_refresh_of_the_stacks_region_changes_the_plans_prices(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """The same example moved to westus2, refreshed with --region westus2: westus2's prices."""
    overlay = tmp_path / "overlay"
    monkeypatch.setenv(catalog.OVERLAY_ENV, str(overlay))
    stack = tmp_path / "azure-kai-fair-westus2.yaml"
    text = KAI_FAIR.read_text("utf-8")
    assert "  region: eastus\n" in text
    stack.write_text(text.replace("  region: eastus\n", "  region: westus2\n"), "utf-8")
    before = plan(stack, overlay)["cost"]
    assert before["priceRegion"] == "eastus" and before["pricesAsOf"] == ["2026-08-21"]

    result = catalog_use.refresh("azure", "westus2", RetailPrices(RECORDED["Items"]), TODAY)
    assert set(result.priced) == {"Standard_NC16as_T4_v3", "Standard_NC96ads_A100_v4"}

    after = plan(stack, overlay)["cost"]
    assert after["pricesAsOf"] == ["2026-12-01"]
    assert after["priceRegion"] == "westus2"  # the region its prices are for now, not eastus
    t4_before, t4_after = (_pool(c, "t4-spot")["hourly"]["min"] for c in (before, after))
    assert t4_before == pytest.approx(0.1435) and t4_after == pytest.approx(0.140988, abs=5e-5)
    assert after["hourly"]["min"] == pytest.approx(2 * 14.692 + 0.140988, abs=5e-5)
    assert after["hourly"]["max"] != before["hourly"]["max"]


class _Response(io.BytesIO):
    """What ``urlopen`` returns: a readable context manager."""

    def __enter__(self) -> _Response:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _opener(outcome: bytes | Exception) -> Any:
    def urlopen(request: Any, timeout: float) -> _Response:
        assert request.full_url.startswith(azure.ENDPOINT) and timeout == azure.TIMEOUT_S
        if isinstance(outcome, Exception):
            raise outcome
        return _Response(outcome)

    return urlopen


def test_failures_are_one_line_input_errors() -> None:
    """HTTP errors, no network, a non-JSON body or a page without Items: one error line each."""
    refused = urllib.error.HTTPError(
        azure.ENDPOINT, 400, "Invalid OData parameters supplied", Message(), io.BytesIO(b"")
    )
    cases = [
        (refused, "answered HTTP 400 \\(Invalid OData parameters supplied\\)"),
        (urllib.error.URLError("[Errno -2] Name or service\nnot known"), "could not reach"),
        (TimeoutError("timed out"), "could not reach the Azure Retail Prices API \\(timed out\\)"),
        (b"<html>\n<body>Service Unavailable</body></html>", "something other than JSON"),
        (b'{"Message": "no"}', "without an Items list"),
    ]
    for outcome, message in cases:
        with pytest.raises(InputError, match=message) as caught:
            catalog_use.refresh("azure", None, azure.Fetcher(_opener(outcome)), TODAY)
        assert "\n" not in str(caught.value)
    body = json.dumps({"Items": [], "NextPageLink": azure.ENDPOINT + "?again"}).encode()
    with pytest.raises(InputError, match="kept linking to further pages"):
        catalog_use.refresh("azure", None, azure.Fetcher(_opener(body)), TODAY)


def test_the_real_fetcher_parses_the_body_and_needs_no_credentials() -> None:
    """``clients`` makes a stdlib fetcher; it reads a body as JSON (an empty region answer)."""
    assert isinstance(azure.clients("eastus"), azure.Fetcher)
    empty = {"BillingCurrency": "USD", "CustomerEntityId": "Default",
             "CustomerEntityType": "Retail", "Items": [],
             "NextPageLink": None, "Count": 0}  # fmt: skip
    fetcher = azure.Fetcher(_opener(json.dumps(empty).encode("utf-8")))
    assert fetcher(azure.price_url("eastus", ["Standard_NC4as_T4_v3"])) == empty
    assert azure.fetch(["Standard_NC4as_T4_v3"], "eastus", fetcher) == (
        RefreshedPrice("Standard_NC4as_T4_v3", None, None),
    )
    # a quote in a name stays inside its OData literal
    assert "armSkuName eq 'a''b'" in azure.price_filter("eastus", ["a'b"])


def _with_price(name: str, figure: float) -> list[dict[str, Any]]:
    """The recorded items, the on-demand meter of ``name`` in eastus at ``figure``."""
    items = json.loads(json.dumps(RECORDED["Items"]))
    for item in items:
        if (item["armSkuName"], item["armRegionName"]) == (name, "eastus") and not item[
            "skuName"
        ].endswith(" Spot"):
            item["retailPrice"] = figure
    return items


@pytest.mark.parametrize(
    ("figure", "why"), [(float("inf"), "not a finite number"), (1e308, "up to 1e+06")]
)
def test_a_price_no_catalog_row_takes_is_left_out(
    tmp_path: Path, monkeypatch: Any, figure: float, why: str
) -> None:
    """Issue 27: a vendor's Infinity (Python's json reads it; JSON has no such number) or
    1e308 was written as is, a file no JSON reader or later gpupool takes. Such a figure is
    refused, named, and the rest of the overlay is written and reads back."""
    monkeypatch.setenv(catalog.OVERLAY_ENV, str(tmp_path / "overlay"))
    items = _with_price("Standard_NV6ads_A10_v5", figure)
    result = catalog_use.refresh("azure", None, RetailPrices(items), TODAY)
    assert "Standard_NV6ads_A10_v5" not in result.priced
    (refused,) = result.refused
    assert refused.startswith("Standard_NV6ads_A10_v5: ") and why in refused
    data = result.path.read_bytes()
    assert b"Infinity" not in data and catalog.overlay_problem("azure", data) == ""
    written = {r["name"] for r in json.loads(data)["prices"]}
    assert "Standard_NV6ads_A10_v5" not in written and "Standard_NC40ads_H100_v5" in written


def test_an_unknown_region_is_refused_before_any_call(tmp_path: Path, monkeypatch: Any) -> None:
    """Issue 27: --region eastuss exited 0 and replaced a good overlay with no rows."""
    monkeypatch.setenv(catalog.OVERLAY_ENV, str(tmp_path / "overlay"))
    first = catalog_use.refresh("azure", None, RetailPrices(RECORDED["Items"]), TODAY)
    good = first.path.read_bytes()
    answers = RetailPrices(RECORDED["Items"])
    with pytest.raises(InputError, match="'eastuss' is not a region of Azure \\(closest: eastus"):
        catalog_use.refresh("azure", "eastuss", answers, TODAY)
    assert answers.asked == [] and first.path.read_bytes() == good


def test_a_refresh_with_no_price_writes_nothing(tmp_path: Path, monkeypatch: Any) -> None:
    """A real region where the API prices none of the types keeps the overlay there."""
    monkeypatch.setenv(catalog.OVERLAY_ENV, str(tmp_path / "overlay"))
    first = catalog_use.refresh("azure", None, RetailPrices(RECORDED["Items"]), TODAY)
    good = first.path.read_bytes()
    assert "brazilsouth" in catalog.cloud("azure").regions
    with pytest.raises(InputError, match=r"gave no usable price for any azure catalog type in "
                       r"brazilsouth .*nothing was written"):  # fmt: skip
        catalog_use.refresh("azure", "brazilsouth", RetailPrices(RECORDED["Items"]), TODAY)
    assert first.path.read_bytes() == good


@pytest.mark.parametrize("planted", ["link", "folder-is-a-file", "parent-is-a-file"])
def test_write_failures_are_one_line_input_errors(
    tmp_path: Path, monkeypatch: Any, planted: str
) -> None:
    """Issue 27: a linked overlay or a folder that is a file gave an internal error (or blamed
    Azure). Each is one line naming the path; nothing is written through the link."""
    overlay = tmp_path / "overlay"
    victim = tmp_path / "victim.json"
    victim.write_text("mine", "utf-8")
    if planted == "link":
        overlay.mkdir()
        (overlay / "instances-azure.json").symlink_to(victim)
        match = "cannot write the price overlay: .*is a symbolic link"
    elif planted == "folder-is-a-file":
        overlay.write_text("a file", "utf-8")
        match = "cannot make the price overlay's folder"
    else:
        (tmp_path / "file").write_text("a file", "utf-8")
        overlay = tmp_path / "file" / "overlay"
        match = "cannot make the price overlay's folder"
    monkeypatch.setenv(catalog.OVERLAY_ENV, str(overlay))
    with pytest.raises(InputError, match=match) as caught:
        catalog_use.refresh("azure", None, RetailPrices(RECORDED["Items"]), TODAY)
    assert "\n" not in str(caught.value) and "refused" not in str(caught.value)
    assert victim.read_text("utf-8") == "mine"


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes anywhere")
def test_a_folder_without_write_permission_is_one_line(tmp_path: Path, monkeypatch: Any) -> None:
    """No permission to write the overlay's folder: one line naming the file."""
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    overlay.chmod(0o500)
    monkeypatch.setenv(catalog.OVERLAY_ENV, str(overlay))
    try:
        with pytest.raises(InputError, match=r"cannot write the price overlay .*instances-azure"):
            catalog_use.refresh("azure", None, RetailPrices(RECORDED["Items"]), TODAY)
    finally:
        overlay.chmod(0o700)


def test_the_cli_says_the_write_failure_not_an_internal_error(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """Through the command line the same fault is `error:` and exit 1."""
    from gpupool.cli import run

    overlay = tmp_path / "overlay"
    overlay.write_text("a file", "utf-8")
    monkeypatch.setenv(catalog.OVERLAY_ENV, str(overlay))
    monkeypatch.setattr(azure, "clients", lambda region: RetailPrices(RECORDED["Items"]))
    err = io.StringIO()
    assert run(["catalog", "refresh", "--cloud", "azure"], stderr=err) == 1
    assert err.getvalue().startswith("error: cannot make the price overlay's folder")
    assert "internal error" not in err.getvalue()
