"""GPU health node conditions, cordons and fault-isolation taints (gpupool.drift.conditions).

The nodes are gpupool's own node documents (tests/fixtures/nodes/docs/; see its README), read
through the kubernetes client's deserialiser and ``gpupool.cluster.read_gpu_nodes``
(``tests.node_docs``); each test runs again, as a conformance test, on the upstream twin of its
document in SHARED_UPSTREAM/nodes/ (skipped, naming the file, when that folder is
absent). Where a document shows a condition both healthy and failed (as AgentBaker's e2e
validators and NVSentinel's platform-connector test do), the node is the healthy one and
``failures`` lists the failed conditions, applied one at a time.

Polarity and names follow the agents: AKS Node Problem Detector conditions are named after the
problem and ``True`` while it lasts (MicrosoftDocs/azure-aks-docs
``articles/aks/node-problem-detector.md`` @ccbb339b, ``gpu-health-monitoring.md`` @bcb4a597,
``aks-managed-gpu-nodes.md`` @f63267b4; Azure/AgentBaker ``e2e/validators.go`` @06836ee2);
NVSentinel's are named after the check, ``True`` with reason ``<check>IsNotHealthy`` on a fatal
event, ``False`` with ``<check>IsHealthy`` on recovery (NVIDIA/NVSentinel
``platform-connectors/pkg/connectors/kubernetes/process_node_events.go``), and its
fault-quarantine cordons with ``<prefix>cordon-by=NVSentinel`` and records the taints it applied
in ``quarantineHealthEventAppliedTaints`` (``fault-quarantine/pkg/common/common.go``).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from gpupool.cluster import NodeTaint, ObservedNode
from gpupool.drift import conditions
from gpupool.drift import nodes as node_state
from gpupool.drift.items import DriftReport, SourceStatus
from gpupool.drift.run import DriftInputs, run
from gpupool.nodes import faults
from gpupool.nodes.report import EccCounts, GpuReport, MigState, NodeReport
from gpupool.views import drift as drift_view
from tests.node_docs import (
    AZURE,
    ONPREM,
    load,
    node_name,
    observe,
    stack,
    twin,
    twins,
    with_condition,
)
from tests.paths import SHARED_UPSTREAM

pytestmark = pytest.mark.cloud_sdks  # the kubernetes client deserialises the saved nodes

ND96 = "aks-npd-gpu-count-ib"
T4 = "aks-npd-managed-gpu"
NVS = "nvsentinel-conditions"
NVS_E2E = "nvsentinel-faults"
AKS_NPD = "aks-npd-general"

ND96_POOL = "{name: p, instanceType: Standard_ND96isr_H100_v5, nodes: {min: 1, max: 1}}"
T4_POOL = "{name: p, instanceType: Standard_NC4as_T4_v3, nodes: {min: 1, max: 1}}"


def onprem_pool(node: str) -> str:
    return (
        f"{{name: p, nodeNames: [{node}], gpu: {{model: H100-SXM5-80GB, count: 1}},"
        " host: {memoryGiB: 512}, sharing: {mode: exclusive}}"
    )


STACKS = {
    ND96: lambda node: stack(AZURE, ND96_POOL),
    T4: lambda node: stack(AZURE, T4_POOL),
    NVS: lambda node: stack(ONPREM, onprem_pool(node)),
    NVS_E2E: lambda node: stack(ONPREM, onprem_pool(node)),
}
_OWN = {twin(own): own for own in STACKS}  # each upstream twin and the own document


def stack_of(name: str) -> Any:
    """The stack whose pool ``p`` holds the node of document ``name`` (own or upstream)."""
    return STACKS[_OWN.get(name, name)](node_name(name))


def health_items(name: str, doc: dict[str, Any] | None = None) -> list[Any]:
    """The condition, cordon and taint items drift finds on the node of document ``name``."""
    known = _OWN.get(name, name) in STACKS
    st = stack_of(name) if known else stack(AZURE, T4_POOL)
    [node] = observe(st, "p", doc or load(name))
    return conditions.node_items("p", node)


def _failures(own: str) -> list[Any]:
    """One parameter per failure a document lists, for the own one and its upstream twin (a
    single parameter that skips when the shared folder is absent)."""
    found = [pytest.param(own, f, id=f"{own}: {f['type']}") for f in load(own)["failures"]]
    upstream = twin(own)
    if not (SHARED_UPSTREAM / "nodes" / f"{upstream}.json").exists():
        return [*found, pytest.param(upstream, None, id=f"upstream {upstream}")]
    return found + [
        pytest.param(upstream, f, id=f"upstream {upstream}: {f['type']}")
        for f in load(upstream)["failures"]
    ]


FAILURES = [param for name in (ND96, T4, NVS) for param in _failures(name)]


@pytest.mark.parametrize("name", twins(AKS_NPD))
def test_nodes_are_read_with_their_conditions(name: str) -> None:
    """read_gpu_nodes keeps every condition the API returns, times in RFC 3339 (AKS docs,
    node-problem-detector.md: the rows of `kubectl describe node`)."""
    doc = load(name)
    [node] = observe(stack(AZURE, T4_POOL), "p", doc)
    assert [c.type for c in node.conditions] == [
        c["type"] for c in doc["node"]["status"]["conditions"]
    ]
    mem = next(c for c in node.conditions if c.type == "MemoryPressure")
    [written] = [c for c in doc["node"]["status"]["conditions"] if c["type"] == "MemoryPressure"]
    assert (mem.status, mem.reason) == ("True", "KubeletHasInsufficientMemory")
    assert mem.last_transition == written["lastTransitionTime"]
    assert mem.last_transition is not None and mem.last_transition.endswith("Z")


@pytest.mark.parametrize("name", twins(AKS_NPD))
def test_aks_npd_general_conditions_are_not_gpu_health(name: str) -> None:
    """The documented AKS node: NPD's general-purpose conditions all False and the kubelet's
    MemoryPressure True; none is a GPU health condition, so drift reports nothing."""
    assert health_items(name) == []


@pytest.mark.parametrize("name", twins(AKS_NPD))
def test_aks_npd_kernel_deadlock_is_left_alone(name: str) -> None:
    """One value changed on the real node: KernelDeadlock True (NPD's SystemLogMonitor, a
    general-purpose condition) is still not a GPU fault."""
    doc = load(name)
    edited = with_condition(
        doc, {"type": "KernelDeadlock", "status": "True", "reason": "DockerHung", "message": ""}
    )
    assert health_items(name, edited) == []


@pytest.mark.parametrize("name", twins(ND96, T4, NVS))
def test_healthy_gpu_conditions_give_nothing(name: str) -> None:
    """AgentBaker's healthy states (NoGPUMissing, NoIBLinkFlapping, HealthyNvidiaDevicePlugin,
    HealthyNvidiaDCGMServices) and NVSentinel's <check>IsHealthy are not findings."""
    assert health_items(name) == []


