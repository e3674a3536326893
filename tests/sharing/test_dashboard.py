"""The Grafana dashboard ConfigMap (``gpupool/sharing/dashboard.py``).

It renders for every example with the alert set, carries the label Grafana's dashboard sidecar
selects (kube-prometheus-stack's default, from gpupool's table of its values.yaml), has a
row per pool with the panels the issue asks for, and every query is valid PromQL by promtool's
parser and reads only series the alert rule records.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest

from gpupool import assemble
from gpupool.model import Stack
from gpupool.sharing import dashboard, promql, showback
from tests import promtool, upstream_facts
from tests.manifests import validate_manifests
from tests.paths import EXAMPLES
from tests.stacks import load_stack, monitoring_stack

CONFIG_MAP = "k8s.configmap.gpu-operator.gpupool-gpu-dashboard"
RULE = "k8s.prometheusrule.gpu-operator.gpupool-gpu-alerts"
EXAMPLES_ALL = sorted(p.stem for p in EXAMPLES.glob("*.yaml"))


def _config_map(stack: Stack) -> dict[str, Any] | None:
    res = assemble.build(stack).get(CONFIG_MAP)
    return None if res is None or res.manifest is None else dict(res.manifest)


def _model(stack: Stack) -> dict[str, Any]:
    cm = _config_map(stack)
    assert cm is not None
    (key,) = cm["data"]
    assert key == f"gpupool-{stack.name}.json"
    return dict(json.loads(cm["data"][key]))


def test_default_label_is_the_one_kube_prometheus_stacks_sidecar_loads() -> None:
    # kube-prometheus-stack 88.5.3 values.yaml (tests/upstream_facts/charts/
    # kube-prometheus-stack.json): grafana.sidecar.dashboards.label and labelValue (the Grafana
    # chart's sidecar loads ConfigMaps carrying them), searchNamespace: ALL, so a ConfigMap in
    # the gpu-operator namespace is found.
    kps = upstream_facts.chart("kube-prometheus-stack")
    sidecar = "grafana.sidecar.dashboards"
    assert kps.default(f"{sidecar}.enabled") is True
    assert kps.default(f"{sidecar}.searchNamespace") == "ALL"
    cm = _config_map(load_stack("aws-inference-l4"))
    assert cm is not None
    label, value = kps.default(f"{sidecar}.label"), kps.default(f"{sidecar}.labelValue")
    assert cm["metadata"]["labels"][label] == value
    assert cm["metadata"]["namespace"] == "gpu-operator"


def test_labels_are_configurable() -> None:
    cm = _config_map(
        monitoring_stack("{alerts: {}, dashboard: {labels: {grafana_dashboard: gpus}}}")
    )
    assert cm is not None
    assert cm["metadata"]["labels"]["grafana_dashboard"] == "gpus"


def test_no_dashboard_when_off_or_without_alerts() -> None:
    assert _config_map(monitoring_stack("{alerts: {}, dashboard: {enabled: false}}")) is None
    assert _config_map(monitoring_stack("{dcgmExporter: true}")) is None


@pytest.mark.parametrize("name", EXAMPLES_ALL)
def test_every_example_has_a_row_per_pool_with_the_gpu_panels(name: str) -> None:
    stack = load_stack(name)
    model = _model(stack)
    assert model["templating"]["list"][0]["type"] == "datasource"
    rows = [p["title"] for p in model["panels"] if p["type"] == "row"]
    tenants = ["Tenants"] if showback.rules(stack) else []
    pools = [f"Pool {s.label}" for s in promql.scopes(stack)]
    assert rows == [f"Stack {stack.name}", *tenants, *pools]
    titles = [p["title"] for p in model["panels"] if p["type"] == "timeseries"]
    per_tenant = [
        "GPU units held by running pods, per tenant namespace", "Tenant GPU cost (USD an hour)",
        "Tenant GPU cost per pool (USD an hour)",
    ] if tenants else []  # fmt: skip
    per_pool = [
        "GPU utilisation", "Framebuffer used", "Temperature", "Power", "Last XID error",
        "ECC errors and remapped rows (1h)",
    ]  # fmt: skip
    stack_row = ["Firing gpupool alerts", "GPU pods pending"]
    assert titles == stack_row + per_tenant + per_pool * len(pools)
    ids = [p["id"] for p in model["panels"]]
    assert len(ids) == len(set(ids))
    for panel in model["panels"]:
        if panel["type"] == "timeseries":
            assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}


@pytest.mark.parametrize("name", EXAMPLES_ALL)
def test_every_query_is_valid_promql(name: str, tmp_path: Path) -> None:
    # promtool has no offline query check; `promtool check rules` parses each expression of a
    # rule file with Prometheus's PromQL parser, so each query becomes one recording rule.
    queries = dashboard.queries(_model(load_stack(name)))
    assert queries
    rules = [{"record": f"gpupool_dashboard_query_{i}", "expr": q} for i, q in enumerate(queries)]
    assert promtool.check_rules([{"name": "dashboard", "rules": rules}], tmp_path) == ""


@pytest.mark.parametrize("name", EXAMPLES_ALL)
def test_queries_read_only_what_the_rule_records(name: str) -> None:
    stack = load_stack(name)
    graph = assemble.build(stack)
    rule = graph.get(RULE)
    assert rule is not None and rule.manifest is not None
    recorded = {r["record"] for r in rule.manifest["spec"]["groups"][0]["rules"] if "record" in r}
    recorded |= {r["record"] for r in showback.rules(stack)}
    read = set()
    for query in dashboard.queries(_model(stack)):
        read |= set(re.findall(r"gpupool:[A-Za-z0-9_]+", query))
        # the raw exporter series are never read directly: their node label is spelled two ways
        assert not re.search(r"(?<!:)\bDCGM_FI_", query), query
    assert read and read <= recorded


def test_tenant_row_reads_the_showback_series() -> None:
    # gpupool/sharing/showback.py records the cost per tenant and per tenant and pool; the
    # dashboard sums them for its stack.
    stack = load_stack("azure-kai-fair")
    assert showback.rules(stack)
    row = [q for q in dashboard.queries(_model(stack)) if "tenant" in q]
    assert f'sum by (tenant) ({showback.TENANT_COST}{{stack="{stack.name}"}})' in row
    assert f'sum by (tenant, pool) ({showback.POOL_COST}{{stack="{stack.name}"}})' in row


@pytest.mark.cloud_sdks  # kubernetes-validate
def test_config_map_validates() -> None:
    cm = _config_map(load_stack("onprem-hami"))
    assert cm is not None
    assert validate_manifests([cm]) == []


def test_stacks_whose_names_share_32_characters_get_different_uids() -> None:
    """Issue 27 item 6: Grafana keys dashboards by uid, at most 40 characters (Grafana docs,
    "Dashboard API": "The uid can have a maximum length of 40 characters"); cutting
    ``gpupool-<stack>`` at 40 gave two stacks that share their first 32 characters one uid, so
    Grafana kept one of their dashboards. A name that fits keeps the plain uid."""
    base = load_stack("aws-inference-l4")
    first, second = "a" * 32 + "-prod-1", "a" * 32 + "-prod-2"
    uids = [dashboard.model(dataclasses.replace(base, name=name))["uid"] for name in
            (first, second, "a" * 40, "a" * 39)]
    assert len(set(uids)) == 4 and all(len(uid) <= 40 for uid in uids)
    assert all(re.fullmatch(r"[a-z0-9-]+", uid) for uid in uids)
    assert uids[0].startswith("gpupool-" + "a" * 20)
    assert dashboard.model(base)["uid"] == "gpupool-inference-prod"
    assert dashboard.model(dataclasses.replace(base, name="a" * 32))["uid"] == "gpupool-" + "a" * 32
