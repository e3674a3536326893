"""The local price overlay as hostile input (issue 27, item 2).

A planted or corrupt ``instances-<cloud>.json`` in the overlay folder must never give a NaN or
infinite price, a raw currency in a pull-request comment, a made-up instance type, or an
internal error: every fault is one ``OverlayError`` naming the file and what to do, which the
command line prints as one ``error:`` line (exit 1, JSON kind ``input``).
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Iterator
from io import StringIO
from pathlib import Path
from typing import Any

import pytest

from gpupool import catalog
from gpupool.catalog import instance_rows, instance_types, overlay_file, price_overlay
from gpupool.cli import run
from gpupool.refresh import VENDORS, vendor
from tests.paths import EXAMPLES

EXAMPLE = EXAMPLES / "aws-inference-l4.yaml"  # prices g6.2xlarge and g6e.2xlarge


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty overlay folder the catalog reads, with its caches cleared around the test."""
    where = tmp_path / "overlay"
    where.mkdir()
    monkeypatch.setenv(catalog.OVERLAY_ENV, str(where))
    caches = (price_overlay.read_overlay, instance_types._instance_catalog)
    for cached in caches:
        cached.cache_clear()
    yield where
    for cached in caches:
        cached.cache_clear()


def aws_overlay(**price: Any) -> dict[str, Any]:
    """An AWS overlay as ``gpupool catalog refresh --cloud aws`` writes it, ``price`` changed."""
    figures = {"region": "us-east-1", "currency": "USD", "on_demand_hourly": 1.5,
               "spot_hourly": 0.5, "source": "gpupool catalog refresh 2026-12-02: AWS Price "
               "List API", "as_of": "2026-12-02", **price}  # fmt: skip
    return {"format_version": "1", "source": ["gpupool catalog refresh 2026-12-02"],
            "as_of": "2026-12-02", "notes": ["Written by gpupool catalog refresh"],
            "cloud": "aws", "prices": [{"name": "g6.2xlarge", "price": figures}]}  # fmt: skip


def volcengine_row(**changes: Any) -> dict[str, Any]:
    """A Volcengine overlay instance row as the refresh writes it, ``changes`` applied."""
    row: dict[str, Any] = {
        "cloud": "volcengine", "name": "ecs.gni3cl.11xlarge", "machine_type":
        "ecs.gni3cl.11xlarge", "gpu": "L20", "gpu_count": 1, "vcpus": 44, "memory_gib": 232,
        "interconnect": {"nvlink": False, "nvswitch": False, "efa": False, "infiniband": False},
        "price": {"region": "cn-beijing", "currency": "CNY", "on_demand_hourly": None,
                  "spot_hourly": 3.5, "source": "refresh", "as_of": "2026-12-02"},
        "confidence": "A", "source": "gpupool catalog refresh 2026-12-02: ECS "
        "DescribeInstanceTypes cn-beijing",
    }  # fmt: skip
    row.update(changes)
    return row


def cli(*argv: str) -> tuple[int, str]:
    """Run the command line; return its exit code and stderr."""
    err = StringIO()
    code = run(list(argv), stderr=err)
    return code, err.getvalue()


def refused(folder: Path, cloud: str, match: str) -> str:
    """Assert the cloud's overlay is refused with ``match`` and the file's name; the message."""
    with pytest.raises(catalog.OverlayError, match=match) as caught:
        catalog.instances(cloud)
    message = str(caught.value)
    assert str(folder / f"instances-{cloud}.json") in message
    assert f"gpupool catalog refresh --cloud {cloud}" in message  # what to do
    return message


def test_a_refreshed_overlay_is_still_read(folder: Path) -> None:
    """The refresh's own shape, with or without format_version, prices the type it names."""
    for document in (aws_overlay(), {k: v for k, v in aws_overlay().items()
                                     if k != "format_version"}):  # fmt: skip
        (folder / "instances-aws.json").write_text(json.dumps(document), "utf-8")
        price_overlay.read_overlay.cache_clear()
        instance_types._instance_catalog.cache_clear()
        entry = catalog.instance("aws", "g6.2xlarge")
        assert entry is not None and entry.price.on_demand_hourly == 1.5


