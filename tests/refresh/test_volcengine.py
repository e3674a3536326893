"""gpupool catalog refresh --cloud volcengine: the Volcengine SDK on recorded bodies, no network.

The Volcengine SDK has no stubber of its own (botocore's ``Stubber`` has no counterpart), so
the tests stand in at the lowest layer the SDK owns: the ``ECSApi`` is made by
``gpupool.refresh.volcengine.clients`` as a user gets it, and its ``ApiClient``'s REST client
gets a urllib3 pool whose ``request`` answers with recorded HTTP bodies
(``tests/refresh/recorded/volcengine-cn-beijing.json``, sources in its ``about``) as urllib3
``HTTPResponse`` objects. Everything above runs as it does against Volcengine: the SDK builds
the query, signs it with the environment's key for the region, raises its ``ApiException`` on a
4xx answer and deserialises the body into its own model classes
(``DescribeSpotPriceHistoryResponse``, ``SpotPriceForDescribeSpotPriceHistoryOutput``). Each
request is checked against the parameters Volcengine documents for ``DescribeSpotPriceHistory``.
The overlay the refresh writes must then reach ``gpupool plan``, run as a separate process the
way a user runs it.
"""

from __future__ import annotations

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
from gpupool.refresh import RefreshedPrice, volcengine
from gpupool.usecases import catalog as catalog_use
from tests.paths import EXAMPLES, ROOT, TESTS
from tests.refresh.planned import plan

urllib3 = pytest.importorskip("urllib3")
pytest.importorskip("volcenginesdkcore")
pytest.importorskip("volcenginesdkecs")

pytestmark = pytest.mark.cloud_sdks

RECORDED = json.loads(
    (TESTS / "refresh" / "recorded" / "volcengine-cn-beijing.json").read_text("utf-8")
)
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

    names = [e.name for e in catalog.instances("volcengine")]
    ecs, pool = _clients(monkeypatch, _answers(names, now=False))
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
