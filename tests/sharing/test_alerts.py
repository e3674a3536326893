"""The GPU alert set and what it needs of the cluster (``gpupool/sharing/alerts.py``).

The rule's shape, labels and annotations, the DCGM ServiceMonitor settings in the GPU
Operator's values, the ``needs`` the rule carries, and where those needs surface: the plan's
create reasons and the rendered README (with the per-cloud autoscaler line beside them). The
validate warnings are pinned by the fixtures ``tests/fixtures/valid/monitoring-*.yaml``
(``tests/spec/test_validate.py``); what the rules compute is checked by Prometheus's own
promtool in ``test_alerts_promtool.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpupool import assemble, render
from gpupool.graph import ResourceGraph
from gpupool.model import Stack
from gpupool.plan import Base, make_plan
from gpupool.sharing import alerts, dashboard, dcgm, promql
from tests.manifests import validate_manifests, validate_values
from tests.stacks import load_stack, load_stack_text, monitoring_stack

RULE = "k8s.prometheusrule.gpu-operator.gpupool-gpu-alerts"
STATED = "monitoring-prometheus-stated"  # labels {release: kube-prometheus-stack, role: ...}
UNSTATED = "monitoring-prometheus-unstated"  # alerts, no cluster.monitoring.prometheus


def _graph(stack: Stack) -> ResourceGraph:
    return assemble.build(stack)


def _rule(graph: ResourceGraph) -> dict[str, Any]:
    res = graph.get(RULE)
    assert res is not None and res.manifest is not None
    return dict(res.manifest)


def _dcgm(graph: ResourceGraph) -> dict[str, Any]:
    release = graph.get("helm.gpu-operator")
    assert release is not None
    return dict(release.inputs["values"]["dcgmExporter"])


# --------------------------------------------------------------------------- the rule's labels


def test_rule_carries_the_labels_prometheus_selects_by() -> None:
    # kube-prometheus-stack templates/prometheus/prometheus.yaml: with the default
    # prometheus.prometheusSpec.ruleSelectorNilUsesHelmValues: true (values.yaml), the Prometheus
    # gets ruleSelector.matchLabels {release: <Helm release name>} and loads no other rule.
    graph = _graph(load_stack(STATED))
    labels = _rule(graph)["metadata"]["labels"]
    assert labels["release"] == "kube-prometheus-stack"
    assert labels["role"] == "alert-rules"
    # the stack's and gpupool's own labels stay
    assert labels["team"] == "platform" and labels["gpupool.io/stack"] == "monitored"


def test_rule_without_stated_labels_carries_only_the_common_ones() -> None:
    for stack in (
        load_stack(UNSTATED),
        monitoring_stack("{alerts: {gpuMemoryPercent: 90}, prometheus: {labels: {}}}"),
    ):
        labels = _rule(_graph(stack))["metadata"]["labels"]
        assert set(labels) == {"app.kubernetes.io/managed-by", "gpupool.io/stack"}


@pytest.mark.cloud_sdks  # the strict ObjectMeta check comes from kubernetes-validate
@pytest.mark.parametrize("name", [STATED, UNSTATED])
def test_rule_validates_against_the_prometheusrule_schema(name: str) -> None:
    # schemas/k8s/prometheusrule.schema.json: prometheus-operator's PrometheusRule CRD
    # (monitoring.coreos.com/v1), with label keys and values checked like the API server does.
    assert validate_manifests([_rule(_graph(load_stack(name)))]) == []


def _alerts(graph: ResourceGraph) -> list[dict[str, Any]]:
    return [r for r in _rule(graph)["spec"]["groups"][0]["rules"] if "alert" in r]


def test_pool_join_uses_the_label_kube_state_metrics_exports() -> None:
    # kube-state-metrics docs/metrics/cluster/node-metrics.md: kube_node_labels carries
    # label_<NODE_LABEL> with the key sanitized to [a-zA-Z0-9_], only for the keys allowed by
    # --metric-labels-allowlist (docs/developer/cli-arguments.md).
    assert promql.KSM_POOL_LABEL == "label_gpupool_io_pool"
    assert promql.KSM_CAPACITY_LABEL == "label_gpupool_io_capacity"
    # one flag allowlists both node labels: nodes=[key1,key2] (the flag's own example)
    assert promql.KSM_ALLOWLIST == (
        "--metric-labels-allowlist=nodes=[gpupool.io/pool,gpupool.io/capacity]"
    )
    rules = [r for r in _alerts(_graph(load_stack(STATED))) if r["labels"].get("pool") == "l4"]
    assert rules
    for rule in rules:
        # `and` is a set operation: duplicate kube-state-metrics series cannot break it
        assert rule["expr"].endswith(' and on (node) kube_node_labels{label_gpupool_io_pool="l4"}')
        assert "group_left" not in rule["expr"]


def test_every_pool_gets_the_whole_set_and_the_stack_one_pending_alert() -> None:
    stack = load_stack("aws-inference-l4")
    rules = _alerts(_graph(stack))
    names = [s.name for s in alerts.POOL_ALERTS]
    for pool in stack.pools:
        assert [r["alert"] for r in rules if r["labels"].get("pool") == pool.name] == names
    (pending,) = [r for r in rules if "pool" not in r["labels"]]
    assert pending["alert"] == alerts.POD_PENDING
    assert len(rules) == len(names) * len(stack.pools) + 1
    for rule in rules:
        assert rule["labels"]["severity"] in {"warning", "critical"}
        assert rule["labels"]["stack"] == stack.name
        assert set(rule["annotations"]) == {"summary", "description", "runbook"}
        assert all(rule["annotations"].values())


def test_thresholds_and_durations_come_from_the_stack() -> None:
    stack = monitoring_stack(
        "{alerts: {gpuMemoryPercent: 80, gpuMemoryMinutes: 7, gpuMemoryFullWithinMinutes: 20, "
        "throttlePercent: 30, throttleMinutes: 12, exporterDownMinutes: 9, idleHours: 6, "
        "podPendingMinutes: 25}, prometheus: {labels: {}}}"
    )
    by_name = {r["alert"]: r for r in _alerts(_graph(stack))}
    assert by_name["GpupoolGpuMemoryHigh"]["expr"].endswith("> 80")
    assert by_name["GpupoolGpuMemoryHigh"]["for"] == "7m"
    # the prediction looks ahead the lead asked for plus its own `for` and one evaluation step
    assert ", 1380) >=" in by_name["GpupoolGpuMemoryFullSoon"]["expr"]  # (20 + 2 + 1) * 60
    assert by_name["GpupoolGpuThermalThrottling"]["expr"].endswith("/ 1e7 > 30")
    assert by_name["GpupoolGpuPowerThrottling"]["for"] == "12m"
    assert by_name["GpupoolDcgmExporterDown"]["for"] == "9m"
    assert by_name["GpupoolGpuIdle"]["for"] == "6h"
    assert by_name[alerts.POD_PENDING]["for"] == "25m"
    assert "for" not in by_name["GpupoolGpuXidError"]
    assert by_name["GpupoolGpuIdle"]["annotations"]["summary"] == "GPU idle for 6 hours on pool l4"


def test_defaults_are_the_documented_ones() -> None:
    by_name = {r["alert"]: r for r in _alerts(_graph(monitoring_stack("{alerts: {}}")))}
    assert by_name["GpupoolGpuMemoryHigh"]["expr"].endswith("> 90")
    assert by_name["GpupoolGpuMemoryHigh"]["for"] == "5m"
    assert ", 1080) >=" in by_name["GpupoolGpuMemoryFullSoon"]["expr"]  # (15 + 2 + 1) * 60
    assert by_name["GpupoolGpuIdle"]["for"] == "4h"
    assert by_name[alerts.POD_PENDING]["for"] == "15m"
    assert by_name["GpupoolDcgmExporterDown"]["for"] == "10m"


def test_no_rule_without_alerts() -> None:
    assert _graph(monitoring_stack("{dcgmExporter: true}")).get(RULE) is None


# --------------------------------------------------------------------------- DCGM ServiceMonitor


def test_service_monitor_on_with_the_stated_labels() -> None:
    # gpu-operator v26.7.0 deployments/gpu-operator/values.yaml: dcgmExporter.serviceMonitor
    # {enabled, additionalLabels, ...}; templates/clusterpolicy.yaml passes it to the
    # ClusterPolicy, and controllers/object_controls.go (applyServiceMonitorCustomEdits) copies
    # additionalLabels onto the ServiceMonitor, which kube-prometheus-stack's
    # serviceMonitorSelector (serviceMonitorSelectorNilUsesHelmValues) matches by release.
    graph = _graph(load_stack(STATED))
    assert _dcgm(graph)["serviceMonitor"] == {
        "enabled": True,
        "additionalLabels": {"release": "kube-prometheus-stack", "role": "alert-rules"},
    }
    values = graph.get("helm.gpu-operator").inputs["values"]  # type: ignore[union-attr]
    assert validate_values("gpu-operator", values) == []


def test_service_monitor_off_when_asked() -> None:
    stack = monitoring_stack(
        "{alerts: {gpuMemoryPercent: 90}, prometheus: {labels: {release: kps}, "
        "serviceMonitor: false, kubeStateMetricsPoolLabel: true}}"
    )
    assert _dcgm(_graph(stack))["serviceMonitor"] == {"enabled": False}


def test_service_monitor_without_labels_when_prometheus_selects_all() -> None:
    stack = monitoring_stack("{prometheus: {labels: {}}}")
    assert _dcgm(_graph(stack)) == {"enabled": True, "serviceMonitor": {"enabled": True}}


def test_service_monitor_left_to_the_chart_when_prometheus_unstated() -> None:
    # gpu-operator v25.10.1 controllers/object_controls.go (ServiceMonitor): an enabled DCGM
    # ServiceMonitor without the ServiceMonitor CRD leaves the exporter's state NotReady ("Install
    # Prometheus and necessary CRDs"); v26.7.0 skips it. Without the stack's word that the
    # Prometheus Operator runs, gpupool does not touch the setting.
    assert set(_dcgm(_graph(load_stack(UNSTATED)))) == {"enabled", "config"}


def test_no_service_monitor_without_the_exporter() -> None:
    stack = monitoring_stack("{dcgmExporter: false, prometheus: {labels: {release: kps}}}")
    assert _dcgm(_graph(stack)) == {"enabled": False}


# --------------------------------------------------------------------------- DCGM metrics list


def test_metrics_list_set_when_gpupool_installs_the_operator_with_alerts() -> None:
    # gpu-operator v26.7.0 templates/dcgm_exporter_config.yaml: with dcgmExporter.config.create
    # and non-empty data the chart creates ConfigMap <config.name> with key dcgm-metrics.csv;
    # templates/clusterpolicy.yaml copies config.name into the ClusterPolicy, and
    # controllers/object_controls.go (TransformDCGMExporter) mounts that key at
    # /etc/dcgm-exporter/dcgm-metrics.csv and sets DCGM_EXPORTER_COLLECTORS to it.
    for stack in (load_stack(STATED), load_stack(UNSTATED)):
        values = _graph(stack).get("helm.gpu-operator").inputs["values"]  # type: ignore[union-attr]
        config = values["dcgmExporter"]["config"]
        assert config["name"] == alerts.METRICS_CONFIGMAP == "gpupool-dcgm-metrics"
        assert config["create"] is True
        assert config["data"] == dcgm.metrics_list(alerts.read_metrics())
        assert validate_values("gpu-operator", values) == []


def test_metrics_list_left_alone_without_alerts_or_the_exporter() -> None:
    # no alerts: the exporter keeps the chart's default list
    assert "config" not in _dcgm(_graph(monitoring_stack("{prometheus: {labels: {}}}")))
    # the exporter off (the user's own, if any): nothing to configure
    off = load_stack("monitoring-alerts-without-exporter")
    assert _dcgm(_graph(off)) == {"enabled": False}
    assert alerts.metrics_config_values(off) is None


def test_metrics_list_left_alone_on_a_chart_that_cannot_create_it() -> None:
    # gpu-operator: templates/dcgm_exporter_config.yaml first appears in tag v24.9.0; v24.6.2's
    # templates/clusterpolicy.yaml copies dcgmExporter.config into the ClusterPolicy as is, and
    # no template creates the ConfigMap the exporter would then mount.
    text = Path(load_stack(STATED).source).read_text(encoding="utf-8")
    assert "gpuOperator" not in text
    for version, set_ in (("v24.6.2", False), ("24.9.0", True)):
        stack = load_stack_text(
            text.replace("cluster:\n", f"cluster:\n  gpuOperator: {{version: {version}}}\n", 1)
        )
        assert stack.cluster.gpu_operator.version == version
        assert ("config" in _dcgm(_graph(stack))) is set_
        assert any("metrics list" in n for n in alerts.needs(stack)) is not set_


def test_own_operator_gets_no_metrics_list_and_the_needs_name_it() -> None:
    # gpuOperator.install: false: no release; the values the user's operator must have
    # (facts["operator_values"]) carry no dcgmExporter.config, and the needs name the fields.
    stack = load_stack("sharing-kubernetes-own-operator")
    graph = _graph(stack)
    assert graph.get("helm.gpu-operator") is None
    expected = [r.facts["operator_values"] for r in graph.resources if "operator_values" in r.facts]
    assert expected
    for values in expected:
        assert values["dcgmExporter"] == {"enabled": True}
    (line,) = [n for n in alerts.needs(stack) if "metrics list" in n]
    for metric in alerts.CUSTOM_METRICS:
        assert metric in line
    assert "dcgmExporter.config" in line


def test_exporter_off_keeps_naming_the_list() -> None:
    # an exporter the user runs instead must export the fields too
    needs = alerts.needs(load_stack("monitoring-alerts-without-exporter"))
    assert any("metrics list with DCGM_FI_DEV_ECC_DBE_VOL_TOTAL" in n for n in needs)


# --------------------------------------------------------------------------- needs


def test_needs_name_every_prerequisite_when_stated() -> None:
    needs = alerts.needs(load_stack(STATED))
    # pulumi-kubernetes provider/pkg/provider/provider.go (Create): a kind the API server does not
    # know fails with "Verify that any required CRDs have been created".
    assert "without them `pulumi up` fails" in needs[0] and "PrometheusRule" in needs[0]
    assert (
        "ruleSelector matches the PrometheusRule's labels "
        "{release: kube-prometheus-stack, role: alert-rules}" in needs[1]
    )
    assert "ruleNamespaceSelector takes namespace gpu-operator" in needs[1]
    assert "serviceMonitorSelector matches the ServiceMonitor's labels" in needs[2]
    # kube-state-metrics docs/metrics/cluster/node-metrics.md and workload/pod-metrics.md: these
    # series are exported by default
    assert needs[3].startswith("Prometheus scraping kube-state-metrics")
    # gpupool installs the operator here and sets the metrics list itself: no need for one
    assert not any("metrics list" in n for n in needs)
    assert f"`{promql.KSM_ALLOWLIST}`" in needs[4]
    assert needs[4].endswith("or the alerts of l4 never fire")
    assert len(needs) == 5


def test_needs_name_the_metrics_list_where_gpupool_does_not_set_it() -> None:
    # dcgm-exporter etc/dcp-metrics-included.csv (the list the GPU Operator's exporter reads)
    # keeps these fields commented out or has no row for them
    (line,) = [n for n in alerts.needs(load_stack("sharing-kubernetes-own-operator"))
               if "metrics list" in n]
    assert line.endswith(
        "or GpupoolGpuEccDoubleBit, GpupoolGpuRowRemapPending, GpupoolGpuThermalThrottling, "
        "GpupoolGpuPowerThrottling never fire"
    )


def test_needs_say_when_pools_share_one_set() -> None:
    needs = alerts.needs(load_stack("monitoring-pool-label-unexported"))
    assert needs[-1].startswith(
        'nothing else, but the alerts of l4, l40s fire as one set (pool "l4,l40s")'
    )
    assert not any("never fire" in n and "allowlist" in n for n in needs)


def test_needs_when_unstated_point_at_the_setting() -> None:
    needs = alerts.needs(load_stack(UNSTATED))
    assert "`release: <its release name>`" in needs[1]
    assert "cluster.monitoring.prometheus.labels" in needs[1]
    assert "ServiceMonitor is left at the chart's default" in needs[2]
    # node names known: no kube-state-metrics join, so no need for its allowlist
    assert not any("allowlist" in n for n in needs)


def test_no_needs_without_alerts() -> None:
    stack = monitoring_stack("{prometheus: {labels: {release: kps}}}")
    assert alerts.needs(stack) == []
    assert _graph(stack).get(RULE) is None


def test_plan_lists_the_needs_when_the_rule_is_created() -> None:
    stack = load_stack(STATED)
    graph = _graph(stack)
    plan = make_plan(Base("empty", None, None), graph, stack)
    (change,) = [c for c in plan.changes if c.address == RULE]
    assert list(change.reasons) == [f"needs {n}" for n in alerts.needs(stack)]


def test_plan_never_reads_needs_as_a_change() -> None:
    # An updated rule is explained by its threshold, not by the prerequisites it lists.
    stack = load_stack(STATED)
    base = _graph(stack)
    text = Path(stack.source).read_text(encoding="utf-8").replace("85", "95")
    desired_stack = load_stack_text(text)
    plan = make_plan(Base("file", "base.yaml", base), _graph(desired_stack), desired_stack)
    (change,) = [c for c in plan.changes if c.address == RULE]
    assert change.reasons[0] == "GPU memory alert 85 -> 95%"
    assert not any("needs" in r for r in change.reasons)


# --------------------------------------------------------------------------- rendered README


def _readme(stack: Stack, tmp_path: Path) -> str:
    render.render(stack, _graph(stack), tmp_path)
    text = (tmp_path / "README.md").read_text(encoding="utf-8")
    start = text.index("## What the cluster must already have")
    return text[start : text.index("## Run it")]


def test_readme_lists_what_the_alerts_need(tmp_path: Path) -> None:
    stack = load_stack(STATED)
    section = _readme(stack, tmp_path)
    for need in alerts.needs(stack):
        assert f"- {need}" in section
    assert "{release: kube-prometheus-stack, role: alert-rules}" in section
    # the dashboard's need comes last: it is rendered after the rule
    assert section.rstrip().endswith(f"- {dashboard.needs(stack)}.")


def test_readme_without_alerts_says_so(tmp_path: Path) -> None:
    section = _readme(monitoring_stack("{dcgmExporter: true}"), tmp_path)
    assert "this stack asks for no alert" in section
    assert "PrometheusRule" not in section


@pytest.mark.parametrize(
    ("name", "says"),
    [
        # EKS user guide (autoscaling.html, managed-node-groups.html): EKS runs no autoscaler;
        # managed node groups are tagged for the Cluster Autoscaler's auto-discovery.
        (STATED, "the Kubernetes Cluster Autoscaler: EKS runs none"),
        # GKE's cluster autoscaler is part of GKE, turned on per node pool (`autoscaling`).
        ("sharing-gke-operator-driver", "GKE's managed cluster autoscaler"),
        # AKS's cluster autoscaler is managed, turned on per agent pool; the expander is part of
        # the cluster's autoscaler profile (AKS docs, cluster-autoscaler.md).
        ("checks-spot-azure-bid", "`expander: priority`, a cluster setting"),
        # VKE "Creating a Cluster Autoscaler" (BytePlus/Volcengine docs): the cluster-autoscaler
        # add-on must be installed before node-pool autoscaling takes effect.
        ("clouds-compact-volcengine", "VKE's `cluster-autoscaler` add-on"),
        (UNSTATED, "this program provisions none and scales nothing"),
    ],
)
def test_readme_says_what_scales_the_pools_per_cloud(name: str, says: str, tmp_path: Path) -> None:
    section = _readme(load_stack(name), tmp_path)
    assert says in " ".join(section.split())


# --------------------------------------------------------------------------- HAMi's own metrics


def _hami_values(stack: Stack) -> dict[str, Any]:
    release = _graph(stack).get("helm.hami")
    assert release is not None
    return dict(release.inputs["values"])


def test_hami_metrics_scraped_when_prometheus_is_stated() -> None:
    # HAMi v2.10.0 charts/hami/templates/scheduler/servicemonitor.yaml and
    # device-plugin/servicemonitor.yaml: with prometheus.enabled (and the ServiceMonitor kind
    # known to the cluster) the chart creates a ServiceMonitor for the scheduler's `monitor` port
    # and the device plugin's `monitorport`, labelled with global.labels, which the chart puts on
    # object metadata only (daemonsetnvidia.yaml, scheduler/deployment.yaml), never on selectors.
    values = _hami_values(load_stack("onprem-hami"))
    assert values["prometheus"] == {"enabled": True}
    assert values["global"] == {"labels": {"release": "kube-prometheus-stack"}}
    assert validate_values("hami", values) == []


def test_hami_metrics_left_off_without_prometheus_or_service_monitors() -> None:
    text = Path(load_stack("onprem-hami").source).read_text(encoding="utf-8")
    for prometheus in ("", ", serviceMonitor: false"):
        edited = text.replace(
            "prometheus: {labels: {release: kube-prometheus-stack}}",
            "prometheus: {labels: {release: kube-prometheus-stack}" + prometheus + "}",
        )
        if not prometheus:
            edited = edited.replace(
                "    prometheus: {labels: {release: kube-prometheus-stack}}\n", ""
            )
        values = _hami_values(load_stack_text(edited))
        assert "prometheus" not in values and "global" not in values
