"""The rendered GPU alert rules under Prometheus's own promtool (``gpupool/sharing/alerts.py``).

``promtool check rules`` parses every rendered rule file (PromQL and annotation templates);
``promtool test rules`` evaluates each alert over input series (Prometheus docs, "Unit testing
for rules", configuration/unit_testing_rules.md) and compares the alerts that fire, exactly:
an alert firing where none is expected, or for the wrong pool, fails the test.

The input series are generated from the rendered stack: each scope's node (a named pool's node,
a node labelled with its pool in ``kube_node_labels``, or any other node), the pool and stack
labels, the thresholds and durations of the rendered rules. Every series gets the label set the
real exporters give it:

* DCGM exporter series name the node ``Hostname`` (dcgm-exporter up to 4.5.x, render_metrics.go)
  or ``hostname`` (from commit d5e5f51 on, in the 4.6.0-4.8.3 gpu-operator v26.7.0 pins); both
  spellings run;
* kube-state-metrics series come twice, from two replicas (``instance`` differs), which is what
  broke the old ``group_left`` join with "many-to-many matching not allowed".

Every scenario puts a firing series on every scope's node at once, so each scope must fire for
its own node and no other. Annotations are left out of the unit tests (promtool compares them
verbatim, ``$value`` formatting included); ``promtool check rules`` checks their templates.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from gpupool import assemble
from gpupool.model import Stack
from gpupool.sharing import alerts, promql
from gpupool.sharing.promql import Scope
from tests import dcgm_facts, promtool
from tests.manifests import parse_dcgm_metrics
from tests.paths import EXAMPLES
from tests.stacks import load_stack

RULE = "k8s.prometheusrule.gpu-operator.gpupool-gpu-alerts"
EXAMPLES_ALL = sorted(p.stem for p in EXAMPLES.glob("*.yaml"))
# Stacks whose scopes differ: named nodes, kube_node_labels joins, a scope two pools share.
UNIT_STACKS = [
    "onprem-hami",
    "aws-inference-l4",
    "monitoring-prometheus-stated",
    "monitoring-pool-label-unexported",
]
# kube-prometheus-stack scrapes kube-state-metrics with honorLabels: its series keep their own
# namespace label; the two replicas differ by instance.
KSM = {"job": "kube-state-metrics", "service": "kube-state-metrics"}
KSM_REPLICAS = ("10.0.9.1:8080", "10.0.9.2:8080")


def _groups(stack: Stack) -> list[dict[str, Any]]:
    res = assemble.build(stack).get(RULE)
    assert res is not None and res.manifest is not None
    return list(res.manifest["spec"]["groups"])


@pytest.mark.parametrize("name", EXAMPLES_ALL)
def test_every_example_renders_rules_promtool_accepts(name: str, tmp_path: Path) -> None:
    groups = _groups(load_stack(name))
    assert promtool.check_rules(groups, tmp_path) == ""


@pytest.mark.parametrize("name", UNIT_STACKS[2:])
def test_fixture_rules_pass_promtool_check(name: str, tmp_path: Path) -> None:
    assert promtool.check_rules(_groups(load_stack(name)), tmp_path) == ""


def _exported(text: str) -> set[str]:
    rows, errors = parse_dcgm_metrics(text)
    assert errors == []
    return {name for name, _, _ in rows}


def _read(stack: Stack) -> set[str]:
    used = set()
    for rule in _groups(stack)[0]["rules"]:
        used |= set(re.findall(r"\bDCGM_FI_[A-Z0-9_]+", rule["expr"]))
    return used


def test_every_dcgm_metric_is_exported_by_default_or_documented_as_custom() -> None:
    # gpu-operator v26.7.0 assets/state-dcgm-exporter/0800_daemonset.yaml: the exporter reads
    # DCGM_EXPORTER_COLLECTORS=/etc/dcgm-exporter/dcp-metrics-included.csv (dcgm-exporter
    # etc/dcp-metrics-included.csv, whose exported fields tests/dcgm_facts records).
    default = set(dcgm_facts.EXPORTER_DEFAULT)
    used = set()
    for name in EXAMPLES_ALL:
        used |= _read(load_stack(name))
    assert used == set(alerts.read_metrics())
    for metric in used:
        assert (metric in default) != (metric in alerts.CUSTOM_METRICS), metric
    # the custom ones really are absent from the default list, and commented out or unknown there
    assert not set(alerts.CUSTOM_METRICS) & default
    # what the alert set and the dashboard read from the default list
    assert used - set(alerts.CUSTOM_METRICS) == {
        "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_XID_ERRORS",
        "DCGM_FI_DEV_ROW_REMAP_FAILURE", "DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_GPU_UTIL",
        "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
    }  # fmt: skip


@pytest.mark.parametrize("name", [*EXAMPLES_ALL, *UNIT_STACKS[2:]])
def test_the_rendered_metrics_list_exports_every_dcgm_metric_the_rules_read(name: str) -> None:
    # dcgm-exporter internal/pkg/counters/counter_config.go (ExtractCounters): the exporter
    # watches and exports exactly the rows of its list; a series the rules read that is not
    # listed never exists, and its alert never fires.
    stack = load_stack(name)
    release = assemble.build(stack).get("helm.gpu-operator")
    assert release is not None
    data = release.inputs["values"]["dcgmExporter"]["config"]["data"]
    assert _read(stack) <= _exported(data)


# --------------------------------------------------------------------------- input series


def _series(name: str, labels: dict[str, str]) -> str:
    return name + "{" + ", ".join(f'{k}="{v}"' for k, v in sorted(labels.items())) + "}"


@dataclass
class Case:
    """One ``promtool test rules`` test group: input series, then expected alerts at times."""

    name: str
    series: list[dict[str, str]] = field(default_factory=list)
    checks: list[dict[str, Any]] = field(default_factory=list)

    def add(self, metric: str, labels: dict[str, str], values: str) -> None:
        self.series.append({"series": _series(metric, labels), "values": values})

    def add_ksm(self, metric: str, labels: dict[str, str], values: str) -> None:
        for instance in KSM_REPLICAS:  # two kube-state-metrics replicas: duplicate series
            self.add(metric, {**labels, **KSM, "instance": instance}, values)

    def expect(self, minute: int, alert: str, labels: list[dict[str, str]]) -> None:
        self.checks.append(
            {
                "eval_time": f"{minute}m",
                "alertname": alert,
                "exp_alerts": [{"exp_labels": dict(sorted(x.items()))} for x in labels],
            }
        )

    def spec(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "interval": "1m",  # one sample a minute: the values below count minutes
            "input_series": self.series,
            "alert_rule_test": self.checks,
        }


@dataclass(frozen=True)
class Target:
    """One scope's node in the test, and the labels its GPU's series carry."""

    scope: Scope
    node: str
    spelling: str  # the DCGM exporter's node label: Hostname or hostname

    def gpu(self) -> dict[str, str]:
        return {
            "gpu": "0",
            "UUID": f"GPU-{self.node}",
            "device": "nvidia0",
            "modelName": "NVIDIA L4",
            self.spelling: self.node,
            "job": "nvidia-dcgm-exporter",
            "namespace": "gpu-operator",
            "pod": f"nvidia-dcgm-exporter-{self.node[:5]}",
            "instance": f"10.1.0.{len(self.node)}:9400",
        }


def _targets(stack: Stack, spelling: str) -> list[Target]:
    out = []
    for i, scope in enumerate(promql.scopes(stack)):
        pool = next(p for p in stack.pools if p.name == scope.pools[0])
        node = pool.node_names[0] if pool.node_names else f"ip-10-0-{i}-17.ec2.internal"
        out.append(Target(scope, node, spelling))
    return out


def _nodes(case: Case, stack: Stack, targets: list[Target]) -> None:
    """Give every joined scope's node its pool label in kube_node_labels, twice."""
    for t in targets:
        if t.scope.join:
            case.add_ksm(
                "kube_node_labels", {"node": t.node, promql.KSM_POOL_LABEL: t.scope.label}, "1x400"
            )


