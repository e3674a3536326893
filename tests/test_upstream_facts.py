"""Conformance: every facts table in ``tests/upstream_facts`` agrees with its upstream file.

The tables are gpupool's own summaries of upstream files (chart values, CRDs, GKE's GPUDirect
manifests, a Cloud Control schema, mig-parted's default config); the tests read the tables. Here
each table is checked against the unchanged upstream file in ``../shared/reference/upstream/``
(its ``SOURCES.md`` names each file's repository and revision), so a table cannot drift from
what it summarises. Without that folder (a user's clone) these tests skip, naming the file.
The KAI constants and NVSentinel's PodMonitor template are Go source and a Helm template, kept
nowhere beside the repository, so their facts modules have no test here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.manifests import crd_version_schema
from tests.paths import shared_upstream
from tests.upstream_facts import (
    chart,
    charts,
    crd,
    crds,
    gpudirect,
    json_type,
    lookup,
    mig_parted_config,
    mig_parted_default,
    schema_fields,
    volcengine,
)


def _load_yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _docs(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]


def commented_example(text: str, parent: str, key: str) -> dict[str, Any]:
    """Return ``{parent: {key: ...}}`` from the commented example of ``key`` under ``parent``.

    The example is the run of comment lines that starts with ``# <key>:`` inside the top-level
    block ``<parent>:``; each line loses its first ``# `` and is read as YAML.
    """
    lines = text.splitlines()
    start = lines.index(f"{parent}:")
    head = next(
        i for i in range(start + 1, len(lines)) if lines[i].lstrip().startswith(f"# {key}:")
    )
    block = []
    for line in lines[head:]:
        stripped = line.lstrip()
        if stripped and not stripped.startswith("#"):
            break
        indent = line[: len(line) - len(stripped)]
        block.append(indent + stripped.removeprefix("#").removeprefix(" "))
    example = yaml.safe_load(f"{parent}:\n" + "\n".join(block))
    assert isinstance(example, dict) and isinstance(example[parent][key], dict), example
    return example


def _upstream_values(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A chart's upstream values (subcharts' values under their keys, as Helm passes them) and
    the commented-out examples of the keys the table marks ``commented``."""
    facts = chart(name)
    path = shared_upstream(facts.upstream_file)
    values = dict(_load_yaml(path))
    for key, filename in facts.subcharts.items():
        assert key not in values, f"{name} values.yaml sets {key} itself"
        values[key] = _load_yaml(shared_upstream(filename))
    examples: dict[str, Any] = {}
    text = path.read_text(encoding="utf-8")
    for key_path, fact in facts.keys.items():
        parent, _, rest = key_path.partition(".")
        if fact.commented and rest and "." not in rest:
            examples.update(commented_example(text, parent, rest))
    return values, examples


@pytest.mark.parametrize("name", charts())
def test_chart_table_agrees_with_the_upstream_values(name: str) -> None:
    """Every key path of the table is in the chart's values.yaml, of that type, with that
    default; a key marked commented is only in a commented-out example there."""
    values, examples = _upstream_values(name)
    facts = chart(name)
    wrong = []
    for path, fact in facts.keys.items():
        found, value = lookup(values, path)
        if fact.commented:
            assert not found, f"{path} is no longer only a comment"
            found, value = lookup(examples, path)
        if not found:
            wrong.append(f"{path}: missing")
        elif json_type(value) != fact.type:
            wrong.append(f"{path}: {json_type(value)}, table {fact.type}")
        elif fact.has_default and value != fact.default:
            wrong.append(f"{path}: default {value!r}, table {fact.default!r}")
    assert wrong == []


def test_the_chart_check_finds_a_wrong_type_and_a_missing_key() -> None:
    """The lookups the conformance check makes tell a missing key and a changed type."""
    values = {"mig": {"strategy": "single"}}
    assert lookup(values, "mig.strategyy") == (False, None)
    assert lookup(values, "mig.strategy.x") == (False, None)
    found, value = lookup(values, "mig.strategy")
    assert found and json_type(value) == "string" and json_type(True) == "boolean"


