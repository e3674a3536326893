"""Live showback rules, run by Prometheus's own promtool (Debian's ``prometheus`` package).

``promtool check rules`` reads every rendered rule file; ``promtool test rules`` feeds
kube-state-metrics series as kube-state-metrics writes them (``resource`` sanitised to
``nvidia_com_gpu``: kube-state-metrics ``internal/store/utils.go`` ``toResourceUnitValue``;
labels per ``docs/metrics/workload/pod-metrics.md``), from two replicas at once, and expects the
cost series computed here from the catalog's JSON files or the stack file's declared prices.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpupool import assemble, catalog
from gpupool.model import DeclaredPrice, Prometheus, Stack
from gpupool.sharing import showback
from tests.manifests import validate_manifest
from tests.paths import EXAMPLES, PACKAGE
from tests.promtool import require as promtool
from tests.stacks import load_stack

CATALOG = PACKAGE / "catalog" / "data"
REPLICAS = ("ksm-0", "ksm-1")  # two kube-state-metrics replicas: every series twice


def with_prometheus(stack: Stack) -> Stack:
    """The stack, saying the Prometheus Operator runs (as kube-prometheus-stack)."""
    prom = Prometheus(labels={"release": "kube-prometheus-stack"}, service_monitor=True,
                      kube_state_metrics_pool_label=True)
    monitoring = dataclasses.replace(stack.cluster.monitoring, prometheus=prom)
    return dataclasses.replace(stack, cluster=dataclasses.replace(stack.cluster,
                                                                   monitoring=monitoring))


def rule_manifest(stack: Stack) -> dict[str, Any] | None:
    graph = assemble.build(stack)
    found = [r for r in graph.resources if r.address.endswith(f".{showback.RULE_NAME}")]
    return dict(found[0].manifest) if found and found[0].manifest else None


def od_price(cloud: str, instance: str, capacity: str = "on_demand") -> float:
    rows = json.loads((CATALOG / f"instances-{cloud}.json").read_text(encoding="utf-8"))
    (row,) = [r for r in rows["instances"] if r["name"] == instance]
    return row["price"][f"{capacity}_hourly"]


def write_rules(tmp_path: Path, manifest: dict[str, Any]) -> Path:
    path = tmp_path / "rules.yaml"
    path.write_text(yaml.safe_dump({"groups": manifest["spec"]["groups"]}), encoding="utf-8")
    return path


def series(name: str, labels: dict[str, str], value: str) -> list[dict[str, str]]:
    """One input series per kube-state-metrics replica."""
    out = []
    for instance in REPLICAS:
        body = ",".join(f'{k}="{v}"' for k, v in {**labels, "instance": instance}.items())
        out.append({"series": f"{name}{{{body}}}", "values": value})
    return out


def pod(ns: str, name: str, node: str, phase: str, gpus: dict[str, int]) -> list[dict[str, str]]:
    out = []
    for container, count in gpus.items():
        out += series("kube_pod_container_resource_requests",
                      {"namespace": ns, "pod": name, "container": container, "node": node,
                       "resource": "nvidia_com_gpu", "unit": "integer", "uid": f"u-{name}"},
                      f"{count}x10")
    for p in ("Pending", "Running", "Succeeded"):
        out += series("kube_pod_status_phase",
                      {"namespace": ns, "pod": name, "phase": p, "uid": f"u-{name}"},
                      f"{int(p == phase)}x10")
    return out


def node(name: str, pool: str) -> list[dict[str, str]]:
    return series("kube_node_labels", {"node": name, "label_gpupool_io_pool": pool}, "1x10")


EXAMPLE_FILES = sorted(EXAMPLES.glob("*.yaml"))


@pytest.mark.cloud_sdks  # the PrometheusRule CRD check (tests.manifests) uses kubernetes-validate
@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_every_rendered_rule_file_passes_promtool_check(path: Path, tmp_path: Path) -> None:
    manifest = rule_manifest(with_prometheus(load_stack(path)))
    if manifest is None:  # no tenant on a priced pool
        stack = load_stack(path)
        assert not showback.rules(stack)
        return
    assert validate_manifest(manifest) == []  # the PrometheusRule CRD schema
    done = subprocess.run([promtool(), "check", "rules", str(write_rules(tmp_path, manifest))],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_running_pods_of_a_tenant_on_its_pool_are_charged_once(tmp_path: Path) -> None:
    """search: pod a (1 + 2 GPUs) runs on infer-l4; b runs elsewhere; c is pending."""
    stack = with_prometheus(load_stack("aws-inference-l4"))
    manifest = rule_manifest(stack)
    assert manifest is not None
    per_replica = od_price("aws", "g6.2xlarge") / 4  # 4 time-slicing replicas per L4
    inputs = [
        *node("n1", "infer-l4"), *node("n2", "infer-l40s-mps"),
        *pod("search", "a", "n1", "Running", {"main": 1, "side": 2}),
        *pod("search", "b", "n2", "Running", {"main": 1}),
        *pod("search", "c", "n1", "Pending", {"main": 4}),
        *pod("ads", "d", "n2", "Running", {"main": 2}),
    ]
    rows = json.loads((CATALOG / "instances-aws.json").read_text(encoding="utf-8"))["instances"]
    # the series carries the date of the priced catalog row (rows date their own prices)
    as_of = next(r["price"]["as_of"] for r in rows if r["name"] == "g6.2xlarge")
    labels = {"stack": stack.name, "tenant": "search", "pool": "infer-l4",
              "resource": "nvidia.com/gpu", "prices_as_of": as_of}
    body = ",".join(f'{k}="{v}"' for k, v in labels.items())
    l40s = od_price("aws", "g6e.2xlarge") / 8  # ads on the MPS pool: 8 replicas per L40S
    test = {
        "rule_files": [str(write_rules(tmp_path, manifest))],
        "evaluation_interval": "1m",
        "tests": [{
            "interval": "1m",
            "input_series": inputs,
            "promql_expr_test": [
                {"expr": f'{showback.POOL_COST}{{tenant="search"}}', "eval_time": "5m",
                 "exp_samples": [{"labels": f"{showback.POOL_COST}{{{body}}}",
                                  "value": 3 * per_replica}]},
                {"expr": showback.TENANT_COST, "eval_time": "5m",
                 "exp_samples": [
                     {"labels": f'{showback.TENANT_COST}{{stack="{stack.name}",tenant="ads"}}',
                      "value": 2 * l40s},
                     {"labels": f'{showback.TENANT_COST}{{stack="{stack.name}",tenant="search"}}',
                      "value": 3 * per_replica},
                 ]},
            ],
        }],
    }
    path = tmp_path / "test.yaml"
    path.write_text(yaml.safe_dump(test), encoding="utf-8")
    done = subprocess.run([promtool(), "test", "rules", str(path)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_harness_fails_on_a_wrong_price(tmp_path: Path) -> None:
    """promtool test rules does fail when the expected cost is off."""
    stack = with_prometheus(load_stack("aws-inference-l4"))
    manifest = rule_manifest(stack)
    assert manifest is not None
    test = {
        "rule_files": [str(write_rules(tmp_path, manifest))],
        "tests": [{
            "interval": "1m",
            "input_series": [*node("n1", "infer-l4"),
                             *pod("search", "a", "n1", "Running", {"main": 1})],
            "promql_expr_test": [{"expr": f"sum({showback.TENANT_COST})", "eval_time": "5m",
                                  "exp_samples": [{"labels": "{}", "value": 1.0}]}],
        }],
    }
    path = tmp_path / "test.yaml"
    path.write_text(yaml.safe_dump(test), encoding="utf-8")
    done = subprocess.run([promtool(), "test", "rules", str(path)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode != 0


def test_no_usd_rule_from_a_price_in_another_currency(monkeypatch: pytest.MonkeyPatch) -> None:
    """The series are USD (``..._usd_per_hour``): a pool priced in CNY (a refreshed Volcengine
    overlay row) gets no rule, rather than a CNY figure under a USD name."""
    stack = with_prometheus(load_stack("aws-inference-l4"))
    assert rule_manifest(stack) is not None
    real = catalog.instance

    def in_cny(cloud: str, name: str) -> catalog.InstanceType | None:
        entry = real(cloud, name)
        if entry is None:
            return None
        return dataclasses.replace(entry, price=dataclasses.replace(entry.price, currency="CNY"))

    monkeypatch.setattr(catalog, "instance", in_cny)
    assert rule_manifest(stack) is None


def with_prices(stack: Stack, **prices: DeclaredPrice | None) -> Stack:
    """The stack with the given pools' declared prices replaced (None: no declared price)."""
    pools = tuple(dataclasses.replace(p, price=prices[p.name]) if p.name in prices else p
                  for p in stack.pools)  # fmt: skip
    return dataclasses.replace(stack, pools=pools)