# RFC 8259 section 6: "Numeric values that cannot be represented in the grammar below (such as
# Infinity and NaN) are not permitted"; Python's json module reads them unless told not to.
@pytest.mark.parametrize("figure", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_non_finite_prices_are_refused(folder: Path, figure: str) -> None:
    """NaN and the infinities (also 1e999, which float() makes infinite) are no prices."""
    text = json.dumps(aws_overlay(on_demand_hourly=12345.0)).replace("12345.0", figure)
    (folder / "instances-aws.json").write_text(text, "utf-8")
    refused(folder, "aws", "not a JSON document gpupool can read")


@pytest.mark.parametrize("figure", [1e308, 0, -1.5, True, "1.5"])
def test_a_price_must_be_a_positive_figure_below_a_million(folder: Path, figure: Any) -> None:
    """1e308 is finite but overflows a month's cost; 0, negatives, booleans, strings no price."""
    (folder / "instances-aws.json").write_text(json.dumps(aws_overlay(spot_hourly=figure)))
    refused(folder, "aws", "expected a positive number up to 1e\\+06")


@pytest.mark.parametrize("cloud", ["aws", "volcengine"])
def test_an_integer_too_large_for_a_float_is_one_error_naming_the_file(
    folder: Path, cloud: str
) -> None:
    """A 400-digit integer as a price (or a vCPU count) ended in OverflowError, an internal error
    of the command; now the overlay is refused by name, and the command says so in one line."""
    huge = 10**400
    document = (aws_overlay(spot_hourly=huge) if cloud == "aws" else
                {**aws_overlay(), "cloud": "volcengine", "prices": [],
                 "instances": [volcengine_row(memory_gib=huge)]})  # fmt: skip
    (folder / f"instances-{cloud}.json").write_text(json.dumps(document), "utf-8")
    refused(folder, cloud, "too large a number")
    code, err = cli("catalog", "instances", "--cloud", cloud)
    assert code == 1 and len(err.splitlines()) == 1 and "internal error" not in err
    assert str(folder / f"instances-{cloud}.json") in err


# ISO 4217 codes are three capital letters; a currency goes into the plan's pull-request comment
# as written, so "<!--" would hide the rest of it and another marker would fake a verdict.
@pytest.mark.parametrize(
    "currency",
    ["<!--", "USD <!-- gpupool-plan:other -->", "No changes", "usd", "US$", "USD\n", 840, None],
)
def test_a_currency_that_is_no_iso_4217_code_is_refused(folder: Path, currency: Any) -> None:
    """Only three capital letters, so nothing but a code reaches the markdown."""
    (folder / "instances-aws.json").write_text(json.dumps(aws_overlay(currency=currency)))
    refused(folder, "aws", "is not an ISO 4217 code")


def test_a_currency_the_clouds_refresh_never_writes_is_refused(folder: Path) -> None:
    """AWS prices are refreshed in USD: an overlay in EUR was not written by a refresh."""
    (folder / "instances-aws.json").write_text(json.dumps(aws_overlay(currency="EUR")))
    refused(folder, "aws", "currency EUR, but the aws refresh writes USD")


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"as_of": "2026-02-30"}, "is not a date"),
        ({"as_of": "2026-13-01"}, "is not a date"),
        ({"as_of": "0001-01-01"}, "is not a date"),
        ({"as_of": "yesterday"}, "is not a date"),
        ({"region": "eastuss"}, "'eastuss' is not a region of aws"),
        ({"region": "us-east-1\n# fake"}, "is not a region name"),
        ({"source": ""}, "expected one line of text"),
        ({"source": "AWS\n::warning::planted"}, "expected one line of text"),
        ({"source": "x" * 501}, "expected one line of text"),
        ({"source": ["a list"]}, "expected one line of text"),
    ],
)
def test_dates_regions_and_sources_are_checked(
    folder: Path, change: dict[str, Any], match: str
) -> None:
    """A real calendar date, a region of the cloud, a source on one line."""
    (folder / "instances-aws.json").write_text(json.dumps(aws_overlay(**change)))
    refused(folder, "aws", match)


@pytest.mark.parametrize(
    ("document", "match"),
    [
        ({"source": 5}, "source: expected a list"),
        ({"prices": 3}, "prices: expected a list"),
        ({"prices": [7]}, "a prices row: expected an object"),
        ({"prices": [{"name": ["g6"], "price": {}}]}, "is not an instance type name"),
        ({"as_of": None}, "is not a date"),
        ({"cloud": "gcp"}, "cloud 'gcp', not aws"),
        ({"extra": 1}, "unexpected \\['extra'\\]"),
        ({"notes": "one string"}, "notes: expected a list"),
    ],
)
def test_wrong_types_are_one_error_naming_the_file(
    folder: Path, document: dict[str, Any], match: str
) -> None:
    """A value of the wrong type anywhere is the overlay's fault, never a TypeError."""
    (folder / "instances-aws.json").write_text(json.dumps({**aws_overlay(), **document}))
    refused(folder, "aws", match)


