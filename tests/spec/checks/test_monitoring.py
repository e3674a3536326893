"""What GPU metrics and alerts need of the cluster (``gpupool/spec/checks/monitoring.py``).

Each rule warns where a stack relies on software gpupool neither installs nor can check. The
fixtures ``tests/fixtures/valid/monitoring-*.yaml`` pin each warning on its line; these tests
pin when each rule stays silent.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpupool import model
from gpupool.model import Stack
from gpupool.spec import schema
from gpupool.spec.checks import monitoring

AWS: dict[str, Any] = {
    "apiVersion": "gpupool.io/v1",
    "kind": "GpuPoolStack",
    "metadata": {"name": "checks"},
    "provider": {
        "cloud": "aws",
        "region": "us-east-1",
        "cluster": "ml",
        "settings": {
            "subnetIds": ["subnet-0a1b2c3d4e5f60718"],
            "nodeRoleArn": "arn:aws:iam::123456789012:role/gpu-nodes",
        },
    },
    "pools": [
        {"name": "l4", "instanceType": "g6.2xlarge", "workload": "inference",
         "nodes": {"min": 1, "max": 4}},
    ],
}  # fmt: skip
NAMED: dict[str, Any] = {
    "apiVersion": "gpupool.io/v1",
    "kind": "GpuPoolStack",
    "metadata": {"name": "checks"},
    "provider": {"cloud": "kubernetes"},
    "pools": [
        {"name": "lab", "nodeNames": ["lab-01"], "gpu": {"model": "L4", "count": 1},
         "workload": "inference"},
    ],
}  # fmt: skip
TWO_POOLS: dict[str, Any] = copy.deepcopy(AWS)
TWO_POOLS["pools"].append(
    {"name": "l40s", "instanceType": "g6e.2xlarge", "workload": "inference",
     "nodes": {"min": 0, "max": 2}}
)  # fmt: skip
STATED = {"labels": {"release": "kube-prometheus-stack"}, "kubeStateMetricsPoolLabel": True}


def stack(monitoring_: dict[str, Any], base: dict[str, Any] = AWS) -> Stack:
    doc = copy.deepcopy(base)
    doc["cluster"] = {"monitoring": monitoring_}
    assert not schema.validate(doc)
    return model.build(doc, "checks.yaml")


def codes(s: Stack) -> set[str]:
    return {d.code for d in monitoring.run(s)}


def test_alerts_without_exporter_warn() -> None:
    s = stack({"dcgmExporter": False, "alerts": {"gpuMemoryPercent": 90}, "prometheus": STATED})
    assert codes(s) == {"monitoring.alerts-without-exporter"}


def test_everything_stated_is_silent() -> None:
    assert codes(stack({"alerts": {"gpuMemoryPercent": 90}, "prometheus": STATED})) == set()


def test_no_alerts_no_prometheus_is_silent() -> None:
    # The exporter alone needs nothing gpupool renders objects for (the ServiceMonitor is left
    # at the chart's default).
    assert codes(stack({"dcgmExporter": True})) == set()


def test_alerts_without_prometheus_warn_on_the_operator_and_the_join() -> None:
    # prometheus-operator: PrometheusRule is a CRD kind; kube-prometheus-stack
    # templates/prometheus/prometheus.yaml: ruleSelector {release: <release>} by default.
    assert codes(stack({"alerts": {}}, TWO_POOLS)) == {
        "monitoring.prometheus-unstated",
        "monitoring.pool-label-unexported",
    }


def test_one_cloud_pool_needs_no_pool_label() -> None:
    # Every GPU node that is not a named pool's is this pool's: its scope needs no join.
    assert codes(stack({"alerts": {}, "prometheus": {"labels": {}}})) == set()


def test_pools_with_node_names_need_no_kube_state_metrics() -> None:
    s = stack({"alerts": {"gpuMemoryPercent": 90}, "prometheus": {"labels": {}}}, NAMED)
    assert codes(s) == set()


def test_pool_label_warning_only_with_alerts() -> None:
    # kube-state-metrics docs/developer/cli-arguments.md: --metric-labels-allowlist; without
    # alerts nothing gpupool renders joins kube_node_labels.
    kps = {"labels": {"release": "kps"}}
    assert codes(stack({"prometheus": kps}, TWO_POOLS)) == set()
    assert codes(stack({"alerts": {}, "prometheus": kps}, TWO_POOLS)) == {
        "monitoring.pool-label-unexported"
    }


@pytest.mark.parametrize(
    ("monitoring_", "warns"),
    [
        # the ServiceMonitor (on by default once the operator is stated) carries no label
        ({"prometheus": {}}, True),
        ({"prometheus": {"serviceMonitor": False}}, False),
        ({"dcgmExporter": False, "prometheus": {}}, False),
        # {} says the Prometheus selects everything
        ({"alerts": {"gpuMemoryPercent": 90}, "prometheus": {"labels": {}}}, False),
    ],
)
def test_labels_unset_only_when_something_would_need_them(
    monitoring_: dict[str, Any], warns: bool
) -> None:
    assert ("monitoring.prometheus-labels-unset" in codes(stack(monitoring_, NAMED))) is warns


def test_warnings_point_at_the_settings_to_change() -> None:
    by_code = {d.code: d for d in monitoring.run(stack({"alerts": {}}, TWO_POOLS))}
    alert = ("cluster", "monitoring", "alerts")
    assert by_code["monitoring.prometheus-unstated"].path == alert
    assert by_code["monitoring.pool-label-unexported"].path == alert
    assert "--metric-labels-allowlist=nodes=[gpupool.io/pool,gpupool.io/capacity]" in (
        by_code["monitoring.pool-label-unexported"].detail
    )
    unset = monitoring.run(stack({"prometheus": {}}, NAMED))
    assert [d.path for d in unset] == [("cluster", "monitoring", "prometheus")]


def test_nvsentinel_pod_monitor_needs_the_labels_too() -> None:
    # NVSentinel v1.19.0 templates/podMonitor.yaml: the PodMonitor carries podMonitor.labels,
    # and kube-prometheus-stack selects PodMonitors by its release label
    # (podMonitorSelectorNilUsesHelmValues, kube-prometheus-stack 88.5.3 values.yaml).
    doc = copy.deepcopy(NAMED)
    doc["cluster"] = {
        "monitoring": {"dcgmExporter": False, "prometheus": {}},
        "faultIsolation": {"nvsentinel": {}},
    }
    assert not schema.validate(doc)
    [found] = monitoring.run(model.build(doc, "checks.yaml"))
    assert found.code == "monitoring.prometheus-labels-unset"
    assert found.detail.startswith("NVSentinel's PodMonitor (podMonitorSelector) carry no label")
    without = copy.deepcopy(doc)
    del without["cluster"]["faultIsolation"]
    assert monitoring.run(model.build(without, "checks.yaml")) == []


def test_pool_label_warning_names_the_annotations_flag_for_kai_fractional_pools() -> None:
    # KAI's fractional pods request no GPU resource (KAI v0.17.0 pkg/common/constants/
    # constants.go gpu-fraction, gpu-memory); kube-state-metrics docs/developer/cli-arguments.md:
    # --metric-annotations-allowlist exports them in kube_pod_annotations
    kai = copy.deepcopy(TWO_POOLS)
    kai["pools"][1]["sharing"] = {"mode": "fractional", "fractional": {"slotsPerGpu": 2}}
    flag = "--metric-annotations-allowlist=pods=[gpu-fraction,gpu-memory]"
    plain = {d.code: d for d in monitoring.run(stack({"alerts": {}}, kai))}
    assert flag not in plain["monitoring.pool-label-unexported"].detail  # no scheduler: kai
    kai["cluster"] = {"scheduler": "kai"}
    doc = copy.deepcopy(kai)
    doc["cluster"]["monitoring"] = {"alerts": {}}
    assert not schema.validate(doc)
    by_code = {d.code: d for d in monitoring.run(model.build(doc, "checks.yaml"))}
    detail = by_code["monitoring.pool-label-unexported"].detail
    assert f"KAI fractional pods of l40s (no GPU resource, an annotation), start it with {flag}" \
        in detail
    assert "--metric-labels-allowlist=nodes=[gpupool.io/pool,gpupool.io/capacity]" in detail
