"""Drift reads the MIG labels of a 2020 GPU Feature Discovery as the profiles they stand for.

NVIDIA's "MIG Support in Kubernetes" page (NVIDIA/cloud-native-docs ``kubernetes/index.rst``, the
DGX A100 under MIG strategy mixed, driver 450.80.02) shows GFD labels
``nvidia.com/mig-3g.21gb.*`` (``.memory`` 20096 MiB) beside the device plugin's allocatable
``nvidia.com/mig-3g.20gb``. ``tests/fixtures/nodes/gfd-2020/dgx-a100-mig-mixed.json`` is a
hand-written node with those spellings under gpupool's own names (see its README).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("kubernetes")

from kubernetes.client import ApiClient, V1NodeList

from gpupool.cluster import ObservedNode, read_gpu_nodes
from gpupool.drift import legacy_gfd
from gpupool.drift import nodes as node_state
from gpupool.drift.run import DriftInputs, run
from gpupool.model import Stack
from gpupool.views import drift as drift_view
from tests.paths import FIXTURES, shared_upstream
from tests.stacks import load_stack_text

FIXTURE = FIXTURES / "nodes" / "gfd-2020" / "dgx-a100-mig-mixed.json"
#: The A100-SXM4-40GB's profiles as the catalog gives them (name, MiB).
A100_40GB = (("1g.5gb", 5120.0), ("1g.5gb+me", 5120.0), ("1g.10gb", 10240.0),
             ("2g.10gb", 10240.0), ("3g.20gb", 20480.0), ("4g.20gb", 20480.0),
             ("7g.40gb", 40960.0))


class _Api:
    """Serves the fixture's NodeList through the client's own deserialiser."""

    def __init__(self, body: dict[str, Any]) -> None:
        self.body = body

    def list_node(self, **kwargs: Any) -> V1NodeList:
        return ApiClient().deserialize(json.dumps(self.body), "V1NodeList", "application/json")


def _nodes() -> list[ObservedNode]:
    return read_gpu_nodes(api=_Api(json.loads(FIXTURE.read_text("utf-8"))))


def _stack(layout: str) -> Stack:
    return load_stack_text(
        f"""
apiVersion: gpupool.io/v1
kind: GpuPoolStack
metadata: {{name: dgx-lab}}
provider: {{cloud: kubernetes}}
pools:
  - name: dgx
    nodeNames: [dgx-a100-01.lab.example.internal]
    gpu: {{model: A100-SXM4-40GB, count: 1}}
    workload: training
    sharing: {{mode: mig, mig: {{layout: {layout}}}}}
"""
    )


def test_the_2020_node_shows_no_drift_against_its_stack() -> None:
    items = node_state.compare(_stack("{1g.5gb: 1, 2g.10gb: 1, 3g.20gb: 1}"), _nodes())
    assert [i for i in items if i.kind != "note"] == []
    (note,) = items
    assert note.kind == "note" and (note.declared, note.observed) == ("3g.20gb", "3g.21gb")
    assert "GPU Feature Discovery of 2020" in note.summary


def test_the_2020_node_drifts_when_the_layout_really_differs() -> None:
    items = node_state.compare(_stack("{1g.5gb: 3, 2g.10gb: 2}"), _nodes())
    summaries = [i.summary for i in items if i.kind != "note"]
    assert "node offers 1 x 3g.20gb, which the pool no longer declares" in summaries
    assert "allocatable nvidia.com/mig-1g.5gb is 1, expected 3" in summaries
    assert not any("3g.21gb" in s for s in summaries)  # named as what it is
    more = node_state.compare(_stack("{1g.5gb: 2, 2g.10gb: 1, 3g.20gb: 1}"), _nodes())
    assert [i.summary for i in more if i.kind != "note"] == [
        "label nvidia.com/mig-1g.5gb.count is '1', expected '2'",
        "allocatable nvidia.com/mig-1g.5gb is 1, expected 2",
    ]


def test_drift_run_says_it_in_a_note_never_as_drift(tmp_path: Path) -> None:
    nodes = _nodes()
    report = run(_stack("{1g.5gb: 1, 2g.10gb: 1, 3g.20gb: 1}"), tmp_path / "s.yaml",
                 DriftInputs(cluster=lambda: nodes))
    assert report.status == "no-drift" and report.items == ()
    doc = drift_view.to_json(report)
    assert doc["drifted"] is False and len(doc["notes"]) == 1
    text = drift_view.format_text(report)
    assert "No drift" in text and "note: pool.dgx/node/dgx-a100-01" in text
    assert "Note:" in drift_view.format_markdown(report)


def test_old_spellings_follow_gfds_decimal_rounding() -> None:
    # 20096 MiB = 21.07 GB: "3g.21gb" is the 3g.20gb instance
    assert legacy_gfd.old_spellings(A100_40GB, {
        "nvidia.com/mig-3g.21gb.count": "1", "nvidia.com/mig-3g.21gb.memory": "20096",
    }) == {"3g.21gb": "3g.20gb"}
    # without a .memory label, the profile's own memory decides (20 GiB = 21.47 GB)
    assert legacy_gfd.old_spellings(A100_40GB, {"nvidia.com/mig-3g.21gb.count": "1"}) == {
        "3g.21gb": "3g.20gb"}
    # a memory that does not round to the name, another g, or a known profile: no alias
    assert legacy_gfd.old_spellings(A100_40GB, {
        "nvidia.com/mig-3g.21gb.count": "1", "nvidia.com/mig-3g.21gb.memory": "30000"}) == {}
    assert legacy_gfd.old_spellings(A100_40GB, {"nvidia.com/mig-5g.21gb.count": "1"}) == {}
    assert legacy_gfd.old_spellings(A100_40GB, {"nvidia.com/mig-3g.20gb.count": "1"}) == {}


def test_relabel_renames_every_attribute_label_of_the_old_spelling() -> None:
    labels, renames = legacy_gfd.relabel(A100_40GB, {
        "nvidia.com/mig-3g.21gb.count": "1", "nvidia.com/mig-3g.21gb.memory": "20096",
        "nvidia.com/mig-3g.21gb.engines.copy": "3", "nvidia.com/gpu.product": "A100-SXM4-40GB",
    })
    assert renames == {"3g.21gb": "3g.20gb"}
    assert labels == {
        "nvidia.com/mig-3g.20gb.count": "1", "nvidia.com/mig-3g.20gb.memory": "20096",
        "nvidia.com/mig-3g.20gb.engines.copy": "3", "nvidia.com/gpu.product": "A100-SXM4-40GB",
    }


def test_the_fixture_keeps_the_documented_spellings() -> None:
    """Conformance: the fixture's nvidia.com/ labels and MIG resources are those of NVIDIA's
    documented node (kept unchanged beside the repository), under gpupool's own names."""
    doc = json.loads(shared_upstream(
        "nodes/from-docs/k8sdoc-dgx-a100-mig-mixed.json").read_text("utf-8"))
    (node,) = json.loads(FIXTURE.read_text("utf-8"))["items"]
    ours = {k: v for k, v in node["metadata"]["labels"].items()
            if k.startswith("nvidia.com/mig-") or k in (
                "nvidia.com/gpu.product", "nvidia.com/gpu.memory", "nvidia.com/mig.strategy")}
    theirs = {k: v for k, v in doc["metadata"]["labels"].items() if k in ours or (
        k.startswith("nvidia.com/mig-"))}
    assert ours == theirs
    mig = {k: v for k, v in node["status"]["allocatable"].items() if k.startswith("nvidia.com/")}
    assert mig == doc["status"]["allocatable"]