def test_a_price_row_twice_is_refused(folder: Path) -> None:
    """Two prices for one type: which would count is not for gpupool to guess."""
    document = aws_overlay()
    document["prices"] *= 2
    (folder / "instances-aws.json").write_text(json.dumps(document))
    refused(folder, "aws", "listed twice")


@pytest.mark.parametrize(
    ("text", "match"),
    [
        (json.dumps(aws_overlay())[:90], "not a JSON document gpupool can read"),  # truncated
        ("", "not a JSON document gpupool can read"),
        ("[" * 100_000, "nests deeper than 8 levels"),
        ('{"a": ' * 20 + "1" + "}" * 20, "nests deeper than 8 levels"),
        ("[]", "is not a JSON object"),
        ('{"cloud": "aws", "cloud": "gcp"}', "appears twice"),
        ('{"n": 1' + "0" * 5000 + "}", "not a JSON document gpupool can read"),
    ],
)
def test_unreadable_json_is_one_error(folder: Path, text: str, match: str) -> None:
    """Truncated, empty, very deep, not an object, a key twice, a 5,000-digit integer."""
    (folder / "instances-aws.json").write_text(text, "utf-8")
    refused(folder, "aws", match)


def test_latin_1_bytes_are_refused(folder: Path) -> None:
    """The overlay is UTF-8 JSON (RFC 8259 section 8.1)."""
    (folder / "instances-aws.json").write_bytes(b'{"source": ["\xe9"]}')
    refused(folder, "aws", "is not UTF-8 text")


def test_a_format_from_another_gpupool_is_refused(folder: Path) -> None:
    """A newer format is not guessed at: the message says another gpupool wrote it."""
    (folder / "instances-aws.json").write_text(json.dumps({**aws_overlay(), "format_version": "2"}))
    refused(folder, "aws", "has format_version '2', not '1' \\(another gpupool wrote it\\)")


def test_a_file_over_the_size_bound_is_refused_unread(folder: Path) -> None:
    """A multi-GiB overlay (sparse here) is refused after MAX_BYTES + 1 bytes."""
    path = folder / "instances-aws.json"
    with path.open("wb") as fh:
        fh.truncate(3 * 1024**3)
    refused(folder, "aws", f"is larger than {overlay_file.MAX_BYTES} bytes")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_or_a_device_is_refused_without_blocking(folder: Path) -> None:
    """A FIFO would block a plain read forever and /dev/zero never ends: neither is read."""
    path = folder / "instances-aws.json"
    os.mkfifo(path)
    refused(folder, "aws", "is not a regular file")
    path.unlink()
    path.symlink_to("/dev/zero")
    refused(folder, "aws", "is not a regular file")
    path.unlink()
    path.mkdir()
    refused(folder, "aws", "is not a regular file")


def test_an_overlay_folder_that_is_a_file_means_no_overlay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, folder: Path
) -> None:
    """No folder, no overlay: the bundled prices stand."""
    plain = tmp_path / "plain"
    plain.write_text("x")
    monkeypatch.setenv(catalog.OVERLAY_ENV, str(plain))
    assert catalog.overlay("aws") is None
    bundled = instance_rows.bundled_by_name("aws")
    assert catalog.instance("aws", "g6.2xlarge") == bundled["g6.2xlarge"]


def test_instance_rows_only_where_the_clouds_refresh_writes_them(folder: Path) -> None:
    """A made-up AWS type would validate and render: only Volcengine's refresh adds types."""
    document = aws_overlay()
    document["instances"] = [volcengine_row(cloud="aws", name="p9.fake", machine_type="p9.fake",
                                            price=aws_overlay()["prices"][0]["price"])]  # fmt: skip
    (folder / "instances-aws.json").write_text(json.dumps(document))
    refused(folder, "aws", "the aws refresh writes no instance rows")


