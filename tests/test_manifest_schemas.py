"""The validation harness in tests/manifests.py: it passes known-good objects and fails bad ones.

Tests that compare the schemas with upstream projects (chart values.yaml, the KAI Queue and GKE
network CRDs, the mig-parted default config) read gpupool's own facts tables in
``tests/upstream_facts`` (``tests/test_upstream_facts.py`` checks those against the upstream
files); every other test carries its examples inline. The one test that reads an upstream file
itself does so through ``tests.paths.shared_upstream`` and skips without its folder.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from gpupool.sharing.objects import chart as pinned_chart
from tests import manifests
from tests.manifests import (
    CHART_SCHEMAS,
    K8S_VERSION,
    SCHEMA_DIR,
    load_schema,
    validate_device_plugin_config,
    validate_manifest,
    validate_manifests,
    validate_mig_parted_config,
    validate_values,
)
from tests.paths import shared_upstream
from tests.upstream_facts import (
    chart,
    crd,
    crds,
    mig_parted_config,
    mig_parted_default,
    schema_fields,
)

pytestmark = pytest.mark.cloud_sdks  # needs the provider SDKs or kubernetes-validate

SCHEMA_FILES = sorted(p.name for p in SCHEMA_DIR.glob("*.schema.json"))



def _load_yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- schema walking


def _resolve(node: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any]:
    while "$ref" in node:
        ref = node["$ref"]
        assert ref.startswith("#/$defs/"), ref
        node = root["$defs"][ref.removeprefix("#/$defs/")]
    return node


def _schema_key_paths(
    node: Mapping[str, Any], root: Mapping[str, Any], prefix: tuple[str, ...] = ()
) -> Iterator[tuple[str, ...]]:
    """Key paths a values schema names through ``properties`` (not items or map values).

    Nodes marked ``x-gpupool-passthrough`` are Kubernetes structs the chart copies unchanged
    (upstream default ``{}``): their own key is a chart key, what is inside is not.
    """
    node = _resolve(node, root)
    if node.get("x-gpupool-passthrough"):
        return
    for key, child in node.get("properties", {}).items():
        yield (*prefix, key)
        yield from _schema_key_paths(child, root, (*prefix, key))


def _project(values: Any, node: Mapping[str, Any], root: Mapping[str, Any]) -> Any:
    """Keep only the parts of ``values`` that the schema names (for checking chart defaults)."""
    node = _resolve(node, root)
    if not isinstance(values, Mapping) or "properties" not in node:
        return values
    props = node["properties"]
    return {k: _project(v, props[k], root) for k, v in values.items() if k in props}


def _open_objects(node: Any, path: str = "") -> Iterator[str]:
    """Paths of schema objects that list properties but leave additionalProperties open."""
    if isinstance(node, Mapping):
        if "properties" in node and node.get("additionalProperties") is not False:
            yield path or "<root>"
        for key, child in node.items():
            if key in ("properties", "$defs"):
                for name, sub in child.items():
                    yield from _open_objects(sub, f"{path}/{key}/{name}")
            elif key not in ("if", "then", "else", "not", "const", "enum", "default"):
                yield from _open_objects(child, f"{path}/{key}")
    elif isinstance(node, list):
        for index, child in enumerate(node):
            yield from _open_objects(child, f"{path}/{index}")


# --------------------------------------------------------------------------- the schema files


def test_all_thirteen_schemas_exist() -> None:
    """schemas/k8s holds the thirteen formats gpupool renders."""
    assert (
        sorted(
            [
                "device-plugin-config.schema.json",
                "efa-device-plugin-values.schema.json",
                "gke-network-param-set.schema.json",
                "gke-network.schema.json",
                "gpu-operator-values.schema.json",
                "hami-values.schema.json",
                "kai-queue.schema.json",
                "kai-values.schema.json",
                "keda-scaledobject.schema.json",
                "keda-values.schema.json",
                "mig-parted-config.schema.json",
                "nvsentinel-values.schema.json",
                "prometheusrule.schema.json",
            ]
        )
        == SCHEMA_FILES
    )


@pytest.mark.parametrize("filename", SCHEMA_FILES)
def test_schema_is_valid_and_names_its_source(filename: str) -> None:
    """Each schema is a valid draft 2020-12 schema whose $comment names the upstream source."""
    schema = json.loads((SCHEMA_DIR / filename).read_text(encoding="utf-8"))
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$id"].endswith(f"/schemas/k8s/{filename}")
    comment = schema["$comment"]
    assert any(
        repo in comment
        for repo in (
            "NVIDIA/k8s-device-plugin",
            "aws/eks-charts",
            "NVIDIA/mig-parted",
            "NVIDIA/gpu-operator",
            "Project-HAMi/HAMi",
            "kai-scheduler/KAI-Scheduler",
            "prometheus-operator/prometheus-operator",
            "NVIDIA/NVSentinel",
            "GoogleCloudPlatform/gke-networking-api",
            "kedacore/keda",
            "kedacore/charts",
        )
    ), comment
    assert any(ch.isdigit() for ch in comment), "the source version or commit is missing"


@pytest.mark.parametrize("filename", SCHEMA_FILES)
def test_schema_objects_are_closed(filename: str) -> None:
    """Every object that lists properties forbids others, so a misspelt key fails."""
    assert list(_open_objects(load_schema(filename))) == []


def test_kubernetes_validate_ships_the_pinned_version() -> None:
    """kubernetes-validate carries strict schemas for K8S_VERSION."""
    assert manifests._k8s_schema_dir(K8S_VERSION).joinpath("namespace-v1.json").is_file()


def test_validators_are_cached() -> None:
    """Compiled validators are built once and reused."""
    assert manifests._validator("kai-queue.schema.json") is manifests._validator(
        "kai-queue.schema.json"
    )
    first = manifests._k8s_validator(K8S_VERSION, "namespace-v1.json")
    assert first is manifests._k8s_validator(K8S_VERSION, "namespace-v1.json")


# ----------------------------------------------------------------- values vs the chart tables
# tests/upstream_facts/charts/<chart>.json: the chart's value keys gpupool sets, with their types
# and defaults, read from the pinned chart's values.yaml (tests/test_upstream_facts.py checks each
# table against that file). Helm ignores a key a chart lacks, so the schema may allow no other.


def _keys_the_chart_lacks(schema: Mapping[str, Any], known: set[str]) -> list[str]:
    """Dotted key paths the values schema allows that are not in ``known``."""
    paths = (".".join(p) for p in _schema_key_paths(schema, schema))
    return sorted(p for p in paths if p not in known)


@pytest.mark.parametrize("name", sorted(CHART_SCHEMAS))
def test_values_schema_keys_are_in_the_chart_table(name: str) -> None:
    """Every key path the values schema allows is one the chart's values.yaml has."""
    schema = load_schema(CHART_SCHEMAS[name])
    assert _keys_the_chart_lacks(schema, set(chart(name).keys)) == []


