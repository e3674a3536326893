"""KEDA for the services: gpupool/sharing/keda.py, service_rules.py and service_snippets.py.

Every ScaledObject gpupool renders, for the services fixture and for stacks generated over every
request shape, trigger and behaviour, passes KEDA's own CRD schema at the pinned v2.20.2
(``../shared/reference/upstream/keda/keda.sh_scaledobjects.yaml``, converted by
``tests/manifests.py``; skipped without the folder) and gpupool's schema of it
(``schemas/k8s/keda-scaledobject.schema.json``, held to the CRD by its facts table), with the
CRD's CEL rule. The recording rules and every trigger query pass ``promtool check rules``, and
``promtool test rules`` computes the recorded series from Triton and DCGM series written as those
exporters write them.
"""

from __future__ import annotations

import copy
import functools
import random
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from gpupool import assemble
from gpupool.graph import Resource
from gpupool.model import Stack
from gpupool.sharing import keda, service_rules, workload_snippets
from gpupool.spec.promql import parse
from gpupool.spec.validate import validate_text
from tests import promtool
from tests.manifests import crd_version_schema, validate_manifests, validate_values
from tests.paths import FIXTURES, shared_upstream
from tests.stacks import load_stack

CLEAN = FIXTURES / "valid" / "services-clean.yaml"


def _resources(stack: Stack) -> list[Resource]:
    return list(assemble.build(stack).resources)


def _scaled_objects(stack: Stack) -> list[dict[str, Any]]:
    return [r.manifest for r in _resources(stack)
            if r.manifest is not None and r.manifest["kind"] == "ScaledObject"]


@functools.cache
def _crd_validator() -> jsonschema.protocols.Validator:
    doc = yaml.safe_load(shared_upstream("keda/keda.sh_scaledobjects.yaml").read_text("utf-8"))
    return jsonschema.Draft202012Validator(crd_version_schema(doc, "v1alpha1"))


def _crd_errors(obj: dict[str, Any]) -> list[str]:
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in _crd_validator().iter_errors(obj)]
    spec = obj["spec"]
    # the CRD's CEL rule on spec (x-kubernetes-validations)
    if spec.get("minReplicaCount", 0) > spec.get("maxReplicaCount", 100):
        errors.append("minReplicaCount must be less than or equal to maxReplicaCount")
    return errors


# ------------------------------------------------------------------ generated service stacks

_POOL_SHAPES = {  # pool of services-clean.yaml -> request shapes it serves
    "whole": [{"gpus": 1}, {"gpus": 2}, {"gpus": 4, "cpu": 8, "memoryGiB": 64}],
    "mig": [{"mig": "3g.40gb"}],
    "frac": [{"fraction": 0.25}, {"fraction": 0.5}, {"gpuMemoryGiB": 4}, {"gpus": 1}],
}
_TENANT_OF = {"whole": "serve", "mig": "notebooks", "frac": "small"}


def _trigger(rng: random.Random) -> dict[str, Any]:
    metric = rng.choice(["requests-per-second", "queue-time-ratio", "pending-requests",
                         "gpu-utilization", "gpu-memory"])
    out: dict[str, Any] = {"metric": metric, "target": rng.choice([0.5, 1, 7, 80, 99.5])}
    if metric in ("requests-per-second", "pending-requests"):
        out["query"] = rng.choice([
            'sum(rate(http_requests_total{job="x"}[1m]))', "max(vllm:num_requests_waiting)",
            'avg(queue_depth{q="a\\"b"}) or vector(0)', "scalar(sum(x)) * 2",
        ])
    return out


def _service(rng: random.Random, index: int) -> dict[str, Any]:
    pool = rng.choice(sorted(_POOL_SHAPES))
    low = rng.choice([1, 2])
    out: dict[str, Any] = {
        "name": f"gen-{index}", "tenant": _TENANT_OF[pool], "pool": pool,
        **rng.choice(_POOL_SHAPES[pool]),
        "replicas": {"min": low, "max": low + rng.choice([0, 1, 2])},
        "scaleOn": [_trigger(rng) for _ in range(rng.randint(1, 3))],
    }
    if rng.random() < 0.5:
        out["scaleUp"] = {"stabilizationSeconds": rng.choice([0, 60]), "policies": [
            {"type": rng.choice(["Pods", "Percent"]), "value": rng.randint(1, 100),
             "periodSeconds": rng.choice([15, 60])}]}
    if rng.random() < 0.5:
        out["scaleDown"] = {"stabilizationSeconds": rng.choice([0, 300, 3600])}
    if rng.random() < 0.3:
        out["priority"] = rng.choice(["critical", "normal", "preemptible"])
        out["deployment"] = f"dep.{index}"
    return out


