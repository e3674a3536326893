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
from gpupool.facts import names
from gpupool.model import DeclaredPrice, Stack
from gpupool.monitoring_model import Prometheus
from gpupool.sharing import promql, showback
from gpupool.sharing.objects import chart
from tests.manifests import validate_manifest
from tests.paths import EXAMPLES, PACKAGE
from tests.promtool import require as promtool
from tests.stacks import load_stack, load_stack_text, stack_file
from tests.upstream_facts import kai

CATALOG = PACKAGE / "catalog" / "data"
REPLICAS = ("ksm-0", "ksm-1")  # two kube-state-metrics replicas: every series twice


def with_prometheus(stack: Stack) -> Stack:
    """The stack, saying the Prometheus Operator runs (as kube-prometheus-stack)."""
    stated = stack.cluster.monitoring.prometheus
    prom = Prometheus(labels={"release": "kube-prometheus-stack"}, service_monitor=True,
                      kube_state_metrics_pool_label=True,
                      url=None if stated is None else stated.url)  # services' KEDA reads it
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


def node(name: str, pool: str, capacity: str | None = None) -> list[dict[str, str]]:
    """A node's kube_node_labels, with its capacity label where kube-state-metrics exports it."""
    labels = {"node": name, "label_gpupool_io_pool": pool}
    if capacity is not None:
        labels["label_gpupool_io_capacity"] = capacity
    return series("kube_node_labels", labels, "1x20")


def phased_pod(ns: str, name: str, node: str, gpus: int,
               phases: dict[str, str]) -> list[dict[str, str]]:
    """A pod of one container whose phase series take the given values (the others stay 0)."""
    out = series("kube_pod_container_resource_requests",
                 {"namespace": ns, "pod": name, "container": "main", "node": node,
                  "resource": "nvidia_com_gpu", "unit": "integer", "uid": f"u-{name}"},
                 f"{gpus}x20")
    for p in ("Pending", "Running", "Succeeded"):
        out += series("kube_pod_status_phase",
                      {"namespace": ns, "pod": name, "phase": p, "uid": f"u-{name}"},
                      phases.get(p, "0x20"))
    return out


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
    """A negotiated rate replaces the catalog's list price in the rule; a spot pool's spot nodes
    are charged at the declared spotPerGpuHour, its on-demand nodes at perGpuHour."""
    stack = with_prometheus(load_stack("aws-inference-l4"))
    negotiated = DeclaredPrice(0.5, None, "USD", "contract 2026-04")
    spot = DeclaredPrice(0.9, 0.3, "USD", "contract 2026-04")
    priced = with_prices(stack, **{"infer-l4": negotiated, "batch-l4-spot": spot})
    pools = {p.name: p for p in priced.pools}
    assert showback.unit_price(priced, pools["infer-l4"], 4) == pytest.approx(0.5 / 4)
    assert showback.unit_price(priced, pools["batch-l4-spot"], 1) == pytest.approx(0.3)
    rules = {r["labels"]["pool"]: r for r in showback.rules(priced) if "labels" in r}
    assert rules["infer-l4"]["expr"].endswith(f") * {0.5 / 4!r}")
    split = rules["batch-l4-spot"]["expr"]  # two replicas per GPU on batch-l4-spot
    assert f'label_gpupool_io_capacity="on-demand"}}) * {0.9 / 2!r})' in split
    assert f'label_gpupool_io_pool="batch-l4-spot"}}) * {0.3 / 2!r})' in split
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


# --------------------------------------------------------------------------- spot pools

SPLIT_POOL = "batch-l4-spot"  # aws-inference-l4: spot, onDemandBase 2 and fallback: two groups