@pytest.mark.parametrize("name", sorted(CHART_SCHEMAS))
def test_the_pinned_chart_is_the_version_its_table_was_read_from(name: str) -> None:
    """gpupool/sharing/charts.json pins the version whose values.yaml the table summarises."""
    assert pinned_chart(name).version == chart(name).version


def test_gpu_operator_documents_the_dcgm_exporter_config_keys_only_in_a_comment() -> None:
    """values.yaml v26.7.0 leaves dcgmExporter.config commented out; its example has 3 keys."""
    keys = chart("gpu-operator").keys
    config = {p.removeprefix("dcgmExporter.config."): f for p, f in keys.items()
              if p.startswith("dcgmExporter.config.")}  # fmt: skip
    assert keys["dcgmExporter.config"].commented and keys["dcgmExporter.config"].type == "object"
    assert set(config) == {"name", "create", "data"}
    assert all(f.commented for f in config.values())
    assert config["create"].default is True and config["data"].type == "string"


@pytest.mark.parametrize("name", sorted(CHART_SCHEMAS))
def test_chart_defaults_pass_the_values_schema(name: str) -> None:
    """The chart's own defaults, cut down to the schema's keys, pass (types and enums fit)."""
    schema = load_schema(CHART_SCHEMAS[name])
    projected = _project(chart(name).defaults(), schema, schema)
    assert projected
    assert validate_values(name, projected) == []


def test_nvsentinel_documents_the_pod_monitor_labels_only_in_a_comment() -> None:
    """values.yaml v1.19.0 has podMonitor.labels only as "# labels: {}", a map."""
    labels = chart("nvsentinel").keys["podMonitor.labels"]
    assert labels.commented and labels.type == "object" and labels.default == {}


def test_subset_check_catches_a_key_the_chart_lacks() -> None:
    """The subset walker reports a path that is absent from the chart's table."""
    schema = {"type": "object", "properties": {"mig": {"properties": {"strategyy": {}}}}}
    assert _keys_the_chart_lacks(schema, set(chart("gpu-operator").keys)) == ["mig.strategyy"]
    schema["properties"]["mig"]["properties"] = {"strategy": {}}
    assert _keys_the_chart_lacks(schema, set(chart("gpu-operator").keys)) == []


# --------------------------------------------------------------------------- values examples

TIME_SLICING_YAML = """\
version: v1
flags:
  migStrategy: none
sharing:
  timeSlicing:
    renameByDefault: false
    failRequestsGreaterThanOne: false
    resources:
      - name: nvidia.com/gpu
        replicas: 4
"""

MIG_PARTED_YAML = """\
version: v1
mig-configs:
  all-disabled:
    - devices: all
      mig-enabled: false
  five-1g-one-2g:
    - devices: all
      mig-enabled: true
      mig-devices:
        "1g.10gb": 5
        "2g.20gb": 1
"""


def _operator_values() -> dict[str, Any]:
    return {
        "driver": {"enabled": False},
        "toolkit": {"enabled": True},
        "nfd": {"enabled": True},
        "mig": {"strategy": "mixed"},
        "devicePlugin": {
            "config": {
                "create": True,
                "name": "gpupool-device-plugin",
                "default": "infer-l4",
                "data": {"infer-l4": TIME_SLICING_YAML},
            }
        },
        "migManager": {
            "enabled": True,
            "env": [{"name": "WITH_REBOOT", "value": "true"}],
            "config": {
                "create": True,
                "name": "gpupool-mig-parted",
                "default": "all-disabled",
                "data": {"config.yaml": MIG_PARTED_YAML},
            },
        },
        "dcgmExporter": {"enabled": True, "serviceMonitor": {"enabled": True, "interval": "15s"}},
    }


def test_gpu_operator_values_good() -> None:
    """Typical gpu-operator values with embedded device-plugin and mig-parted configs pass."""
    assert validate_values("gpu-operator", _operator_values()) == []


def test_hami_values_good() -> None:
    """Typical HAMi values pass."""
    values = {
        "scheduler": {
            "defaultSchedulerPolicy": {
                "nodeSchedulerPolicy": "binpack",
                "gpuSchedulerPolicy": "binpack,numa",
            }
        },
        "devicePlugin": {
            "deviceSplitCount": 4,
            "deviceMemoryScaling": 1.5,
            "deviceCoreScaling": 1,
            "nvidiaNodeSelector": {"gpupool.io/pool": "infer-l4"},
        },
        "resourceName": "nvidia.com/gpu",
        "resourceMem": "nvidia.com/gpumem",
        "devices": {"nvidia": {"gpuCorePolicy": "force"}},
    }
    assert validate_values("hami", values) == []