def test_no_rule_without_the_prometheus_operator_or_a_price() -> None:
    """Unstated Prometheus: the kind may not exist. Existing nodes without a declared price: no
    price, no rule."""
    bare = load_stack("aws-inference-l4")
    bare = dataclasses.replace(bare, cluster=dataclasses.replace(
        bare.cluster, monitoring=dataclasses.replace(bare.cluster.monitoring, prometheus=None)))
    assert rule_manifest(bare) is None
    onprem = load_stack("onprem-hami")
    unpriced = with_prices(onprem, **{p.name: None for p in onprem.pools})
    assert rule_manifest(with_prometheus(unpriced)) is None
    assert showback.unit_price(unpriced, unpriced.pools[0], 4) is None


def test_existing_nodes_are_charged_at_their_declared_usd_rate(tmp_path: Path) -> None:
    """The on-prem example's pools declare a chargeback rate per GPU-hour: a running pod's
    HAMi vGPUs (4 per A100 on dgx) are charged at a quarter of it each, on the pool's named
    nodes (kube_node_info), and the series names the declared source instead of a catalog date.
    """
    data = yaml.safe_load((EXAMPLES / "onprem-hami.yaml").read_text(encoding="utf-8"))
    (dgx,) = [p for p in data["pools"] if p["name"] == "dgx"]
    stack = load_stack("onprem-hami")
    manifest = rule_manifest(stack)
    assert manifest is not None
    per_vgpu = dgx["price"]["perGpuHour"] / dgx["sharing"]["fractional"]["slotsPerGpu"]
    info = series("kube_node_info", {"node": dgx["nodeNames"][0]}, "1x10")
    labels = {"stack": stack.name, "tenant": "research", "pool": "dgx",
              "resource": "nvidia.com/gpu", "price_source": dgx["price"]["source"]}
    body = ",".join(f'{k}="{v}"' for k, v in labels.items())
    test = {
        "rule_files": [str(write_rules(tmp_path, manifest))],
        "evaluation_interval": "1m",
        "tests": [{
            "interval": "1m",
            "input_series": [*info, *pod("research", "a", dgx["nodeNames"][0], "Running",
                                         {"main": 3})],
            "promql_expr_test": [
                {"expr": f'{showback.POOL_COST}{{tenant="research"}}', "eval_time": "5m",
                 "exp_samples": [{"labels": f"{showback.POOL_COST}{{{body}}}",
                                  "value": 3 * per_vgpu}]},
            ],
        }],
    }
    path = tmp_path / "test.yaml"
    path.write_text(yaml.safe_dump(test), encoding="utf-8")
    done = subprocess.run([promtool(), "test", "rules", str(path)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_declared_price_beats_the_catalog_and_spot_pools_use_its_spot_figure() -> None:
    """A negotiated rate replaces the catalog's list price in the rule; a spot pool is charged
    at the declared spotPerGpuHour (its on-demand nodes too, as with catalog prices)."""
    stack = with_prometheus(load_stack("aws-inference-l4"))
    negotiated = DeclaredPrice(0.5, None, "USD", "contract 2026-04")
    spot = DeclaredPrice(0.9, 0.3, "USD", "contract 2026-04")
    priced = with_prices(stack, **{"infer-l4": negotiated, "batch-l4-spot": spot})
    pools = {p.name: p for p in priced.pools}
    assert showback.unit_price(priced, pools["infer-l4"], 4) == pytest.approx(0.5 / 4)
    assert showback.unit_price(priced, pools["batch-l4-spot"], 1) == pytest.approx(0.3)
    rules = {r["labels"]["pool"]: r for r in showback.rules(priced) if "labels" in r}
    assert rules["infer-l4"]["expr"].endswith(f") * {0.5 / 4!r}")
    assert rules["infer-l4"]["labels"]["price_source"] == "contract 2026-04"
    assert "prices_as_of" not in rules["infer-l4"]["labels"]
    assert "price_source" not in rules["infer-l40s-mps"]["labels"]  # catalog-priced still


def test_no_usd_rule_from_a_declared_price_in_another_currency() -> None:
    """A chargeback rate in EUR is not a USD figure: that pool gets no rule, nothing converts."""
    stack = load_stack("onprem-hami")
    euro = with_prices(stack, dgx=DeclaredPrice(1.75, None, "EUR", "internal rate FY27"))
    pools = {r["labels"]["pool"] for r in showback.rules(euro) if "labels" in r}
    assert pools == {"interactive"}
    assert showback.unit_price(euro, euro.pools[0], 4) is None
