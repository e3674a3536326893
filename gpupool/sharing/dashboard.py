"""The Grafana dashboard of a stack's GPUs: a ConfigMap that Grafana's dashboard sidecar loads.

This module owns ``k8s.configmap.gpu-operator.gpupool-gpu-dashboard``, rendered with the alert
set (``cluster.monitoring.alerts``) unless ``cluster.monitoring.dashboard.enabled`` is false. Its
one key, ``gpupool-<stack>.json``, is a Grafana dashboard; the ConfigMap carries
``cluster.monitoring.dashboard.labels`` (default ``grafana_dashboard: "1"``, the label and value
kube-prometheus-stack's Grafana sidecar watches, ``grafana.sidecar.dashboards.label`` and
``labelValue`` in its values.yaml, with ``searchNamespace: ALL``).

The dashboard has a Prometheus data-source variable, a row for the stack (firing gpupool
alerts, GPU pods pending), with live showback (``sharing/showback.py``) a row for the tenants
(GPU units their running pods hold, their cost an hour in total and per pool, from the showback
recording rules), and a row per pool scope (``promql.scopes``) with GPU utilisation,
framebuffer use, temperature, power, the last XID error, and ECC errors and remapped rows.
Its queries read the DCGM series the alert rule records (``gpupool:<metric>`` with ``node``),
so they select a pool's GPUs exactly as its alerts do. ``queries`` lists every expression.
Its uid (``uid``) is unique per stack name within Grafana's 40 characters.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from gpupool.facts.names import GPU_OPERATOR_NAMESPACE
from gpupool.graph import CloudResult, Resource
from gpupool.model import Stack
from gpupool.sharing import promql, showback
from gpupool.sharing.objects import k8s_object
from gpupool.sharing.promql import Scope

CONFIG_MAP = "gpupool-gpu-dashboard"
SCHEMA_VERSION = 39  # Grafana 11's dashboard JSON schema version
UID_MAX = 40  # Grafana docs, "Dashboard API": a uid has at most 40 characters

UTIL, USED, FREE = "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE"
TEMP, XID, DBE = "DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL"
POWER, REMAPPED = promql.DASHBOARD_METRICS

_GPU = "{{node}} GPU {{gpu}}"
_DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}


def _pool_panels(stack: Stack, s: Scope) -> list[tuple[str, str, list[tuple[str, str]]]]:
    """Return (title, unit, [(expression, legend)]) for each panel of one scope's row."""

    def sel(metric: str) -> str:
        return s.dcgm(stack, metric)

    return [
        ("GPU utilisation", "percent", [(f"{sel(UTIL)}{s.join}", _GPU)]),
        (
            "Framebuffer used",
            "percent",
            [(f"100 * {sel(USED)} / ({sel(USED)} + {sel(FREE)}){s.join}", _GPU)],
        ),
        ("Temperature", "celsius", [(f"{sel(TEMP)}{s.join}", _GPU)]),
        ("Power", "watt", [(f"{sel(POWER)}{s.join}", _GPU)]),
        ("Last XID error", "none", [(f"{sel(XID)}{s.join}", _GPU)]),
        (
            "ECC errors and remapped rows (1h)",
            "none",
            [
                (f"increase({sel(DBE)}[1h]){s.join}", "double-bit ECC " + _GPU),
                (f"increase({sel(REMAPPED)}[1h]){s.join}", "uncorrectable remapped rows " + _GPU),
            ],
        ),
    ]


def _stack_panels(stack: Stack) -> list[tuple[str, str, list[tuple[str, str]]]]:
    firing = f'count by (alertname, pool) (ALERTS{{alertstate="firing", stack="{stack.name}"}})'
    return [
        ("Firing gpupool alerts", "none", [(firing, "{{alertname}} {{pool}}")]),
        (
            "GPU pods pending",
            "none",
            [(f"count({promql.pending_gpu_pods()})", "pending pods requesting GPUs")],
        ),
    ]


def _tenant_panels(stack: Stack) -> list[tuple[str, str, list[tuple[str, str]]]]:
    """Per tenant GPU allocation and cost, from the showback rules (none without them)."""
    if stack.cluster.monitoring.prometheus is None or not showback.rules(stack):
        return []
    namespaces = "|".join(sorted({t.namespace for t in stack.tenants}))
    requests = (
        "max by (namespace, pod, container, resource) (kube_pod_container_resource_requests"
        f'{{namespace=~"{namespaces}", {promql.GPU_RESOURCES}}})'
    )
    running = 'max by (namespace, pod) (kube_pod_status_phase{phase="Running"} == 1)'
    allocation = (
        f"sum by (namespace, resource) ({requests} * on (namespace, pod) group_left () {running})"
    )
    by = f'{{stack="{stack.name}"}}'
    return [
        ("GPU units held by running pods, per tenant namespace", "none",
         [(allocation, "{{namespace}} {{resource}}")]),
        ("Tenant GPU cost (USD an hour)", "currencyUSD",
         [(f"sum by (tenant) ({showback.TENANT_COST}{by})", "{{tenant}}")]),
        ("Tenant GPU cost per pool (USD an hour)", "currencyUSD",
         [(f"sum by (tenant, pool) ({showback.POOL_COST}{by})", "{{tenant}} on {{pool}}")]),
    ]  # fmt: skip


