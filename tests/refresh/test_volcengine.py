"""gpupool catalog refresh --cloud volcengine: the Volcengine SDK on recorded bodies, no network.

The Volcengine SDK has no stubber of its own (botocore's ``Stubber`` has no counterpart), so
the tests stand in at the lowest layer the SDK owns: the ``ECSApi`` is made by
``gpupool.refresh.volcengine.clients`` as a user gets it, and its ``ApiClient``'s REST client
gets a urllib3 pool whose ``request`` answers with recorded HTTP bodies
(``tests/refresh/recorded/volcengine-cn-beijing.json`` and ``volcengine-instance-types.json``,
sources in their ``about``) as urllib3 ``HTTPResponse`` objects. Everything above runs as it
does against Volcengine: the SDK builds the query, signs it with the environment's key for the
region, raises its ``ApiException`` on a 4xx answer and deserialises the body into its own model
classes (``DescribeSpotPriceHistoryResponse``, ``DescribeInstanceTypesResponse`` and the
``...ForDescribeInstanceTypesOutput`` types). Each request is checked against the parameters
Volcengine documents for ``DescribeInstanceTypes`` and ``DescribeSpotPriceHistory``. The overlay
the refresh writes must then reach ``gpupool validate``, ``plan`` and ``catalog instances``, run
as separate processes the way a user runs them.
"""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from gpupool import catalog
from gpupool.errors import InputError
from gpupool.refresh import RefreshedPrice, RefreshedType, volcengine
from gpupool.usecases import catalog as catalog_use
from gpupool.views.catalog import format_refreshed
from tests.paths import EXAMPLES, ROOT, TESTS
from tests.refresh.planned import plan

urllib3 = pytest.importorskip("urllib3")
pytest.importorskip("volcenginesdkcore")
pytest.importorskip("volcenginesdkecs")

pytestmark = pytest.mark.cloud_sdks

RECORDED = json.loads(
    (TESTS / "refresh" / "recorded" / "volcengine-cn-beijing.json").read_text("utf-8")
)
TYPES = json.loads(
    (TESTS / "refresh" / "recorded" / "volcengine-instance-types.json").read_text("utf-8")
)["DescribeInstanceTypes"]
NEW_TYPES = ["ecs.gni3cl.11xlarge", "ecs.hpcpni3ln.45xlarge"]  # GPU types the bundle lacks
NOW = datetime(2026, 12, 1, tzinfo=timezone.utc)
TODAY = date(2026, 12, 15)  # not the bundled catalog's date, so the plan's date must change
ENDPOINT = "https://open.volcengineapi.com/"  # the SDK's endpoint for ECS in cn-beijing


class AnyTime:
    """Equal to any time written as the API takes it (a refresh reads up to the real now)."""

    def __eq__(self, other: object) -> bool:
        stamp = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"
        return isinstance(other, str) and re.fullmatch(stamp, other) is not None

    def __repr__(self) -> str:
        return "AnyTime()"


class Recorded:
    """A urllib3 pool that answers the SDK's requests, in order, from recorded bodies."""

    def __init__(self, answers: list[tuple[dict[str, Any], int, dict[str, Any]]]) -> None:
        self.answers = list(answers)
        self.headers: list[dict[str, str]] = []
        self.connection_pool_kw: dict[str, Any] = {}  # read by the SDK's REST client

    def request(self, method: str, url: str, fields: Any = None, **kw: Any) -> Any:
        expected, status, body = self.answers.pop(0)
        assert (method, url) == ("GET", ENDPOINT)
        assert dict(fields or ()) == expected
        self.headers.append(dict(kw.get("headers") or {}))
        return urllib3.HTTPResponse(
            body=json.dumps(body).encode("utf-8"), status=status, preload_content=True,
            headers={"Content-Type": "application/json"},
        )  # fmt: skip


