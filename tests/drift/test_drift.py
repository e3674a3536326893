"""Drift: recorded node lists and node reports against declared pools; exit codes."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpupool import facts
from gpupool.cluster import ObservedNode
from gpupool.drift import items as drift_items
from gpupool.drift import node_reports
from gpupool.drift import nodes as node_state
from gpupool.drift.run import DriftInputs, RequiredSourceError, run
from gpupool.engine.results import EngineResult, ResourceStep
from gpupool.errors import EngineNotInstalledError, InputError
from gpupool.model import Stack
from gpupool.nodes.report import Fault, GpuInstance, GpuReport, MigState, NodeReport
from gpupool.views import drift as drift_view
from tests.paths import FIXTURES
from tests.stacks import load_stack_text

NODES = FIXTURES / "nodes"

STACK = """
apiVersion: gpupool.io/v1
kind: GpuPoolStack
metadata: {{name: drift}}
provider:
  cloud: aws
  region: us-east-1
  cluster: c
  settings: {{subnetIds: [s-1], nodeRoleArn: "arn:aws:iam::123456789012:role/n"}}
pools:
{pools}
"""

POOLS = {
    "infer-l4": "  - {name: infer-l4, instanceType: g6.12xlarge, nodes: {min: 1, max: 4},"
    " sharing: {mode: time-slicing, replicas: 4}}",
    "infer-mig": "  - {name: infer-mig, instanceType: p4de.24xlarge, nodes: {min: 1, max: 2},"
    " sharing: {mode: mig, mig: {layout: {1g.10gb: 7}}}}",
    "research-mig": "  - {name: research-mig, instanceType: p4de.24xlarge, nodes: {min: 1, max: 2},"
    " sharing: {mode: mig, mig: {layout: {1g.10gb: 2, 2g.20gb: 1, 3g.40gb: 1}}}}",
    "batch-a10g": "  - {name: batch-a10g, instanceType: g5.12xlarge, nodes: {min: 1, max: 2},"
    " sharing: {mode: mps, replicas: 8}}",
    "infer-a10g": "  - {name: infer-a10g, instanceType: g5.xlarge, nodes: {min: 1, max: 4}}",
    "train-a100": "  - {name: train-a100, instanceType: p4de.24xlarge, nodes: {min: 1, max: 4}}",
}


def stack_of(*pools: str) -> Stack:
    return load_stack_text(STACK.format(pools="\n".join(POOLS[p] for p in pools)), "s.yaml")


def observed(name: str, stack: Stack | None = None) -> list[ObservedNode]:
    """Load a recorded node list; with a stack, add the labels gpupool's node pools set."""
    data = json.loads((NODES / f"{name}.json").read_text())
    out = []
    for item in data["items"]:
        labels = dict(item["metadata"].get("labels", {}))
        pool = stack.pool(labels.get("gpupool.io/pool", "")) if stack else None
        if pool is not None:
            for k, v in facts.node_labels(stack, pool).items():
                labels.setdefault(k, v)
        out.append(
            ObservedNode(
                name=item["metadata"]["name"],
                labels=labels,
                allocatable=item["status"].get("allocatable", {}),
                capacity=item["status"].get("capacity", {}),
                unschedulable=False,
                ready=True,
            )
        )
    return out


def summaries(items: list[Any]) -> list[str]:
    return [i.summary for i in items]


@pytest.mark.parametrize(
    ("fixture", "pool"),
    [
        ("time-slicing", "infer-l4"),
        ("mig-single", "infer-mig"),
        ("mig-mixed", "research-mig"),
        ("mps", "batch-a10g"),
        ("exclusive", "train-a100"),
    ],
)
def test_nodes_matching_their_pool_show_no_drift(fixture: str, pool: str) -> None:
    """Real label sets for each sharing mode agree with a matching declaration."""
    stack = stack_of(pool)
    assert node_state.compare(stack, observed(fixture, stack)) == []


def test_hand_edited_time_slicing_config_is_drift() -> None:
    """Someone changed replicas by hand: labels and allocatable no longer match."""
    stack = stack_of("infer-l4")
    nodes = observed("time-slicing", stack)
    edited = nodes[0]
    labels = dict(edited.labels, **{"nvidia.com/gpu.replicas": "2"})
    nodes[0] = ObservedNode(edited.name, labels, {"nvidia.com/gpu": "8"}, {}, False, True)
    items = node_state.compare(stack, nodes)
    assert {i.address for i in items} == {f"pool.infer-l4/node/{edited.name}"}
    assert "label nvidia.com/gpu.replicas is '2', expected '4'" in summaries(items)
    assert "allocatable nvidia.com/gpu is 8, expected 16" in summaries(items)