def _volcengine(folder: Path, row: dict[str, Any]) -> None:
    (folder / "instances-volcengine.json").write_text(json.dumps({
        "source": ["gpupool catalog refresh 2026-12-02"], "as_of": "2026-12-02",
        "cloud": "volcengine", "prices": [], "instances": [row],
    }))  # fmt: skip


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"gpu_count": 0}, "gpu_count: expected an integer from 1 to 16"),  # divided by
        ({"gpu_count": 100_000}, "gpu_count: expected an integer from 1 to 16"),
        ({"vcpus": -4}, "vcpus: expected an integer from 1 to 4096"),
        ({"vcpus": 4.5}, "vcpus: expected an integer"),
        ({"memory_gib": 1e300}, "memory_gib: expected a positive number up to 65536"),
        ({"confidence": "A+"}, "confidence 'A\\+' is not A, B or C"),
        ({"regions": ["cn beijing"]}, "'cn beijing' is not a region of volcengine"),
        ({"interconnect": {"nvlink": "no", "nvswitch": False, "efa": False}}, "true or false"),
        ({"interconnect": []}, "interconnect: expected an object"),
        ({"price": {**volcengine_row()["price"], "currency": "USD"}}, "refresh writes CNY"),
        ({"name": "ecs.x y"}, "is not an instance type name"),
        ({"gpu": 7}, "is not a canonical GPU model name"),
    ],
)
def test_volcengine_instance_rows_are_held_to_the_bundled_rules(
    folder: Path, change: dict[str, Any], match: str
) -> None:
    """Counts within what a real type has, a real flag, the refresh's currency and regions."""
    _volcengine(folder, volcengine_row(**change))
    refused(folder, "volcengine", match)


def test_a_good_volcengine_row_is_read(folder: Path) -> None:
    """The refresh's row, as written, adds the type."""
    _volcengine(folder, volcengine_row())
    added = catalog.instance("volcengine", "ecs.gni3cl.11xlarge")
    assert added is not None and added.price.spot_hourly == 3.5


def test_the_overlay_rules_follow_what_each_refresh_writes() -> None:
    """CURRENCIES and INSTANCE_ROWS say what the refresh modules write: keep them together."""
    assert set(overlay_file.CURRENCIES) == set(catalog.INSTANCE_CLOUDS) == set(VENDORS)
    for cloud in VENDORS:
        api = vendor(cloud)
        assert getattr(api, "CURRENCY", "USD") == overlay_file.CURRENCIES[cloud], cloud
        assert hasattr(api, "instance_types") == (cloud in overlay_file.INSTANCE_ROWS), cloud


HOSTILE = [
    json.dumps(aws_overlay(on_demand_hourly=12345.0)).replace("12345.0", "NaN"),
    json.dumps(aws_overlay(currency="<!--")),
    json.dumps(aws_overlay())[:70],
    "[" * 50_000,
    json.dumps({**aws_overlay(), "prices": 3}),
    json.dumps({**aws_overlay(), "format_version": "9"}),
]


@pytest.mark.parametrize("text", HOSTILE)
@pytest.mark.parametrize("argv", [["validate"], ["plan"], ["plan", "--format", "json"],
                                  ["plan", "--format", "markdown"], ["render", "--out"],
                                  ["catalog", "instances", "--cloud", "aws"]])  # fmt: skip
def test_the_cli_says_one_line_naming_the_overlay(
    folder: Path,
    tmp_path: Path,
    text: str,
    argv: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """validate, plan (every format), render (whose showback rules once said ``* nan``) and
    catalog instances exit 1 with one error line, never an internal error; JSON gets the error
    document of kind input."""
    path = folder / "instances-aws.json"
    path.write_text(text, "utf-8")
    words = [*argv, str(tmp_path / "out")] if argv[0] == "render" else argv
    code, err = cli(*words, *([] if argv[0] == "catalog" else [str(EXAMPLE)]))
    out = capsys.readouterr().out
    assert code == 1
    assert "internal error" not in err and "Traceback" not in err
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and str(path) in lines[0], err
    assert "$nan" not in out and "* nan" not in out
    if "json" in argv:  # the error document only, no plan
        document = json.loads(out)
        assert set(document) == {"format_version", "error"}
        assert document["error"]["kind"] == "input"


def test_a_hostile_overlay_never_reaches_a_plan_comment(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reproducer: a planted currency with another stack's marker gave a fake comment."""
    document = copy.deepcopy(aws_overlay(currency="USD -->\n<!-- gpupool-plan:other -->"))
    (folder / "instances-aws.json").write_text(json.dumps(document))
    code, _ = cli("plan", "--format", "markdown", str(EXAMPLE))
    assert code == 1 and "gpupool-plan:other" not in capsys.readouterr().out