@pytest.mark.parametrize(("name", "failure"), FAILURES)
def test_each_documented_failure_is_one_fault_with_its_details(
    name: str, failure: dict[str, Any]
) -> None:
    """Each failed condition the source shows is one fault item naming node, pool, condition,
    reason, message and time (AgentBaker e2e/validators.go *AfterFailure; NVSentinel
    TestK8sNodeConditions)."""
    doc = load(name)
    assert failure is not None, f"{name} lists no failures"
    doc = with_condition(doc, failure)
    node = doc["node"]["metadata"]["name"]
    [item] = health_items(name, doc)
    assert (item.source, item.kind) == ("cluster", "fault")
    assert item.address == f"pool.p/node/{node}/condition/{failure['type']}"
    assert item.observed == {
        "pool": "p",
        "node": node,
        "condition": failure["type"],
        "status": "True",
        "reason": failure["reason"],
        "message": failure["message"],
        "lastTransitionTime": failure.get("lastTransitionTime"),
    }
    source = conditions.AKS_NPD if _OWN.get(name, name) in (ND96, T4) else conditions.NVSENTINEL
    assert item.summary.startswith(f"{source} condition {failure['type']} is True")


@pytest.mark.parametrize("name", twins(NVS_E2E))
def test_nvsentinel_e2e_faults_and_their_time(name: str) -> None:
    """The NVSentinel node with two DCGM faults gives two faults; a time the API returns is
    reported as written."""
    doc = load(name)
    for c in doc["node"]["status"]["conditions"]:
        c["lastTransitionTime"] = "2026-08-20T08:30:12Z"
    items = health_items(name, doc)
    assert [i.observed["condition"] for i in items] == ["GpuInforomWatch", "GpuMemWatch"]
    assert {i.observed["lastTransitionTime"] for i in items} == {"2026-08-20T08:30:12Z"}


@pytest.mark.parametrize("names", [(ND96, NVS), (twin(ND96), twin(NVS))], ids=["own", "upstream"])
def test_unknown_status_is_not_a_fault(names: tuple[str, str]) -> None:
    """NVSentinel: Unknown means the health cannot be determined (docs/INTEGRATIONS.md,
    "Condition Status"); AKS NPD writes only True or False. Neither reports Unknown."""
    for name in names:
        for failure in load(name)["failures"]:
            doc = with_condition(load(name), {**failure, "status": "Unknown"})
            assert health_items(name, doc) == []


