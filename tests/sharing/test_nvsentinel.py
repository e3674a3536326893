"""NVSentinel's release: pinned, its values keys the chart's own, wired to the GPU Operator's DCGM.

The chart's values are checked against gpupool's table of NVIDIA/NVSentinel v1.19.0
``distros/kubernetes/nvsentinel/values.yaml`` and ``charts/labeler/values.yaml``
(``tests/upstream_facts/charts/nvsentinel.json``) and its facts of ``templates/podMonitor.yaml``
(``tests/upstream_facts/nvsentinel.py``): Helm ignores a values key the chart does not have, so
a misspelt or moved key would switch nothing and say nothing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from gpupool import assemble, sharing
from gpupool.graph import CloudResult, Resource
from gpupool.model import Stack
from gpupool.monitoring_model import NVSentinel, Prometheus
from gpupool.sharing import nvsentinel, operator
from gpupool.sharing.objects import chart
from tests import upstream_facts
from tests.paths import ROOT
from tests.stacks import load_stack
from tests.upstream_facts import nvsentinel as pod_monitor

DRAIN = "sharing-nvsentinel-drain"  # aws, action drain, Prometheus labels stated
OWN_OPERATOR = "nvsentinel-own-operator"  # cloud kubernetes, own GPU Operator, cordon, dryRun
MONITOR = "nvsentinel-dry-run-monitor"  # gcp, the default action
STACKS = [DRAIN, OWN_OPERATOR, MONITOR]


def _paths(values: Any, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every key path of ``values`` down to its leaves (a map's keys are paths too)."""
    if isinstance(values, Mapping) and values:
        for key, child in values.items():
            yield from _paths(child, (*prefix, str(key)))
    else:
        yield prefix


def _release(stack: Stack) -> Resource:
    res = assemble.build(stack).get(nvsentinel.RELEASE_ADDRESS)
    assert res is not None
    return res


def _with(stack: Stack, **changes: Any) -> Stack:
    base = stack.cluster.nvsentinel or NVSentinel()
    cluster = dataclasses.replace(stack.cluster, nvsentinel=dataclasses.replace(base, **changes))
    return dataclasses.replace(stack, cluster=cluster)


def test_the_release_is_pinned_to_the_version_its_facts_were_read_from() -> None:
    # NVIDIA/NVSentinel v1.19.0 README.md and .github/workflows/release.yml: the chart is
    # published as oci://ghcr.io/nvidia/nvsentinel, its version the release tag (Makefile
    # helm-publish: helm package --version $SAFE_REF); the README installs it into nvsentinel.
    release = _release(load_stack(DRAIN))
    assert release.inputs["chart"] == "oci://ghcr.io/nvidia/nvsentinel"
    assert release.inputs["version"] == "v1.19.0"
    assert "repository_opts" not in release.inputs  # an OCI chart names its registry itself
    assert release.inputs["namespace"] == "nvsentinel"
    assert release.inputs["create_namespace"] is False  # gpupool renders the Namespace
    # the version the chart table and the PodMonitor facts were read from
    pinned = chart(nvsentinel.CHART)
    assert pinned.version == upstream_facts.chart("nvsentinel").version == pod_monitor.VERSION


@pytest.mark.parametrize("name", STACKS)
@pytest.mark.parametrize("action", ["monitor", "cordon", "drain"])
def test_every_key_gpupool_sets_is_one_the_chart_has(name: str, action: str) -> None:
    # Helm drops values keys a chart does not have without a word. Every leaf gpupool sets is in
    # the v1.19.0 values.yaml, or its labeler subchart's, except podMonitor.labels, which
    # values.yaml documents only in a comment and templates/podMonitor.yaml reads.
    stack = _with(load_stack(name), action=action)
    values = nvsentinel.values(stack)
    table = upstream_facts.chart("nvsentinel")
    for path in _paths(values):
        if path[:2] == ("podMonitor", "labels"):
            assert pod_monitor.LABELS_FROM == "podMonitor.labels"
            assert table.keys["podMonitor.labels"].commented
            continue
        fact = table.keys.get(".".join(path))
        assert fact is not None and not fact.commented, ".".join(path)
        # and of the chart's type: a string where the chart has a string, a bool for a bool
        assert fact.type == upstream_facts.json_type(_leaf(values, path)), ".".join(path)