def generated_stacks(n: int = 25, seed: int = 38) -> list[Stack]:
    """Valid stacks of one to three generated services each (invalid draws are skipped)."""
    rng = random.Random(seed)
    base = yaml.safe_load(CLEAN.read_text(encoding="utf-8"))
    for t in base["tenants"]:
        t["limit"] = {"gpus": 64}
    out: list[Stack] = []
    while len(out) < n:
        data = copy.deepcopy(base)
        data["services"] = [_service(rng, i) for i in range(rng.randint(1, 3))]
        result = validate_text(yaml.safe_dump(data, sort_keys=False), "gen.yaml")
        if result.stack is not None:
            out.append(result.stack)
    return out


GENERATED = generated_stacks()


def test_generation_reaches_every_shape_and_trigger() -> None:
    services = [s for stack in GENERATED for s in stack.services]
    assert {m for s in services for m in (t.metric for t in s.triggers)} == {
        "requests-per-second", "queue-time-ratio", "pending-requests", "gpu-utilization",
        "gpu-memory"}
    assert {sh for s in services for sh in s.request.shapes} == {"gpus", "fraction", "mig"}


@pytest.mark.cloud_sdks  # kubernetes-validate
@pytest.mark.parametrize("index", range(len(GENERATED)))
def test_every_rendered_manifest_is_valid(index: int) -> None:
    manifests = [r.manifest for r in _resources(GENERATED[index]) if r.manifest is not None]
    assert validate_manifests(manifests) == []


@pytest.mark.parametrize("index", range(len(GENERATED)))
def test_scaled_objects_pass_kedas_own_crd(index: int) -> None:
    stack = GENERATED[index]
    objects = _scaled_objects(stack)
    assert len(objects) == len(stack.services)
    assert [e for obj in objects for e in _crd_errors(obj)] == []


def test_the_crd_check_refuses_what_the_api_server_would() -> None:
    [obj, *_] = _scaled_objects(load_stack(CLEAN))
    bad = copy.deepcopy(obj)
    bad["spec"]["triggers"][0]["metadata"]["threshold"] = 1  # metadata is a map of strings
    bad["spec"]["minReplicaCount"] = 200
    errors = _crd_errors(bad)
    assert any("threshold" in e or "'string'" in e for e in errors)
    assert any("minReplicaCount" in e for e in errors)


# ------------------------------------------------------------------ what one ScaledObject says


def test_a_scaled_object_says_what_the_stack_says() -> None:
    stack = load_stack(CLEAN)
    by_name = {o["metadata"]["name"]: o for o in _scaled_objects(stack)}
    ranker = by_name["ranker"]["spec"]
    assert by_name["ranker"]["metadata"]["namespace"] == "serve"
    assert ranker["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment",
                                        "name": "ranker-triton"}
    assert (ranker["minReplicaCount"], ranker["maxReplicaCount"]) == (2, 12)
    behavior = ranker["advanced"]["horizontalPodAutoscalerConfig"]["behavior"]
    assert behavior["scaleUp"]["policies"] == [{"type": "Pods", "value": 2, "periodSeconds": 30}]
    # scaleDown states only its window: the HPA's default policy (kubernetes
    # pkg/apis/autoscaling/v2/defaults.go) is written out beside it
    assert behavior["scaleDown"] == {"stabilizationWindowSeconds": 600, "selectPolicy": "Max",
                                     "policies": [{"type": "Percent", "value": 100,
                                                   "periodSeconds": 15}]}
    urls = {t["metadata"]["serverAddress"] for t in ranker["triggers"]}
    assert urls == {stack.cluster.monitoring.prometheus.url}
    assert [t["metadata"]["threshold"] for t in ranker["triggers"]] == ["1", "50", "85", "80"]
    embed = by_name["batch-embed"]["spec"]
    assert (embed["minReplicaCount"], embed["cooldownPeriod"], embed["pollingInterval"]) == (
        0, 900, 30)
    # the HPA's scale-up default: 4 Pods or 100% per 15 s, the larger
    assert embed["advanced"]["horizontalPodAutoscalerConfig"]["behavior"]["scaleUp"][
        "policies"] == [{"type": "Pods", "value": 4, "periodSeconds": 15},
                        {"type": "Percent", "value": 100, "periodSeconds": 15}]