def test_nvsentinel_values_good() -> None:
    """Cordon-and-drain NVSentinel values wired to the GPU Operator's DCGM pass."""
    values = {
        "global": {
            "dryRun": True,
            "dcgm": {
                "mode": "operator-service",
                "service": {"endpoint": "nvidia-dcgm.gpu-operator.svc", "port": 5555},
            },
            "faultQuarantine": {"enabled": True},
            "nodeDrainer": {"enabled": True},
            "mongodbStore": {"enabled": True},
        },
        "labeler": {"assumeDriverInstalled": True},
        "podMonitor": {"enabled": True, "labels": {"release": "kube-prometheus-stack"}},
    }
    assert validate_values("nvsentinel", values) == []


def test_kai_values_good() -> None:
    """Typical KAI values (GPU sharing on, the podgrouper.queueLabelKey queue label key) pass."""
    values = {
        "global": {"gpuSharing": True},
        "podgrouper": {"queueLabelKey": "kai.scheduler/queue"},
        "binder": {"plugins": {"hamicore": {"enabled": True}}},
        "defaultQueue": {"createDefaultQueue": False},
    }
    assert validate_values("kai-scheduler", values) == []


@pytest.mark.parametrize(
    ("chart", "values", "needle"),
    [
        ("gpu-operator", {"devicePlugin": {"confg": {"name": "x"}}}, "'confg' was unexpected"),
        ("gpu-operator", {"migManager": {"config": {"defualt": "x"}}}, "'defualt' was unexpected"),
        ("gpu-operator", {"mig": {"strategy": "auto"}}, "mig.strategy"),
        ("gpu-operator", {"migManager": {"config": {"default": "all-1g.10gb"}}}, "default"),
        ("gpu-operator", {"devicePlugin": {"config": {"create": True}}}, "'name' is a required"),
        ("gpu-operator", {"dcgmExporter": {"serviceMonitor": {"enable": True}}}, "'enable'"),
        ("gpu-operator", {"driver": {"enabled": "false"}}, "driver.enabled"),
        ("hami", {"devicePlugin": {"deviceSplitCount": 0}}, "deviceSplitCount"),
        ("hami", {"devicePlugin": {"deviceSplitcount": 4}}, "'deviceSplitcount'"),
        ("hami", {"deviceSplitCount": 4}, "'deviceSplitCount' was unexpected"),
        (
            "hami",
            {"scheduler": {"defaultSchedulerPolicy": {"nodeSchedulerPolicy": "pack"}}},
            "pack",
        ),
        (
            "hami",
            {"scheduler": {"defaultSchedulerPolicy": {"gpuSchedulerPolicy": "binpak"}}},
            "gpuSchedulerPolicy",
        ),
        ("hami", {"devices": {"nvidia": {"gpuCorePolicy": "strict"}}}, "gpuCorePolicy"),
        ("kai-scheduler", {"global": {"queueLabelKey": "kai.scheduler/queue"}}, "queueLabelKey"),
        ("kai-scheduler", {"scheduler": {"placementStrategy": "pack"}}, "placementStrategy"),
        ("kai-scheduler", {"global": {"gpusharing": True}}, "'gpusharing' was unexpected"),
        ("kai-scheduler", {"podgroupper": {}}, "'podgroupper' was unexpected"),
        ("nvsentinel", {"global": {"dryrun": True}}, "'dryrun' was unexpected"),
        # the chart enables fault-quarantine by global.faultQuarantine.enabled (Chart.yaml)
        ("nvsentinel", {"faultQuarantine": {"enabled": True}}, "'faultQuarantine' was unexpected"),
        ("nvsentinel", {"global": {"dcgm": {"mode": "operator"}}}, "mode"),
        ("nvsentinel", {"labeler": {"assumeDriverInstalled": "true"}}, "assumeDriverInstalled"),
    ],
)
def test_values_bad(chart: str, values: dict[str, Any], needle: str) -> None:
    """Misspelt keys, keys the chart does not have and bad enum values fail."""
    errors = validate_values(chart, values)
    assert errors, "expected an error"
    assert any(needle in e for e in errors), errors


def test_values_unknown_chart() -> None:
    """An unknown chart name is an error, never a silent pass."""
    assert validate_values("nvidia-device-plugin", {}) != []


def test_gpu_operator_values_check_embedded_configs() -> None:
    """Errors inside embedded device-plugin and mig-parted YAML surface with their path."""
    values = _operator_values()
    values["devicePlugin"]["config"]["data"]["infer-l4"] = TIME_SLICING_YAML.replace(
        "replicas: 4", "replicas: 1"
    )
    values["devicePlugin"]["config"]["default"] = "infer-a100"
    values["migManager"]["config"]["data"] = {
        "mig.yaml": MIG_PARTED_YAML.replace('"2g.20gb": 1', '"2g.20gb": 0').replace(
            '"1g.10gb": 5', '"1g.10gb": 0'
        )
    }
    errors = validate_values("gpu-operator", values)
    joined = "\n".join(errors)
    assert (
        "devicePlugin.config.data.infer-l4 -> sharing.timeSlicing.resources[0].replicas" in joined
    )
    assert "'infer-a100' is not a key" in joined
    assert "reads only 'config.yaml'" in joined
    assert len(errors) == 3, errors


def test_gpu_operator_values_embedded_mig_config_checked() -> None:
    """A bad config.yaml in migManager.config.data is reported."""
    values = _operator_values()
    values["migManager"]["config"]["data"]["config.yaml"] = "version: v1\nmig-configs: {a: []}\n"
    errors = validate_values("gpu-operator", values)
    assert any(
        'data["config.yaml"] -> mig-configs.a: [] should be non-empty' in e for e in errors
    ), errors


