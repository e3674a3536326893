"""gpupool catalog refresh --cloud gcp: a real CloudCatalogClient whose HTTP answers are recorded.

The client is google-cloud-billing's own ``CloudCatalogClient`` on its REST transport, with
anonymous credentials; only ``requests.Session.request`` is replaced, the hook the SDK's own
generated tests use (tests/unit/gapic/billing_v1/test_cloud_catalog.py patches
``Session.request`` for the REST transport). So the request is built, sent and checked by the
SDK, the response is parsed by the SDK into its ``ListSkusResponse`` protos, and the SDK's
``ListSkusPager`` follows ``nextPageToken``; the stand-in serves
``tests/refresh/recorded/gcp-us-central1.json`` (sources in its ``about``) page by
``pageToken`` and records the requests. A VM's price is composed from its core, RAM and GPU
SKUs as skypilot-org/skypilot@21fd5541 sky/catalog/data_fetchers/fetch_gcp.py composes it; the
expected figures below are computed from the recording's own rates. The overlay the refresh
writes must then change what ``gpupool plan`` prices for the bundled GKE training example and
the date it shows, run as a separate process the way a user runs it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from itertools import pairwise
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from gpupool import catalog
from gpupool.errors import InputError
from gpupool.refresh import RefreshedPrice, gcp
from gpupool.usecases import catalog as catalog_use
from tests.paths import EXAMPLES, TESTS
from tests.refresh.planned import plan

billing_v1 = pytest.importorskip("google.cloud.billing_v1")
credentials = pytest.importorskip("google.auth.credentials")
requests = pytest.importorskip("requests")

pytestmark = pytest.mark.cloud_sdks

RECORDED = json.loads((TESTS / "refresh" / "recorded" / "gcp-us-central1.json").read_text("utf-8"))
PAGES = RECORDED["list_skus"]
BY_TOKEN = {"": PAGES[0], **{p["nextPageToken"]: n for p, n in pairwise(PAGES)}}
"""Each page by the pageToken that asks for it (the first: none)."""
SKUS_URL = "https://cloudbilling.googleapis.com/v1/services/6F81-5844-456A/skus"
TODAY = date(2026, 12, 1)


def _rate(description: str) -> float:
    """The recording's first-tier unit price of the SKU described so (exactly one)."""
    [sku] = [s for p in PAGES for s in p["skus"] if s["description"] == description]
    price = sku["pricingInfo"][0]["pricingExpression"]["tieredRates"][0]["unitPrice"]
    return int(price["units"]) + price["nanos"] / 1e9


def _vm(vcpus: float, gib: float, gpus: int, family: str, gpu: str, spot: bool = False) -> float:
    """vCPUs x family core + GiB x family RAM + GPUs x GPU, from the recording (fetch_gcp.py)."""
    host = "Spot Preemptible " if spot else ""
    where = "attached to Spot Preemptible VMs running in" if spot else "running in"
    return round(
        vcpus * _rate(f"{host}{family} Core running in Americas")
        + gib * _rate(f"{host}{family} Ram running in Americas")
        + gpus * _rate(f"{gpu} {where} Americas"),
        6,
    )


class _Recorded:
    """``Session.request`` answering the SDK's GETs from the recording, by ``pageToken``."""

    def __init__(self, status: int = 200, error: dict[str, Any] | None = None) -> None:
        self.status = status
        self.error = error
        self.calls: list[tuple[str, str, dict[str, str]]] = []

    def __call__(self, method: str, url: str, **kwargs: Any) -> Any:
        params = dict(kwargs.get("params") or [])
        self.calls.append((method, url, params))
        response = requests.Response()
        response.status_code, response.url = self.status, url
        response.request = requests.Request(method, url).prepare()
        if self.error is not None:
            body: dict[str, Any] = self.error
        else:
            body = BY_TOKEN[params.get("pageToken", "")]
        response._content = json.dumps(body).encode("utf-8")
        response.headers["Content-Type"] = "application/json"
        return response


