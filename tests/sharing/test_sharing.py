"""In-cluster configuration of every example stack and sharing fixture: golden files, manifest
and values validation, graph wiring.

Golden files (``tests/golden/sharing/<stack file>.json``) hold the resources ``sharing.build``
returns, the node labels per pool and the workload snippets. They are built against a fixed
stand-in ``CloudResult`` so they do not move when a cloud module changes; the real cloud modules
are exercised in ``test_build_through_cloud_module``. Regenerate with
``GPUPOOL_UPDATE_GOLDEN=1 pytest tests/sharing/test_sharing.py``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpupool import facts, sharing
from gpupool.facts.names import DEVICE_PLUGIN_CONFIGMAP, MIG_CONFIGMAP
from gpupool.graph import CloudResult, Resource, ResourceGraph, order
from gpupool.model import Stack
from tests import upstream_facts
from tests.manifests import (
    validate_device_plugin_config,
    validate_manifests,
    validate_mig_parted_config,
    validate_values,
)
from tests.paths import EXAMPLES, FIXTURES, GOLDEN
from tests.stacks import load_stack

STACKS = sorted(EXAMPLES.glob("*.yaml")) + sorted((FIXTURES / "valid").glob("sharing-*.yaml"))
RELEASE_CHARTS = {
    "helm.gpu-operator": "gpu-operator",
    "helm.hami": "hami",
    "helm.kai-scheduler": "kai-scheduler",
    "helm.aws-efa-k8s-device-plugin": "aws-efa-k8s-device-plugin",
    "helm.nvsentinel": "nvsentinel",
    "helm.keda": "keda",
}


def stand_in_cloud(stack: Stack) -> CloudResult:
    return CloudResult(
        resources=(),
        k8s_provider="cluster.k8s_provider",
        node_pools={p.name: (f"pool.{p.name}.node_group",) for p in stack.pools},
    )


def build(path: Path) -> tuple[Stack, CloudResult, list[Resource]]:
    stack = load_stack(path)
    cloud = stand_in_cloud(stack)
    return stack, cloud, sharing.build(stack, cloud)


def golden_doc(path: Path) -> dict[str, Any]:
    stack, _, resources = build(path)
    graph = ResourceGraph(stack.name, stack.provider.cloud, tuple(resources)).to_json()
    return {
        "stack": stack.name,
        "resources": graph["resources"],
        "node_labels": {p.name: facts.node_labels(stack, p) for p in stack.pools},
        "snippets": sharing.workload_snippets(stack),
    }


@pytest.mark.parametrize("path", STACKS, ids=lambda p: p.stem)
def test_golden(path: Path) -> None:
    golden = GOLDEN / "sharing" / f"{path.stem}.json"
    text = json.dumps(golden_doc(path), indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if os.environ.get("GPUPOOL_UPDATE_GOLDEN") == "1":
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert golden.is_file(), f"missing {golden}; run with GPUPOOL_UPDATE_GOLDEN=1"
    assert text == golden.read_text(encoding="utf-8"), (
        f"{golden.name} differs; if intended, regenerate with GPUPOOL_UPDATE_GOLDEN=1"
    )


@pytest.mark.cloud_sdks  # kubernetes-validate
@pytest.mark.parametrize("path", STACKS, ids=lambda p: p.stem)
def test_every_manifest_is_valid(path: Path) -> None:
    _, _, resources = build(path)
    manifests = [r.manifest for r in resources if r.manifest is not None]
    assert manifests
    assert validate_manifests(manifests) == []


@pytest.mark.parametrize("path", STACKS, ids=lambda p: p.stem)
def test_every_release_values_are_valid(path: Path) -> None:
    _, _, resources = build(path)
    for r in resources:
        if r.type == "kubernetes:helm.sh/v3:Release":
            assert r.manifest is None
            assert r.inputs["values"] == r.facts["values"]
            assert validate_values(RELEASE_CHARTS[r.address], r.facts["values"]) == []


def _chart_lacks(table: upstream_facts.ChartFacts, values: dict[str, Any]) -> list[str]:
    """Key paths of ``values`` the chart's table lacks, or whose type differs from the chart's.

    A path below a key the table keeps as a leaf map (``data``, ``labels``, a Kubernetes struct
    passed through) is the chart's by that map. An integer and a number are the same to Helm.
    """
    wrong = []
    for key in upstream_facts.value_paths(values):
        _, value = upstream_facts.lookup(values, key)
        fact = table.keys.get(key)
        if fact is not None:
            types = {fact.type, upstream_facts.json_type(value)}
            if len(types) > 1 and types != {"integer", "number"}:
                wrong.append(f"{key}: {upstream_facts.json_type(value)}, chart {fact.type}")
            continue
        parts = key.split(".")
        parents = (".".join(parts[:i]) for i in range(len(parts) - 1, 0, -1))
        parent = next((p for p in parents if p in table.keys), None)
        if parent is None or any(k.startswith(f"{parent}.") for k in table.keys):
            wrong.append(f"{key}: not in the chart's values.yaml")
    return wrong


@pytest.mark.parametrize("path", STACKS, ids=lambda p: p.stem)
def test_every_release_value_key_is_one_the_chart_has(path: Path) -> None:
    # Helm ignores a values key its chart lacks: every key gpupool sets is in the pinned chart's
    # values.yaml (tests/upstream_facts/charts/<chart>.json, read from it), of its type there.
    _, _, resources = build(path)
    for r in resources:
        if r.type == "kubernetes:helm.sh/v3:Release":
            table = upstream_facts.chart(RELEASE_CHARTS[r.address])
            assert _chart_lacks(table, r.facts["values"]) == [], r.address


def test_the_chart_key_check_finds_a_misspelt_key_and_a_wrong_type() -> None:
    table = upstream_facts.chart("gpu-operator")
    assert _chart_lacks(table, {"mig": {"strategy": "mixed"}, "driver": {"enabled": False}}) == []
    assert _chart_lacks(table, {"migg": {"strategy": "mixed"}}) == [
        "migg: not in the chart's values.yaml",
        "migg.strategy: not in the chart's values.yaml",
    ]
    wrong_type = _chart_lacks(table, {"mig": {"strategy": True}})
    assert wrong_type == ["mig.strategy: boolean, chart string"]
    # inside a map the table keeps whole, any key is the chart's
    assert _chart_lacks(table, {"devicePlugin": {"config": {"data": {"any-name": "x"}}}}) == []


@pytest.mark.parametrize("path", STACKS, ids=lambda p: p.stem)
def test_embedded_configs_are_valid(path: Path) -> None:
    _, _, resources = build(path)
    by_name = {r.manifest["metadata"]["name"]: r for r in resources if r.manifest}
    dp = by_name.get(DEVICE_PLUGIN_CONFIGMAP)
    if dp is not None:
        for key, text in dp.manifest["data"].items():
            assert validate_device_plugin_config(yaml.safe_load(text)) == [], key
    mig = by_name.get(MIG_CONFIGMAP)
    if mig is not None:
        assert set(mig.manifest["data"]) == {"config.yaml"}
        cfg = yaml.safe_load(mig.manifest["data"]["config.yaml"])
        assert validate_mig_parted_config(cfg) == []


@pytest.mark.parametrize("path", STACKS, ids=lambda p: p.stem)
def test_node_labels_name_configs_that_exist(path: Path) -> None:
    stack, _, resources = build(path)
    by_name = {r.manifest["metadata"]["name"]: r for r in resources if r.manifest}
    dp = by_name.get(DEVICE_PLUGIN_CONFIGMAP)
    mig = by_name.get(MIG_CONFIGMAP)
    mig_names = (
        set(yaml.safe_load(mig.manifest["data"]["config.yaml"])["mig-configs"]) if mig else set()
    )
    for pool in stack.pools:
        labels = facts.node_labels(stack, pool)
        assert labels["gpupool.io/pool"] == pool.name
        if "nvidia.com/device-plugin.config" in labels:
            assert dp is not None
            assert labels["nvidia.com/device-plugin.config"] in dp.manifest["data"]
        mig_label = labels.get("nvidia.com/mig.config")
        if mig_label not in (None, "all-disabled"):
            assert mig_label in mig_names
        for key, value in labels.items():
            assert len(value) <= 63 and len(key.split("/")[-1]) <= 63


@pytest.mark.parametrize("path", STACKS, ids=lambda p: p.stem)
def test_graph_wiring(path: Path) -> None:
    stack, cloud, resources = build(path)
    addresses = [r.address for r in resources]
    assert len(addresses) == len(set(addresses))
    names = [(r.type, r.name) for r in resources]
    assert len(names) == len(set(names)), "logical names must be unique per type"
    node_pools = {a for addrs in cloud.node_pools.values() for a in addrs}
    known = set(addresses) | node_pools | {cloud.k8s_provider}
    for r in resources:
        assert r.provider == cloud.k8s_provider
        assert set(r.depends_on) <= known, r.address
        assert r.owner == "cluster" or r.owner.startswith(("pool:", "tenant:"))
        if r.manifest is not None:
            labels = r.manifest["metadata"]["labels"]
            assert labels["app.kubernetes.io/managed-by"] == "gpupool"
            assert labels["gpupool.io/stack"] == stack.name
            for key, value in stack.labels.items():
                assert labels[key] == value
            assert r.inputs["metadata"] == r.manifest["metadata"]
            assert r.inputs["api_version"] == r.manifest["apiVersion"]
    stand_ins = [Resource(a, "test:stand/in:In", a, {}) for a in sorted(node_pools)]
    stand_ins.append(Resource(cloud.k8s_provider, "pulumi:providers:kubernetes", "k8s", {}))
    order([*stand_ins, *resources])  # no cycle, no unknown dependency
    helm = [r for r in resources if r.address.startswith("helm.")]
    for r in helm:
        assert node_pools <= set(r.depends_on), f"{r.address} must follow every node pool"


@pytest.mark.parametrize("path", STACKS, ids=lambda p: p.stem)
def test_snippets(path: Path) -> None:
    stack = load_stack(path)
    snippets = sharing.workload_snippets(stack)
    assert len(snippets) == sum(len(t.pools) for t in stack.tenants) + len(stack.services)
    for key, text in snippets.items():
        assert key.startswith("snippets/") and key.endswith(".yaml")
        assert ".." not in key and "/" not in key.removeprefix("snippets/")
        doc = yaml.safe_load(text)
        if key.startswith("snippets/service."):  # a service's (tests/sharing/test_keda.py)
            service = next(s for s in stack.services if key == f"snippets/service.{s.name}.yaml")
            assert doc["spec"]["nodeSelector"] == {"gpupool.io/pool": service.pool}
            continue
        tenant_name, pool_name = key.removeprefix("snippets/").removesuffix(".yaml").split("--")
        tenant = next(t for t in stack.tenants if t.name == tenant_name)
        assert doc["metadata"]["namespace"] == tenant.namespace
        assert doc["spec"]["nodeSelector"] == {"gpupool.io/pool": pool_name}
        fraction = doc["metadata"].get("annotations", {}).get("gpu-fraction")
        if fraction is not None:
            assert 0 < float(fraction) < 1


def test_build_through_cloud_module() -> None:
    """Where a cloud module exists, sharing.build wires to its real node-pool addresses."""
    from gpupool import providers

    built = 0
    for path in STACKS:
        stack = load_stack(path)
        try:
            cloud = providers.build(stack)
        except ModuleNotFoundError:
            continue  # that cloud's module is not written yet
        resources = sharing.build(stack, cloud)
        cloud_addresses = {r.address for r in cloud.resources}
        for pool in stack.pools:
            assert set(cloud.node_pools[pool.name]) <= cloud_addresses
        order([*cloud.resources, *resources])
        built += 1
    if not built:
        pytest.skip("no cloud module is available yet")
