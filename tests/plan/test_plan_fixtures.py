"""Plans of real stack-file pairs through the real graph builder, checked against the catalog.

Each ``tests/fixtures/plan/<case>/`` holds a ``base.yaml`` and a ``desired.yaml``; swapping them
gives the opposite change (remove a pool, on-demand -> spot). Cost and capacity are checked by an
independent calculation that reads the catalog's JSON files directly, not through gpupool.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gpupool import plan
from gpupool.assemble import build
from gpupool.spec.validate import validate_file
from gpupool.usecases.base import load_base
from gpupool.views import plan_json
from tests.paths import EXAMPLES, FIXTURES, PACKAGE
from tests.stacks import load_stack

CASES = FIXTURES / "plan"
CATALOG = PACKAGE / "catalog" / "data"
MONTH = 730


def plan_files(desired_file: Path, base_file: Path | None) -> plan.PlanResult:
    """Plan a desired stack file against a base stack file (None: an empty base)."""
    desired = load_stack(desired_file)
    if base_file is None:
        base = plan.Base("empty", None, None)
    else:
        base = load_base(desired_file, desired.name, str(base_file))
    return plan.make_plan(base, build(desired), desired)


def plan_case(case: str, swap: bool = False) -> plan.PlanResult:
    """Plan a fixture pair (``swap``: desired is the base file and the other way round)."""
    base, desired = CASES / case / "base.yaml", CASES / case / "desired.yaml"
    return plan_files(base, desired) if swap else plan_files(desired, base)


def find(
    result: plan.PlanResult, match: Callable[[plan.ResourceChange], bool]
) -> plan.ResourceChange:
    """The one change matching ``match``."""
    (hit,) = [c for c in result.changes if match(c)]
    return hit


def address(name: str) -> Callable[[plan.ResourceChange], bool]:
    return lambda c: c.address == name


def changed(result: plan.PlanResult) -> dict[str, str]:
    """Address -> action of every change that is not a no-op."""
    return {c.address: c.action for c in result.changes if c.action != "no-op"}


def catalog_rows(cloud: str) -> dict[str, dict[str, Any]]:
    data = json.loads((CATALOG / f"instances-{cloud}.json").read_text(encoding="utf-8"))
    return {row["name"]: row for row in data["instances"]}


def gpu_rows() -> dict[str, dict[str, Any]]:
    data = json.loads((CATALOG / "gpus.json").read_text(encoding="utf-8"))
    return {row["name"]: row for row in data["gpus"]}


# ------------------------------------------------------------------------------ changes


def test_every_fixture_file_is_valid() -> None:
    """Both sides of every case validate without errors or warnings."""
    for path in sorted(CASES.glob("*/*.yaml")):
        result = validate_file(path)
        problems = [d for d in result.diagnostics if d.severity.value != "info"]  # advice is fine
        assert result.valid and not problems, (path, problems)


def test_no_changes() -> None:
    """Identical files plan no changes; every resource is a no-op."""
    result = plan_case("no-changes")
    assert not result.has_changes
    assert result.summary == plan.Summary(0, 0, 0, 0)
    assert {c.action for c in result.changes} == {"no-op"}


def test_instance_type_with_more_gpu_memory_replaces_the_node_group() -> None:
    """g6.2xlarge (L4, 24 GiB) -> g6e.2xlarge (L40S, 48 GiB) replaces the node group."""
    result = plan_case("instance-type")
    c = find(result, address("pool.infer.node_group"))
    # Pulumi docs, "Resource option: deleteBeforeReplace": the new node group comes first
    assert c.actions == ("create", "delete")
    assert ("instance_types",) in c.replace_paths
    assert c.reasons == (
        "instance type g6.2xlarge -> g6e.2xlarge",
        "GPU model L4 -> L40S",
        "GPU memory 24 GiB -> 48 GiB: GPU memory cannot be resized in place, nodes are replaced",
        "Pulumi creates the new node group before it deletes the old one",
        "8 nodes x 1 GPU = up to 8 GPUs leave at once at nodes.max",
    )
    assert result.summary.replace == 1
    assert result.summary.add >= 1 and result.summary.destroy >= 1


@pytest.mark.parametrize(("swap", "words"), [(False, "spot -> on-demand"),
                                             (True, "on-demand -> spot")])  # fmt: skip
def test_capacity_type_change_replaces_the_aws_node_group(swap: bool, words: str) -> None:
    """Spot <-> on-demand is a replacement on EKS, and the reason says so."""
    c = find(plan_case("spot-on-demand", swap), address("pool.infer.node_group"))
    assert c.action == "replace"
    assert ("capacity_type",) in c.replace_paths
    assert f"{words}: AWS replaces the node group" in c.reasons


def test_nodes_max_is_an_update_in_place() -> None:
    """nodes.max 8 -> 4 updates the node group in place."""
    c = find(plan_case("nodes-max"), address("pool.infer.node_group"))
    assert c.action == "update"
    assert "nodes max 8 -> 4" in c.reasons


def test_time_slicing_replicas_update_the_device_plugin_config() -> None:
    """Replicas 4 -> 8 change the device-plugin ConfigMap, with the slot-memory reason."""
    result = plan_case("timeslicing-replicas")
    c = find(result, lambda c: "device-plugin" in c.address and c.action != "no-op")
    assert c.action == "update"
    assert (
        "pool infer: time-slicing replicas 4 -> 8: slot memory share halves (6 GiB -> 3 GiB), "
        "no isolation"
    ) in c.reasons
    assert changed(result).get("pool.infer.node_group") is None  # the nodes stay


def test_mig_layout_change_on_gke_replaces_the_node_pool() -> None:
    """GKE partitions MIG in the node pool: a new layout is a replacement, said in words."""
    c = find(plan_case("mig-layout"), address("pool.exp.node_group"))
    assert c.action == "replace"
    assert c.reasons[0].startswith("MIG layout {3g.40gb: 2} -> {1g.10gb: 7}: ")
    assert "6 nodes x 1 GPU = up to 6 GPUs leave at once at nodes.max" in c.reasons


@pytest.mark.parametrize("swap", [False, True], ids=["add", "remove"])
def test_add_and_remove_a_pool(swap: bool) -> None:
    """Adding pool train creates its node group; removing it deletes it with its GPUs."""
    result = plan_case("add-pool", swap)
    c = find(result, address("pool.train.node_group"))
    assert c.action == ("delete" if swap else "create")
    if swap:
        assert c.reasons == (
            "removes L40S nodes: 2 nodes x 1 GPU = up to 2 GPUs leave at once at nodes.max",
        )
    else:
        assert c.reasons == ("adds 0-2 L40S GPUs (0-2 nodes x 1 GPU, on-demand)",)
    assert [p.pool for p in result.capacity] == (["infer"] if swap else ["infer", "train"])


@pytest.mark.parametrize("swap", [False, True], ids=["add", "remove"])
def test_add_and_remove_a_tenant(swap: bool) -> None:
    """Adding tenant ads creates its namespace and quota; removing deletes them."""
    result = plan_case("add-tenant", swap)
    mine = {c.address: c.action for c in result.changes if c.owner == "tenant:ads"}
    assert mine and set(mine.values()) == {"delete" if swap else "create"}
    assert any(".namespace." in a for a in mine)
    assert any("resourcequota" in a for a in mine)


def test_quota_and_limit_change_on_the_kai_queue() -> None:
    """Quota 1 -> 4 and limit none -> 6 read as GPU quota and limit on the tenant's queue."""
    result = plan_case("change-quota")
    c = find(result, lambda c: c.owner == "tenant:research" and c.type.endswith(":Queue"))
    assert c.action == "update"
    assert c.reasons[:2] == ("GPU quota 1 -> 4 GPUs", "GPU limit none -> 6 GPUs")
    (tenant,) = result.tenants
    assert (tenant.quota_gpus, tenant.limit_gpus) == (4, 6)