def test_gpu_operator_values_embedded_dcgm_metrics_checked() -> None:
    """dcgmExporter.config: create needs name and data; the list is parsed like the exporter."""
    values = _operator_values()
    values["dcgmExporter"]["config"] = {
        "name": "custom-dcgm-exporter-metrics",
        "create": True,
        "data": "# Clocks\nDCGM_FI_DEV_SM_CLOCK,  gauge, Streaming multiprocessor clock.\n",
    }
    assert validate_values("gpu-operator", values) == []
    values["dcgmExporter"]["config"]["data"] += "DCGM_FI_DEV_SM_CLOK, gauge, typo\n"
    (error,) = validate_values("gpu-operator", values)
    assert 'dcgm-metrics.csv") -> line 3: could not find DCGM field' in error
    # templates/dcgm_exporter_config.yaml creates no ConfigMap for empty data, while the
    # ClusterPolicy still names it
    values["dcgmExporter"]["config"] = {"name": "m", "create": True, "data": ""}
    assert validate_values("gpu-operator", values) != []
    values["dcgmExporter"]["config"] = {"create": True, "data": "x"}
    errors = validate_values("gpu-operator", values)
    assert any("'name' is a required property" in e for e in errors), errors


def test_dcgm_metrics_parser_follows_the_exporter() -> None:
    """Each rule of dcgm-exporter's counter_config.go and Go's encoding/csv is enforced."""
    good = "# c\n\nDCGM_FI_DEV_GPU_TEMP,    gauge, Temperature of the GPU (C).\n"
    rows, errors = manifests.parse_dcgm_metrics(good)
    assert rows == [("DCGM_FI_DEV_GPU_TEMP", "gauge", "Temperature of the GPU (C).")]
    assert errors == []
    # a legacy alias (dcgm.IsLegacyField) and the exporter's own fields are accepted
    assert manifests.validate_dcgm_metrics(
        "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS, gauge, a\nDCGM_EXP_XID_ERRORS_COUNT, gauge, b\n"
    ) == []
    bad = {
        "DCGM_FI_DEV_GPU_TEMP, gauge, a, b\n": "expected 3 fields",
        "DCGM_FI_DEV_GPU_TEMP, gauge, a\n  \n": "ErrFieldCount",
        "DCGM_FI_DEV_GPU_TEMP, gauge\nDCGM_FI_DEV_GPU_UTIL, gauge, a\n": "ErrFieldCount",
        " # indented, gauge, a\n": "could not find DCGM field",
        'DCGM_FI_DEV_GPU_TEMP, gauge, "a"\n': "ErrBareQuote",
        "DCGM_FI_DEV_GPU_TEMP, gaug, a\n": "Prometheus metric type 'gaug'",
        "DCGM_FI_DEV_GPU_TEMP, gauge, a\nDCGM_FI_DEV_GPU_TEMP, gauge, a\n": "listed twice",
        "# only comments\n": "no metric rows",
    }
    for text, says in bad.items():
        errors = manifests.validate_dcgm_metrics(text)
        assert errors and any(says in e for e in errors), (text, errors)


# --------------------------------------------------------------------------- device-plugin config


def _cfg(text: str) -> dict[str, Any]:
    return yaml.safe_load(text)


def test_device_plugin_time_slicing_canonical() -> None:
    """The canonical time-slicing config (README / time-slicing-config-sample.yaml) passes."""
    assert validate_device_plugin_config(_cfg(TIME_SLICING_YAML)) == []


def test_device_plugin_time_slicing_mig_mixed() -> None:
    """Time-sliced MIG resources under migStrategy mixed (time-slicing-config-fine.yaml) pass."""
    cfg = {
        "version": "v1",
        "flags": {"migStrategy": "mixed"},
        "sharing": {
            "timeSlicing": {
                "resources": [
                    {"name": "nvidia.com/gpu", "replicas": 8},
                    {"name": "nvidia.com/mig-1g.5gb", "replicas": 2},
                    {"name": "nvidia.com/mig-2g.10gb", "replicas": 2},
                    {"name": "nvidia.com/mig-3g.20gb", "replicas": 3},
                    {"name": "nvidia.com/mig-7g.40gb", "replicas": 7},
                ]
            }
        },
    }
    assert validate_device_plugin_config(cfg) == []


def test_device_plugin_mps() -> None:
    """MPS on full GPUs with failRequestsGreaterThanOne stated passes."""
    cfg = {
        "version": "v1",
        "flags": {"migStrategy": "none", "mpsRoot": "/run/nvidia/mps"},
        "sharing": {
            "mps": {
                "renameByDefault": False,
                "failRequestsGreaterThanOne": True,
                "resources": [{"name": "nvidia.com/gpu", "replicas": 10}],
            }
        },
    }
    assert validate_device_plugin_config(cfg) == []


def test_device_plugin_schema_allows_what_upstream_allows() -> None:
    """The schema alone accepts upstream-valid fields that gpupool's rules then reject."""
    cfg = {
        "version": "v1",
        "flags": {"plugin": {"deviceListStrategy": ["envvar", "cdi-cri"]}},
        "sharing": {
            "timeSlicing": {
                "resources": [
                    {
                        "name": "gpu",
                        "rename": "gpu.shared",
                        "devices": ["0", 1, "0:1"],
                        "replicas": 2,
                    },
                    {"name": "nvidia.com/gpu", "devices": "all", "replicas": 3},
                ]
            },
            "mps": {"resources": [{"name": "nvidia.com/gpu", "replicas": 2}]},
        },
    }
    validator = manifests._validator("device-plugin-config.schema.json")
    assert list(validator.iter_errors(cfg)) == []
    errors = "\n".join(validate_device_plugin_config(cfg))
    for needle in ("rename:", "devices:", "mutually exclusive", "full name", "failRequests"):
        assert needle in errors, errors


def _ts(**resource: Any) -> dict[str, Any]:
    return {"version": "v1", "sharing": {"timeSlicing": {"resources": [resource]}}}


def _mps(**resource: Any) -> dict[str, Any]:
    return {
        "version": "v1",
        "sharing": {"mps": {"failRequestsGreaterThanOne": True, "resources": [resource]}},
    }