def _fired(stack: Stack, t: Target, alert: str, series: dict[str, str]) -> dict[str, str]:
    spec = next(s for s in alerts.POOL_ALERTS if s.name == alert)
    return {
        **series,
        "alertname": alert,
        "severity": spec.severity,
        "pool": t.scope.label,
        "stack": stack.name,
    }


def _dcgm_fired(stack: Stack, t: Target, alert: str) -> dict[str, str]:
    return _fired(stack, t, alert, {**t.gpu(), "node": t.node, promql.STACK_LABEL: stack.name})


def _minutes(rule: dict[str, Any]) -> int:
    text = str(rule.get("for", "0m"))
    return int(text[:-1]) * (60 if text.endswith("h") else 1)


# --------------------------------------------------------------------------- scenarios per alert

Scenario = Callable[[Stack, list[Target], dict[str, dict[str, Any]]], Iterator[Case]]


def _one_metric_case(
    title: str, stack: Stack, targets: list[Target], alert: str, metric: str, values: str,
    at: int, fires: bool,
) -> Case:  # fmt: skip
    """One DCGM metric with ``values`` on every scope's GPU; ``alert`` fires at ``at`` or not."""
    case = Case(title)
    _nodes(case, stack, targets)
    for t in targets:
        case.add(metric, t.gpu(), values)
    expected = [_dcgm_fired(stack, t, alert) for t in targets] if fires else []
    case.expect(at, alert, expected)
    return case


