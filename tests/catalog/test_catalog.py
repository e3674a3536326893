"""Catalog data integrity, known facts, and lookups."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from gpupool import catalog, clouds
from gpupool.catalog import instance_types, price_overlay, rows
from tests import upstream_facts

ALL_INSTANCES = catalog.instances()
MIG_MODELS = [m for m in catalog.gpus() if m.mig is not None and m.mig.profiles_known]


# ---------------------------------------------------------------- data integrity


def test_every_instance_names_a_canonical_gpu() -> None:
    """Every instance's gpu is the canonical name of a catalog GPU model."""
    for entry in ALL_INSTANCES:
        model = catalog.gpu(entry.gpu)
        assert model is not None, entry.name
        assert model.name == entry.gpu
        assert entry.gpu_memory_gib == model.memory_gib


def test_instance_names_unique_per_cloud() -> None:
    """No cloud lists an instance name twice."""
    seen: set[tuple[str, str]] = set()
    for entry in ALL_INSTANCES:
        key = (entry.cloud, entry.name)
        assert key not in seen
        seen.add(key)


def test_instance_numbers_are_sane() -> None:
    """Counts, vCPUs, RAM and fractions are positive and fractions are at most one GPU."""
    for entry in ALL_INSTANCES:
        assert entry.gpu_count >= 1 and entry.vcpus >= 1 and entry.memory_gib > 0, entry.name
        assert 0 < entry.gpu_fraction <= 1
        if entry.gpu_fraction < 1:
            assert entry.gpu_count == 1, "fractional sizes carry a slice of one GPU"


def test_prices_positive_usd_and_spot_below_on_demand() -> None:
    """Known prices are positive USD, and a spot sample is below the on-demand price."""
    for entry in ALL_INSTANCES:
        price = entry.price
        assert price.currency == "USD"
        # a cloud without a reference region (Volcengine) has no prices to place anywhere
        reference = catalog.cloud(entry.cloud).reference_region
        assert price.region == (reference or ""), entry.name
        if reference is None:
            assert price.on_demand_hourly is None and price.spot_hourly is None, entry.name
        for value in (price.on_demand_hourly, price.spot_hourly):
            assert value is None or value > 0, entry.name
        if price.on_demand_hourly is not None and price.spot_hourly is not None:
            assert price.spot_hourly < price.on_demand_hourly, entry.name


def test_most_instances_have_an_on_demand_price() -> None:
    """At least 80% of AWS and Azure entries carry an on-demand price."""
    for cloud in ("aws", "azure"):
        entries = catalog.instances(cloud=cloud)
        priced = [e for e in entries if e.price.on_demand_hourly is not None]
        assert len(priced) >= 0.8 * len(entries)


def test_nvswitch_implies_nvlink() -> None:
    """An instance with NVSwitch also has NVLink, and NVLink needs an NVLink-capable GPU."""
    for entry in ALL_INSTANCES:
        if entry.interconnect.nvswitch:
            assert entry.interconnect.nvlink, entry.name
        if entry.interconnect.nvlink:
            assert catalog.gpu(entry.gpu).nvlink and entry.gpu_count > 1, entry.name


def test_efa_only_on_aws() -> None:
    """EFA is an AWS fabric; other clouds never claim it."""
    for entry in ALL_INSTANCES:
        if entry.interconnect.efa:
            assert entry.cloud == "aws", entry.name