def test_keda_is_installed_unless_the_cluster_runs_it() -> None:
    text = CLEAN.read_text(encoding="utf-8")
    stack = load_stack(CLEAN)
    [release] = [r for r in _resources(stack) if r.address == keda.RELEASE_ADDRESS]
    assert validate_values("keda", release.facts["values"]) == []
    assert release.facts["version"] == "2.20.2"
    assert all(keda.RELEASE_ADDRESS in o.depends_on for o in _resources(stack)
               if o.manifest and o.manifest["kind"] == "ScaledObject")
    own = text.replace("  scheduler: kai\n",
                       "  scheduler: kai\n  autoscaling: {keda: {install: false}}\n")
    result = validate_text(own, "own.yaml")
    assert result.stack is not None
    addresses = {r.address for r in _resources(result.stack)}
    assert keda.RELEASE_ADDRESS not in addresses
    assert len(_scaled_objects(result.stack)) == len(stack.services)


def test_no_service_no_keda() -> None:
    stack = load_stack("aws-inference-l4")
    kinds = {r.address for r in _resources(stack)}
    assert not any(a.startswith(("helm.keda", "k8s.scaledobject")) for a in kinds)
    assert not any(k.startswith("snippets/service.") for k in workload_snippets(stack))


def test_a_service_priority_gets_its_priority_class() -> None:
    # ranker at high, no tenant at it: admissible where the tenants' policy only warns
    text = CLEAN.read_text(encoding="utf-8").replace(
        "  scheduler: kai\n", "  scheduler: kai\n  admission: {action: warn}\n").replace(
        "    memoryGiB: 16\n", "    memoryGiB: 16\n    priority: high\n", 1)
    result = validate_text(text, "stack.yaml")
    assert result.stack is not None, [d.summary for d in result.diagnostics]
    stack = result.stack
    classes = {r.manifest["metadata"]["name"] for r in _resources(stack)
               if r.manifest and r.manifest["kind"] == "PriorityClass"}
    assert "gpupool-high" in classes
    assert "priorityClassName: gpupool-high" in workload_snippets(stack)[
        "snippets/service.ranker.yaml"]


# ------------------------------------------------------------------ snippets


def test_snippets_ask_for_the_request_in_the_pools_terms() -> None:
    snippets = {k: yaml.safe_load(v) for k, v in workload_snippets(load_stack(CLEAN)).items()
                if k.startswith("snippets/service.")}
    assert sorted(snippets) == sorted(f"snippets/service.{n}.yaml" for n in
                                ("batch-embed", "notebook-llm", "ranker", "tiny",
                                 "tiny-by-memory"))
    ranker = snippets["snippets/service.ranker.yaml"]["spec"]
    assert ranker["containers"][0]["resources"] == {
        "requests": {"cpu": "4000m", "memory": "16384Mi"}, "limits": {"nvidia.com/gpu": 1}}
    assert ranker["nodeSelector"] == {"gpupool.io/pool": "whole"}
    terms = ranker["affinity"]["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"]
    assert [t["podAffinityTerm"]["topologyKey"] for t in terms] == [
        "kubernetes.io/hostname", "topology.kubernetes.io/zone"]
    tiny = snippets["snippets/service.tiny.yaml"]
    # KAI fractional: an annotation, no GPU resource (KAI v0.17.0 gpu-fraction)
    assert tiny["metadata"]["annotations"] == {"gpu-fraction": "0.25"}
    assert "resources" not in tiny["spec"]["containers"][0]
    by_memory = snippets["snippets/service.tiny-by-memory.yaml"]
    assert by_memory["metadata"]["annotations"] == {"gpu-memory": "4096"}  # MiB
    # MIG strategy mixed (the layout has three profiles): the profile's own resource
    llm = snippets["snippets/service.notebook-llm.yaml"]["spec"]["containers"][0]
    assert llm["resources"] == {"limits": {"nvidia.com/mig-3g.40gb": 1}}
    assert "&id" not in workload_snippets(load_stack(CLEAN))["snippets/service.ranker.yaml"]