@pytest.mark.parametrize("name", twins(NVS))
def test_nvsentinel_check_outside_the_table_is_recognised_by_its_reason(name: str) -> None:
    """The platform connector names any check's condition after it with reason
    <check>IsNotHealthy (process_node_events.go updateHealthEventReason): a NIC health
    monitor check (InfiniBandDegradationCheck, NVSentinel fault-quarantine gate tests) is
    reported; a True condition with another reason is not."""
    check = "InfiniBandDegradationCheck"
    bad = {"type": check, "status": "True", "reason": f"{check}IsNotHealthy", "message": "x"}
    [item] = health_items(name, with_condition(load(name), bad))
    assert item.summary == (
        "NVSentinel condition InfiniBandDegradationCheck is True, reason "
        "InfiniBandDegradationCheckIsNotHealthy: NVSentinel check InfiniBandDegradationCheck failed"
    )
    other = {**bad, "reason": "SomethingElse"}
    assert health_items(name, with_condition(load(name), other)) == []


# ---------------------------------------------------------------- cordon and taints


def _cordoned(node: ObservedNode, **labels: str) -> ObservedNode:
    return replace(node, unschedulable=True, labels={**node.labels, **labels})


def test_cordoned_node_is_drift() -> None:
    """A cordoned pool node (spec.unschedulable, hand-written fixture time-slicing.json, read
    through the client) takes no new pods: drift at the node's address."""
    from tests.cluster.test_cluster import read

    node = next(n for n in read("time-slicing.json") if n.unschedulable)
    [item] = conditions.node_items("infer-l4", node)
    assert (item.kind, item.address) == ("drift", f"pool.infer-l4/node/{node.name}")
    assert item.declared == {"spec.unschedulable": False}
    assert item.observed == {"spec.unschedulable": True}
    assert item.summary == "node is cordoned (spec.unschedulable): no new pods land on its GPUs"


@pytest.mark.parametrize("name", twins(NVS_E2E))
def test_nvsentinel_cordon_names_nvsentinel_and_its_rule_set(name: str) -> None:
    """fault-quarantine labels the node <prefix>cordon-by=NVSentinel and <prefix>cordon-reason
    (its rule set); the chart's prefix is k8saas.nvidia.com/ (fault-quarantine/values.yaml)."""
    [node] = observe(stack_of(name), "p", load(name))
    node = _cordoned(
        node,
        **{
            "k8saas.nvidia.com/cordon-by": "NVSentinel",
            "k8saas.nvidia.com/cordon-reason": "GPU-fatal-error-ruleset",
        },
    )
    cordon = [i for i in conditions.node_items("p", node) if i.kind == "drift"]
    assert [i.summary for i in cordon] == [
        "node is cordoned (spec.unschedulable): no new pods land on its GPUs by NVSentinel "
        "(rule set GPU-fatal-error-ruleset)"
    ]
    # cordoned by someone else: the label names another service, so NVSentinel is not named
    other = _cordoned(replace(node, labels={"k8saas.nvidia.com/cordon-by": "admin"}))
    assert [i.summary for i in conditions.node_items("p", other) if i.kind == "drift"] == [
        "node is cordoned (spec.unschedulable): no new pods land on its GPUs"
    ]


@pytest.mark.parametrize("name", twins(NVS))
def test_taint_nvsentinel_applied_is_drift_others_are_not(name: str) -> None:
    """Taints listed in quarantineHealthEventAppliedTaints (the JSON fault-quarantine writes:
    [{"Key","Value","Effect"}], its reconciler tests) are fault isolation; the pool's own
    taint is not; an unreadable annotation is ignored."""
    [node] = observe(stack_of(name), "p", load(name))
    applied = json.dumps(
        [{"Key": "nvidia.com/gpu-error", "Value": "fatal", "Effect": "NoSchedule"}]
    )
    tainted = replace(
        node,
        taints=(
            NodeTaint("gpupool.io/pool", "p", "NoSchedule"),
            NodeTaint("nvidia.com/gpu-error", "fatal", "NoSchedule"),
        ),
        annotations={conditions.APPLIED_TAINTS_ANNOTATION: applied},
    )
    [item] = conditions.node_items("p", tainted)
    assert (item.kind, item.observed) == ("drift", "nvidia.com/gpu-error=fatal:NoSchedule")
    assert item.summary == (
        "NVSentinel fault-quarantine tainted the node nvidia.com/gpu-error=fatal:NoSchedule "
        "(listed in its quarantineHealthEventAppliedTaints annotation)"
    )
    for raw in ("not json", '{"Key": "x"}', "[1, 2]"):
        garbled = replace(tainted, annotations={conditions.APPLIED_TAINTS_ANNOTATION: raw})
        assert conditions.node_items("p", garbled) == []