@pytest.mark.parametrize(
    ("name", "count"),
    [
        ("p5.48xlarge", 32),
        ("p5e.48xlarge", 32),
        ("p5en.48xlarge", 16),
        ("p4d.24xlarge", 4),
        ("p6-b200.48xlarge", 8),
        ("g6e.48xlarge", 4),
        ("g5.48xlarge", 1),
        ("g5.xlarge", 0),
    ],
)
def test_efa_interfaces_per_instance_type(name: str, count: int) -> None:
    """EFA interfaces are EC2's EfaInfo.MaximumEfaInterfaces.

    As aws/karpenter-provider-aws@1d927085 website/content/en/preview/reference/
    instance-types.md lists them (vpc.amazonaws.com/efa); p5.48xlarge's 32 is also AWS EC2 UG
    efa-acc-inst-types.md ("EFA configuration for P5") and terraform-aws-eks
    docs/networking/efa.md ("p5.48xlarge exposes all 32 EFA interfaces").
    """
    entry = catalog.instance("aws", name)
    assert entry is not None
    assert entry.interconnect.efa_interfaces == count
    assert entry.interconnect.efa == (count > 0)


def test_efa_instance_types_are_the_efa_device_plugins() -> None:
    """Every catalog size with EFA is one the EFA device plugin's DaemonSet runs on.

    aws/eks-charts stable/aws-efa-k8s-device-plugin/values.yaml (chart v0.5.30)
    supportedInstanceLabels, from gpupool's table of it (tests/upstream_facts/charts): the
    DaemonSet's node affinity on the instance-type label; a size missing there would get EFA
    interfaces no plugin advertises.
    """
    plugin = upstream_facts.chart("aws-efa-k8s-device-plugin")
    assert plugin.default("supportedInstanceLabels.keys") == ["node.kubernetes.io/instance-type"]
    supported = set(plugin.default("supportedInstanceLabels.values"))
    efa = {e.name for e in catalog.instances(cloud="aws") if e.interconnect.efa}
    assert efa and efa <= supported, sorted(efa - supported)


def test_gpudirect_nics_of_gke_a3() -> None:
    """GKE docs gpu-bandwidth-gpudirect-tcpx: A3 High TCPX over 4 NICs, A3 Mega TCPXO over 8."""
    for name, protocol, nics in [
        ("a3-highgpu-8g", "GPUDirect-TCPX", 4),
        ("a3-megagpu-8g", "GPUDirect-TCPXO", 8),
    ]:
        entry = catalog.instance("gcp", name)
        assert entry is not None
        assert (entry.interconnect.gpudirect, entry.interconnect.gpudirect_nics) == (protocol, nics)
    entry = catalog.instance("gcp", "a2-ultragpu-8g")
    assert entry is not None and entry.interconnect.gpudirect is None


def test_gcp_accelerators_resolve_to_the_instance_gpu() -> None:
    """Every GCP entry names a guest accelerator type that maps back to its GPU model."""
    for entry in catalog.instances(cloud="gcp"):
        assert entry.accelerator is not None, entry.name
        model = catalog.gpu(entry.accelerator)
        assert model is not None and model.name == entry.gpu, entry.name


def test_mig_profiles_fit_their_geometry() -> None:
    """Every MIG profile's placements and compute slices fit inside its GPU's geometry."""
    for model in MIG_MODELS:
        geometry = model.mig
        assert geometry is not None
        names = [p.name for p in geometry.profiles]
        assert len(names) == len(set(names)), model.name
        for profile in geometry.profiles:
            assert profile.placements, (model.name, profile.name)
            assert profile.compute_slices * profile.max_count <= geometry.compute_slices
            for start in profile.placements:
                assert start >= 0 and start + profile.memory_slots <= geometry.memory_slots
            named = re.fullmatch(r"\d+g\.(\d+)gb([+-](me|me\.all|gfx))?", profile.name)
            assert named is not None, profile.name
            size_gb = int(named.group(1))
            assert profile.memory_gib == size_gb
            # drivers round: GB200's 7g.189gb sits on a part sold as 186 GB (mig-parted
            # config-default names both 7g.186gb and 7g.189gb)
            assert profile.memory_gib <= model.memory_gib * 1.02