@pytest.mark.parametrize(
    ("cfg", "needle"),
    [
        (_ts(name="nvidia.com/gpu", replicas=1), "1 is less than the minimum of 2"),
        (_ts(name="nvidia.com/gpu", replicas="4"), "is not of type 'integer'"),
        (_ts(name="nvidia.com/gpu"), "'replicas' is a required property"),
        (_ts(name="nvidia.com/gpu", replicas=4, replica=4), "'replica' was unexpected"),
        (_ts(name="nvidia.com/GPU", replicas=4), "name"),
        (_ts(name="nvidia.com/gpu", replicas=4, rename="gpu.shared"), "rename: gpupool"),
        (_ts(name="nvidia.com/gpu", replicas=4, devices="all"), "devices: gpupool"),
        (_ts(name="nvidia.com/gpu", replicas=4, devices="some"), "devices"),
        (_ts(name="nvidia.com/mig-1g.10gb", replicas=2), "needs flags.migStrategy mixed"),
        (_ts(name="nvidia.com/gpumem", replicas=2), "can be time-sliced"),
        (_mps(name="nvidia.com/mig-1g.10gb", replicas=2), "MPS supports only nvidia.com/gpu"),
        (_mps(name="nvidia.com/gpu", replicas=49), "at most 48"),
        (
            {
                "version": "v1",
                "sharing": {"mps": {"resources": [{"name": "nvidia.com/gpu", "replicas": 2}]}},
            },
            "failRequestsGreaterThanOne: gpupool",
        ),
        (
            {
                "version": "v1",
                "sharing": {
                    "timeSlicing": {"resources": [{"name": "nvidia.com/gpu", "replicas": 2}]},
                    "mps": {
                        "failRequestsGreaterThanOne": True,
                        "resources": [{"name": "nvidia.com/gpu", "replicas": 2}],
                    },
                },
            },
            "mutually exclusive",
        ),
        (
            {
                "version": "v1",
                "flags": {"migStrategy": "mixed"},
                "sharing": {
                    "mps": {
                        "failRequestsGreaterThanOne": True,
                        "resources": [{"name": "nvidia.com/gpu", "replicas": 2}],
                    }
                },
            },
            "mixed is not supported with MPS",
        ),
        ({"version": "v1", "sharing": {"timeslicing": {}}}, "'timeslicing' was unexpected"),
        ({"version": "v1", "sharing": {"timeSlicing": {"resources": []}}}, "should be non-empty"),
        ({"version": "v1", "sharing": {"timeSlicing": {}}}, "'resources' is a required property"),
        ({"version": "v1", "flags": {"migStrateg": "none"}}, "'migStrateg' was unexpected"),
        ({"version": "v1", "flags": {"migStrategy": "auto"}}, "flags.migStrategy"),
        ({"version": "v2"}, "version"),
        ({"sharing": {}}, "version: gpupool"),
        ({"version": "v1", "resources": {"gpus": []}}, "resources: gpupool"),
        (
            {
                "version": "v1",
                "sharing": {
                    "timeSlicing": {
                        "resources": [
                            {"name": "nvidia.com/gpu", "replicas": 2},
                            {"name": "nvidia.com/gpu", "replicas": 4},
                        ]
                    }
                },
            },
            "duplicate resource",
        ),
        ([], "is not of type 'object'"),
    ],
)
def test_device_plugin_bad(cfg: Any, needle: str) -> None:
    """Bad device-plugin configs fail with a message that names the problem."""
    errors = validate_device_plugin_config(cfg)
    assert errors, "expected an error"
    assert any(needle in e for e in errors), errors


# --------------------------------------------------------------------------- mig-parted config

MIG_PARTED_README = {
    "version": "v1",
    "mig-configs": {
        "all-disabled": [{"devices": "all", "mig-enabled": False}],
        "all-enabled": [{"devices": "all", "mig-enabled": True, "mig-devices": {}}],
        "all-balanced": [
            {
                "devices": "all",
                "mig-enabled": True,
                "mig-devices": {"1g.5gb": 2, "2g.10gb": 1, "3g.20gb": 1},
            }
        ],
        "custom-config": [
            {"devices": [0, 1, 2, 3], "mig-enabled": False},
            {"devices": [4], "mig-enabled": True, "mig-devices": {"1g.5gb": 7}},
        ],
    },
}

# Entries copied from NVIDIA/mig-parted v0.15.0 deployments/systemd/config-default.yaml.
MIG_PARTED_DEFAULT_EXCERPT = {
    "version": "v1",
    "mig-configs": {
        "all-1g.5gb.me": [{"devices": "all", "mig-enabled": True, "mig-devices": {"1g.5gb+me": 1}}],
        "all-1g.24gb.me.all": [
            {"devices": "all", "mig-enabled": True, "mig-devices": {"1g.24gb+me.all": 1}}
        ],
        "all-1g.24gb-me": [
            {"devices": "all", "mig-enabled": True, "mig-devices": {"1g.24gb-me": 4}}
        ],
        "all-balanced": [
            {
                "device-filter": ["0x20B010DE", "0x20B110DE", "0x20F110DE", "0x20F610DE"],
                "devices": "all",
                "mig-enabled": True,
                "mig-devices": {"1g.5gb": 2, "2g.10gb": 1, "3g.20gb": 1},
            }
        ],
    },
}


@pytest.mark.parametrize(
    "cfg", [MIG_PARTED_README, MIG_PARTED_DEFAULT_EXCERPT, _cfg(MIG_PARTED_YAML)]
)
def test_mig_parted_good(cfg: dict[str, Any]) -> None:
    """The README example, config-default entries and the operator's custom-mig-config pass."""
    assert validate_mig_parted_config(cfg) == []


def test_mig_parted_default_configs_pass() -> None:
    """Every layout of mig-parted v0.15.0's config-default.yaml (its facts table) passes."""
    cfg = mig_parted_config(mig_parted_default())
    assert len(cfg["mig-configs"]) > 20
    assert validate_mig_parted_config(cfg) == []


def test_mig_parted_upstream_default_config_passes() -> None:
    """The whole upstream config-default.yaml passes, read as it is (conformance)."""
    cfg = _load_yaml(shared_upstream(mig_parted_default()["upstream_file"]))
    assert len(cfg["mig-configs"]) > 20
    assert validate_mig_parted_config(cfg) == []