# ---------------------------------------------------------------- one fault, one item


H100 = "NVIDIA H100 80GB HBM3"
#: A GPU the fault rules (gpupool.nodes.faults) judge: uncorrected ECC errors, at its slowdown
#: temperature, or lost to NVML.
SICK = GpuReport(
    0,
    name=H100,
    ecc_volatile=EccCounts(0, 2),
    ecc_aggregate=EccCounts(0, 0),
    temperature_c=90,
    slowdown_c=88,
)
LOST = GpuReport(1, error="GPU is lost")


def _report(name: str, gpus: list[GpuReport]) -> NodeReport:
    """A node report as gpupool node inspect writes it: faults judged by the fault rules."""
    return NodeReport(
        name, name, "550.54.15", "12.4", "12.550.54.15", tuple(gpus), faults.detect(gpus)
    )


def _healthy(n: int) -> list[GpuReport]:
    return [GpuReport(i, name=H100, mig=MigState(False, None, None, ())) for i in range(n)]


def _write(directory: Path, rep: NodeReport) -> Path:
    (directory / f"{rep.hostname}.json").write_text(json.dumps(rep.to_json()))
    return directory


@pytest.mark.parametrize("doc", twins(NVS_E2E))
def test_condition_and_node_report_of_one_fault_are_one_item(tmp_path: Path, doc: str) -> None:
    """NVSentinel's GpuMemWatch (DCGM memory watch: ECC) and gpupool node inspect's ecc fault
    (gpupool.nodes.faults) on the same node are one fault; the overheat NVML sees, with no
    thermal condition on the node, stays the node source's own item."""
    st = stack_of(doc)
    nodes = observe(st, "p", load(doc))
    name = nodes[0].name
    rep = _report(name, [SICK])
    assert [f.kind for f in rep.faults] == ["ecc", "overheat"]
    _write(tmp_path, rep)
    report = run(st, Path("s.yaml"), DriftInputs(cluster=lambda: nodes, node_reports_dir=tmp_path))
    by_addr = {i.address: i for i in report.items}
    mem = by_addr[f"pool.p/node/{name}/condition/GpuMemWatch"]
    assert mem.summary.endswith(
        "; gpupool node inspect sees it too: GPU 0: 2 uncorrected ECC errors since the driver "
        "loaded, 0 over the GPU's lifetime"
    )
    node_items = [(i.address, i.observed) for i in report.items if i.source == "node"]
    assert node_items == [(f"pool.p/node/{name}/gpu/0", "overheat")]
    inforom = by_addr[f"pool.p/node/{name}/condition/GpuInforomWatch"]
    assert "gpupool node inspect" not in inforom.summary


@pytest.mark.parametrize("doc", twins(NVS_E2E))
def test_fallen_off_gpu_and_lost_gpu_are_one_item(tmp_path: Path, doc: str) -> None:
    """NVSentinel's SysLogsGPUFallenOff and NVML's "GPU is lost" (fault unreachable) on one node
    are one fault."""
    st = stack_of(doc)
    check = "SysLogsGPUFallenOff"
    fallen = {"type": check, "status": "True", "reason": f"{check}IsNotHealthy", "message": "79"}
    nodes = observe(st, "p", with_condition(load(doc), fallen))
    name = nodes[0].name
    rep = _report(name, [*_healthy(1), LOST])
    _write(tmp_path, rep)
    report = run(st, Path("s.yaml"), DriftInputs(cluster=lambda: nodes, node_reports_dir=tmp_path))
    [item] = [i for i in report.items if i.address.endswith("/condition/SysLogsGPUFallenOff")]
    assert item.summary.endswith(
        "; gpupool node inspect sees it too: GPU 1: NVML cannot open the GPU: GPU is lost"
    )
    assert [i.observed for i in report.items if i.source == "node" and i.kind == "fault"] == []