def _panel(
    pid: int, title: str, unit: str, targets: list[tuple[str, str]], x: int, y: int
) -> dict[str, Any]:
    return {
        "id": pid,
        "type": "timeseries",
        "title": title,
        "datasource": _DATASOURCE,
        "gridPos": {"h": 8, "w": 8, "x": x, "y": y},
        "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
        "options": {"legend": {"displayMode": "list", "placement": "bottom"}},
        "targets": [
            {"refId": chr(ord("A") + i), "expr": expr, "legendFormat": legend}
            for i, (expr, legend) in enumerate(targets)
        ],
    }


def uid(stack_name: str) -> str:
    """Return the dashboard's uid, unique per stack name and at most Grafana's 40 characters.

    ``gpupool-<stack>`` where it fits; otherwise its first 31 characters and 8 hex digits of
    the name's SHA-256, so two long names that share a beginning still differ and Grafana keeps
    both dashboards.
    """
    plain = f"gpupool-{stack_name}"
    if len(plain) <= UID_MAX:
        return plain
    digest = hashlib.sha256(stack_name.encode("utf-8")).hexdigest()[:8]
    return f"{plain[:UID_MAX - len(digest) - 1].rstrip('-')}-{digest}"


def model(stack: Stack) -> dict[str, Any]:
    """Return the Grafana dashboard JSON model of the stack."""
    rows = [(f"Stack {stack.name}", _stack_panels(stack))]
    if tenants := _tenant_panels(stack):
        rows.append(("Tenants", tenants))
    rows += [(f"Pool {s.label}", _pool_panels(stack, s)) for s in promql.scopes(stack)]
    panels: list[dict[str, Any]] = []
    y = 0
    for title, row in rows:
        panels.append(
            {
                "id": len(panels) + 1,
                "type": "row",
                "title": title,
                "collapsed": False,
                "gridPos": {"h": 1, "w": 24, "x": 0, "y": y},
                "panels": [],
            }
        )
        y += 1
        for i, (name, unit, targets) in enumerate(row):
            panels.append(
                _panel(len(panels) + 1, name, unit, targets, 8 * (i % 3), y + 8 * (i // 3))
            )
        y += 8 * ((len(row) + 2) // 3)
    return {
        "uid": uid(stack.name),
        "title": f"gpupool GPUs: {stack.name}",
        "tags": ["gpupool", "gpu"],
        "schemaVersion": SCHEMA_VERSION,
        "editable": False,
        "refresh": "1m",
        "time": {"from": "now-6h", "to": "now"},
        "templating": {
            "list": [
                {
                    "name": "datasource",
                    "label": "Prometheus",
                    "type": "datasource",
                    "query": "prometheus",
                }
            ]
        },
        "panels": panels,
    }


def queries(dashboard: dict[str, Any]) -> list[str]:
    """Return every PromQL expression of a dashboard model, in panel order."""
    return [t["expr"] for p in dashboard["panels"] for t in p.get("targets", ())]


def needs(stack: Stack) -> str:
    """Say what the dashboard needs of the cluster: a Grafana sidecar that loads it."""
    labels = ", ".join(
        f"{k}: {v}" for k, v in sorted(stack.cluster.monitoring.dashboard.labels.items())
    )
    return (
        f"a Grafana whose dashboard sidecar loads ConfigMaps labelled {{{labels}}} in namespace "
        f"{GPU_OPERATOR_NAMESPACE} (kube-prometheus-stack's does: sidecar.dashboards.label "
        'grafana_dashboard, labelValue "1", searchNamespace ALL), for the dashboard '
        f"{CONFIG_MAP}"
    )


def build(stack: Stack, cloud: CloudResult, after: tuple[str, ...]) -> list[Resource]:
    """Return the dashboard ConfigMap, or nothing without alerts or with the dashboard off."""
    mon = stack.cluster.monitoring
    if mon.alerts is None or not mon.dashboard.enabled:
        return []
    manifest = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": CONFIG_MAP,
            "namespace": GPU_OPERATOR_NAMESPACE,
            "labels": dict(mon.dashboard.labels),
        },
        "data": {f"gpupool-{stack.name}.json": json.dumps(model(stack), indent=1, sort_keys=True)},
    }
    return [
        k8s_object(
            stack,
            manifest,
            provider=cloud.k8s_provider,
            depends_on=after,
            facts={"needs": [needs(stack)]},
        )
    ]