def _mig(**spec: Any) -> dict[str, Any]:
    return {"version": "v1", "mig-configs": {"layout": [spec]}}


@pytest.mark.parametrize(
    ("cfg", "needle"),
    [
        (_mig(devices="all", **{"mig-enabled": True, "mig-devices": {"1g.10gb": 0}}), "all counts"),
        (_mig(devices="all", **{"mig-enabled": True}), "'mig-devices' is a required property"),
        (
            _mig(devices="all", **{"mig-enabled": False, "mig-devices": {"1g.10gb": 1}}),
            "mig-devices",
        ),
        (_mig(devices="some", **{"mig-enabled": False}), "devices"),
        (_mig(devices=[0, "1"], **{"mig-enabled": False}), "devices"),
        (_mig(devices="all", **{"mig-enabled": True, "mig-devices": {"1g10gb": 1}}), "1g10gb"),
        (_mig(devices="all", **{"mig-enabled": True, "mig-devices": {"1g.10gb": -1}}), "minimum"),
        (
            _mig(devices="all", **{"mig-enabled": True, "mig-device": {"1g.10gb": 7}}),
            "'mig-device'",
        ),
        (_mig(devices="all"), "'mig-enabled' is a required property"),
        (_mig(devices="all", **{"mig-enabled": "true", "mig-devices": {}}), "'boolean'"),
        (_mig(devices="all", **{"mig-enabled": False, "device-filter": "0x20B0"}), "device-filter"),
        ({"version": "v1", "mig-configs": {"layout": []}}, "should be non-empty"),
        ({"version": "v1", "mig-configs": {}}, "mig-configs: {} should be non-empty"),
        ({"version": "v2", "mig-configs": {}}, "version"),
        ({"mig-configs": {}}, "'version' is a required property"),
        ({"version": "v1"}, "mig-configs: gpupool"),
        ({"version": "v1", "mig-config": {}}, "'mig-config' was unexpected"),
    ],
)
def test_mig_parted_bad(cfg: dict[str, Any], needle: str) -> None:
    """Bad mig-parted configs fail with a message that names the problem."""
    errors = validate_mig_parted_config(cfg)
    assert errors, "expected an error"
    assert any(needle in e for e in errors), errors


# --------------------------------------------------------------------------- manifests


def _namespace() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "search", "labels": {"gpupool.io/tenant": "search"}},
    }


def _quota() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "gpupool-gpu", "namespace": "search"},
        "spec": {"hard": {"requests.nvidia.com/gpu": "4", "requests.cpu": "32", "pods": 100}},
    }


def _queue() -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.run.ai/v2",
        "kind": "Queue",
        "metadata": {"name": "ml-team", "labels": {"gpupool.io/stack": "ml-prod"}},
        "spec": {
            "displayName": "ML Team",
            "parentQueue": "research-team",
            "priority": 200,
            "resources": {
                "cpu": {"quota": 500, "overQuotaWeight": 2, "limit": -1},
                "gpu": {"quota": 1, "overQuotaWeight": 1, "limit": -1},
                "memory": {"quota": 0, "overQuotaWeight": 1, "limit": -1},
            },
        },
    }


def _prometheus_rule() -> dict[str, Any]:
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": {"name": "gpupool-gpu", "namespace": "monitoring"},
        "spec": {
            "groups": [
                {
                    "name": "gpupool.gpu",
                    "rules": [
                        {
                            "alert": "GpuMemoryHigh",
                            "expr": (
                                "DCGM_FI_DEV_FB_USED"
                                " / (DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE) > 0.9"
                            ),
                            "for": "10m",
                            "labels": {"severity": "warning"},
                            "annotations": {"summary": "GPU memory above 90%"},
                        },
                        {"record": "gpupool:gpu_util:avg", "expr": "avg(DCGM_FI_DEV_GPU_UTIL)"},
                    ],
                }
            ]
        },
    }


def _gke_param_set() -> dict[str, Any]:
    # GKE docs gpu-bandwidth-gpudirect-tcpx, "Create the GKE network objects": one per GPU NIC
    return {
        "apiVersion": "networking.gke.io/v1",
        "kind": "GKENetworkParamSet",
        "metadata": {"name": "vpc1"},
        "spec": {"vpc": "a3-net-1", "vpcSubnet": "a3-sub-1", "deviceMode": "NetDevice"},
    }


def _gke_network() -> dict[str, Any]:
    return {
        "apiVersion": "networking.gke.io/v1",
        "kind": "Network",
        "metadata": {"name": "vpc1"},
        "spec": {
            "type": "Device",
            "parametersRef": {
                "group": "networking.gke.io",
                "kind": "GKENetworkParamSet",
                "name": "vpc1",
            },
        },
    }


def _daemonset() -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "gpupool-node-labeler", "namespace": "gpupool-system"},
        "spec": {
            "selector": {"matchLabels": {"app": "labeler"}},
            "template": {
                "metadata": {"labels": {"app": "labeler"}},
                "spec": {
                    "nodeSelector": {"nvidia.com/gpu.present": "true"},
                    "tolerations": [
                        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
                    ],
                    "containers": [
                        {
                            "name": "labeler",
                            "image": "registry.k8s.io/pause:3.9",
                            "resources": {"limits": {"cpu": "100m", "memory": "64Mi"}},
                        }
                    ],
                },
            },
        },
    }


