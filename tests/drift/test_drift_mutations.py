"""Every one-value change to the stack of a node is drift naming its cause (issue 21).

For each of gpupool's own node documents (tests/fixtures/nodes/docs/; see its README) and, as a
conformance test, its upstream twin in SHARED_UPSTREAM/nodes/ (skipped, naming the
file, when that folder is absent) a stack that matches it gives no drift, and changing one
stack value at a time (GPU model, GPU memory, GPU count, replicas, sharing strategy, MIG layout
and strategy, instance type, node count) gives drift whose summary names the changed value's
field. The nodes go through the kubernetes client's deserialiser and
``gpupool.cluster.read_gpu_nodes`` (``tests.node_docs``); findings about parts of a node its
document does not show (labels, allocatable) are left out.

The expected causes follow the labels' owners: GPU Feature Discovery's ``nvidia.com/gpu.*``
and ``nvidia.com/mig-<profile>.*`` (NVIDIA/k8s-device-plugin ``docs/gpu-feature-discovery/
README.md``, ``internal/lm/resource.go``), the MIG Manager's ``nvidia.com/mig.config.state``
(NVIDIA/mig-parted ``deployments/container/reconfigure-mig.sh``), GKE's sharing labels (GKE
docs, "About GPU time-sharing") and HAMi's ``hami.io/node-nvidia-register`` (HAMi website,
"Protocol design").
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from gpupool.model import Stack
from tests.node_docs import AWS, AZURE, GCP, ONPREM, drift, node_name, own_names, stack, twin

Pool = dict[str, Any]
Edit = Callable[[Pool], list[Pool]]


def _set(path: str, value: Any) -> Edit:
    """Set one (dotted) field of the pool: a one-value change."""

    def edit(pool: Pool) -> list[Pool]:
        node = pool
        *parents, last = path.split(".")
        for key in parents:
            node = node.setdefault(key, {})
        node[last] = value
        return [pool]

    return edit


def _second_mig_pool(pool: Pool) -> list[Pool]:
    """Add a pool with a second MIG layout: the stack then needs MIG strategy mixed."""
    other = {
        "name": "other",
        "instanceType": pool["instanceType"],
        "nodes": {"min": 0, "max": 1},
        "sharing": {"mode": "mig", "mig": {"layout": {"1g.5gb": 3, "2g.10gb": 2}}},
    }
    return [pool, other]


def _drop_sharing(pool: Pool) -> list[Pool]:
    """Declare whole GPUs (no ``sharing``: mode exclusive)."""
    return [{k: v for k, v in pool.items() if k != "sharing"}]


@dataclass(frozen=True)
class Case:
    """A node document, the pool that matches it, and one-value changes with the cause named.

    An on-prem pool names its node ``@node``; the node name of the document it is checked
    against takes its place.
    """

    node: str
    provider: str
    pool: Pool
    changes: dict[str, tuple[Edit, str]]
    scheduler: str = "default"
    driver: str = "operator"
    baseline: tuple[str, ...] = ()  # drift with the matching stack: none, unless the node is
    # between states (a MIG reconfiguration under way is always drift)

    def stack(self, doc: str, edit: Edit | None = None) -> Stack:
        pools = (edit or (lambda p: [p]))(copy.deepcopy(self.pool))
        return stack(
            self.provider,
            *(json.dumps(p).replace(NODE, node_name(doc)) for p in pools),
            driver=self.driver,
            scheduler=self.scheduler,
        )


NODE = "@node"  # the document's node name (Case.stack)


def _onprem(node: str, model: str, count: int, sharing: Pool) -> Pool:
    return {
        "name": "p",
        "nodeNames": [node],
        "gpu": {"model": model, "count": count},
        "host": {"memoryGiB": 512},
        "sharing": sharing,
    }


def _hami(node: str, model: str, count: int) -> Pool:
    """A pool of the node's GPUs that HAMi splits 10 ways (its deviceSplitCount default)."""
    return _onprem(node, model, count, {"mode": "fractional", "fractional": {"slotsPerGpu": 10}})


def _cloud(instance: str, sharing: Pool | None = None) -> Pool:
    pool: Pool = {"name": "p", "instanceType": instance, "nodes": {"min": 1, "max": 1}}
    if sharing is not None:
        pool["sharing"] = sharing
    return pool


NODE_COUNT = ("nodes.min", "pool has 1 node(s), declared 2..2")
PENDING = (
    "MIG reconfiguration is still under way on this node (mig.config.state=pending); "
    "GPU labels and allocatable follow when it ends"
)