def _query(instance_type: str, token: str | None = None, now: bool = True) -> dict[str, Any]:
    """What the SDK sends for one page, as volcengine.com/docs/6396/1117846 documents it.

    Action and Version 2020-04-01; InstanceTypeId (required, one type a call); no ZoneId, so
    every zone of the client's region answers; MaxResults (1..1000); the window as
    YYYY-mm-ddTHH:MM:SSZ (the day up to ``NOW``, or up to the real now when ``now`` is false);
    NextToken from the previous page after the first.
    """
    start, end = ("2026-11-30T00:00:00Z", "2026-12-01T00:00:00Z") if now else (AnyTime(),) * 2
    query = {"Action": "DescribeSpotPriceHistory", "Version": "2020-04-01",
             "InstanceTypeId": instance_type, "MaxResults": 100,
             "TimestampStart": start, "TimestampEnd": end}
    if token:
        query["NextToken"] = token
    return query  # fmt: skip


def _types_query(token: str | None = None) -> dict[str, Any]:
    """What the SDK sends for one page of DescribeInstanceTypes (API 2020-04-01).

    As BytePlus's page for the same API documents it (docs.byteplus.com/en/docs/ecs/
    DescribeInstanceTypes): no InstanceTypeIds, so every type; MaxResults (1..1000); NextToken
    from the previous page after the first.
    """
    query: dict[str, Any] = {
        "Action": "DescribeInstanceTypes", "Version": "2020-04-01", "MaxResults": 100,
    }  # fmt: skip
    if token:
        query["NextToken"] = token
    return query


def _type_answers(
    pages: list[dict[str, Any]] | None = None,
) -> list[tuple[dict[str, Any], int, dict[str, Any]]]:
    """The DescribeInstanceTypes pages (the recorded ones by default), in the order asked."""
    out, token = [], None
    for page in TYPES if pages is None else pages:
        out.append((_types_query(token), 200, page))
        token = page["Result"]["NextToken"]
    return out


def _answers(
    names: list[str], now: bool = True
) -> list[tuple[dict[str, Any], int, dict[str, Any]]]:
    """The recorded pages of every name, in the order gpupool asks (no history: no spot)."""
    empty = RECORDED["DescribeSpotPriceHistory"]["ecs.ebmhpcpni3l.48xlarge"]
    out = []
    for name in names:
        token = None
        for page in RECORDED["DescribeSpotPriceHistory"].get(name, empty):
            out.append((_query(name, token, now), 200, page))
            token = page["Result"]["NextToken"]
    return out


def _clients(monkeypatch: pytest.MonkeyPatch, answers: list[Any]) -> tuple[Any, Recorded]:
    monkeypatch.setenv(volcengine.ACCESS_KEY, "testing-ak")
    monkeypatch.setenv(volcengine.SECRET_KEY, "testing-sk")
    ecs = volcengine.clients("cn-beijing")
    pool = Recorded(answers)
    ecs.api_client.rest_client.pool_manager = pool
    return ecs, pool