GOOD_MANIFESTS = {
    "namespace": _namespace(),
    "resourcequota": _quota(),
    "priorityclass": {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": "gpupool-high"},
        "value": 125,
        "preemptionPolicy": "PreemptLowerPriority",
        "description": "tenant priority high",
    },
    "configmap": {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "gpupool-device-plugin", "namespace": "gpu-operator"},
        "data": {"infer-l4": TIME_SLICING_YAML, "config.yaml": MIG_PARTED_YAML},
    },
    "serviceaccount": {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"name": "gpupool", "namespace": "gpupool-system"},
    },
    "daemonset": _daemonset(),
    "job": {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "gpu-smoke", "namespace": "search"},
        "spec": {
            "backoffLimit": 0,
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [
                        {
                            "name": "smoke",
                            "image": "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04",
                            "command": ["nvidia-smi"],
                            "resources": {"limits": {"nvidia.com/gpu": 1}},
                        }
                    ],
                }
            },
        },
    },
    "clusterrole": {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": "gpupool:node-labeler"},
        "rules": [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "patch"]}],
    },
    "node-patch": {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": "dgx-01",
            "labels": {
                "nvidia.com/device-plugin.config": "infer-l4",
                "nvidia.com/mig.config": "all-1g.10gb",
            },
        },
    },
    "queue": _queue(),
    "prometheusrule": _prometheus_rule(),
    "gkenetworkparamset": _gke_param_set(),
    "network": _gke_network(),
}


@pytest.mark.parametrize("name", sorted(GOOD_MANIFESTS))
def test_manifest_good(name: str) -> None:
    """Known-good objects of every kind gpupool renders pass."""
    assert validate_manifest(GOOD_MANIFESTS[name]) == []


def test_manifests_good_together() -> None:
    """All good objects pass together (no duplicates)."""
    assert validate_manifests(GOOD_MANIFESTS.values()) == []


DELETE = object()