def test_every_profile_fits_alone_at_its_max_count() -> None:
    """mig-parted's all-<profile> config (each profile at its max count) fits on every model."""
    for model in MIG_MODELS:
        assert model.mig is not None
        for profile in model.mig.profiles:
            fit = catalog.fit_layout(model, {profile.name: profile.max_count})
            assert fit.ok, (model.name, profile.name, fit.detail)
            assert len(fit.placements) == profile.max_count
            over = catalog.fit_layout(model, {profile.name: profile.max_count + 1})
            assert not over.ok and over.unplaced == profile.name


def test_balanced_config_fits_on_seven_slice_models() -> None:
    """mig-parted's all-balanced config ({1g:2, 2g:1, 3g:1}) fits on every 7-slice model."""
    for model in MIG_MODELS:
        assert model.mig is not None
        if model.mig.compute_slices != 7:
            continue
        small, two, three = (
            next(p.name for p in model.mig.profiles if p.name.startswith(prefix))
            for prefix in ("1g.", "2g.", "3g.")
        )
        fit = catalog.fit_layout(model, {small: 2, two: 1, three: 1})
        assert fit.ok, (model.name, fit.detail)


def test_datasets_have_sources_and_dates() -> None:
    """Every data file records its sources and an ISO as-of date."""
    names = [d.name for d in catalog.datasets()]
    assert names == [
        "gpus",
        "instances-aws",
        "instances-gcp",
        "instances-azure",
        "instances-volcengine",
        "clouds",
    ]
    for data in catalog.datasets():
        assert data.source and all(s.strip() for s in data.source)
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", data.as_of)