def _gauge_scenario(alert: str, metric: str, bad: str, good: str) -> Scenario:
    """A DCGM gauge (or counter) that fires ``alert`` with ``bad`` values and not with ``good``."""

    def scenario(
        stack: Stack, targets: list[Target], rules: dict[str, dict[str, Any]]
    ) -> Iterator[Case]:
        wait = _minutes(rules[alert]) + 15
        for values, fires in ((bad, True), (good, False)):
            title = f"{alert} {'fires' if fires else 'quiet'}"
            series = values.format(n=wait + 20)
            yield _one_metric_case(title, stack, targets, alert, metric, series, wait, fires)

    return scenario


def _memory_high(
    stack: Stack, targets: list[Target], rules: dict[str, dict[str, Any]]
) -> Iterator[Case]:
    a = stack.cluster.monitoring.alerts
    assert a is not None
    total = 10000
    wait = _minutes(rules["GpupoolGpuMemoryHigh"]) + 2
    for percent, fires in ((a.gpu_memory_percent + 1, True), (a.gpu_memory_percent - 10, False)):
        case = Case(f"memory at {percent}%")
        _nodes(case, stack, targets)
        used = total * percent // 100
        for t in targets:
            case.add(alerts.USED, t.gpu(), f"{used}x60")
            case.add(alerts.FREE, t.gpu(), f"{total - used}x60")
        expected = [_dcgm_fired(stack, t, "GpupoolGpuMemoryHigh") for t in targets]
        case.expect(wait, "GpupoolGpuMemoryHigh", expected if fires else [])
        # the threshold holds for less than `for`: not yet
        case.expect(wait - 3, "GpupoolGpuMemoryHigh", [])
        yield case


def _memory_full_soon(
    stack: Stack, targets: list[Target], rules: dict[str, dict[str, Any]]
) -> Iterator[Case]:
    # A linear ramp: 10% used at minute 0, full at minute 90 (240 MiB a minute of 24000).
    a = stack.cluster.monitoring.alerts
    assert a is not None
    total, step, full_at = 24000, 240, 90
    ramp = Case("memory ramps linearly to full")
    flat = Case("memory high but steady")
    for case in (ramp, flat):
        _nodes(case, stack, targets)
    for t in targets:
        ramp.add(alerts.USED, t.gpu(), f"{total // 10}+{step}x{full_at - 10}")
        ramp.add(alerts.FREE, t.gpu(), f"{total - total // 10}-{step}x{full_at - 10}")
        flat.add(alerts.USED, t.gpu(), f"{total * 95 // 100}x100")
        flat.add(alerts.FREE, t.gpu(), f"{total * 5 // 100}x100")
    fired = [_dcgm_fired(stack, t, "GpupoolGpuMemoryFullSoon") for t in targets]
    # the early warning fires at least gpuMemoryFullWithinMinutes before the memory is full ...
    ramp.expect(full_at - a.memory_full_within_minutes, "GpupoolGpuMemoryFullSoon", fired)
    # ... and not half an hour before, when the trend does not reach full within the horizon
    ramp.expect(full_at - a.memory_full_within_minutes - 30, "GpupoolGpuMemoryFullSoon", [])
    flat.expect(60, "GpupoolGpuMemoryFullSoon", [])
    yield ramp
    yield flat