def _with(obj: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """Copy ``obj`` with dotted ``path`` set to ``value`` (removed when value is DELETE).

    A list index one past the end appends.
    """
    out = copy.deepcopy(obj)
    *parents, last = path.split(".")
    node: Any = out
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    if value is DELETE:
        del node[last]
    elif isinstance(node, list):
        if int(last) == len(node):
            node.append(value)
        else:
            node[int(last)] = value
    else:
        node[last] = value
    return out


@pytest.mark.parametrize(
    ("obj", "needle"),
    [
        (_with(_namespace(), "spec", {"finalizer": ["kubernetes"]}), "'finalizer' was unexpected"),
        (_with(_namespace(), "metadata.labes", {"a": "b"}), "'labes' was unexpected"),
        (_with(_namespace(), "metadata.namespace", "default"), "cluster-scoped"),
        (_with(_namespace(), "metadata.name", "Search"), "DNS-1123 label"),
        (_with(_namespace(), "metadata.labels.team", "x" * 64), "not a valid label value"),
        (_with(_namespace(), "metadata.labels", {"bad key!": "x"}), "qualified name"),
        (_with(_namespace(), "metadata.labels", {"a": 1}), "is not of type 'string'"),
        (_with(_namespace(), "apiVersion", "v2"), "no schema for apiVersion v2"),
        (_with(_namespace(), "kind", "Namespce"), "no schema"),
        (_with(_namespace(), "metadata", {}), "metadata.name: required"),
        (_with(_quota(), "spec.hard", {"nvidia.com/gpu": "4"}), "use 'requests.nvidia.com/gpu'"),
        (_with(_quota(), "spec.hard", {"limits.nvidia.com/gpu": "4"}), "only enforced"),
        (
            _with(_quota(), "spec.hard", {"requests.nvidia.com/gpu": "four"}),
            "not a Kubernetes quantity",
        ),
        (_with(_quota(), "spec.hard", {"gpus": "4"}), "not a standard quota resource"),
        (_with(_quota(), "spec.hrad", {}), "'hrad' was unexpected"),
        (_with(_quota(), "metadata.namespace", DELETE), "metadata.namespace: required"),
        (_with(GOOD_MANIFESTS["priorityclass"], "value", 2_000_000_000), "highest user-definable"),
        (_with(GOOD_MANIFESTS["priorityclass"], "value", "125"), "is not of type 'integer'"),
        (_with(GOOD_MANIFESTS["configmap"], "data", {"a/b": "x"}), "ConfigMap keys"),
        (_with(GOOD_MANIFESTS["configmap"], "data", {"a": 1}), "is not of type 'string'"),
        (
            _with(_daemonset(), "spec.template.spec.containers.0.imagePullPolice", "Always"),
            "'imagePullPolice' was unexpected",
        ),
        (_with(_daemonset(), "spec.selector", DELETE), "'selector' is a required property"),
        (_with(_queue(), "spec.resources", DELETE), "'resources' is a required property"),
        (
            _with(_queue(), "spec.resources.gpu.overQuotaWieght", 1),
            "'overQuotaWieght' was unexpected",
        ),
        (_with(_queue(), "spec.resources.gpu.limit", DELETE), "gpu.limit: gpupool"),
        (_with(_queue(), "spec.resources.memory", DELETE), "memory: gpupool"),
        (_with(_queue(), "spec.resources.gpu.quota", "1"), "is not of type 'number'"),
        (_with(_queue(), "spec.parent", "x"), "'parent' was unexpected"),
        (_with(_queue(), "spec.priority", 1.5), "is not of type 'integer'"),
        (_with(_queue(), "metadata.namespace", "kai"), "cluster-scoped"),
        (_with(_queue(), "metadata.lables", {}), "'lables' was unexpected"),
        (_with(_queue(), "apiVersion", "scheduling.run.ai/v1"), "no schema"),
        (_with(_queue(), "metadata.name", "ML_team"), "name"),
        (
            _with(_prometheus_rule(), "spec.groups.0.rules.0.record", "x"),
            "is not valid under any of the given schemas",
        ),
        (_with(_prometheus_rule(), "spec.groups.0.rules.1.for", "5m"), "should not be valid"),
        (_with(_prometheus_rule(), "spec.groups.0.rules.0.expresion", "up"), "'expresion'"),
        (_with(_prometheus_rule(), "spec.groups.0.rules.0.for", "10 minutes"), "does not match"),
        (_with(_prometheus_rule(), "spec.groups.0.name", ""), "should be non-empty"),
        (
            _with(_prometheus_rule(), "spec.groups.1", {"name": "gpupool.gpu", "rules": []}),
            "duplicate group name",
        ),
        (_with(_prometheus_rule(), "metadata.namespace", DELETE), "metadata.namespace: required"),
        (_with(_gke_param_set(), "spec.deviceMode", "Netdevice"), "is not one of"),
        (_with(_gke_param_set(), "spec.vpcSubnet", DELETE), "is not valid under any"),
        (_with(_gke_param_set(), "spec.networkAttachment", "x"), "is valid under each of"),
        (_with(_gke_param_set(), "spec.subnet", "a3-sub-1"), "'subnet' was unexpected"),
        (_with(_gke_param_set(), "spec.deviceMode", DELETE), "deviceMode: gpupool"),
        (_with(_gke_param_set(), "metadata.namespace", "default"), "cluster-scoped"),
        (_with(_gke_network(), "spec.type", DELETE), "'type' is a required property"),
        (_with(_gke_network(), "spec.type", "device"), "is not one of"),
        (_with(_gke_network(), "spec.parametersRef.kind", "Network"), "parametersRef.kind: must"),
        (_with(_gke_network(), "spec.parametersRef.namespace", "x"), "cluster-scoped"),
        (_with(_gke_network(), "spec.parametersRef", DELETE), "needs its GKENetworkParamSet"),
        (_with(_gke_network(), "spec.parametersRef.name", DELETE), "'name' is a required"),
        (_with(_gke_network(), "spec.paramsRef", {}), "'paramsRef' was unexpected"),
        (
            {
                "apiVersion": "nvidia.com/v1",
                "kind": "ClusterPolicy",
                "metadata": {"name": "cluster-policy"},
            },
            "no schema",
        ),
        (
            {
                "apiVersion": "scheduling.run.ai/v1",
                "kind": "PriorityClass",
                "metadata": {"name": "x"},
            },
            "no schema",
        ),
        ({"kind": "Namespace", "metadata": {"name": "x"}}, "apiVersion and kind"),
    ],
)
def test_manifest_bad(obj: dict[str, Any], needle: str) -> None:
    """Unknown fields, wrong types, scope mistakes and unknown kinds fail."""
    errors = validate_manifest(obj)
    assert errors, "expected an error"
    assert any(needle in e for e in errors), errors


def test_manifest_namespace_optional_when_asked() -> None:
    """require_namespace=False accepts a namespaced object without a namespace."""
    obj = _with(_quota(), "metadata.namespace", DELETE)
    assert validate_manifest(obj, require_namespace=False) == []


def test_manifests_duplicate_objects() -> None:
    """Two objects with the same kind, namespace and name are reported."""
    errors = validate_manifests([_namespace(), _namespace()])
    assert errors == ["Namespace/search: duplicate object /Namespace//search"]


def test_non_mapping_manifest() -> None:
    """A non-mapping is an error, not an exception."""
    assert validate_manifest(["not", "a", "dict"]) != []  # type: ignore[arg-type]


# --------------------------------------------------------------------------- schemas vs CRDs
# tests/upstream_facts/crds/<name>.json: the fields and types of the CRD a committed schema was
# converted from (tests/test_upstream_facts.py checks each table against the upstream CRD).


@pytest.mark.parametrize("name", crds())
def test_committed_schema_has_the_crds_fields(name: str) -> None:
    """kai-queue, the GKE network and KEDA ScaledObject schemas have exactly the CRD's fields,
    types and open objects, and pin apiVersion and kind to the CRD's group, version and kind."""
    table = crd(name)
    committed = load_schema(table["schema"])
    assert schema_fields(committed) == table["fields"]
    properties = committed["properties"]
    assert properties["kind"] == {"const": table["kind"]}
    assert properties["apiVersion"] == {"const": f"{table['group']}/{table['version']}"}
    assert table["scope"] in ("Cluster", "Namespaced")
    assert manifests.CUSTOM_KINDS[(f"{table['group']}/{table['version']}", table["kind"])] == (
        table["schema"],
        table["scope"] == "Namespaced",
    )


def test_queue_schema_requires_resources() -> None:
    """gpupool requires a Queue's spec.resources (its quota), which the CRD leaves optional."""
    assert load_schema("kai-queue.schema.json")["properties"]["spec"]["required"] == ["resources"]


def test_schema_fields_tell_types_maps_lists_and_open_objects() -> None:
    """The field listing the CRD tables use, on a hand-made schema."""
    schema = {
        "type": "object",
        "properties": {
            "apiVersion": {"type": "string"},
            "spec": {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "n": {"type": ["integer", "string"]},
                    "m": {"type": "object", "additionalProperties": {"type": "string"}},
                    "l": {"type": "array", "items": {"type": "object", "properties": {}}},
                },
            },
        },
    }
    assert schema_fields(schema) == {
        "spec": "object",
        "spec.n": "integer|string",
        "spec.m": "object",
        "spec.m{}": "string",
        "spec.l": "array",
        "spec.l[]": "object, open",
    }


def test_crd_conversion_rules() -> None:
    """The converter closes listed objects, keeps preserve-unknown-fields open, and so on."""
    node = {
        "type": "object",
        "properties": {
            "a": {"type": "object", "properties": {"b": {"type": "string"}}},
            "open": {
                "type": "object",
                "x-kubernetes-preserve-unknown-fields": True,
                "properties": {"c": {"type": "integer"}},
            },
            "q": {
                "anyOf": [{"type": "integer"}, {"type": "string"}],
                "x-kubernetes-int-or-string": True,
            },
            "n": {"type": "string", "nullable": True},
            "m": {"type": "object", "additionalProperties": {"type": "string"}},
        },
    }
    out = manifests.crd_openapi_to_json_schema(node)
    assert out["additionalProperties"] is False
    assert out["properties"]["a"]["additionalProperties"] is False
    assert "additionalProperties" not in out["properties"]["open"]
    assert out["properties"]["q"] == {"type": ["integer", "string"]}
    assert out["properties"]["n"]["type"] == ["string", "null"]
    assert out["properties"]["m"]["additionalProperties"] == {"type": "string"}