@pytest.fixture(autouse=True)
def _offline() -> Iterator[None]:
    """Any request that gets past the recorded session would go out: fail it instead."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a test reached for the network")

    with mock.patch.object(requests.adapters.HTTPAdapter, "send", side_effect=refuse):
        yield


@contextmanager
def _served(recorded: _Recorded) -> Iterator[Any]:
    client = billing_v1.CloudCatalogClient(
        credentials=credentials.AnonymousCredentials(), transport="rest"
    )
    with mock.patch.object(requests.Session, "request", side_effect=recorded):
        yield client


def test_fetch_composes_each_vm_from_core_ram_and_gpu_skus() -> None:
    """Every page is read once; each type is its family's core and RAM plus its GPUs."""
    names = [e.name for e in catalog.instances("gcp")]
    recorded = _Recorded()
    with _served(recorded) as client:
        found = {p.instance_type: p for p in gcp.fetch(names, "us-central1", client)}
    # one list_skus walk, paged by nextPageToken, in USD (the REST transport's query string)
    tokens = [c[2].get("pageToken") for c in recorded.calls]
    assert tokens == [None, "page-2", "page-3"]
    sent = {(c[0], c[1], c[2]["currencyCode"]) for c in recorded.calls}
    assert sent == {("GET", SKUS_URL, "USD")}
    assert list(found) == names

    a2 = "Nvidia Tesla A100 GPU"
    assert found["a2-highgpu-1g"] == RefreshedPrice(
        "a2-highgpu-1g", _vm(12, 85, 1, "A2 Instance", a2), _vm(12, 85, 1, "A2 Instance", a2, True)
    )
    # the first page alone makes a2-highgpu-1g the sum Cyclenerd's pricing.yml records
    assert found["a2-highgpu-1g"].on_demand_hourly == pytest.approx(3.673385)
    assert found["a2-ultragpu-8g"].on_demand_hourly == _vm(
        96, 1360, 8, "A2 Instance", "Nvidia Tesla A100 80GB GPU"
    )
    assert found["g2-standard-8"].spot_hourly == _vm(8, 32, 1, "G2 Instance", "Nvidia L4 GPU", True)
    # N1: core and RAM share the resource group N1Standard; the GPU is the attached one
    assert found["n1-standard-16-t4x2"] == RefreshedPrice(
        "n1-standard-16-t4x2",
        _vm(16, 60, 2, "N1 Predefined Instance", "Nvidia Tesla T4 GPU"),
        _vm(16, 60, 2, "N1 Predefined Instance", "Nvidia Tesla T4 GPU", True),
    )


def test_fetch_keeps_each_a3_shape_to_its_own_skus() -> None:
    """A3 High, Mega and Ultra hosts bill apart; a DWS Calendar Mode SKU never stands in."""
    names = ["a3-highgpu-8g", "a3-megagpu-8g", "a3-ultragpu-8g", "a3-edgegpu-8g"]
    with _served(_Recorded()) as client:
        found = {p.instance_type: p for p in gcp.fetch(names, "us-central1", client)}
    # the cheaper "DWS Calendar Mode Nvidia H100 80GB GPU" (OnDemand) is not the on-demand GPU
    assert found["a3-highgpu-8g"].on_demand_hourly == _vm(
        208, 1872, 8, "A3 Instance", "Nvidia H100 80GB GPU"
    )
    # A3 Mega: A3Plus hosts (gpuhunt), the GPU under SkyPilot's third name "H100 80GB Plus GPU"
    assert found["a3-megagpu-8g"] == RefreshedPrice(
        "a3-megagpu-8g",
        _vm(208, 1872, 8, "A3Plus Instance", "Nvidia H100 80GB Plus GPU"),
        _vm(208, 1872, 8, "A3Plus Instance", "Nvidia H100 80GB Plus GPU", True),
    )
    # A3 Ultra: its on-demand RAM SKU is priced 0, which is no price, so no on-demand figure
    assert found["a3-ultragpu-8g"] == RefreshedPrice(
        "a3-ultragpu-8g", None, _vm(224, 2952, 8, "A3Ultra Instance", "H200 141GB GPU", True)
    )
    # A3 Edge: no SKU family is known for it (SkyPilot maps no accelerator to it)
    assert found["a3-edgegpu-8g"] == RefreshedPrice("a3-edgegpu-8g", None, None)


def test_fetch_prices_nothing_it_cannot_compose() -> None:
    """A part missing in the region is no price (None), never 0; other regions' SKUs don't count."""
    names = [e.name for e in catalog.instances("gcp")]
    with _served(_Recorded()) as client:
        found = gcp.fetch(names, "us-central1", client)
        elsewhere = gcp.fetch(names, "europe-west4", client)
        unknown = gcp.fetch(["no-such-type"], "us-central1", client)
    prices = [v for p in found for v in (p.on_demand_hourly, p.spot_hourly)]
    assert all(v is None or v > 0 for v in prices)
    by_name = {p.instance_type: p for p in found}
    # V100 spot is only in a Belgium SKU: the n1 V100 types have an on-demand price only
    v100 = [n for n in names if "-v100x" in n]
    assert v100 and all(by_name[n].spot_hourly is None for n in v100)
    assert all(by_name[n].on_demand_hourly for n in v100)
    # europe-west4 is served by none of the recorded SKUs ("Americas": us-central1/east1/west1)
    assert all(p.on_demand_hourly is None and p.spot_hourly is None for p in elsewhere)
    assert unknown == (RefreshedPrice("no-such-type", None, None),)