CASES = [
    Case(
        # NVIDIA cloud-native-docs gpu-operator-mig.rst @00b4b750: GCE A100 40GB, driver 460,
        # strategy single, all-1g.5gb
        "gfd-mig-single-a100",  # a100-40gb-mig-single-driver-460
        GCP,
        _cloud("a2-highgpu-1g", {"mode": "mig", "mig": {"layout": {"1g.5gb": 7}}}),
        {
            "GPU model (a2-ultragpu-1g: A100 80GB)": (
                lambda p: _set("sharing.mig.layout", {"1g.10gb": 7})(
                    _set("instanceType", "a2-ultragpu-1g")(p)[0]
                ),
                "node has A100-SXM4-40GB-MIG-1g.5gb, pool declares "
                "NVIDIA-A100-SXM4-80GB-MIG-1g.10gb",
            ),
            "MIG device count": (
                _set("sharing.mig.layout", {"1g.5gb": 3}),
                "label nvidia.com/gpu.count is '7', expected '3'",
            ),
            "MIG profile": (
                _set("sharing.mig.layout", {"2g.10gb": 3}),
                "pool declares MIG profile 2g.10gb",
            ),
            "MIG memory (1g.10gb on the 40GB part)": (
                _set("sharing.mig.layout", {"1g.10gb": 4}),
                "GPU memory differs from the declared GPU's",
            ),
            "MIG strategy": (
                _second_mig_pool,
                "node runs MIG strategy single, the stack needs mixed",
            ),
            "instance type (a2-highgpu-2g: 2 GPUs)": (
                _set("instanceType", "a2-highgpu-2g"),
                "label nvidia.com/gpu.count is '7', expected '14'",
            ),
            "mode (exclusive)": (
                _drop_sharing,
                "node has A100-SXM4-40GB-MIG-1g.5gb (MIG profile 1g.5gb), pool declares no MIG",
            ),
            "node count": (_set("nodes", {"min": 2, "max": 2}), NODE_COUNT[1]),
        },
    ),
    Case(
        # the same page: mig.config.state=pending while GFD still describes the whole GPU
        "gfd-mig-pending-a100",  # a100-40gb-mig-pending-driver-460
        GCP,
        _cloud("a2-highgpu-1g", {"mode": "mig", "mig": {"layout": {"1g.5gb": 7}}}),
        {
            # a layout change while the MIG Manager reconfigures cannot be told from the node:
            # it reads as the reconfiguration (test_drift_nodes.py, item 6)
            "node count": (_set("nodes", {"min": 2, "max": 2}), NODE_COUNT[1]),
        },
        baseline=(PENDING,),
    ),
    Case(
        # NVIDIA cloud-native-docs openshift/time-slicing-gpus-in-openshift.rst @69067c91:
        # g4dn.xlarge, Tesla-T4-SHARED, 8 replicas, gpu.memory in bytes, no sharing-strategy
        "gfd-time-slicing-t4-bytes",  # t4-time-slicing-openshift-gfd-bytes
        AWS,
        _cloud("g4dn.xlarge", {"mode": "time-slicing", "replicas": 8}),
        {
            "replicas": (
                _set("sharing.replicas", 4),
                "label nvidia.com/gpu.replicas is '8', expected '4'",
            ),
            "strategy (mps)": (
                _set("sharing.mode", "mps"),
                "label nvidia.com/gpu.sharing-strategy is missing: GFD older than v0.15.0",
            ),
            "GPU model (g5.xlarge: A10G)": (
                _set("instanceType", "g5.xlarge"),
                "node has Tesla-T4-SHARED, pool declares NVIDIA-A10G",
            ),
            "GPU memory (g6.xlarge: L4 24 GB)": (
                _set("instanceType", "g6.xlarge"),
                "GPU memory differs from the declared GPU's",
            ),
            "mode (exclusive)": (
                _drop_sharing,
                "label nvidia.com/gpu.replicas is '8', expected '1'",
            ),
            "GPU count (g4dn.12xlarge: 4 x T4)": (
                _set("instanceType", "g4dn.12xlarge"),
                "label nvidia.com/gpu.count is '1', expected '4'",
            ),
            "node count": (_set("nodes", {"min": 2, "max": 2}), NODE_COUNT[1]),
        },
    ),
    Case(
        # GKE docs, "About GPU time-sharing": GKE's own sharing labels, no GFD labels
        "gke-time-sharing",  # gke-time-sharing-labels
        GCP,
        _cloud("g2-standard-8", {"mode": "time-slicing", "replicas": 3}),
        {
            "replicas": (
                _set("sharing.replicas", 4),
                "label cloud.google.com/gke-max-shared-clients-per-gpu is '3', expected '4'",
            ),
            "strategy (mps)": (
                _set("sharing.mode", "mps"),
                "label cloud.google.com/gke-gpu-sharing-strategy is 'time-sharing', expected 'mps'",
            ),
            "mode (no sharing)": (
                _drop_sharing,
                "label cloud.google.com/gke-gpu-sharing-strategy is 'time-sharing': the cloud "
                "shares this node's GPUs, the pool declares no sharing",
            ),
            "node count": (_set("nodes", {"min": 2, "max": 2}), NODE_COUNT[1]),
        },
        driver="preinstalled",
    ),
    Case(
        # NVIDIA cloud-native-docs gpu-operator/manifests/output/mig-mixed-node-labels.json
        # @1c9e5bc1: H100 80GB HBM3, strategy mixed, all-balanced
        "gfd-mig-mixed-h100",  # h100-mig-mixed-all-balanced
        ONPREM,
        _onprem(
            NODE,
            "H100-SXM5-80GB",
            1,
            {"mode": "mig", "mig": {"layout": {"1g.10gb": 2, "2g.20gb": 1, "3g.40gb": 1}}},
        ),
        {
            "GPU model (H100 NVL)": (
                lambda p: _set("sharing.mig.layout", {"1g.12gb": 2, "2g.24gb": 1, "3g.47gb": 1})(
                    _set("gpu.model", "H100-NVL-94GB")(p)[0]
                ),
                "node has NVIDIA-H100-80GB-HBM3, pool declares NVIDIA-H100-NVL",
            ),
            "GPU count": (
                _set("gpu.count", 2),
                "label nvidia.com/mig-1g.10gb.count is '2', expected '4'",
            ),
            "MIG layout (count)": (
                _set("sharing.mig.layout", {"1g.10gb": 1, "2g.20gb": 1, "3g.40gb": 1}),
                "label nvidia.com/mig-1g.10gb.count is '2', expected '1'",
            ),
            "MIG layout (profile dropped)": (
                _set("sharing.mig.layout", {"1g.10gb": 2, "3g.40gb": 1}),
                "node offers 1 x 2g.20gb, which the pool no longer declares",
            ),
            "mode (exclusive)": (
                _set("sharing", {"mode": "exclusive"}),
                "node offers 1 x 2g.20gb, and the pool declares no MIG",
            ),
            "MIG strategy (one profile: single)": (
                _set("sharing.mig.layout", {"3g.40gb": 2}),
                "node runs MIG strategy mixed, the stack needs single",
            ),
            "node names": (
                _set("nodeNames", [NODE, "spare-node"]),
                "node spare-node is missing or not labelled gpupool.io/pool=p",
            ),
        },
    ),
    Case(
        # NVIDIA cloud-native-docs gpu-operator/manifests/output/mig-node-labels.json
        # @1c9e5bc1: the same H100 before MIG (all-disabled, replicas 1, strategy none)
        "gfd-exclusive-h100",  # h100-exclusive-mig-disabled
        ONPREM,
        _onprem(NODE, "H100-SXM5-80GB", 1, {"mode": "exclusive"}),
        {
            "GPU model (H100 NVL)": (
                _set("gpu.model", "H100-NVL-94GB"),
                "node has NVIDIA-H100-80GB-HBM3, pool declares NVIDIA-H100-NVL",
            ),
            "GPU memory (H100 NVL: 94 GB)": (
                _set("gpu.model", "H100-NVL-94GB"),
                "GPU memory differs from the declared GPU's",
            ),
            "GPU count": (
                _set("gpu.count", 2),
                "label nvidia.com/gpu.count is '1', expected '2'",
            ),
            "replicas (time-slicing)": (
                _set("sharing", {"mode": "time-slicing", "replicas": 4}),
                "label nvidia.com/gpu.replicas is '1', expected '4'",
            ),
            "strategy (mps)": (
                _set("sharing", {"mode": "mps", "replicas": 4}),
                "label nvidia.com/gpu.sharing-strategy is 'none', expected 'mps'",
            ),
            "MIG layout": (
                _set("sharing", {"mode": "mig", "mig": {"layout": {"1g.10gb": 7}}}),
                "node has NVIDIA-H100-80GB-HBM3 (no MIG profile), pool declares MIG profile "
                "1g.10gb",
            ),
            "node names": (
                _set("nodeNames", [NODE, "spare-node"]),
                "node spare-node is missing or not labelled gpupool.io/pool=p",
            ),
        },
    ),
    Case(
        # Project-HAMi/website docs/developers/protocol.md (JSON form): 2 x V100 PCIe 32GB
        "hami-register-json",  # hami-v100-pcie-register
        ONPREM,
        _hami(NODE, "V100-PCIE-32GB", 2),
        {
            "GPU model (SXM2)": (
                _set("gpu.model", "V100-SXM2-32GB"),
                "HAMi registered NVIDIA-Tesla V100-PCIE-32GB, pool declares Tesla-V100-SXM2-32GB",
            ),
            "GPU memory (V100 PCIe 16GB)": (
                _set("gpu.model", "V100-PCIE-16GB"),
                "HAMi registered NVIDIA-Tesla V100-PCIE-32GB, pool declares Tesla-V100-PCIE-16GB",
            ),
            "GPU count": (
                _set("gpu.count", 1),
                "HAMi registered 2 GPU(s), pool declares 1",
            ),
            "split (slots per GPU)": (
                _set("sharing.fractional.slotsPerGpu", 4),
                "HAMi splits each GPU into 10 vGPUs, expected 4",
            ),
            "mode (exclusive under HAMi)": (
                _set("sharing", {"mode": "exclusive"}),
                "HAMi splits each GPU into 10 vGPUs, expected 1",
            ),
        },
        scheduler="hami",
    ),
    Case(
        # Project-HAMi/website versioned_docs/version-v1.3.0/developers/protocol.md (legacy)
        "hami-register-legacy",  # hami-v100-pcie-register-legacy
        ONPREM,
        _hami(NODE, "V100-PCIE-32GB", 2),
        {
            "GPU model (SXM2)": (
                _set("gpu.model", "V100-SXM2-32GB"),
                "HAMi registered NVIDIA-Tesla V100-PCIE-32GB, pool declares Tesla-V100-SXM2-32GB",
            ),
            "GPU count": (_set("gpu.count", 3), "HAMi registered 2 GPU(s), pool declares 3"),
            "split (slots per GPU)": (
                _set("sharing.fractional.slotsPerGpu", 5),
                "HAMi splits each GPU into 10 vGPUs, expected 5",
            ),
        },
        scheduler="hami",
    ),
    Case(
        # Project-HAMi/website tutorials/labs/hami-isolation-k3s.md @b31b8e72: HAMi 2.9.0 on
        # one RTX PRO 6000 Blackwell Server Edition, allocatable nvidia.com/gpu 10
        "hami-register-rtx-pro-6000",  # hami-rtx-pro-6000-lab
        ONPREM,
        _hami(NODE, "RTX-PRO-6000", 1),
        {
            "GPU model (RTX PRO 4500)": (
                _set("gpu.model", "RTX-PRO-4500"),
                "HAMi registered NVIDIA RTX PRO 6000 Blackwell Server Edition, pool declares "
                "NVIDIA-RTX-PRO-4500-Blackwell-Server-Edition",
            ),
            "GPU count": (_set("gpu.count", 2), "HAMi registered 1 GPU(s), pool declares 2"),
            "GPU count (allocatable)": (
                _set("gpu.count", 2),
                "allocatable nvidia.com/gpu is 10, expected 20",
            ),
            "split (slots per GPU)": (
                _set("sharing.fractional.slotsPerGpu", 5),
                "HAMi splits each GPU into 10 vGPUs, expected 5",
            ),
            "split (allocatable)": (
                _set("sharing.fractional.slotsPerGpu", 5),
                "allocatable nvidia.com/gpu is 10, expected 5",
            ),
            "mode (exclusive under HAMi)": (
                _set("sharing", {"mode": "exclusive"}),
                "allocatable nvidia.com/gpu is 10, expected 1",
            ),
        },
        scheduler="hami",
    ),
    Case(
        # kubernetes-sigs/cluster-api-provider-azure docs/book/src/self-managed/gpu.md
        # @2c775890: a Standard_NC6s_v3 worker's allocatable
        "azure-nc6s-v3-allocatable",  # azure-nc6s-v3-capz
        AZURE,
        _cloud("Standard_NC6s_v3"),
        {
            "instance type (NC12s_v3: 2 GPUs)": (
                _set("instanceType", "Standard_NC12s_v3"),
                "allocatable nvidia.com/gpu is 1, expected 2",
            ),
            "replicas (time-slicing)": (
                _set("sharing", {"mode": "time-slicing", "replicas": 4}),
                "allocatable nvidia.com/gpu is 1, expected 4",
            ),
            "node count": (_set("nodes", {"min": 2, "max": 2}), NODE_COUNT[1]),
        },
    ),
    # GPU health conditions (tests/drift/test_conditions.py applies each source's failures).
    # MicrosoftDocs/azure-aks-docs articles/aks/node-problem-detector.md @ccbb339b: an AKS
    # node's NPD conditions, all healthy (MemoryPressure True is the kubelet's, not GPU health)
    Case(
        "aks-npd-general",  # aks-npd-describe-node
        AZURE,
        _cloud("Standard_NC6s_v3"),
        {"node count": (_set("nodes", {"min": 2, "max": 2}), NODE_COUNT[1])},
    ),
    # Azure/AgentBaker e2e/validators.go @06836ee2: NPD's healthy GPU count and IB conditions
    Case(
        "aks-npd-gpu-count-ib",  # aks-nd96-npd-gpu-count-ib-agentbaker
        AZURE,
        _cloud("Standard_ND96isr_H100_v5"),
        {"node count": (_set("nodes", {"min": 2, "max": 2}), NODE_COUNT[1])},
    ),
    # same file: NPD's healthy device plugin and DCGM conditions on a managed GPU node
    Case(
        "aks-npd-managed-gpu",  # aks-nc4as-t4-npd-managed-gpu-agentbaker
        AZURE,
        _cloud("Standard_NC4as_T4_v3"),
        {"node count": (_set("nodes", {"min": 2, "max": 2}), NODE_COUNT[1])},
    ),
    # NVIDIA/NVSentinel platform-connectors k8s_platform_connector_test.go @d0ffbc34: healthy
    # GpuThermalWatch and GpuPcieWatch (reason <check>IsHealthy, "No Health Failures")
    Case(
        "nvsentinel-conditions",  # nvsentinel-platform-connector-conditions
        ONPREM,
        _onprem(NODE, "H100-SXM5-80GB", 1, {"mode": "exclusive"}),
        {"node name": (_set("nodeNames", ["other-node"]), "node other-node is missing")},
    ),
    # NVIDIA/NVSentinel tests/gpu_health_monitor_test.go @1b4b4fe9: two injected DCGM faults are
    # reported whatever the stack says
    Case(
        "nvsentinel-faults",  # nvsentinel-dcgm-injection-e2e
        ONPREM,
        _onprem(NODE, "H100-SXM5-80GB", 1, {"mode": "exclusive"}),
        {"node name": (_set("nodeNames", ["other-node"]), "node other-node is missing")},
        baseline=(
            "NVSentinel condition GpuInforomWatch is True, reason GpuInforomWatchIsNotHealthy: "
            "DCGM reports a corrupt InfoROM",
            "NVSentinel condition GpuMemWatch is True, reason GpuMemWatchIsNotHealthy: "
            "DCGM reports a GPU memory failure (ECC errors, faulty memory)",
        ),
    ),
]

