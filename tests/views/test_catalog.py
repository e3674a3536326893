"""Text and JSON output of the catalog (``gpupool catalog gpus|instances``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpupool import catalog
from gpupool.formats import FORMAT_VERSION
from gpupool.usecases.catalog import Refreshed
from gpupool.views import catalog as view
from gpupool.views.catalog import format_gpus, format_instances, format_regions


def test_instances_text_answers_h100_on_aws() -> None:
    """One call lists the AWS H100 sizes with prices, per-GPU price and the data's date."""
    text = format_instances(catalog.instances(cloud="aws", gpu="H100"), "text")
    lines = text.splitlines()
    assert lines[0].split()[:4] == ["CLOUD", "INSTANCE", "GPU", "GPUS"]
    assert "ON-DEMAND $/H" in lines[0] and "SPOT $/H" in lines[0]
    row = next(line for line in lines if "p5.48xlarge" in line).split()
    assert row[:4] == ["aws", "p5.48xlarge", "H100-SXM5-80GB", "8"]
    assert row[-4:] == ["55.04", "30.33", "6.88", "2026-07-20"]  # the row's own price date
    assert "Data: instances-aws as of 2026-12-02; sources:" in text
    assert text.endswith("\n")


def test_instances_text_columns_align() -> None:
    """Every row of the table starts its columns where the header does."""
    lines = format_instances(catalog.instances(cloud="azure"), "text").splitlines()
    header = lines[0]
    column = header.index("INSTANCE")
    for line in lines[1 : 1 + len(catalog.instances(cloud="azure"))]:
        assert line[column - 2 : column] == "  " and line[column] != " "


def test_fractional_and_unknown_prices_in_text() -> None:
    """vGPU slices show as fractions and unknown prices as '-'."""
    text = format_instances([catalog.instance("azure", "Standard_NV6ads_A10_v5")], "text")
    row = text.splitlines()[1].split()
    assert row[3] == "1/6"
    assert row[-4:-1] == ["-", "-", "-"]  # unknown prices, never $0


def test_instances_json_shape() -> None:
    """JSON carries format_version 1, every field, derived totals and the datasets."""
    doc = json.loads(format_instances(catalog.instances(cloud="aws", gpu="L4"), "json"))
    assert doc["format_version"] == "1"
    first = doc["instances"][0]
    assert set(first) >= {
        "cloud", "name", "machine_type", "gpu", "gpu_count", "vcpus", "memory_gib",
        "interconnect", "price", "gpu_fraction", "accelerator", "total_gpu_memory_gib",
    }  # fmt: skip
    assert first["name"] == "g6.xlarge" and first["total_gpu_memory_gib"] == 24
    assert first["interconnect"] == {"nvlink": False, "nvswitch": False, "efa": False,
                                     "infiniband": False, "efa_interfaces": 0,
                                     "gpudirect": None, "gpudirect_nics": 0}  # fmt: skip
    assert first["price"]["currency"] == "USD"
    assert {d["name"] for d in doc["datasets"]} == {"gpus", "instances-aws"}


def test_gpus_json_shape() -> None:
    """GPU JSON lists every model with MIG profiles as plain lists."""
    doc = json.loads(format_gpus(catalog.gpus(), "json"))
    assert doc["format_version"] == "1"
    by_name = {g["name"]: g for g in doc["gpus"]}
    assert len(by_name) == len(catalog.gpus())
    a30 = by_name["A30"]
    assert a30["mig_capable"] and a30["mig"]["compute_slices"] == 4
    assert a30["mig"]["profiles"][0]["placements"] == [0, 1, 2, 3]
    assert by_name["T4"]["mig"] is None and by_name["T4"]["bf16_tflops"] is None


def test_gpus_text_lists_models_and_source() -> None:
    """The GPU table shows memory, compute capability, MIG and the dataset note."""
    text = format_gpus(catalog.gpus(), "text")
    row = next(line for line in text.splitlines() if line.startswith("A100-SXM4-80GB")).split()
    assert row[1:3] == ["80", "8.0"]
    assert "7 profiles" in text and "11 profiles (4 slices)" in text  # RTX PRO 6000
    assert "Data: gpus as of" in text


def test_empty_and_bad_format() -> None:
    """Empty selections say so; unknown formats raise ValueError."""
    assert format_instances([], "text") == "No instance types match.\n"
    assert json.loads(format_instances([], "json"))["instances"] == []
    with pytest.raises(ValueError, match="unknown format"):
        format_gpus(catalog.gpus(), "yaml")


def test_regions_text_and_json() -> None:
    """Each cloud's regions on one line; a cloud without a list says it is not checked."""
    text = format_regions(catalog.clouds(), "text")
    aws = next(line for line in text.splitlines() if line.startswith("aws ("))
    assert "us-east-1" in aws and "us-central1" not in aws
    assert "volcengine (0): no confirmed list: regions are not checked" in text
    doc = json.loads(format_regions([catalog.cloud("gcp")], "json"))
    assert "us-central1" in doc["clouds"][0]["regions"]
    assert doc["datasets"][0]["name"] == "clouds"


def test_refresh_result_as_json_names_everything_the_text_does(tmp_path: Path) -> None:
    """--format json on catalog refresh: one document with the overlay and every list."""
    result = Refreshed(tmp_path / "instances-volcengine.json", "cn-beijing", "2026-12-02",
                       ("ecs.gni2.3xlarge",), ("ecs.ebmhpcpni3l.48xlarge",),
                       ("ecs.gni3cl.11xlarge",), ("ecs.g1ve.2xlarge: no such GPU",),
                       ("ecs.gni2.3xlarge: vCPUs 14, the API says 12",),
                       ("ecs.bad: vcpus: expected an integer from 1 to 4096, got -4",))  # fmt: skip
    doc = json.loads(view.format_refreshed(result, "json"))
    assert doc == {
        "format_version": FORMAT_VERSION, "overlay": str(result.path), "region": "cn-beijing",
        "as_of": "2026-12-02", "priced": ["ecs.gni2.3xlarge"],
        "missing": ["ecs.ebmhpcpni3l.48xlarge"], "added": ["ecs.gni3cl.11xlarge"],
        "skipped": ["ecs.g1ve.2xlarge: no such GPU"],
        "disputed": ["ecs.gni2.3xlarge: vCPUs 14, the API says 12"],
        "refused": ["ecs.bad: vcpus: expected an integer from 1 to 4096, got -4"],
    }  # fmt: skip
    text = view.format_refreshed(result)
    for item in (*result.added, *result.skipped, *result.disputed, *result.missing,
                 *result.refused):  # fmt: skip
        assert item in text