def _split_pool_units() -> tuple[float, float, dict[str, str]]:
    """The on-demand and spot price of one unit of batch-l4-spot, and its series' labels."""
    data = yaml.safe_load((EXAMPLES / "aws-inference-l4.yaml").read_text(encoding="utf-8"))
    (pool,) = [p for p in data["pools"] if p["name"] == SPLIT_POOL]
    rows = json.loads((CATALOG / "instances-aws.json").read_text(encoding="utf-8"))["instances"]
    (row,) = [r for r in rows if r["name"] == pool["instanceType"]]
    units = row["gpu_count"] * pool["sharing"]["replicas"]  # time-slicing replicas per node
    labels = {"stack": "inference-prod", "tenant": "offline-scoring", "pool": SPLIT_POOL,
              "resource": "nvidia.com/gpu", "prices_as_of": row["price"]["as_of"]}
    return row["price"]["on_demand_hourly"] / units, row["price"]["spot_hourly"] / units, labels


def _promtool_test(tmp_path: Path, manifest: dict[str, Any], inputs: list[dict[str, str]],
                   checks: list[dict[str, Any]]) -> subprocess.CompletedProcess[str]:
    test = {"rule_files": [str(write_rules(tmp_path, manifest))], "evaluation_interval": "1m",
            "tests": [{"interval": "1m", "input_series": inputs, "promql_expr_test": checks}]}
    path = tmp_path / "test.yaml"
    path.write_text(yaml.safe_dump(test), encoding="utf-8")
    return subprocess.run([promtool(), "test", "rules", str(path)], capture_output=True,
                          text=True, timeout=60)


# Pod a holds one unit on the on-demand node for the first ten minutes, then ends; pod b waits
# that long and then holds one unit on the spot node: at minute 5 only a runs, at 15 only b.
FIRST, SECOND = "1x9 0x10", "0x9 1x10"


def _split_pods() -> list[dict[str, str]]:
    return [
        *phased_pod("scoring", "a", "n-od", 1, {"Running": FIRST, "Succeeded": SECOND}),
        *phased_pod("scoring", "b", "n-spot", 1, {"Pending": FIRST, "Running": SECOND}),
    ]


def test_a_split_spot_pool_charges_each_node_at_its_own_capacity_type(tmp_path: Path) -> None:
    """batch-l4-spot's on-demand base node (labelled gpupool.io/capacity: on-demand by its node
    group) costs the on-demand price, its spot node the spot price, each series counted once
    although both kube-state-metrics replicas report it."""
    stack = with_prometheus(load_stack("aws-inference-l4"))
    manifest = rule_manifest(stack)
    assert manifest is not None
    od, spot, labels = _split_pool_units()
    assert od > spot > 0
    body = ",".join(f'{k}="{v}"' for k, v in labels.items())
    inputs = [*node("n-od", SPLIT_POOL, "on-demand"), *node("n-spot", SPLIT_POOL, "spot"),
              *_split_pods()]
    cost = f'{showback.POOL_COST}{{pool="{SPLIT_POOL}"}}'
    checks = [
        {"expr": cost, "eval_time": "5m",
         "exp_samples": [{"labels": f"{showback.POOL_COST}{{{body}}}", "value": od}]},
        {"expr": cost, "eval_time": "15m",
         "exp_samples": [{"labels": f"{showback.POOL_COST}{{{body}}}", "value": spot}]},
    ]
    done = _promtool_test(tmp_path, manifest, inputs, checks)
    assert done.returncode == 0, done.stdout + done.stderr
    # the same inputs priced the old way (every node at spot) fail the first check
    checks[0]["exp_samples"][0]["value"] = spot
    assert _promtool_test(tmp_path, manifest, inputs, checks).returncode != 0