def test_every_update_and_replace_in_every_case_has_a_reason() -> None:
    """No fixture leaves an update or a replacement unexplained."""
    for case in sorted(p.name for p in CASES.iterdir()):
        for swap in (False, True):
            for c in plan_case(case, swap).changes:
                if c.action in ("update", "replace"):
                    assert c.reasons, (case, swap, c.address)


# --------------------------------------------------------------------------------- cost


def test_cost_matches_an_independent_calculation_from_the_catalog() -> None:
    """Spot nodes at spot, the on-demand base at on-demand, 730 h; delta against the base."""
    aws = catalog_rows("aws")
    g6 = aws["g6.2xlarge"]["price"]["on_demand_hourly"]
    g6e_od = aws["g6e.2xlarge"]["price"]["on_demand_hourly"]
    g6e_spot = aws["g6e.2xlarge"]["price"]["spot_hourly"]
    # desired: infer on-demand 2..8; serve spot 2..6 of which 1 on-demand; base: infer 2..4
    hourly_min = 2 * g6 + (1 * g6e_od + 1 * g6e_spot)
    hourly_max = 8 * g6 + (1 * g6e_od + 5 * g6e_spot)
    base_min, base_max = 2 * g6, 4 * g6
    doc = plan_json.to_json(plan_case("cost-spot-split"))
    cost = doc["cost"]
    assert cost["currency"] == "USD"
    assert cost["hourly"]["min"] == pytest.approx(hourly_min, abs=1e-3)
    assert cost["hourly"]["max"] == pytest.approx(hourly_max, abs=1e-3)
    assert cost["monthly"]["min"] == pytest.approx(hourly_min * MONTH, abs=0.01)
    assert cost["monthly"]["max"] == pytest.approx(hourly_max * MONTH, abs=0.01)
    assert cost["onDemandEquivalentHourly"]["min"] == pytest.approx(2 * g6 + 2 * g6e_od, abs=1e-3)
    assert cost["onDemandEquivalentHourly"]["max"] == pytest.approx(8 * g6 + 6 * g6e_od, abs=1e-3)
    assert cost["deltaMonthly"]["min"] == pytest.approx((hourly_min - base_min) * MONTH, abs=0.01)
    assert cost["deltaMonthly"]["max"] == pytest.approx((hourly_max - base_max) * MONTH, abs=0.01)
    # each catalog row carries its own price date; the plan lists those of the rows it priced
    dates = {aws[name]["price"]["as_of"] for name in ("g6.2xlarge", "g6e.2xlarge")}
    assert cost["pricesAsOf"] == sorted(dates)
    assert cost["unpriced"] == []