# ------------------------------------------------------------------ recording rules, promtool


def _rule_groups(stacks: list[Stack]) -> list[dict[str, Any]]:
    groups = []
    for i, stack in enumerate(stacks):
        rules = [{"record": f"gpupool:trigger_{n}", "expr": t["metadata"]["query"]}
                 for n, o in enumerate(_scaled_objects(stack)) for t in o["spec"]["triggers"]]
        groups.append({"name": f"triggers{i}", "rules": rules})
        recorded = service_rules.rules(stack)
        if recorded:
            groups.append({"name": f"records{i}", "rules": recorded})
    return groups


def test_rules_and_trigger_queries_pass_promtool_and_return_one_series(tmp_path: Path) -> None:
    stacks = [load_stack(CLEAN), *GENERATED]
    groups = _rule_groups(stacks)
    assert promtool.check_rules(groups, tmp_path) == ""
    queries = [r["expr"] for g in groups if g["name"].startswith("triggers") for r in g["rules"]]
    assert queries and all(parse(q).single for q in queries)


def test_promtool_computes_the_recordings_from_exporter_series(tmp_path: Path) -> None:
    stack = load_stack(CLEAN)
    rules = service_rules.rules(stack)
    pod = 'namespace="serve", pod="ranker-triton-5d9c7-x2x4q"'
    # DCGM exporter series as its ServiceMonitor scrapes them: its own pod in pod/namespace,
    # the workload's in exported_pod/exported_namespace (NVIDIA/dcgm-exporter #340)
    dcgm = ('gpu="0", namespace="gpu-operator", pod="nvidia-dcgm-exporter-abcde", '
            'exported_namespace="serve", exported_pod="ranker-triton-5d9c7-x2x4q"')
    series = [
        {"series": f"nv_inference_queue_duration_us{{{pod}, model=\"r\"}}",
         "values": "0+3000000x10"},
        {"series": f"nv_inference_compute_infer_duration_us{{{pod}, model=\"r\"}}",
         "values": "0+1500000x10"},
        {"series": f"DCGM_FI_DEV_GPU_UTIL{{{dcgm}}}", "values": "70x10"},
        {"series": f"DCGM_FI_DEV_FB_USED{{{dcgm}}}", "values": "18000x10"},
        {"series": f"DCGM_FI_DEV_FB_FREE{{{dcgm}}}", "values": "6000x10"},
    ]
    labels = {"gpupool_stack": stack.name, "namespace": "serve",
              "pod": "ranker-triton-5d9c7-x2x4q"}
    tests = [{"interval": "1m", "input_series": series, "promql_expr_test": [
        {"expr": service_rules.TRITON_RATIO, "eval_time": "5m",
         "exp_samples": [{"labels": _labels(service_rules.TRITON_RATIO, labels), "value": 2}]},
        {"expr": service_rules.GPU_UTIL, "eval_time": "5m",
         "exp_samples": [{"labels": _labels(service_rules.GPU_UTIL, labels), "value": 70}]},
        {"expr": service_rules.GPU_MEMORY_USED, "eval_time": "5m",
         "exp_samples": [{"labels": _labels(service_rules.GPU_MEMORY_USED, labels),
                          "value": 75}]},
    ]}]
    groups = [{"name": "services", "interval": "1m", "rules": rules}]
    assert promtool.unit_test(groups, tests, tmp_path) == ""


def _labels(name: str, labels: dict[str, str]) -> str:
    return name + "{" + ", ".join(f'{k}="{v}"' for k, v in sorted(labels.items())) + "}"


def test_a_trigger_query_selects_only_the_services_pods() -> None:
    stack = load_stack(CLEAN)
    [ranker] = [s for s in stack.services if s.name == "ranker"]
    pattern = re.compile(service_rules.pods(ranker))
    assert pattern.fullmatch("ranker-triton-5d9c7-x2x4q")
    assert not pattern.fullmatch("ranker-triton-canary-5d9c7-x2x4q-extra")
    assert not pattern.fullmatch("other-ranker-triton-5d9c7-x2x4q")