def test_fetch_reads_the_highest_of_each_zones_newest_spot_price(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Newest price per zone over two pages (cn-beijing-a's older 2.6 is superseded by 2.1, a
    zone in UTC compares with zones in +08:00, a 0 is no price), then the highest: 2.35 CNY.
    No history is no spot price; on-demand is always unknown (no readable source)."""
    names = ["ecs.gni2.3xlarge", "ecs.ebmhpcpni3l.48xlarge"]
    ecs, pool = _clients(monkeypatch, _answers(names))
    found = volcengine.fetch(names, "cn-beijing", ecs, now=NOW)
    assert pool.answers == []
    assert found == (
        RefreshedPrice("ecs.gni2.3xlarge", None, 2.35, "CNY"),
        RefreshedPrice("ecs.ebmhpcpni3l.48xlarge", None, None, "CNY"),
    )
    # signed with the environment's key for the region asked (Volcengine's HMAC-SHA256 scope)
    assert all("Credential=testing-ak/" in h["Authorization"] for h in pool.headers)
    assert all("/cn-beijing/ecs/request" in h["Authorization"] for h in pool.headers)


def test_refresh_writes_a_cny_overlay_that_plan_and_catalog_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The overlay records CNY spot prices and no on-demand price; the plan of the example VKE
    stack (an on-demand pool) dates its prices by the refresh and still says on-demand is
    unknown, since no API gave it; catalog instances shows the spot price as CNY."""
    overlay = tmp_path / "overlay"
    monkeypatch.setenv(catalog.OVERLAY_ENV, str(overlay))
    stack = EXAMPLES / "volcengine-a10.yaml"
    before = plan(stack, overlay)["cost"]
    assert before["pricesAsOf"] == ["2026-12-01"] and before["hourly"]["max"] is None

    names = [e.name for e in catalog.bundled_instances("volcengine")]
    answers = _type_answers() + _answers([*names, *NEW_TYPES], now=False)
    ecs, pool = _clients(monkeypatch, answers)
    result = catalog_use.refresh("volcengine", "cn-beijing", ecs, TODAY)
    assert pool.answers == []
    assert result.path == overlay / "instances-volcengine.json"
    assert result.priced == ("ecs.gni2.3xlarge",)
    assert result.missing == ("ecs.ebmhpcpni3l.48xlarge",)
    written = json.loads(result.path.read_text("utf-8"))
    (row,) = written["prices"]
    assert row["price"]["currency"] == "CNY" and row["price"]["region"] == "cn-beijing"
    assert row["price"]["spot_hourly"] == 2.35 and row["price"]["on_demand_hourly"] is None
    assert written["as_of"] == "2026-12-15" and "DescribeSpotPriceHistory" in row["price"]["source"]

    after = plan(stack, overlay)["cost"]
    assert after["pricesAsOf"] == ["2026-12-15"]
    assert after["unpriced"] == ["a10: ecs.gni2.3xlarge on-demand price"]
    assert after["hourly"]["max"] is None  # unknown, never 0 and never a CNY spot price as USD

    env = {**os.environ, catalog.OVERLAY_ENV: str(overlay), "PYTHONPATH": str(ROOT)}
    listed = subprocess.run(
        [sys.executable, "-m", "gpupool", "catalog", "instances", "--cloud", "volcengine"],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=120, check=True,
    ).stdout  # fmt: skip
    line = next(x for x in listed.splitlines() if "ecs.gni2.3xlarge" in x)
    assert "2.35 CNY" in line and "cn-beijing" in line and "2026-12-15" in line
    assert "Prices are USD (a price in CNY says so) per hour" in listed


def test_refresh_refuses_what_it_cannot_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """Missing keys, a missing region, a refused call and a missing SDK: one-line errors."""
    monkeypatch.delenv(volcengine.ACCESS_KEY, raising=False)
    monkeypatch.setenv(volcengine.SECRET_KEY, "testing-sk")
    with pytest.raises(InputError, match="need VOLCENGINE_ACCESS_KEY and VOLCENGINE_SECRET_KEY"):
        catalog_use.refresh("volcengine", "cn-beijing")
    with pytest.raises(InputError, match="needs --region"):  # the catalog has no reference region
        catalog_use.refresh("volcengine")

    # a 4xx answer carries ResponseMetadata.Error{Code, Message} (volcengine.com/docs/6460/79674);
    # InvalidAccessKey is HTTP 401 in ECS's public error codes (volcengine.com/docs/6396/70462)
    refused = RECORDED["InvalidAccessKey"]
    ecs, _ = _clients(monkeypatch, [(_query("ecs.gni2.3xlarge"), refused["status"],
                                     refused["body"])])  # fmt: skip
    with pytest.raises(InputError) as caught:
        volcengine.fetch(["ecs.gni2.3xlarge"], "cn-beijing", ecs, now=NOW)
    message = str(caught.value)
    assert message == (
        "Volcengine refused the price lookup: InvalidAccessKey: The accesskey [testing-ak] "
        "included in the request is invalid. (HTTP 401)"
    )

    monkeypatch.setitem(sys.modules, "volcenginesdkecs", None)  # as if not installed
    with pytest.raises(InputError, match=r"is not installed: pip install 'gpupool\[volcengine-"):
        catalog_use.refresh("volcengine", "cn-beijing")


def test_instance_types_reads_the_gpu_types_over_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two pages of DescribeInstanceTypes: the types without GPUs (no ``Gpu``, an empty
    ``GpuDevices``) are left out; host memory is MiB; each GPU product maps to its catalog name
    (a device's reported memory, 46068 MiB for a 48 GB L20, is near enough); RDMA network
    interfaces are RDMA; ``Tesla-V100`` with 32 GB is SXM2 or PCIe, which the answer does not
    say, so it is no catalog GPU and carries the reason."""
    ecs, pool = _clients(monkeypatch, _type_answers())
    found = volcengine.instance_types("cn-beijing", ecs)
    assert pool.answers == []
    v100 = (
        "GPU product 'Tesla-V100' with 31.748 GiB could be any of V100-SXM2-32GB, V100-PCIE-32GB"
    )
    assert found == (
        RefreshedType("ecs.gni2.3xlarge", "A10", 1, 14, 56.0, False),
        RefreshedType("ecs.gni3cl.11xlarge", "L20", 1, 44, 232.0, False),
        RefreshedType("ecs.hpcpni3ln.45xlarge", "H20", 8, 180, 2048.0, True),
        RefreshedType("ecs.ebmhpcpni3l.48xlarge", "H20", 8, 192, 2048.0, True),
        RefreshedType("ecs.g1ve.2xlarge", None, 1, 8, 64.0, False, v100),
    )
    assert all("/cn-beijing/ecs/request" in h["Authorization"] for h in pool.headers)


def _gpu_type(name: str, product: str, count: int, gpu_mib: int | None) -> dict[str, Any]:
    """One InstanceTypes[] entry in the SDK model's shape, 16 vCPUs and 64 GiB."""
    device: dict[str, Any] = {"ProductName": product, "Count": count}
    if gpu_mib is not None:
        device["Memory"] = {"Size": gpu_mib}
    return {"InstanceTypeId": name, "Processor": {"Cpus": 16}, "Memory": {"Size": 65536},
            "Gpu": {"GpuDevices": [device]}}  # fmt: skip


@pytest.mark.parametrize(
    ("product", "gpu_mib", "gpu", "why"),
    [
        ("NVIDIA A10", 23028, "A10", ""),  # what the device reports: 6 % under the nominal 24 GB
        ("nvidia_h20", None, "H20", ""),  # no memory: the name alone
        ("NVIDIA H100", 98304, "H100-SXM5-96GB", ""),  # 'H100' is the 80 GB part by name; 96
        ("Tesla V100", 16384, "V100-SXM2-16GB", ""),  # the catalog's alias V100 is the 16 GB
        ("NVIDIA A100", None, None, "any of A100-SXM4-40GB, A100-SXM4-80GB, A100-PCIE-40GB, "
         "A100-PCIE-80GB (the API gives no memory)"),
        ("NVIDIA A10", 12288, None, "is A10 by name, but the API gives 12 GiB per GPU"),
        ("NVIDIA GeForce RTX 5090", 32607, None, "is not a catalog GPU (gpupool catalog gpus)"),
    ],
)
def test_gpu_products_map_to_catalog_names_or_say_why_not(
    monkeypatch: pytest.MonkeyPatch, product: str, gpu_mib: int | None, gpu: str | None, why: str
) -> None:
    """A product maps through the catalog's own names (aliases, any case, without a leading
    NVIDIA/Tesla), then by memory within its family; a product the catalog does not know, one
    that names several models, or one whose memory contradicts its model maps to none."""
    page = copy.deepcopy(TYPES[-1])  # the envelope of a last page (ResponseMetadata, Result)
    page["Result"]["InstanceTypes"] = [_gpu_type("ecs.x.4xlarge", product, 2, gpu_mib)]
    ecs, _ = _clients(monkeypatch, _type_answers([page]))
    (found,) = volcengine.instance_types("cn-beijing", ecs)
    assert (found.gpu, found.gpu_count, found.vcpus, found.memory_gib) == (gpu, 2, 16, 64.0)
    assert why in found.skip and bool(found.skip) == (gpu is None)


def _stack(tmp_path: Path, name: str, pools: str) -> Path:
    """A VKE stack (the example's provider) with the given pools block."""
    example = (EXAMPLES / "volcengine-a10.yaml").read_text("utf-8")
    head = example[: example.index("cluster:\n")]
    path = tmp_path / f"{name}.yaml"
    path.write_text(head + "pools:\n" + pools, "utf-8")
    return path


def _gpupool(overlay: Path, *words: str) -> tuple[int, dict[str, Any]]:
    env = {**os.environ, catalog.OVERLAY_ENV: str(overlay), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "gpupool", *words, "--format", "json"],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=120, check=False,
    )  # fmt: skip
    return done.returncode, json.loads(done.stdout)


def _codes(result: dict[str, Any]) -> list[str]:
    return [d["code"] for d in result["diagnostics"]]


L20_POOL = """\
  - name: l20
    instanceType: ecs.gni3cl.11xlarge
    workload: inference
    nodes: {min: 1, max: 2}
"""


def test_refreshed_types_validate_and_plan_like_bundled_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before the refresh a pool on ecs.gni3cl.11xlarge must declare its GPUs (the catalog lacks
    the type); the refresh writes it (and ecs.hpcpni3ln.45xlarge) as instance rows, each naming
    DescribeInstanceTypes, the region and the date, and leaves out the types it cannot map;
    after it the pool validates without gpu, the plan takes its L20 from the overlay and dates
    its prices by the refresh, a declared GPU other than the overlay's is an error, the RDMA
    type counts as an interconnect for compact placement, and catalog instances lists the
    overlay's types."""
    overlay = tmp_path / "overlay"
    monkeypatch.setenv(catalog.OVERLAY_ENV, str(overlay))
    stack = _stack(tmp_path, "l20", L20_POOL)
    code, before = _gpupool(overlay, "validate", str(stack))
    assert code == 1 and _codes(before) == ["catalog.volcengine-needs-gpu"]
    declared = _stack(tmp_path, "declared", L20_POOL + "    gpu: {model: L20, count: 1}\n")
    assert _gpupool(overlay, "validate", str(declared))[0] == 0  # today's way: declare it

    names = [e.name for e in catalog.bundled_instances("volcengine")]
    ecs, pool = _clients(monkeypatch, _type_answers() + _answers([*names, *NEW_TYPES], False))
    result = catalog_use.refresh("volcengine", "cn-beijing", ecs, TODAY)
    assert pool.answers == []
    assert result.added == tuple(NEW_TYPES) and result.disputed == ()
    assert result.skipped == (
        "ecs.g1ve.2xlarge: GPU product 'Tesla-V100' with 31.748 GiB could be any of "
        "V100-SXM2-32GB, V100-PCIE-32GB",
    )
    written = json.loads(result.path.read_text("utf-8"))
    rows = {r["name"]: r for r in written["instances"]}
    assert set(rows) == set(NEW_TYPES)  # the bundled types stay bundled rows
    l20, h20 = rows["ecs.gni3cl.11xlarge"], rows["ecs.hpcpni3ln.45xlarge"]
    assert (l20["gpu"], l20["gpu_count"], l20["vcpus"], l20["memory_gib"]) == ("L20", 1, 44, 232)
    assert (h20["gpu"], h20["gpu_count"], h20["interconnect"]["infiniband"]) == ("H20", 8, True)
    assert l20["interconnect"]["infiniband"] is False and l20["confidence"] == "A"
    assert l20["source"] == (
        "gpupool catalog refresh 2026-12-15: ECS DescribeInstanceTypes cn-beijing"
    )
    assert l20["price"]["currency"] == "CNY" and l20["price"]["spot_hourly"] is None
    assert any("Tesla-V100" in n for n in written["notes"])

    code, after = _gpupool(overlay, "validate", str(stack))
    assert code == 0 and after["valid"] and _codes(after) == []
    planned = plan(stack, overlay)
    (capacity,) = planned["capacity"]
    assert (capacity["gpu"], capacity["gpuMemoryGiB"], capacity["gpus"]) == (
        "L20", 48.0, {"min": 1, "max": 2}
    )
    assert planned["cost"]["pricesAsOf"] == ["2026-12-15"]
    assert planned["cost"]["unpriced"] == ["l20: ecs.gni3cl.11xlarge on-demand price"]

    contradicting = _stack(tmp_path, "a10", L20_POOL + "    gpu: {model: A10, count: 1}\n")
    code, wrong = _gpupool(overlay, "validate", str(contradicting))
    assert code == 1 and _codes(wrong) == ["catalog.declared-gpu-differs"]
    assert "gives ecs.gni3cl.11xlarge 1 x L20" in wrong["diagnostics"][0]["detail"]

    compact = _stack(tmp_path, "compact", L20_POOL + "    placement: {topology: compact}\n"
                     + L20_POOL.replace("l20", "h20").replace("gni3cl.11xlarge",
                                                              "hpcpni3ln.45xlarge")
                     + "    placement: {topology: compact}\n")  # fmt: skip
    diagnostics = _gpupool(overlay, "validate", str(compact))[1]["diagnostics"]
    no_link = [
        d["path"] for d in diagnostics if d["code"] == "placement.compact-without-interconnect"
    ]
    assert no_link == [["pools", 0, "placement", "topology"]]  # the H20 type has RDMA

    env = {**os.environ, catalog.OVERLAY_ENV: str(overlay), "PYTHONPATH": str(ROOT)}
    listed = subprocess.run(
        [sys.executable, "-m", "gpupool", "catalog", "instances", "--cloud", "volcengine"],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=120, check=True,
    ).stdout  # fmt: skip
    row = r"ecs\.hpcpni3ln\.45xlarge\s+H20\s+8\s+768\s+180\s+2048\s+infiniband\s+cn-beijing"
    assert re.search(row, listed)
    assert (
        "Instance types from the same overlay, read from the volcengine API (confidence A): "
        "ecs.gni3cl.11xlarge, ecs.hpcpni3ln.45xlarge." in listed
    )


def test_refresh_reports_what_the_api_contradicts_and_keeps_the_bundled_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The API giving a bundled type other facts (here 16 vCPUs for ecs.gni2.3xlarge, whose
    bundled row, grade C, says 14) is reported in the result, the overlay's notes and the
    command's output; the overlay gets no instance row for it, so the bundled facts stay. A new
    type whose GPU the catalog does not know is left out, with its reason."""
    overlay = tmp_path / "overlay"
    monkeypatch.setenv(catalog.OVERLAY_ENV, str(overlay))
    pages = copy.deepcopy(TYPES)
    (a10,) = [t for t in pages[0]["Result"]["InstanceTypes"] if t["InstanceTypeId"] ==
              "ecs.gni2.3xlarge"]  # fmt: skip
    a10["Processor"]["Cpus"] = 16
    pages[1]["Result"]["InstanceTypes"].append(
        _gpu_type("ecs.gni5.4xlarge", "NVIDIA GeForce RTX 5090", 1, 32607)
    )
    names = [e.name for e in catalog.bundled_instances("volcengine")]
    answers = _type_answers(pages) + _answers([*names, *NEW_TYPES], now=False)
    ecs, pool = _clients(monkeypatch, answers)
    result = catalog_use.refresh("volcengine", "cn-beijing", ecs, TODAY)
    assert pool.answers == []
    assert result.disputed == ("ecs.gni2.3xlarge: vCPUs: API 16, catalog 14",)
    assert result.skipped[-1] == (
        "ecs.gni5.4xlarge: GPU product 'NVIDIA GeForce RTX 5090' with 31.8428 GiB is not a "
        "catalog GPU (gpupool catalog gpus)"
    )
    written = json.loads(result.path.read_text("utf-8"))
    assert "ecs.gni2.3xlarge" not in {r["name"] for r in written["instances"]}
    assert (
        "The API contradicts the bundled row (kept): ecs.gni2.3xlarge: vCPUs: API 16, catalog 14"
        in written["notes"]
    )
    text = format_refreshed(result)
    assert "The API contradicts the bundled catalog for ecs.gni2.3xlarge: vCPUs: API 16, " \
        "catalog 14 (kept)." in text  # fmt: skip
    assert "Not added: ecs.gni5.4xlarge: GPU product 'NVIDIA GeForce RTX 5090'" in text
    listed = _gpupool(overlay, "catalog", "instances", "--cloud", "volcengine")[1]
    vcpus = {e["name"]: e["vcpus"] for e in listed["instances"]}
    assert vcpus["ecs.gni2.3xlarge"] == 14 and "ecs.gni5.4xlarge" not in vcpus


def test_instance_type_refusal_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """A refused DescribeInstanceTypes is the API's code and message, as for the prices."""
    refused = RECORDED["InvalidAccessKey"]
    ecs, _ = _clients(monkeypatch, [(_types_query(), refused["status"], refused["body"])])
    with pytest.raises(InputError) as caught:
        catalog_use.refresh("volcengine", "cn-beijing", ecs, TODAY)
    assert str(caught.value) == (
        "Volcengine refused the instance type lookup: InvalidAccessKey: The accesskey "
        "[testing-ak] included in the request is invalid. (HTTP 401)"
    )


def test_types_no_catalog_row_takes_are_refused_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 27: an answer of -4 vCPUs or 100,000 GPUs a node was written as an instance row.
    Each is refused, named with why, and left out; the overlay written reads back whole."""
    overlay = tmp_path / "overlay"
    monkeypatch.setenv(catalog.OVERLAY_ENV, str(overlay))
    pages = copy.deepcopy(TYPES)
    negative = _gpu_type("ecs.bad.neg", "NVIDIA A10", 1, 23028)
    negative["Processor"]["Cpus"] = -4
    pages[1]["Result"]["InstanceTypes"] += [
        negative, _gpu_type("ecs.bad.many", "NVIDIA A10", 100_000, 23028)
    ]  # fmt: skip
    names = [e.name for e in catalog.bundled_instances("volcengine")]
    answers = _type_answers(pages) + _answers([*names, *NEW_TYPES, "ecs.bad.neg",
                                               "ecs.bad.many"], now=False)  # fmt: skip
    ecs, pool = _clients(monkeypatch, answers)
    result = catalog_use.refresh("volcengine", "cn-beijing", ecs, TODAY)
    assert pool.answers == []
    assert set(result.added) == set(NEW_TYPES)
    assert result.refused == (
        "ecs.bad.neg: instances row ecs.bad.neg vcpus: expected an integer from 1 to 4096, "
        "got -4",
        "ecs.bad.many: instances row ecs.bad.many gpu_count: expected an integer from 1 to 16, "
        "got 100000",
    )
    assert catalog.overlay_problem("volcengine", result.path.read_bytes()) == ""
    written = json.loads(result.path.read_text("utf-8"))
    assert {r["name"] for r in written["instances"]} == set(NEW_TYPES)
    assert "Left out, not a catalog figure: ecs.bad.neg" in format_refreshed(result)


@pytest.mark.parametrize("region", ["cn beijing", "cn-beijing\n", "../../etc", "CN-BEIJING"])
def test_a_region_of_no_regions_shape_is_refused_before_any_call(
    monkeypatch: pytest.MonkeyPatch, region: str
) -> None:
    """Volcengine has no confirmed region list: a region must still look like one."""
    ecs, pool = _clients(monkeypatch, [])
    with pytest.raises(InputError, match=r"is not a region of Volcengine \(e\.g\. cn-beijing\)"):
        catalog_use.refresh("volcengine", region, ecs, TODAY)
    assert pool.headers == []