MUTATIONS = [
    pytest.param(case, doc, name, id=f"{doc}: {name}")
    for case in CASES
    for doc in (case.node, twin(case.node))
    for name in case.changes
]
MATCHING = [
    pytest.param(case, doc, id=doc) for case in CASES for doc in (case.node, twin(case.node))
]


@pytest.mark.parametrize(("case", "doc"), MATCHING)
def test_node_with_its_stack_has_no_drift(case: Case, doc: str) -> None:
    """The stack that declares what the node is gives no drift (a reconfiguration under way
    is named, and nothing else)."""
    assert drift(case.stack(doc), "p", doc) == list(case.baseline)


@pytest.mark.parametrize(("case", "doc", "change"), MUTATIONS)
def test_one_value_change_is_drift_naming_the_cause(case: Case, doc: str, change: str) -> None:
    """Changing one stack value gives drift, and a finding names the changed value's field."""
    edit, cause = case.changes[change]
    found = drift(case.stack(doc, edit), "p", doc)
    assert found and found != list(case.baseline), f"{change}: no drift"
    assert any(cause in s for s in found), f"{change}: {found}"


def test_every_node_document_has_a_case() -> None:
    """No node document of gpupool's own is left out of the one-value changes."""
    assert {c.node for c in CASES} == set(own_names())