def _throttling(alert: str, metric: str) -> Scenario:
    def scenario(
        stack: Stack, targets: list[Target], rules: dict[str, dict[str, Any]]
    ) -> Iterator[Case]:
        a = stack.cluster.monitoring.alerts
        assert a is not None
        wait = _minutes(rules[alert]) + 10
        # nanoseconds throttled per one-minute sample: 60e9 ns is the whole minute
        for percent, fires in (
            (a.throttle_percent + 10, True),
            (max(a.throttle_percent - 5, 0), False),
        ):
            series = f"0+{percent * 600_000_000}x{wait + 10}"
            title = f"{alert} at {percent}%"
            yield _one_metric_case(title, stack, targets, alert, metric, series, wait, fires)

    return scenario


def _exporter_down(
    stack: Stack, targets: list[Target], rules: dict[str, dict[str, Any]]
) -> Iterator[Case]:
    alert = "GpupoolDcgmExporterDown"
    wait = _minutes(rules[alert]) + 5
    for exporting, fires in ((False, True), (True, False)):
        case = Case(f"exporter {'up' if exporting else 'absent'}")
        _nodes(case, stack, targets)
        for t in targets:
            capacity = {"node": t.node, "resource": "nvidia_com_gpu", "unit": "integer"}
            case.add_ksm("kube_node_status_capacity", capacity, f"4x{wait + 10}")
            if exporting:
                case.add(alerts.TEMP, t.gpu(), f"40x{wait + 10}")
        expected = [_fired(stack, t, alert, {"node": t.node}) for t in targets]
        case.expect(wait, alert, expected if fires else [])
        yield case
    # a node without GPUs needs no exporter
    case = Case("node without GPUs")
    _nodes(case, stack, targets)
    for t in targets:
        capacity = {"node": t.node, "resource": "nvidia_com_gpu", "unit": "integer"}
        case.add_ksm("kube_node_status_capacity", capacity, f"0x{wait + 10}")
    case.expect(wait, alert, [])
    yield case


def _idle(stack: Stack, targets: list[Target], rules: dict[str, dict[str, Any]]) -> Iterator[Case]:
    alert = "GpupoolGpuIdle"
    hours = _minutes(rules[alert])
    idle, busy = Case("GPU idle for hours"), Case("GPU busy half an hour ago")
    for case in (idle, busy):
        _nodes(case, stack, targets)
    for t in targets:
        idle.add(alerts.UTIL, t.gpu(), f"0x{hours + 20}")
        busy.add(alerts.UTIL, t.gpu(), f"0x{hours - 30} 60 0x50")
    idle.expect(hours + 10, alert, [_dcgm_fired(stack, t, alert) for t in targets])
    busy.expect(hours + 10, alert, [])
    yield idle
    yield busy


def _pod_pending(
    stack: Stack, targets: list[Target], rules: dict[str, dict[str, Any]]
) -> Iterator[Case]:
    alert = alerts.POD_PENDING
    wait = _minutes(rules[alert]) + 5
    case = Case("pods pending")
    for pod, resource in (("trainer-0", "nvidia_com_gpu"), ("web-0", "cpu")):
        pod_labels = {"namespace": "team-a", "pod": pod, "uid": f"uid-{pod}"}
        case.add_ksm("kube_pod_status_phase", {**pod_labels, "phase": "Pending"}, f"1x{wait + 5}")
        case.add_ksm("kube_pod_status_phase", {**pod_labels, "phase": "Running"}, f"0x{wait + 5}")
        requests = {**pod_labels, "container": "main", "resource": resource, "unit": "integer"}
        case.add_ksm("kube_pod_container_resource_requests", requests, f"1x{wait + 5}")
    # only the pod that requests a GPU, once, although kube-state-metrics reports it twice
    fired = {
        "alertname": alert, "severity": "warning", "stack": stack.name,
        "namespace": "team-a", "pod": "trainer-0",
    }  # fmt: skip
    case.expect(wait, alert, [fired])
    case.expect(wait - 10, alert, [])
    yield case