def test_catalog_loads_lazily() -> None:
    """Importing gpupool.catalog reads no data file until the first lookup."""
    code = (
        "import gpupool.catalog as c\n"
        "from gpupool.catalog import rows\n"
        "assert rows.load.cache_info().currsize == 0\n"
        "c.gpu('L4')\n"
        "assert rows.load.cache_info().currsize == 1\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# ---------------------------------------------------------------- known facts


def test_g6_xlarge_has_one_l4() -> None:
    """g6.xlarge carries one 24 GB L4, 4 vCPUs and 16 GiB RAM."""
    entry = catalog.instance("aws", "g6.xlarge")
    assert entry is not None
    assert (entry.gpu, entry.gpu_count, entry.vcpus, entry.memory_gib) == ("L4", 1, 4, 16)
    assert entry.total_gpu_memory_gib == 24
    assert entry.price.on_demand_hourly == pytest.approx(0.8048)


def test_p5_48xlarge_has_eight_h100_with_efa() -> None:
    """p5.48xlarge carries 8 H100 80GB with NVSwitch and EFA at the 2026 on-demand price."""
    entry = catalog.instance("aws", "p5.48xlarge")
    assert entry is not None
    assert entry.gpu == "H100-SXM5-80GB" and entry.gpu_count == 8
    assert entry.interconnect.efa and entry.interconnect.nvswitch
    assert entry.total_gpu_memory_gib == 640
    assert entry.price.on_demand_hourly == pytest.approx(55.04)


def test_a30_geometry() -> None:
    """A30 has 4 compute slices and 4 memory slots; A100 has 7 and 8."""
    a30 = catalog.gpu("A30")
    a100 = catalog.gpu("A100-SXM4-40GB")
    assert a30 is not None and a30.mig is not None and a100 is not None and a100.mig is not None
    assert (a30.mig.compute_slices, a30.mig.memory_slots) == (4, 4)
    assert (a100.mig.compute_slices, a100.mig.memory_slots) == (7, 8)


def test_a100_40gb_1g10gb_takes_two_memory_slots() -> None:
    """A100-40GB 1g.10gb takes 2 memory slots, max 4, at even starts (go-nvml's A100 mock)."""
    model = catalog.gpu("A100-40GB")
    assert model is not None and model.mig is not None
    profile = model.mig.profile("1g.10gb")
    assert profile is not None
    assert (profile.memory_slots, profile.max_count, profile.placements) == (2, 4, (0, 2, 4, 6))


def test_other_known_instances() -> None:
    """Spot checks across clouds: NVSwitch, fractions, n1 synthetic names, PCIe A100."""
    p4d = catalog.instance("aws", "p4d.24xlarge")
    assert p4d is not None and p4d.gpu == "A100-SXM4-40GB" and p4d.interconnect.nvswitch
    n1 = catalog.instance("gcp", "n1-standard-8-t4x1")
    assert n1 is not None and n1.machine_type == "n1-standard-8" and n1.gpu_count == 1
    assert n1.accelerator == "nvidia-tesla-t4"
    a2 = catalog.instance("gcp", "a2-highgpu-1g")
    assert a2 is not None and a2.price.on_demand_hourly == pytest.approx(3.673)
    nv6 = catalog.instance("azure", "Standard_NV6ads_A10_v5")
    assert nv6 is not None and nv6.gpu_fraction == pytest.approx(1 / 6)
    assert nv6.total_gpu_memory_gib == pytest.approx(4)
    nc = catalog.instance("azure", "Standard_NC24ads_A100_v4")
    assert nc is not None and nc.gpu == "A100-PCIE-80GB"
    nd = catalog.instance("azure", "Standard_ND96isr_H100_v5")
    assert nd is not None and nd.gpu_count == 8 and nd.price.spot_hourly is None


def test_cloud_facts() -> None:
    """Spot notices, bids and spot support match what the clouds document."""
    aws, gcp, azure = catalog.cloud("aws"), catalog.cloud("gcp"), catalog.cloud("azure")
    assert (aws.spot_notice_seconds, gcp.spot_notice_seconds, azure.spot_notice_seconds) == (
        120,
        30,
        30,
    )
    assert not aws.spot_bid and not gcp.spot_bid and azure.spot_bid
    # Volcengine: VKE node pools take SpotAsPriceGo or NoSpot, no price-limit strategy
    # (terraform-provider-volcenginecc Volcengine_VKE_NodePool.json, SpotStrategy enum), and
    # BytePlus's ECS docs ("Data recovery when spot instances are reclaimed") give 5 minutes'
    # notice before a spot instance is interrupted
    vke = catalog.cloud("volcengine")
    assert vke.spot_node_pools and not vke.spot_bid and vke.spot_notice_seconds == 300
    assert not catalog.cloud("kubernetes").spot_node_pools
    # validation refuses spot on no cloud that provisions (gpupool.spec.checks.spot): a cloud
    # added without spot node pools would need that check back
    for cloud in clouds.all_clouds():
        assert catalog.cloud(cloud.name).spot_node_pools == cloud.provisions, cloud.name
    with pytest.raises(LookupError, match="known clouds"):
        catalog.cloud("oracle")


def test_compute_capability_comparison() -> None:
    """cc_at_least compares versions numerically (V100 7.0 < 7.5 <= T4; 10.0 > 9.0)."""
    t4, v100, b200 = catalog.gpu("T4"), catalog.gpu("V100"), catalog.gpu("B200")
    assert t4 is not None and v100 is not None and b200 is not None
    assert t4.cc_at_least("7.5") and not v100.cc_at_least("7.5")
    assert b200.cc_at_least("9.0") and not t4.cc_at_least("10.0")


def test_bf16_null_only_where_unsupported_or_unknown() -> None:
    """T4 and V100 have no BF16; Ampere and newer with known figures do."""
    for name in ("T4", "V100-SXM2-16GB", "V100-SXM2-32GB"):
        model = catalog.gpu(name)
        assert model is not None and model.bf16_tflops is None
    for name in ("A100-SXM4-80GB", "H100-SXM5-80GB", "L4", "A10G"):
        model = catalog.gpu(name)
        assert model is not None and model.bf16_tflops and model.bf16_tflops > 0


# ---------------------------------------------------------------- lookups


@pytest.mark.parametrize(
    ("spelling", "canonical"),
    [
        ("A100-80GB", "A100-SXM4-80GB"),
        ("a100-80gb", "A100-SXM4-80GB"),
        ("nvidia-tesla-a100", "A100-SXM4-40GB"),
        ("NVIDIA-A100-SXM4-80GB", "A100-SXM4-80GB"),
        ("H100", "H100-SXM5-80GB"),
        ("nvidia h100 80gb", "H100-SXM5-80GB"),
        ("Tesla-T4", "T4"),
        ("nvidia_l4", "L4"),
        ("H200", "H200-SXM5-141GB"),
        ("v100-32gb", "V100-SXM2-32GB"),
    ],
)
def test_gpu_lookup_by_alias(spelling: str, canonical: str) -> None:
    """Aliases, product labels and GKE names resolve, ignoring case and separators."""
    model = catalog.gpu(spelling)
    assert model is not None and model.name == canonical


def test_gpu_lookup_unknown_and_ambiguous() -> None:
    """Unknown and ambiguous names (plain A100) return None rather than a guess."""
    assert catalog.gpu("A100") is None
    assert catalog.gpu("RTX 3090") is None


def test_every_alias_resolves_to_its_model() -> None:
    """Each model's name, aliases, product label and GKE type lead back to that model."""
    for model in catalog.gpus():
        for spelling in (model.name, *model.aliases, model.product_label):
            assert catalog.gpu(spelling) is model, spelling
        if model.gke_accelerator:
            assert catalog.gpu(model.gke_accelerator) is model


def test_instance_lookup_is_exact() -> None:
    """Instance names are case-sensitive and scoped to their cloud."""
    assert catalog.instance("aws", "g6.xlarge") is not None
    assert catalog.instance("aws", "G6.XLARGE") is None
    assert catalog.instance("gcp", "g6.xlarge") is None
    assert catalog.instance("kubernetes", "g6.xlarge") is None


def test_instances_filter_by_cloud_and_gpu_alias() -> None:
    """instances() filters by cloud and by any GPU spelling; unknown filters match nothing."""
    h100_aws = catalog.instances(cloud="aws", gpu="H100")
    assert [e.name for e in h100_aws] == ["p5.4xlarge", "p5.48xlarge"]
    assert all(e.cloud == "gcp" for e in catalog.instances(cloud="gcp"))
    l4 = catalog.instances(gpu="nvidia-l4")
    assert {e.cloud for e in l4} == {"aws", "gcp"} and all(e.gpu == "L4" for e in l4)
    assert catalog.instances(gpu="no-such-gpu") == ()
    assert catalog.instances(cloud="nowhere") == ()
    assert len(catalog.instances()) == sum(len(catalog.instances(c)) for c in rows.INSTANCE_CLOUDS)


def test_malformed_data_is_rejected() -> None:
    """The loader refuses rows with unknown keys instead of ignoring a typo."""
    with pytest.raises(catalog.CatalogDataError, match="unexpected"):
        rows.keys({"name": "x", "nmae": "y"}, ("name",), "test row")
    with pytest.raises(catalog.CatalogDataError, match="positive"):
        rows.positive(0, "test row")


# ---------------------------------------------------------------- prices and regions


def test_every_price_row_names_its_source_and_date() -> None:
    """Each instance row carries its own price source and as-of date; no price is $0."""
    for entry in catalog.instances():
        price = entry.price
        assert price.source.strip(), entry.name
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", price.as_of), entry.name
        for value in (price.on_demand_hourly, price.spot_hourly):
            assert value is None or value > 0, entry.name


def test_spot_prices_of_the_l4_g6_family_are_known() -> None:
    """Every g6 size has a us-east-1 spot sample below its on-demand price."""
    sizes = [e for e in catalog.instances(cloud="aws") if e.name.startswith("g6.")]
    assert len(sizes) == 8
    for entry in sizes:
        od, spot = entry.price.on_demand_hourly, entry.price.spot_hourly
        assert od is not None and spot is not None and spot < od, entry.name


def test_gcp_a2_ultragpu_and_a3_have_prices() -> None:
    """The GKE example's a2-ultragpu and a3 sizes are priced, on-demand and spot."""
    for name in ("a2-ultragpu-1g", "a2-ultragpu-8g", "a3-highgpu-8g", "a3-megagpu-8g"):
        entry = catalog.instance("gcp", name)
        assert entry is not None and entry.price.on_demand_hourly and entry.price.spot_hourly


def test_reference_regions_and_instance_regions_are_cloud_regions() -> None:
    """Each cloud's reference region is one of its regions, as is every listed offer region."""
    for facts in catalog.clouds():
        if facts.regions:
            assert facts.reference_region in facts.regions, facts.name
            assert len(set(facts.regions)) == len(facts.regions), facts.name
        for entry in catalog.instances(cloud=facts.name):
            assert set(entry.regions) <= set(facts.regions), entry.name
            if entry.regions and entry.price.on_demand_hourly is not None:  # p5e: no row there
                assert entry.price.region in entry.regions, entry.name
    assert not catalog.cloud("volcengine").regions  # no confirmed list


def test_aws_regions_are_botocore_endpoint_regions() -> None:
    """The AWS list is botocore's endpoints.json (aws, aws-cn, aws-us-gov partitions)."""
    botocore = pytest.importorskip("botocore")
    endpoints = json.loads(
        (Path(botocore.__file__).parent / "data" / "endpoints.json").read_text(encoding="utf-8")
    )
    wanted = {
        region
        for partition in endpoints["partitions"]
        if partition["partition"] in ("aws", "aws-cn", "aws-us-gov")
        for region in partition["regions"]
    }
    # a newer botocore may know newer regions; every catalog region must be one it knows
    assert set(catalog.cloud("aws").regions) <= wanted
    assert {"us-east-1", "eu-west-1", "cn-north-1", "us-gov-west-1"} <= set(
        catalog.cloud("aws").regions
    )


def test_volcengine_rows_are_only_the_sourced_types() -> None:
    """Only types whose GPUs, vCPUs and memory all have a source, each with its confidence."""
    rows = {e.name: e for e in catalog.instances(cloud="volcengine")}
    assert set(rows) == {"ecs.gni2.3xlarge", "ecs.ebmhpcpni3l.48xlarge"}
    a10, h20 = rows["ecs.gni2.3xlarge"], rows["ecs.ebmhpcpni3l.48xlarge"]
    assert (a10.gpu, a10.gpu_count, a10.vcpus, a10.memory_gib, a10.confidence) == (
        "A10", 1, 14, 56, "C"
    )
    assert (h20.gpu, h20.gpu_count, h20.vcpus, h20.memory_gib, h20.confidence) == (
        "H20", 8, 192, 2048, "B"
    )
    assert h20.total_gpu_memory_gib == 8 * 96  # H20-SXM5-96GB, bound to the type
    for entry in rows.values():
        assert entry.price.on_demand_hourly is None and entry.price.spot_hourly is None


# ---------------------------------------------------------------- the local overlay


@pytest.fixture
def overlay_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point the catalog at an empty overlay directory, with its caches cleared around it."""
    monkeypatch.setenv(catalog.OVERLAY_ENV, str(tmp_path))
    caches = (price_overlay.read_overlay, instance_types._instance_catalog)
    for cached in caches:
        cached.cache_clear()
    yield tmp_path / "instances-volcengine.json"
    for cached in caches:
        cached.cache_clear()


def _row(name: str, gpu: str = "L20", **changes: object) -> dict[str, object]:
    """An overlay instance row as gpupool catalog refresh writes it."""
    row: dict[str, object] = {
        "cloud": "volcengine", "name": name, "machine_type": name, "gpu": gpu, "gpu_count": 1,
        "vcpus": 44, "memory_gib": 232,
        "interconnect": {"nvlink": False, "nvswitch": False, "efa": False, "infiniband": False},
        "price": {"region": "cn-beijing", "currency": "CNY", "on_demand_hourly": None,
                  "spot_hourly": 3.5, "source": "refresh", "as_of": "2026-12-15"},
        "confidence": "A", "source": "gpupool catalog refresh 2026-12-15: ECS "
        "DescribeInstanceTypes cn-beijing",
    }  # fmt: skip
    row.update(changes)
    return row


def _write(path: Path, instances: list[object], prices: Sequence[object] = ()) -> None:
    path.write_text(json.dumps({
        "source": ["gpupool catalog refresh 2026-12-15"], "as_of": "2026-12-15",
        "cloud": "volcengine", "prices": list(prices), "instances": instances,
    }), "utf-8")  # fmt: skip


def test_overlay_instance_rows_add_types_and_only_price_bundled_ones(overlay_file: Path) -> None:
    """A row of a type the bundled file lacks becomes a Volcengine instance, GPU memory bound to
    its catalog GPU; a row of a bundled type changes its price and regions, never its facts."""
    bundled = _row("ecs.gni2.3xlarge", gpu="H20", vcpus=99, regions=["cn-shanghai"])
    _write(overlay_file, [_row("ecs.gni3cl.11xlarge"), bundled])
    added = catalog.instance("volcengine", "ecs.gni3cl.11xlarge")
    assert added is not None
    assert (added.gpu, added.total_gpu_memory_gib, added.memory_gib, added.confidence) == (
        "L20", 48.0, 232.0, "A"
    )
    assert added.price.spot_hourly == 3.5 and added.price.currency == "CNY"
    a10 = catalog.instance("volcengine", "ecs.gni2.3xlarge")
    assert a10 is not None
    assert (a10.gpu, a10.vcpus, a10.confidence) == ("A10", 14, "C")  # the bundled facts
    assert a10.regions == ("cn-shanghai",) and a10.price.spot_hourly == 3.5
    assert catalog.overlay_types("volcengine") == ("ecs.gni3cl.11xlarge",)
    assert [e.name for e in catalog.bundled_instances("volcengine")] == [
        "ecs.gni2.3xlarge", "ecs.ebmhpcpni3l.48xlarge"
    ]  # fmt: skip
    assert [e.name for e in catalog.instances("volcengine", gpu="L20")] == ["ecs.gni3cl.11xlarge"]


def test_an_overlay_price_row_still_prices_an_instance_row(overlay_file: Path) -> None:
    """The ``prices`` rows (the overlay's original shape) apply after the instance rows."""
    price = {"region": "cn-beijing", "currency": "CNY", "on_demand_hourly": 9.0,
             "spot_hourly": None, "source": "later", "as_of": "2026-12-16"}  # fmt: skip
    _write(overlay_file, [_row("ecs.gni3cl.11xlarge")], [
        {"name": "ecs.gni3cl.11xlarge", "price": price}
    ])  # fmt: skip
    added = catalog.instance("volcengine", "ecs.gni3cl.11xlarge")
    assert added is not None and added.price.on_demand_hourly == 9.0
    assert added.price.as_of == "2026-12-16"


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        (_row("ecs.x", gpu="Tesla-V100"), "is not a canonical GPU model name"),
        (_row("ecs.x", source=""), "names its source"),
        (_row("ecs.x", cloud="aws"), "cloud 'aws' in the volcengine file"),
        (_row("ecs.x", gpus=2), "unexpected \\['gpus'\\]"),
        ("ecs.x", "expected an object"),
    ],
)
def test_a_malformed_overlay_instance_row_names_itself(
    overlay_file: Path, row: object, problem: str
) -> None:
    """An instance row is checked like a bundled one (canonical GPU, known keys) and needs its
    source; the error names the overlay file."""
    _write(overlay_file, [row])
    with pytest.raises(catalog.OverlayError, match=problem) as caught:
        catalog.instances("volcengine")
    assert str(overlay_file) in str(caught.value)