def _leaf(values: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        values = values[key]
    return values


@pytest.mark.parametrize(
    ("action", "quarantine", "drainer", "store"),
    [("monitor", False, False, False), ("cordon", True, False, True), ("drain", True, True, True)],
)
def test_the_action_switches_quarantine_drainer_and_their_store(
    action: str, quarantine: bool, drainer: bool, store: bool
) -> None:
    # v1.19.0 Chart.yaml: the subcharts fault-quarantine, node-drainer and mongodb-store are on
    # by global.faultQuarantine.enabled, global.nodeDrainer.enabled, global.mongodbStore.enabled;
    # docs/configuration/fault-quarantine.md: the module "depends on the datastore being
    # enabled". Every switch is written, even where it is the chart's default (all false).
    glob = nvsentinel.values(_with(load_stack(DRAIN), action=action))["global"]
    assert glob["faultQuarantine"] == {"enabled": quarantine}
    assert glob["nodeDrainer"] == {"enabled": drainer}
    assert glob["mongodbStore"] == {"enabled": store}
    table = upstream_facts.chart("nvsentinel")
    modules = ("faultQuarantine", "nodeDrainer", "mongodbStore")
    assert not any(table.default(f"global.{k}.enabled") for k in modules)


@pytest.mark.parametrize("dry_run", [False, True])
def test_dry_run_is_the_chart_global(dry_run: bool) -> None:
    # charts/fault-quarantine and charts/node-drainer templates/deployment.yaml (v1.19.0) pass
    # --dry-run={{ .Values.global.dryRun }}; values.yaml has global.dryRun: false.
    stack = _with(load_stack(DRAIN), dry_run=dry_run)
    assert nvsentinel.values(stack)["global"]["dryRun"] is dry_run
    assert _release(stack).facts["dry_run"] is dry_run


def test_it_reads_the_dcgm_the_gpu_operator_is_told_to_run() -> None:
    # NVSentinel v1.19.0 values.yaml global.dcgm (mode operator-service, endpoint
    # nvidia-dcgm.gpu-operator.svc:5555) and labeler/main.go (--dcgm-app-label nvidia-dcgm):
    # the GPU health monitor runs on nodes with a nvidia-dcgm pod and queries its Service.
    # gpu-operator v26.7.0 values.yaml dcgm.enabled is false ("use embedded nv-hostengine by
    # exporter"); assets/state-dcgm/0500_service.yaml names the Service nvidia-dcgm, port 5555.
    stack = load_stack(DRAIN)
    dcgm = nvsentinel.values(stack)["global"]["dcgm"]
    assert dcgm == {
        "mode": "operator-service",
        "service": {"endpoint": "nvidia-dcgm.gpu-operator.svc", "port": 5555},
    }
    graph = assemble.build(stack)
    op = graph.get("helm.gpu-operator")
    assert op is not None and op.inputs["values"]["dcgm"] == {"enabled": True}
    assert nvsentinel.RELEASE_ADDRESS not in op.depends_on
    assert "helm.gpu-operator" in _release(stack).depends_on
    assert upstream_facts.chart("gpu-operator").default("dcgm.enabled") is False
    # without NVSentinel the operator's DCGM stays as the chart has it
    plain = dataclasses.replace(stack, cluster=dataclasses.replace(stack.cluster, nvsentinel=None))
    assert "dcgm" not in operator.expected_values(plain)


def test_an_operator_the_user_runs_is_told_to_run_dcgm() -> None:
    # gpuOperator.install: false: no release, the ConfigMaps carry what that operator must be set
    # to (operator.expected_values), and the release says what it needs.
    stack = load_stack(OWN_OPERATOR)
    graph = assemble.build(stack)
    assert graph.get("helm.gpu-operator") is None
    configs = [r for r in graph.resources if "operator_values" in r.facts]
    assert configs and all(r.facts["operator_values"]["dcgm"] == {"enabled": True} for r in configs)
    release = _release(stack)
    assert any("dcgm.enabled: true" in need for need in release.facts["needs"])


@pytest.mark.parametrize(
    ("name", "assume"), [(DRAIN, True), (MONITOR, True), (OWN_OPERATOR, False)]
)
def test_the_labeler_assumes_a_driver_the_node_image_carries(name: str, assume: bool) -> None:
    # v1.19.0 docs/labeler.md: driver.installed is set only from nvidia-driver-daemonset or GKE's
    # nvidia-driver-installer pods, and the syslog monitor and metadata collector select on it;
    # with a driver in the node image (driver: preinstalled) labeler.assumeDriverInstalled.
    stack = load_stack(name)
    assert (stack.cluster.gpu_operator.driver == "preinstalled") is assume
    assert nvsentinel.values(stack)["labeler"] == {"assumeDriverInstalled": assume}


def test_the_pod_monitor_follows_the_stated_prometheus() -> None:
    # templates/podMonitor.yaml renders a monitoring.coreos.com/v1 PodMonitor when
    # podMonitor.enabled (true in values.yaml): without the Prometheus Operator's CRD the
    # install fails, so it is on only where the stack says the operator runs.
    assert upstream_facts.chart("nvsentinel").default(pod_monitor.ENABLED_BY) is True
    with_prom = load_stack(DRAIN)
    # the need names the object the template renders and the labels it copies onto it
    [need] = [n for n in _release(with_prom).facts["needs"] if pod_monitor.KIND in n]
    assert "{release: kube-prometheus-stack}" in need
    assert nvsentinel.values(with_prom)["podMonitor"] == {
        "enabled": True,
        "labels": {"release": "kube-prometheus-stack"},
    }
    assert nvsentinel.values(load_stack(MONITOR))["podMonitor"] == {"enabled": False}
    mon = dataclasses.replace(
        with_prom.cluster.monitoring,
        prometheus=Prometheus(labels={}, service_monitor=True, kube_state_metrics_pool_label=False),
    )
    selects_all = dataclasses.replace(
        with_prom, cluster=dataclasses.replace(with_prom.cluster, monitoring=mon)
    )
    assert nvsentinel.values(selects_all)["podMonitor"] == {"enabled": True}


def test_needs_name_the_datastore_prerequisites_only_when_it_cordons() -> None:
    # v1.19.0 charts/mongodb-store: Certificates (cert-manager.io/v1) for the replica set's TLS,
    # a 3-member replica set each with a persistent volume.
    drain = _release(load_stack(DRAIN)).facts["needs"]
    assert any(n.startswith("cert-manager") for n in drain)
    assert any(n.startswith("a default StorageClass") for n in drain)
    monitor = _release(load_stack(MONITOR)).facts["needs"]
    assert not any("cert-manager" in n or "StorageClass" in n for n in monitor)


def test_namespace_is_privileged_and_comes_first() -> None:
    stack = load_stack(DRAIN)
    cloud = CloudResult(
        resources=(), k8s_provider="k8s", node_pools={"train-h100": ("pool.train-h100.node_group",)}
    )
    resources = sharing.build(stack, cloud)
    by_address = {r.address: r for r in resources}
    ns = by_address[nvsentinel.NAMESPACE_ADDRESS]
    assert ns.manifest is not None
    assert ns.manifest["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "privileged"
    release = by_address[nvsentinel.RELEASE_ADDRESS]
    assert release.depends_on == (
        nvsentinel.NAMESPACE_ADDRESS,
        "helm.gpu-operator",
        "pool.train-h100.node_group",
    )
    addresses = [r.address for r in resources]
    assert addresses.index(nvsentinel.NAMESPACE_ADDRESS) < addresses.index(release.address)


def test_no_release_without_the_block() -> None:
    for path in sorted((ROOT / "stacks" / "examples").glob("*.yaml")):
        graph = assemble.build(load_stack(path))
        assert graph.get(nvsentinel.RELEASE_ADDRESS) is None, path.name
        assert graph.get(nvsentinel.NAMESPACE_ADDRESS) is None, path.name