SCENARIOS: dict[str, Scenario] = {
    "GpupoolGpuMemoryHigh": _memory_high,
    "GpupoolGpuMemoryFullSoon": _memory_full_soon,
    "GpupoolGpuXidError": _gauge_scenario("GpupoolGpuXidError", alerts.XID, "0x5 79x{n}", "0x{n}"),
    # a counter that stood still for long is an old error, not a new one
    "GpupoolGpuEccDoubleBit": _gauge_scenario(
        "GpupoolGpuEccDoubleBit", alerts.DBE, "2x10 3x{n}", "2x{n}"
    ),
    "GpupoolGpuRowRemapFailed": _gauge_scenario(
        "GpupoolGpuRowRemapFailed", alerts.REMAP_FAILED, "0x5 1x{n}", "0x{n}"
    ),
    "GpupoolGpuRowRemapPending": _gauge_scenario(
        "GpupoolGpuRowRemapPending", alerts.REMAP_PENDING, "0x5 1x{n}", "0x{n}"
    ),
    "GpupoolGpuThermalThrottling": _throttling("GpupoolGpuThermalThrottling", alerts.THERMAL),
    "GpupoolGpuPowerThrottling": _throttling("GpupoolGpuPowerThrottling", alerts.POWER),
    "GpupoolDcgmExporterDown": _exporter_down,
    "GpupoolGpuIdle": _idle,
    alerts.POD_PENDING: _pod_pending,
}


def test_every_alert_has_a_scenario() -> None:
    assert set(SCENARIOS) == {s.name for s in alerts.POOL_ALERTS} | {alerts.POD_PENDING}