def test_without_the_capacity_label_every_node_of_a_split_pool_is_charged_at_spot(
    tmp_path: Path,
) -> None:
    """kube-state-metrics allowlisting gpupool.io/pool only: the on-demand node is found by its
    pool but not its capacity, and is priced at spot, as the rule's needs say."""
    stack = with_prometheus(load_stack("aws-inference-l4"))
    manifest = rule_manifest(stack)
    assert manifest is not None
    _, spot, labels = _split_pool_units()
    body = ",".join(f'{k}="{v}"' for k, v in labels.items())
    inputs = [*node("n-od", SPLIT_POOL), *node("n-spot", SPLIT_POOL), *_split_pods()]
    cost = f'{showback.POOL_COST}{{pool="{SPLIT_POOL}"}}'
    checks = [{"expr": cost, "eval_time": t,
               "exp_samples": [{"labels": f"{showback.POOL_COST}{{{body}}}", "value": spot}]}
              for t in ("5m", "15m")]
    done = _promtool_test(tmp_path, manifest, inputs, checks)
    assert done.returncode == 0, done.stdout + done.stderr
    (need,) = showback.needs(stack, showback.rules(stack))
    assert need.endswith(f"without gpupool.io/capacity they price the on-demand nodes of "
                         f"{SPLIT_POOL} at spot")
    assert "`--metric-labels-allowlist=nodes=[gpupool.io/pool,gpupool.io/capacity]`" in need


def test_only_split_pools_are_priced_per_node() -> None:
    """An on-demand pool and a spot pool of one node group keep one price; a VKE spot pool that
    mixes both kinds in one node pool is priced at spot throughout (no label tells its nodes
    apart). Pools of named nodes need no allowlisted label."""
    stack = load_stack("aws-inference-l4")
    rules = {r["labels"]["pool"]: r["expr"] for r in showback.rules(stack) if "labels" in r}
    assert "label_gpupool_io_capacity" in rules[SPLIT_POOL]
    assert "label_gpupool_io_capacity" not in rules["infer-l4"]
    assert showback.split(stack, stack.pool(SPLIT_POOL))  # type: ignore[arg-type]
    data = yaml.safe_load(stack_file("checks-spot-volcengine").read_text(encoding="utf-8"))
    (batch,) = [p for p in data["pools"] if p["name"] == "batch"]
    batch["price"] = {"perGpuHour": 0.9, "spotPerGpuHour": 0.3, "currency": "USD",
                      "source": "contract 2026-04"}
    data["cluster"] = {"monitoring": {"prometheus": {"labels": {}}}}
    data["tenants"] = [{"name": "etl", "pools": ["batch"]}]
    priced = load_stack_text(yaml.safe_dump(data))
    pools = {p.name: p for p in priced.pools}
    assert not showback.split(priced, pools["batch"])
    (rule,) = [r for r in showback.rules(priced) if r.get("labels", {}).get("pool") == "batch"]
    assert "label_gpupool_io_capacity" not in rule["expr"]
    assert rule["expr"].endswith(f") * {0.3!r}")
    assert showback.needs(load_stack("onprem-hami"), showback.rules(load_stack("onprem-hami"))) \
        == []


KAI_POOL = "t4-spot"  # azure-kai-fair: KAI fractional, 2 slots per GPU, spot and on-demand


def kai_pod(ns: str, name: str, node: str, phase: str,
            annotations: dict[str, str]) -> list[dict[str, str]]:
    """A KAI fractional pod: no GPU request, its annotations in kube_pod_annotations (labels as
    kube-state-metrics internal/store/pod.go writes them: annotation_ + the sanitised key) and
    its node in kube_pod_info (docs/metrics/workload/pod-metrics.md)."""
    uid = f"u-{name}"
    out = series("kube_pod_info",
                 {"namespace": ns, "pod": name, "uid": uid, "node": node, "host_ip": "10.0.0.4",
                  "pod_ip": "10.244.0.9", "created_by_kind": "ReplicaSet",
                  "created_by_name": f"{name}-rs", "priority_class": "", "host_network": "false"},
                 "1x20")
    out += series("kube_pod_annotations", {"namespace": ns, "pod": name, "uid": uid,
                                           **annotations}, "1x20")
    out += series("kube_pod_container_resource_requests",
                  {"namespace": ns, "pod": name, "container": "main", "node": node,
                   "resource": "cpu", "unit": "core", "uid": uid}, "1x20")
    for p in ("Pending", "Running", "Succeeded"):
        out += series("kube_pod_status_phase", {"namespace": ns, "pod": name, "phase": p,
                                                "uid": uid}, f"{int(p == phase)}x20")
    return out