def test_gpu_operator_documents_the_dcgm_exporter_config_keys_only_in_a_comment() -> None:
    """values.yaml v26.7.0 leaves dcgmExporter.config commented out; its example has 3 keys."""
    path = shared_upstream(chart("gpu-operator").upstream_file)
    assert "config" not in _load_yaml(path)["dcgmExporter"]
    example = commented_example(path.read_text("utf-8"), "dcgmExporter", "config")
    config = example["dcgmExporter"]["config"]
    assert set(config) == {"name", "create", "data"}
    assert config["create"] is True and isinstance(config["data"], str)


def test_nvsentinel_documents_the_pod_monitor_labels_only_in_a_comment() -> None:
    """values.yaml v1.19.0 has podMonitor.labels only as "# labels: {}", a map."""
    path = shared_upstream(chart("nvsentinel").upstream_file)
    assert "labels" not in _load_yaml(path)["podMonitor"]
    example = commented_example(path.read_text("utf-8"), "podMonitor", "labels")
    assert example == {"podMonitor": {"labels": {}}}


@pytest.mark.parametrize("name", crds())
def test_crd_table_is_the_upstream_crd(name: str) -> None:
    """The table's fields are those of the CRD version's openAPIV3Schema, converted by
    tests/manifests.py's crd_openapi_to_json_schema; group, kind and scope are the CRD's."""
    table = crd(name)
    doc = _load_yaml(shared_upstream(table["upstream_file"]))
    assert schema_fields(crd_version_schema(doc, table["version"])) == table["fields"]
    spec = doc["spec"]
    assert (spec["group"], spec["names"]["kind"], spec["scope"]) == (
        table["group"],
        table["kind"],
        table["scope"],
    )


def test_mig_parted_table_is_the_upstream_default_config() -> None:
    """The table's rows rebuild NVIDIA/mig-parted v0.15.0's config-default.yaml exactly."""
    table = mig_parted_default()
    upstream = _load_yaml(shared_upstream(table["upstream_file"]))
    assert mig_parted_config(table) == upstream


@pytest.mark.parametrize("short", sorted(gpudirect.STACKS))
def test_gpudirect_facts_are_gkes_manifests(short: str) -> None:
    """Images, the RxDM sidecar, its device annotation and the test pods' interfaces."""
    facts = gpudirect.STACKS[short]
    [installer] = _docs(shared_upstream(gpudirect.INSTALLER_FILES[short]))
    assert installer["kind"] == facts.installer_kind
    pod = installer["spec"]["template"]["spec"]
    images = tuple(c["image"] for c in pod.get("initContainers", []) + pod["containers"])
    assert images == facts.installer_images
    docs = _docs(shared_upstream(gpudirect.TEST_POD_FILES[short]))
    pods = [d for d in docs if d["kind"] == "Pod"]
    assert len(pods) == facts.test_pods
    for p in pods:
        containers = {c["name"]: c["image"] for c in p["spec"]["containers"]}
        assert containers[facts.daemon] == facts.daemon_image
        annotations = p["metadata"]["annotations"]
        assert f"devices.gke.io/container.{facts.daemon}" in annotations
        assert annotations["networking.gke.io/default-interface"] == facts.default_interface
        nics = json.loads(annotations["networking.gke.io/interfaces"])
        assert tuple((n["interfaceName"], n["network"]) for n in nics) == facts.interfaces


def test_volcengine_facts_are_the_cloud_control_schema() -> None:
    """Property names, the spot strategies, the base-capacity range and create-only paths."""
    schema = json.loads(shared_upstream(volcengine.UPSTREAM_FILE).read_text(encoding="utf-8"))
    definitions: Mapping[str, Any] = schema["definitions"]
    node_config = definitions["NodeConfig"]["properties"]
    distribution = definitions["InstancesDistribution"]["properties"]
    assert set(node_config) == volcengine.NODE_CONFIG
    assert set(distribution) == volcengine.INSTANCES_DISTRIBUTION
    assert tuple(node_config["SpotStrategy"]["enum"]) == volcengine.SPOT_STRATEGIES
    base = distribution["OnDemandBaseCapacity"]
    low, high = volcengine.ON_DEMAND_BASE_CAPACITY_RANGE
    assert base["type"] == "integer" and f"Value range: [{low},{high}]" in base["description"]
    assert tuple(schema["createOnlyProperties"]) == volcengine.CREATE_ONLY