@pytest.mark.parametrize("doc", twins(ND96))
def test_gpu_missing_and_nvml_count_are_one_item(tmp_path: Path, doc: str) -> None:
    """AKS NPD's GPUMissing (nvidia-smi count against the VM size) and NVML's count against the
    pool on the same node are one finding, kept as the condition's fault."""
    st = stack_of(doc)
    [failure] = [f for f in load(doc)["failures"] if f["type"] == "GPUMissing"]
    nodes = observe(st, "p", with_condition(load(doc), failure))
    name = nodes[0].name
    _write(tmp_path, _report(name, _healthy(7)))
    report = run(st, Path("s.yaml"), DriftInputs(cluster=lambda: nodes, node_reports_dir=tmp_path))
    gpu = [i for i in report.items if "GPU" in i.summary and i.kind == "fault"]
    assert [i.address for i in gpu] == [f"pool.p/node/{name}/condition/GPUMissing"]
    assert gpu[0].summary.endswith(
        "; gpupool node inspect sees it too: NVML sees 7 GPU(s), pool declares 8"
    )
    assert not [i for i in report.items if i.source == "node"]


@pytest.mark.parametrize("doc", twins(NVS_E2E))
def test_node_report_on_another_node_is_not_folded(tmp_path: Path, doc: str) -> None:
    """Folding needs the same node: an ECC fault on another node stays the node source's."""
    st = stack_of(doc)
    nodes = observe(st, "p", load(doc))
    rep = _report("other-node", [SICK])
    _write(tmp_path, rep)
    report = run(st, Path("s.yaml"), DriftInputs(cluster=lambda: nodes, node_reports_dir=tmp_path))
    assert {i.address for i in report.items if i.source == "node"} == {"node/other-node/gpu/0"}
    assert all("gpupool node inspect" not in i.summary for i in report.items)


# ---------------------------------------------------------------- outputs


def _fault_report(name: str) -> tuple[DriftReport, str]:
    """The ND96 node with NPD's GPUMissing failure, at a time the API would return; and the
    failure's message."""
    [failure] = [f for f in load(name)["failures"] if f["type"] == "GPUMissing"]
    failure = {**failure, "lastTransitionTime": "2026-08-20T08:30:12Z"}
    items = health_items(name, with_condition(load(name), failure))
    return DriftReport("real", tuple(items), (SourceStatus("cluster", True),)), failure["message"]


@pytest.mark.parametrize("name", twins(ND96))
def test_text_json_markdown_show_the_condition(name: str) -> None:
    """Every output names node, pool, condition, reason, message and time; the item counts as a
    fault and makes the report "drift" (exit 2, tests/cli/test_cli_drift_loopback.py)."""
    report, message = _fault_report(name)
    node = node_name(name)
    assert "NHC2009" in message  # NPD's fault code for a missing GPU
    assert report.status == "drift"
    text = drift_view.render(report, "text")
    addr = f"pool.p/node/{node}/condition/GPUMissing"
    assert f"  ! {addr}: AKS Node Problem Detector condition GPUMissing is True" in text
    assert message in text
    assert '"2026-08-20T08:30:12Z"' in text and 'reason: "GPUMissing"' in text
    assert "0 difference(s), 1 fault(s)" in text
    doc = json.loads(drift_view.render(report, "json"))
    [item] = doc["items"]
    assert (item["kind"], item["address"]) == ("fault", addr)
    assert item["observed"]["message"] == message
    assert item["observed"]["lastTransitionTime"] == "2026-08-20T08:30:12Z"
    assert (item["observed"]["pool"], item["observed"]["node"]) == ("p", node)
    assert "evidence_of" not in item
    md = drift_view.render(report, "markdown")
    assert f"| cluster (fault) | `{addr}` |" in md
    assert "NHC2009" in md


@pytest.mark.parametrize("name", twins(NVS_E2E))
def test_pool_compare_includes_conditions_of_every_member(name: str) -> None:
    """node_state.compare reports a member's GPU health next to its label findings."""
    st = stack_of(name)
    items = node_state.compare(st, observe(st, "p", load(name)))
    assert {i.observed["condition"] for i in items if i.kind == "fault"} == {
        "GpuInforomWatch",
        "GpuMemWatch",
    }


def test_table_rows_name_a_source_and_the_fault_status() -> None:
    """Each known type appears once, set by AKS NPD or NVSentinel, bad when True; the faults it
    folds with are ones the node report's rules (gpupool.nodes.faults) produce, or its count."""
    types = [c.type for c in conditions.KNOWN]
    assert len(types) == len(set(types))
    assert {c.source for c in conditions.KNOWN} == {conditions.AKS_NPD, conditions.NVSENTINEL}
    assert {c.bad for c in conditions.KNOWN} == {"True"}
    produced = {f.kind for f in faults.detect([SICK, LOST])} | {conditions.GPU_COUNT}
    assert {c.same_as for c in conditions.KNOWN} - {None} == produced