def _kai_gpu_prices() -> tuple[float, float, str]:
    """One T4's on-demand and spot price an hour in azure-kai-fair's t4-spot, and its date."""
    data = yaml.safe_load((EXAMPLES / "azure-kai-fair.yaml").read_text(encoding="utf-8"))
    (pool,) = [p for p in data["pools"] if p["name"] == KAI_POOL]
    rows = json.loads((CATALOG / "instances-azure.json").read_text(encoding="utf-8"))["instances"]
    (row,) = [r for r in rows if r["name"] == pool["instanceType"]]
    n = row["gpu_count"]
    return row["price"]["on_demand_hourly"] / n, row["price"]["spot_hourly"] / n, \
        row["price"]["as_of"]


def _kai_inputs(half: dict[str, str]) -> list[dict[str, str]]:
    """t4-spot's nodes and team-apps' pods, each with ``half``'s kube_pod_annotations labels."""
    return [
        *node("n-od", KAI_POOL, "on-demand"), *node("n-spot", KAI_POOL, "spot"),
        *node("n-a100", "a100"),
        *kai_pod("team-apps", "f1", "n-od", "Running", half),
        *kai_pod("team-apps", "f2", "n-spot", "Running", half),
        *kai_pod("team-apps", "f3", "", "Pending", half),  # pending: no node, not charged
        *kai_pod("team-apps", "f4", "n-spot", "Succeeded", half),  # done: not charged
        *kai_pod("team-nlp", "f5", "n-spot", "Running", half),  # another tenant's namespace
    ]


def test_a_running_kai_fractional_pod_costs_its_share_of_a_gpu(tmp_path: Path) -> None:
    """team-apps' pods ask KAI for half a T4 by annotation (KAI v0.17.0
    pkg/common/constants/constants.go GpuFraction) and request no GPU resource: each running one
    costs 0.5 x the pool's per-GPU price at its node's capacity type, once, although both
    kube-state-metrics replicas report it."""
    stack = with_prometheus(load_stack("azure-kai-fair"))
    manifest = rule_manifest(stack)
    assert manifest is not None
    od, spot, as_of = _kai_gpu_prices()
    assert od > spot > 0
    labels = {"stack": stack.name, "tenant": "team-apps", "pool": KAI_POOL,
              "resource": "gpu-fraction", "prices_as_of": as_of}
    body = ",".join(f'{k}="{v}"' for k, v in labels.items())
    cost = f'{showback.POOL_COST}{{pool="{KAI_POOL}"}}'
    tenant = f'{showback.TENANT_COST}{{tenant="team-apps"}}'
    expected = 0.5 * od + 0.5 * spot
    checks = [
        {"expr": cost, "eval_time": "5m",
         "exp_samples": [{"labels": f"{showback.POOL_COST}{{{body}}}", "value": expected}]},
        {"expr": tenant, "eval_time": "5m",
         "exp_samples": [{"labels": f'{showback.TENANT_COST}{{stack="{stack.name}",'
                                    f'tenant="team-apps"}}', "value": expected}]},
    ]
    inputs = _kai_inputs({"annotation_gpu_fraction": "0.5"})
    done = _promtool_test(tmp_path, manifest, inputs, checks)
    assert done.returncode == 0, done.stdout + done.stderr
    # the harness: the old rules (no cost for these pods) fail the same check
    checks[0]["exp_samples"] = []
    assert _promtool_test(tmp_path, manifest, inputs, checks).returncode != 0