def test_spot_l4_pool_shows_its_saving_in_the_example() -> None:
    """The AWS example's spot L4 pool (g6.2xlarge) is priced at spot: the saving is shown."""
    spot = catalog_rows("aws")["g6.2xlarge"]["price"]["spot_hourly"]
    od = catalog_rows("aws")["g6.2xlarge"]["price"]["on_demand_hourly"]
    assert spot is not None and 0 < spot < od
    doc = plan_json.to_json(plan_files(EXAMPLES / "aws-inference-l4.yaml", None))
    cost = doc["cost"]
    assert cost["unpriced"] == []
    assert cost["hourly"]["max"] < cost["onDemandEquivalentHourly"]["max"]


def test_every_example_on_a_priced_cloud_prices_every_pool() -> None:
    """Every example's pools are priced (the GKE a3/a2-ultragpu ones too), on-demand and spot.

    Volcengine publishes no prices (its stack is unknown, not $0); on-prem nodes are not priced.
    """
    for path in sorted(EXAMPLES.glob("*.yaml")):
        doc = plan_json.to_json(plan_files(path, None))
        if "volcengine" in path.name:
            assert doc["cost"]["unpriced"], path.name
            continue
        assert doc["cost"]["unpriced"] == [], path.name


def test_unknown_spot_price_is_unknown_not_zero(tmp_path: Path) -> None:
    """A spot pool on a size without a catalog spot price (g7.2xlarge): max is null, not 0."""
    assert catalog_rows("aws")["g7.2xlarge"]["price"]["spot_hourly"] is None
    stack = tmp_path / "spot.yaml"
    stack.write_text(
        "apiVersion: gpupool.io/v1\nkind: GpuPoolStack\nmetadata: {name: t}\n"
        "provider:\n  cloud: aws\n  region: us-east-1\n  cluster: c\n"
        '  settings: {subnetIds: [s-1], nodeRoleArn: "arn:aws:iam::123456789012:role/n"}\n'
        "pools:\n  - name: rtx\n    instanceType: g7.2xlarge\n    nodes: {min: 0, max: 4}\n"
        "    capacity: {type: spot}\n    interruption: {checkpoint: recommended}\n",
        encoding="utf-8",
    )
    doc = plan_json.to_json(plan_files(stack, None))
    assert doc["cost"]["hourly"]["max"] is None
    assert any("g7.2xlarge spot price" in u for u in doc["cost"]["unpriced"])


