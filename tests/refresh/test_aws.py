"""gpupool catalog refresh --cloud aws: boto3 calls through botocore's Stubber, never the network.

The responses (``tests/refresh/recorded/aws-us-east-1.json``, sources in its ``about``) are
checked by botocore's Stubber against the service models of the installed botocore, and the
requests gpupool sends are checked against the parameters the Price List API
(``pricing.get_products``: service code, TERM_MATCH filters) and EC2
(``describe_spot_price_history``: instance types, Linux/UNIX, a start time) document. The
overlay the refresh writes must then change what ``gpupool plan`` prices and the date it
shows, run as a separate process the way a user runs it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest

from gpupool import catalog
from gpupool.errors import InputError
from gpupool.refresh import RefreshedPrice, aws
from gpupool.usecases import catalog as catalog_use
from tests.paths import ROOT, TESTS
from tests.refresh.planned import plan

boto3 = pytest.importorskip("boto3")
stub = pytest.importorskip("botocore.stub")

pytestmark = pytest.mark.cloud_sdks

RECORDED = json.loads((TESTS / "refresh" / "recorded" / "aws-us-east-1.json").read_text("utf-8"))
TODAY = date(2026, 12, 1)


def _filters(instance_type: str) -> list[dict[str, str]]:
    pairs = [("instanceType", instance_type), ("regionCode", "us-east-1"),
             ("operatingSystem", "Linux"), ("tenancy", "Shared"), ("preInstalledSw", "NA"),
             ("capacitystatus", "Used")]  # fmt: skip
    return [{"Type": "TERM_MATCH", "Field": f, "Value": v} for f, v in pairs]


def _stubbed(names: list[str]) -> tuple[Any, Any, Any, Any]:
    """Clients whose every call is answered from the recording, in the order gpupool asks."""
    keys = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing"}
    pricing = boto3.client("pricing", region_name="us-east-1", **keys)
    ec2 = boto3.client("ec2", region_name="us-east-1", **keys)
    spot, prices = stub.Stubber(ec2), stub.Stubber(pricing)
    pages = RECORDED["describe_spot_price_history"]
    for i, page in enumerate(pages):
        response = json.loads(json.dumps(page))
        for row in response["SpotPriceHistory"]:
            row["Timestamp"] = datetime.fromisoformat(row["Timestamp"])
        expected = {"InstanceTypes": names, "ProductDescriptions": ["Linux/UNIX"],
                    "StartTime": stub.ANY}  # fmt: skip
        if i:
            expected["NextToken"] = pages[i - 1]["NextToken"]
        spot.add_response("describe_spot_price_history", response, expected)
    for name in names:
        response = RECORDED["get_products"].get(name, {"FormatVersion": "aws_v1", "PriceList": []})
        expected = {"ServiceCode": "AmazonEC2", "Filters": _filters(name),
                    "FormatVersion": "aws_v1", "MaxResults": 100}  # fmt: skip
        prices.add_response("get_products", response, expected)
    return pricing, ec2, prices, spot


def test_fetch_reads_on_demand_and_the_highest_newest_spot_price() -> None:
    """Newest price per zone (an older 0.99 is superseded), then the highest zone: 0.6701."""
    names = ["g5.4xlarge", "g6.2xlarge", "p5.48xlarge"]
    pricing, ec2, prices, spot = _stubbed(names)
    with prices, spot:
        found = {p.instance_type: p for p in aws.fetch(names, "us-east-1", (pricing, ec2))}
    prices.assert_no_pending_responses()
    spot.assert_no_pending_responses()
    assert found["g5.4xlarge"] == RefreshedPrice("g5.4xlarge", 1.624, 0.6701)
    assert found["g6.2xlarge"] == RefreshedPrice("g6.2xlarge", 0.9776, 0.4575)
    assert found["p5.48xlarge"] == RefreshedPrice("p5.48xlarge", None, None)


def _g5_overlay(overlay: Path, spot: float, as_of: str) -> Path:
    """Write an overlay an earlier refresh could have written: g5.4xlarge at ``spot``."""
    overlay.mkdir()
    price = {"region": "us-east-1", "currency": "USD", "on_demand_hourly": 1.624,
             "spot_hourly": spot, "source": f"gpupool catalog refresh {as_of}",
             "as_of": as_of}  # fmt: skip
    (overlay / "instances-aws.json").write_text(json.dumps({
        "source": [f"gpupool catalog refresh {as_of}"], "as_of": as_of, "cloud": "aws",
        "prices": [{"name": "g5.4xlarge", "price": price}],
    }), encoding="utf-8")  # fmt: skip
    return overlay


def test_refresh_writes_an_overlay_that_plan_uses(tmp_path: Path, monkeypatch: Any) -> None:
    """Before: an older refresh's overlay prices g5.4xlarge spot at 0.99 (2026-11-01). After this
    refresh the plan prices it at the recorded 0.6701, dated by the new overlay."""
    overlay = _g5_overlay(tmp_path / "overlay", 0.99, "2026-11-01")
    monkeypatch.setenv(catalog.OVERLAY_ENV, str(overlay))
    stack = tmp_path / "spot-a10g.yaml"
    stack.write_text(
        "apiVersion: gpupool.io/v1\nkind: GpuPoolStack\nmetadata: {name: t}\n"
        "provider:\n  cloud: aws\n  region: us-east-1\n  cluster: c\n"
        '  settings: {subnetIds: [s-1], nodeRoleArn: "arn:aws:iam::123456789012:role/n"}\n'
        "pools:\n  - name: a10g\n    instanceType: g5.4xlarge\n    nodes: {min: 0, max: 4}\n"
        "    capacity: {type: spot}\n    interruption: {checkpoint: recommended}\n",
        encoding="utf-8",
    )
    before = plan(stack, overlay)["cost"]
    assert before["hourly"]["max"] == pytest.approx(4 * 0.99)
    assert before["pricesAsOf"] == ["2026-11-01"]

    names = [e.name for e in catalog.instances("aws")]
    pricing, ec2, prices, spot = _stubbed(names)
    with prices, spot:
        result = catalog_use.refresh("aws", None, (pricing, ec2), TODAY)
    assert result.path == overlay / "instances-aws.json"
    assert set(result.priced) == {"g5.4xlarge", "g6.2xlarge"}
    assert len(result.missing) == len(names) - 2
    written = json.loads(result.path.read_text("utf-8"))
    assert written["as_of"] == "2026-12-01" and written["cloud"] == "aws"

    after = plan(stack, overlay)["cost"]
    assert after["unpriced"] == []
    assert after["hourly"]["max"] == pytest.approx(4 * 0.6701)
    assert after["pricesAsOf"] == ["2026-12-01"]


def test_refresh_refuses_what_it_cannot_read() -> None:
    """No --cloud, a cloud without a refresh, and AWS errors are one-line input errors."""
    with pytest.raises(InputError, match="needs --cloud"):
        catalog_use.refresh(None)
    with pytest.raises(InputError, match="kubernetes prices come with gpupool's catalog"):
        catalog_use.refresh("kubernetes")
    keys = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing"}
    pricing = boto3.client("pricing", region_name="us-east-1", **keys)
    ec2 = boto3.client("ec2", region_name="us-east-1", **keys)
    refused = stub.Stubber(ec2)
    refused.add_client_error("describe_spot_price_history", "UnauthorizedOperation", "denied")
    with refused, pytest.raises(InputError, match="AWS refused the price lookup"):
        catalog_use.refresh("aws", None, (pricing, ec2), TODAY)


def test_catalog_instances_names_the_overlay(tmp_path: Path) -> None:
    """catalog instances shows the overlay's prices and says where they come from."""
    overlay = _g5_overlay(tmp_path / "overlay", 0.6701, "2026-12-01")
    env = {**os.environ, catalog.OVERLAY_ENV: str(overlay), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "gpupool", "catalog", "instances", "--cloud", "aws",
         "--gpu", "A10G"],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=120, check=True,
    )  # fmt: skip
    row = next(line for line in done.stdout.splitlines() if line.startswith("aws    g5.4xlarge"))
    assert row.split()[-4:] == ["1.624", "0.6701", "1.624", "2026-12-01"]
    assert "Prices from the local overlay" in done.stdout
    assert str(overlay / "instances-aws.json") in done.stdout