def test_without_the_annotations_allowlist_kai_fractional_pods_cost_nothing(
    tmp_path: Path,
) -> None:
    """kube-state-metrics without --metric-annotations-allowlist (docs/developer/
    cli-arguments.md) exports kube_pod_annotations with no annotation label: the rule records
    nothing for the pods (as before), and its needs say what to allowlist. A value other than
    the one gpupool renders is not read (PromQL cannot parse a label as a number)."""
    stack = with_prometheus(load_stack("azure-kai-fair"))
    manifest = rule_manifest(stack)
    assert manifest is not None
    cost = f'{showback.POOL_COST}{{pool="{KAI_POOL}"}}'
    checks = [{"expr": cost, "eval_time": "5m", "exp_samples": []}]
    for seen in ({}, {"annotation_gpu_fraction": "0.25"}):
        done = _promtool_test(tmp_path, manifest, _kai_inputs(seen), checks)
        assert done.returncode == 0, done.stdout + done.stderr
    need = showback.needs(stack, showback.rules(stack))[-1]
    assert need == (
        "kube-state-metrics started with "
        "`--metric-annotations-allowlist=pods=[gpu-fraction,gpu-memory]` (kube-prometheus-stack: "
        "`kube-state-metrics.metricAnnotationsAllowList`): without it the showback rules of "
        "t4-spot record nothing for KAI's fractional pods, which request no GPU resource"
    )


def test_the_annotation_names_are_kais() -> None:
    """KAI v0.17.0 pkg/common/constants/constants.go (its GpuFraction and GpuMemory, kept in
    tests/upstream_facts/kai.py) names the annotations the snippets render and the rules read;
    kube_pod_annotations names them annotation_ + the key with every character outside
    [a-zA-Z0-9_] made _ (kube-state-metrics internal/store/pod.go)."""
    assert chart("kai-scheduler").version == kai.VERSION
    assert (kai.GPU_FRACTION, kai.GPU_MEMORY) == (names.KAI_GPU_FRACTION, names.KAI_GPU_MEMORY)
    assert names.KSM_ANNOTATIONS_ALLOWLIST == (
        "--metric-annotations-allowlist=pods=[gpu-fraction,gpu-memory]")
    assert promql.ksm_pod_annotation("gpu-fraction") == "annotation_gpu_fraction"
    assert promql.ksm_pod_annotation("a.io/gpu-memory") == "annotation_a_io_gpu_memory"


def test_kai_memory_slots_are_read_by_their_gpu_memory_annotation() -> None:
    """A pool fixing a slot's GiB gives its pods KAI's gpu-memory annotation in MiB; the rule
    matches that value and prices the slot's share of the GPU. Only KAI fractional pools get
    such a rule (HAMi's fractional pods request nvidia.com/gpu)."""
    stack = load_stack("sharing-kai-modes")
    rules = [r for r in showback.rules(stack) if "labels" in r]
    by_pool = {(r["labels"]["pool"], r["labels"]["resource"]): r["expr"] for r in rules}
    gib = stack.pool("frac-gib")
    assert gib is not None and gib.gpu is not None
    expr = by_pool[("frac-gib", "gpu-memory")]
    assert 'annotation_gpu_memory="20480"' in expr  # memoryGiB: 20 in the fixture
    assert ("frac-gib", "gpu-fraction") not in by_pool
    assert 'annotation_gpu_fraction="0.25"' in by_pool[("frac-equal", "gpu-fraction")]  # 4 slots
    assert 'annotation_gpu_fraction="0.3"' in by_pool[("frac-percent", "gpu-fraction")]
    per_gpu = showback.unit_price(stack, gib, 1)
    assert per_gpu is not None
    price = float(expr.rsplit(") * ", 1)[1])
    assert price == pytest.approx(20 / gib.gpu.memory_gib * per_gpu, rel=1e-3)
    for path in EXAMPLE_FILES:  # HAMi's fractional pods request nvidia.com/gpu: no such rule
        example = load_stack(path)
        annotated = {r["labels"]["pool"] for r in showback.rules(example)
                     if r.get("labels", {}).get("resource") in ("gpu-fraction", "gpu-memory")}
        kai = {p.name for p in example.pools if example.cluster.scheduler == "kai"
               and p.sharing.mode == "fractional" and any(p.name in t.pools
                                                          for t in example.tenants)}
        assert annotated == kai, path.stem