# ----------------------------------------------------------------------------- capacity


def _capacity(stack_file: Path) -> dict[str, dict[str, Any]]:
    doc = plan_json.to_json(plan_files(stack_file, None))
    return {row["pool"]: row for row in doc["capacity"]}


def test_capacity_time_slicing_mps_and_tflops_against_the_catalog() -> None:
    """GPU memory / replicas per slot, GPUs at min and max, BF16 TFLOPS x GPUs at max."""
    gpus = gpu_rows()
    rows = _capacity(EXAMPLES / "aws-inference-l4.yaml")
    l4, l40s = gpus["L4"], gpus["L40S"]
    infer = rows["infer-l4"]
    assert infer["gpu"] == "L4"
    assert infer["gpus"] == {"min": 3, "max": 8}
    assert (infer["slotsPerGpu"], infer["slotMemoryGiB"]) == (4, l4["memory_gib"] / 4)
    assert infer["qos"] == "shared"
    assert infer["bf16TflopsMax"] == pytest.approx(l4["bf16_tflops"] * 8, abs=0.1)
    mps = rows["infer-l40s-mps"]
    assert (mps["slotsPerGpu"], mps["slotMemoryGiB"]) == (8, l40s["memory_gib"] / 8)
    assert mps["qos"] == "guaranteed"


def test_capacity_mig_per_profile() -> None:
    """MIG slots take the profile's memory; GPUs count whole cards."""
    rows = _capacity(EXAMPLES / "gcp-training-h100-mig.yaml")
    mig = rows["exp-a100-mig"]
    assert (mig["slotsPerGpu"], mig["slotMemoryGiB"]) == (2, 40)
    assert mig["slots"] == [{"profile": "3g.40gb", "perGpu": 2, "memoryGiB": 40.0}]
    assert rows["train-h100"]["gpus"] == {"min": 16, "max": 32}


def test_capacity_fractional_memory_rules() -> None:
    """Fractional: memoryGiB as given, else an equal share of the overcommitted memory."""
    rows = _capacity(EXAMPLES / "onprem-hami.yaml")
    assert rows["dgx"]["slotMemoryGiB"] == 20
    l40s = gpu_rows()["L40S"]["memory_gib"]
    assert rows["interactive"]["slotMemoryGiB"] == pytest.approx(l40s * 1.5 / 8, abs=0.01)
    azure = _capacity(EXAMPLES / "azure-kai-fair.yaml")
    assert azure["t4-spot"]["slotMemoryGiB"] == gpu_rows()["T4"]["memory_gib"] / 2


def test_tenant_quota_against_what_its_pools_hold() -> None:
    """Each tenant's pools' GPUs at min and max sit beside its quota and limit."""
    doc = plan_json.to_json(plan_files(EXAMPLES / "gcp-inference-sharing.yaml", None))
    chat = next(t for t in doc["tenants"] if t["tenant"] == "chat")
    assert chat["pools"] == ["l4-shared", "l4-mps"]
    assert chat["poolGpus"] == {"min": 3, "max": 14}
    assert (chat["quotaGpus"], chat["limitGpus"]) == (None, None)
    doc = plan_json.to_json(plan_files(EXAMPLES / "gcp-training-h100-mig.yaml", None))
    notebooks = next(t for t in doc["tenants"] if t["tenant"] == "notebooks")
    assert notebooks["pools"] == ["exp-a100-mig"]
    # exp-a100-mig: spot 0..6 with fallbackToOnDemand, so its spot group (0..6) and on-demand
    # group (0..6) can hold 12 nodes together (facts.groups.capacity_groups)
    assert notebooks["poolGpus"] == {"min": 1, "max": 12}
    assert (notebooks["quotaGpus"], notebooks["limitGpus"]) == (1, 4)