def test_failed_mig_reconfiguration_is_drift() -> None:
    """mig.config.state=failed is reported, with the allocatable that did not appear."""
    stack = stack_of("infer-mig")
    items = node_state.compare(stack, observed("mig-failed", stack))
    text = summaries(items)
    assert "MIG reconfiguration failed on this node (mig.config.state=failed)" in text
    assert "allocatable nvidia.com/gpu is 8, expected 56" in text


def test_wrong_instance_type_and_gpu_are_drift() -> None:
    """A node that came up with the wrong instance type and GPU is named."""
    stack = stack_of("infer-a10g")
    items = node_state.compare(stack, observed("wrong-instance-type", stack))
    assert {i.address for i in items} == {"pool.infer-a10g/node/ip-10-0-61-23.ec2.internal"}
    assert "node runs g6.xlarge, pool declares g5.xlarge" in summaries(items)
    assert "node has NVIDIA-L4, pool declares NVIDIA-A10G" in summaries(items)


def test_node_count_outside_range_is_drift() -> None:
    """Fewer nodes than nodes.min is drift on the pool."""
    stack = stack_of("infer-l4")
    [item] = node_state.compare(stack, observed("time-slicing", stack)[:0])
    assert item.address == "pool.infer-l4"
    assert item.observed == 0


def _report(name: str, gpus: list[GpuReport], faults: tuple[Fault, ...] = ()) -> NodeReport:
    return NodeReport(name, name, "550.54.15", "12.4", "12.550.54.15", tuple(gpus), faults)


def _gpu(i: int, name: str, mig: MigState | None = None) -> GpuReport:
    return GpuReport(index=i, name=name, mig=mig or MigState(False, None, None, ()))


def _mig(*profiles: str) -> MigState:
    instances = tuple(GpuInstance(n, p, None, None, ()) for n, p in enumerate(profiles))
    return MigState(True, "enabled", "enabled", instances)


def _write(directory: Path, *reports: NodeReport) -> Path:
    """Write reports as ``gpupool node inspect --format json`` does, one file per node."""
    for rep in reports:
        doc = json.dumps(rep.to_json(), indent=2, sort_keys=True)
        (directory / f"{rep.hostname}.json").write_text(doc + "\n")
    return directory


def test_node_reports_faults_and_mig_layout(tmp_path: Path) -> None:
    """Recorded faults are reported as faults; a MIG layout that differs is drift."""
    stack = stack_of("infer-mig")
    gpus = [_gpu(0, "NVIDIA A100-SXM4-80GB", _mig(*["1g.10gb"] * 6))] + [  # one GI missing
        _gpu(i, "NVIDIA A100-SXM4-80GB", _mig(*["1g.10gb"] * 7)) for i in range(1, 8)
    ]
    # The fault is the node's judgement, kept as recorded (no ECC counts here to judge again).
    rep = _report("n1", gpus, (Fault(3, "ecc", "2 uncorrected errors"),))
    loaded = node_reports.load_reports(_write(tmp_path, rep))
    assert loaded == [rep]
    items = node_reports.compare(stack, loaded, {"n1": "infer-mig"})
    kinds = {(i.address, i.kind, i.summary) for i in items}
    assert ("pool.infer-mig/node/n1/gpu/3", "fault", "2 uncorrected errors") in kinds
    assert (
        "pool.infer-mig/node/n1/gpu/0",
        "drift",
        "MIG instances differ from the declared layout",
    ) in kinds
    assert len(items) == 2


def test_node_report_with_wrong_gpu_model(tmp_path: Path) -> None:
    """NVML seeing another GPU model than declared is drift."""
    stack = stack_of("infer-a10g")
    rep = _report("n2", [_gpu(0, "NVIDIA L4")])
    items = node_reports.compare(stack, [rep], {"n2": "infer-a10g"})
    assert summaries(items) == ["GPU is NVIDIA L4, pool declares A10G"]


def test_node_source_reads_reports_of_nodes_the_cluster_labels(tmp_path: Path) -> None:
    """The node source matches reports to pools by the cluster's pool label on the node name."""
    stack = stack_of("infer-l4")
    nodes = observed("time-slicing", stack)
    first, second = (n.name for n in nodes)
    hot = Fault(2, "overheat", "90 C is at or above its slowdown threshold of 87 C")
    _write(
        tmp_path,
        _report(first, [_gpu(i, "NVIDIA L4") for i in range(4)], (hot,)),
        _report(second, [_gpu(i, "NVIDIA L4") for i in range(3)]),
    )
    inputs = DriftInputs(cluster=lambda: nodes, node_reports_dir=tmp_path)
    rep = run(stack, tmp_path / "s.yaml", inputs)
    assert [(i.source, i.kind, i.address, i.summary) for i in rep.items] == [
        ("node", "fault", f"pool.infer-l4/node/{first}/gpu/2", hot.detail),
        ("node", "drift", f"pool.infer-l4/node/{second}", "NVML sees 3 GPU(s), pool declares 4"),
    ]
    assert ("node", True) in [(s.name, s.checked) for s in rep.sources]