def test_refresh_writes_an_overlay_that_plan_uses(tmp_path: Path, monkeypatch: Any) -> None:
    """The GKE training example: its H100 pool is priced from the refresh, dated by it."""
    overlay = tmp_path / "overlay"
    monkeypatch.setenv(catalog.OVERLAY_ENV, str(overlay))
    stack = EXAMPLES / "gcp-training-h100-mig.yaml"
    before = plan(stack, overlay)["cost"]
    assert before["pricesAsOf"] != ["2026-12-01"]
    bundled = catalog.instance("gcp", "a3-ultragpu-8g").price  # type: ignore[union-attr]

    with _served(_Recorded()) as client:
        result = catalog_use.refresh("gcp", None, client, TODAY)
    assert result.path == overlay / "instances-gcp.json"
    assert result.region == "us-central1"
    assert "a3-edgegpu-8g" in result.missing and "a3-highgpu-8g" in result.priced
    written = json.loads(result.path.read_text("utf-8"))
    assert written["as_of"] == "2026-12-01" and written["cloud"] == "gcp"
    assert "Cloud Billing Catalog API" in written["source"][0]
    ultra = next(r["price"] for r in written["prices"] if r["name"] == "a3-ultragpu-8g")
    # no on-demand SKU price: in the bundled price's own region the bundled figure stays, said so
    assert ultra["on_demand_hourly"] == bundled.on_demand_hourly
    assert ultra["spot_hourly"] != bundled.spot_hourly
    assert ultra["source"].endswith("on-demand from the bundled catalog")

    after = plan(stack, overlay)["cost"]
    assert after["pricesAsOf"] == ["2026-12-01"]
    h100 = next(p for p in after["pools"] if p["pool"] == "train-h100")
    was = next(p for p in before["pools"] if p["pool"] == "train-h100")
    per_node = _vm(208, 1872, 8, "A3 Instance", "Nvidia H100 80GB GPU")
    assert h100["hourly"]["min"] == pytest.approx(2 * per_node)  # nodes: {min: 2, max: 4}
    assert h100["hourly"]["max"] == pytest.approx(4 * per_node)
    assert h100["hourly"] != was["hourly"]


def test_refresh_refuses_what_it_cannot_read(monkeypatch: Any, tmp_path: Path) -> None:
    """A refused call, missing credentials and a missing SDK are one-line input errors."""
    monkeypatch.setenv(catalog.OVERLAY_ENV, str(tmp_path / "overlay"))
    denied = _Recorded(403, {"error": {
        "code": 403, "status": "PERMISSION_DENIED",
        "message": "Cloud Billing API has not been used in project 123456789012 before or it is "
                   "disabled.\nEnable it, then retry.",
    }})  # fmt: skip
    with _served(denied) as client, pytest.raises(InputError) as refused:
        catalog_use.refresh("gcp", None, client, TODAY)
    assert str(refused.value).startswith("Google Cloud refused the price lookup")
    assert "403" in str(refused.value) and "\n" not in str(refused.value)
    assert not (tmp_path / "overlay").exists()

    # no application default credentials: google.auth.default fails on the named file (no
    # metadata-server probe, no network)
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "missing.json"))
    with pytest.raises(InputError, match="gcloud auth application-default login") as none:
        catalog_use.refresh("gcp", None, None, TODAY)
    assert "\n" not in str(none.value)

    from google import cloud

    monkeypatch.delattr(cloud, "billing_v1")
    monkeypatch.setitem(sys.modules, "google.cloud.billing_v1", None)
    with pytest.raises(InputError, match=r"google-cloud-billing is not installed: pip install "
                       r"'gpupool\[gcp-catalog\]'"):  # fmt: skip
        catalog_use.refresh("gcp", None, None, TODAY)


def test_a_corrupt_overlay_is_replaced_not_blamed_on_google(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """Issue 27: a corrupt GCP overlay stopped the refresh that replaces it, and the error said
    Google refused. The refresh prices the bundled rows and writes an overlay read back whole."""
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    monkeypatch.setenv(catalog.OVERLAY_ENV, str(overlay))
    (overlay / "instances-gcp.json").write_text('{"source": ["cut short', "utf-8")
    with _served(_Recorded()) as client:
        result = catalog_use.refresh("gcp", None, client, TODAY)
    assert "a3-highgpu-8g" in result.priced
    assert catalog.overlay_problem("gcp", result.path.read_bytes()) == ""  # the new file reads
