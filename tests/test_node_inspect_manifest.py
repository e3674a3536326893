"""The shipped node-inspect DaemonSet is a valid Kubernetes manifest that inspects read only."""

from __future__ import annotations

import pytest
import yaml

from tests.manifests import validate_manifest
from tests.paths import TEMPLATES

pytestmark = pytest.mark.cloud_sdks  # needs the provider SDKs or kubernetes-validate

MANIFEST = TEMPLATES / "k8s" / "node-inspect-daemonset.yaml"


def test_node_inspect_daemonset_is_strictly_valid() -> None:
    """Every object passes kubernetes-validate --strict."""
    docs = list(yaml.safe_load_all(MANIFEST.read_text(encoding="utf-8")))
    assert [d["kind"] for d in docs] == ["Namespace", "DaemonSet"]
    for doc in docs:
        assert validate_manifest(doc) == []


def test_node_inspect_takes_no_gpu_and_reports_its_node_name() -> None:
    """The pod requests no GPU, runs the read-only command and knows its node's name."""
    ds = list(yaml.safe_load_all(MANIFEST.read_text(encoding="utf-8")))[1]
    [container] = ds["spec"]["template"]["spec"]["containers"]
    resources = container["resources"]
    assert not any("nvidia.com" in k for part in resources.values() for k in part)
    assert "gpupool node inspect --format json" in container["args"][0]
    env = {e["name"]: e for e in container["env"]}
    assert env["NODE_NAME"]["valueFrom"]["fieldRef"]["fieldPath"] == "spec.nodeName"