def test_bad_report_directory_is_an_input_error(tmp_path: Path) -> None:
    """A file that is not a node report is one clear error naming the file."""
    (tmp_path / "x.json").write_text("{}")
    with pytest.raises(InputError, match=r"x\.json: not a gpupool node report: it has no 'host"):
        node_reports.load_reports(tmp_path)


def test_node_report_with_a_wrong_type_names_the_file_and_key(tmp_path: Path) -> None:
    """A damaged report is rejected before it is compared, with the key that is wrong."""
    doc = _report("n3", [_gpu(0, "NVIDIA L4")]).to_json()
    doc["gpus"][0]["mig"]["current"] = 1
    (tmp_path / "n3.json").write_text(json.dumps(doc))
    with pytest.raises(InputError, match=r"n3\.json: not a gpupool node report: gpus\[0\]\.mig"):
        node_reports.load_reports(tmp_path)
    (tmp_path / "n3.json").write_text("[" * 100_000)
    with pytest.raises(InputError, match=r"n3\.json: not a readable node report"):
        node_reports.load_reports(tmp_path)


def _refresh(*steps: ResourceStep) -> EngineResult:
    return EngineResult("refresh-preview", steps, {})


def test_run_combines_sources_and_reports_skips(tmp_path: Path) -> None:
    """Sources without access are skipped with a reason; engine drift is reported per item."""
    stack = stack_of("infer-l4")
    step = ResourceStep(
        "urn:pulumi:s::p::kubernetes:core/v1:ConfigMap::dp",
        "kubernetes:core/v1:ConfigMap",
        "dp",
        "update",
        ("data",),
        (),
        (("data.pool-infer-l4", "update"),),
    )
    rep = run(
        stack,
        tmp_path / "s.yaml",
        DriftInputs(engine=lambda: _refresh(step), cluster=lambda: observed("time-slicing", stack)),
    )
    assert rep.drifted
    [item] = rep.items
    assert item.source == "cluster"
    assert "data.pool-infer-l4" in item.summary
    assert [(s.name, s.checked) for s in rep.sources] == [
        ("cloud", True),
        ("cluster", True),
        ("node", False),
    ]
    doc = drift_view.to_json(rep)
    assert doc["format_version"] == "1" and doc["drifted"] is True
    assert set(doc["items"][0]) >= {"source", "address", "declared", "observed", "summary"}


def test_run_without_drift_and_required_source(tmp_path: Path) -> None:
    """No findings means not drifted; a required source that cannot run is an error."""
    stack = stack_of("infer-l4")

    def no_cli() -> EngineResult:
        raise EngineNotInstalledError("Pulumi CLI not found")

    inputs = DriftInputs(engine=no_cli, cluster=lambda: observed("time-slicing", stack))
    rep = run(stack, tmp_path / "s.yaml", inputs)
    assert not rep.drifted
    assert rep.sources[0].reason == "Pulumi CLI not found"
    with pytest.raises(RequiredSourceError, match="'cloud' is required"):
        run(stack, tmp_path / "s.yaml", inputs, require={"cloud"})


def test_text_and_markdown_forms() -> None:
    """The text report lists each finding; markdown starts with its marker line."""
    item = drift_items.DriftItem("node", "node/x/gpu/0", None, "ecc", "2 errors", kind="fault")
    rep = drift_items.DriftReport("s", (item,), (drift_items.SourceStatus("node", True),))
    assert "! node/x/gpu/0: 2 errors" in drift_view.format_text(rep)
    md = drift_view.format_markdown(copy.deepcopy(rep))
    assert md.startswith("<!-- gpupool-drift: s -->")
    assert "| node (fault) |" in md