def _without_annotations(groups: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = copy.deepcopy(groups)
    for group in out:
        for rule in group["rules"]:
            rule.pop("annotations", None)
    return out


@pytest.mark.parametrize("spelling", ["Hostname", "hostname"])
@pytest.mark.parametrize("name", UNIT_STACKS)
def test_every_alert_fires_on_its_pool_and_stays_quiet_otherwise(
    name: str, spelling: str, tmp_path: Path
) -> None:
    stack = load_stack(name)
    groups = _groups(stack)
    rules = {r["alert"]: r for r in groups[0]["rules"] if "alert" in r}
    targets = _targets(stack, spelling)
    cases = [c.spec() for scenario in SCENARIOS.values() for c in scenario(stack, targets, rules)]
    assert promtool.unit_test(_without_annotations(groups), cases, tmp_path) == ""


def test_unit_tests_can_fail(tmp_path: Path) -> None:
    # The harness itself: a scenario that expects the wrong pool must fail under promtool.
    stack = load_stack("onprem-hami")
    groups = _groups(stack)
    rules = {r["alert"]: r for r in groups[0]["rules"] if "alert" in r}
    targets = _targets(stack, "hostname")
    (case, _) = list(_memory_high(stack, targets, rules))
    spec = case.spec()
    spec["alert_rule_test"][0]["exp_alerts"][0]["exp_labels"]["pool"] = "elsewhere"
    assert "elsewhere" in promtool.unit_test(_without_annotations(groups), [spec], tmp_path)


def _kai_pending_case(stack: Stack, rules: dict[str, dict[str, Any]],
                      annotations: dict[str, dict[str, str]]) -> tuple[Case, int]:
    """Pods pending (or running) with the given kube_pod_annotations labels and no GPU request."""
    wait = _minutes(rules[alerts.POD_PENDING]) + 5
    case = Case("KAI fractional pods pending")
    for pod, labels in annotations.items():
        pod_labels = {"namespace": "team-apps", "pod": pod, "uid": f"uid-{pod}"}
        pending = pod != "run-0"
        case.add_ksm("kube_pod_status_phase", {**pod_labels, "phase": "Pending"},
                     f"{int(pending)}x{wait + 5}")
        case.add_ksm("kube_pod_status_phase", {**pod_labels, "phase": "Running"},
                     f"{int(not pending)}x{wait + 5}")
        # KAI's fractional pods request no GPU resource: only cpu appears in the requests
        case.add_ksm("kube_pod_container_resource_requests",
                     {**pod_labels, "container": "main", "resource": "cpu", "unit": "core"},
                     f"1x{wait + 5}")
        case.add_ksm("kube_pod_annotations", {**pod_labels, **labels}, f"1x{wait + 5}")
    return case, wait


def _pending(stack: Stack, pod: str) -> dict[str, str]:
    return {"alertname": alerts.POD_PENDING, "severity": "warning", "stack": stack.name,
            "namespace": "team-apps", "pod": pod}


def test_a_pending_kai_fractional_pod_fires_the_pending_alert(tmp_path: Path) -> None:
    # KAI v0.17.0 pkg/common/constants/constants.go: the gpu-fraction and gpu-memory annotations;
    # kube-state-metrics internal/store/pod.go: kube_pod_annotations{annotation_gpu_fraction} once
    # started with --metric-annotations-allowlist=pods=[gpu-fraction,gpu-memory]
    stack = load_stack("azure-kai-fair")
    groups = _groups(stack)
    rules = {r["alert"]: r for r in groups[0]["rules"] if "alert" in r}
    case, wait = _kai_pending_case(stack, rules, {
        "frac-0": {"annotation_gpu_fraction": "0.5"},
        "mem-0": {"annotation_gpu_memory": "8192"},
        "web-0": {},  # no KAI annotation: a CPU pod
        "run-0": {"annotation_gpu_fraction": "0.5"},  # running, not pending
    })
    # each pending fractional pod once, although both kube-state-metrics replicas report it
    case.expect(wait, alerts.POD_PENDING, [_pending(stack, "frac-0"), _pending(stack, "mem-0")])
    case.expect(wait - 10, alerts.POD_PENDING, [])
    assert promtool.unit_test(_without_annotations(groups), [case.spec()], tmp_path) == ""
    # the harness: expecting no alert at the threshold fails
    case.checks[0]["exp_alerts"] = []
    assert promtool.unit_test(_without_annotations(groups), [case.spec()], tmp_path) != ""


def test_without_the_annotations_allowlist_fractional_pods_stay_unseen(tmp_path: Path) -> None:
    """kube-state-metrics without --metric-annotations-allowlist exports kube_pod_annotations
    with no annotation label: the alert sees no fractional pod (as before), as its needs say."""
    stack = load_stack("azure-kai-fair")
    groups = _groups(stack)
    rules = {r["alert"]: r for r in groups[0]["rules"] if "alert" in r}
    case, wait = _kai_pending_case(stack, rules, {"frac-0": {}})
    case.expect(wait, alerts.POD_PENDING, [])
    assert promtool.unit_test(_without_annotations(groups), [case.spec()], tmp_path) == ""
    assert alerts.needs(stack)[-1] == (
        "kube-state-metrics started with "
        "`--metric-annotations-allowlist=pods=[gpu-fraction,gpu-memory]` (kube-prometheus-stack: "
        "`kube-state-metrics.metricAnnotationsAllowList`), or GpupoolGpuPodPending never fires "
        "for the KAI fractional pods of t4-spot (they request no GPU resource)"
    )


def test_only_stacks_with_kai_fractional_pools_read_pod_annotations() -> None:
    seen = set()
    for name in EXAMPLES_ALL:
        stack = load_stack(name)
        if stack.cluster.monitoring.alerts is None:
            continue
        expr = alerts.pending_rule(stack, stack.cluster.monitoring.alerts)["expr"]
        fractional = stack.cluster.scheduler == "kai" and any(
            p.sharing.mode == "fractional" for p in stack.pools
        )
        assert ("kube_pod_annotations" in expr) is fractional, name
        assert any("--metric-annotations-allowlist" in n for n in alerts.needs(stack)) is fractional
        seen.add(fractional)
    assert seen == {True, False}