def test_markdown_is_capped_and_says_what_was_cut() -> None:
    """Issue 27 item 5: one node with 20,000 failed checks made 9.7 MB of markdown; GitHub
    drops a job summary over 1 MiB and refuses an issue body over 65,536 characters. The report
    stays under ``MARKDOWN_LIMIT``, keeps whole rows with the faults first, and says how many
    findings it cut and where to read them all."""
    drift = [drift_items.DriftItem("cluster", f"pool.p/node/n/label/{k}", "x" * 200, "y" * 200,
                                   "label differs " + "z" * 80) for k in range(20_000)]
    fault = drift_items.DriftItem("node", "pool.p/node/n/gpu/0", None, "ecc", "2 ECC errors",
                                  kind="fault")
    rep = drift_items.DriftReport("s", (*drift, fault), (drift_items.SourceStatus("node", True),))
    md = drift_view.format_markdown(rep)
    assert len(md) <= drift_view.MARKDOWN_LIMIT
    lines = md.splitlines()
    assert lines[0] == "<!-- gpupool-drift: s -->"
    assert "20,001 finding(s)" in lines[1]
    rows = [line for line in lines if line.startswith("| cluster") or line.startswith("| node")]
    assert rows[0].startswith("| node (fault) | `pool.p/node/n/gpu/0`")
    assert all(row.endswith(" |") for row in rows)  # whole rows only
    kept = len(rows) - 1
    assert lines[-1] == (
        f"> :scissors: **Truncated**: {20_000 - kept:,} of 20,001 findings (0 of them faults) "
        "were cut to keep this report under 65,000 characters (GitHub's limit for an issue body "
        "is 65,536). Run `gpupool drift --format json` for all of them.")
    small = drift_items.DriftReport("s", (drift[0], fault), rep.sources)
    assert "Truncated" not in drift_view.format_markdown(small)
    assert drift_view.format_markdown(small).splitlines()[-1].startswith("| node (fault)")


def test_partial_gpu_vm_reports_its_vgpu_type_and_slice() -> None:
    """Azure NV6ads_A10_v5 has 1/6 of an A10: the driver calls it NVIDIA A10-4Q with 4 GiB.

    No node object of such a VM was found, so this node is derived, not saved in the real
    corpus: the name and memory are what nvidia-smi printed on an Azure NVadsA10 v5 VM in a
    public walk-through found by code search (a Spanish-language post on a Linux visualization
    workstation: "NVIDIA A10-4Q ... 4096MiB"; repository not recorded), matching Microsoft's
    MicrosoftDocs/azure-docs ``nvads-a10-v5-series-summary.md`` ("1/6th of a GPU with 4-GiB
    frame buffer"), written as GFD's sanitised labels.
    """
    stack = load_stack_text(
        """
apiVersion: gpupool.io/v1
kind: GpuPoolStack
metadata: {name: nv}
provider: {cloud: azure, region: eastus, cluster: c, settings: {resourceGroup: rg-1}}
pools:
  - {name: viz, instanceType: Standard_NV6ads_A10_v5, nodes: {min: 1, max: 1}}
""",
        "s.yaml",
    )
    pool = stack.pool("viz")
    labels = {
        **facts.node_labels(stack, pool),
        "nvidia.com/gpu.product": "NVIDIA-A10-4Q",
        "nvidia.com/gpu.memory": "4096",
        "nvidia.com/gpu.count": "1",
    }
    node = ObservedNode("viz-0", labels, {"nvidia.com/gpu": "1"}, {}, False, True)
    assert node_state.compare(stack, [node]) == []
    wrong = ObservedNode(
        "viz-0",
        {**labels, "nvidia.com/gpu.product": "NVIDIA-A16-4Q"},
        {"nvidia.com/gpu": "1"},
        {},
        False,
        True,
    )
    assert summaries(node_state.compare(stack, [wrong])) == [
        "node has NVIDIA-A16-4Q, pool declares NVIDIA-A10"
    ]


def test_an_empty_or_unreadable_report_folder_is_not_checked(tmp_path: Path) -> None:
    """No report to read is "not checked", never "no drift"; under --require node an error."""
    stack = stack_of("infer-l4")
    empty = tmp_path / "reports"
    empty.mkdir()
    (empty / "README.txt").write_text("reports go here")
    for folder in (empty, tmp_path / "missing"):
        rep = run(stack, tmp_path / "s.yaml", DriftInputs(node_reports_dir=folder))
        assert rep.status == "unknown"
        [node] = [s for s in rep.sources if s.name == "node"]
        assert not node.checked and str(folder) in node.reason
        with pytest.raises(RequiredSourceError, match="'node' is required"):
            run(stack, tmp_path / "s.yaml", DriftInputs(node_reports_dir=folder), {"node"})
    with pytest.raises(node_reports.NoReports, match="holds no node report"):
        node_reports.load_reports(empty)


def test_every_output_agrees_that_nothing_checked_is_unknown() -> None:
    """Exit 1 (unknown) never reads as "no drift" in text, JSON or markdown."""
    skipped = (drift_items.SourceStatus("node", False, "no reports"),)
    unknown = drift_items.DriftReport("s", (), skipped)
    assert unknown.status == "unknown"
    doc = drift_view.to_json(unknown)
    assert doc["status"] == "unknown" and doc["drifted"] is None
    for fmt in ("text", "markdown"):
        out = drift_view.render(unknown, fmt)
        assert "no drift" not in out.lower() and "unknown" in out.lower()
    clean = drift_items.DriftReport("s", (), (drift_items.SourceStatus("node", True),))
    assert drift_view.to_json(clean)["drifted"] is False
    assert "no drift" in drift_view.format_markdown(clean)
