"""Tenants' admission policies, their CEL evaluated by a CEL implementation (cel-python).

The API server evaluates a ValidatingAdmissionPolicy's ``matchConditions`` and ``validations``
with ``object`` bound to the pod (Kubernetes docs, "Validating Admission Policy"). Here the same
expressions run under ``celpy`` (cel-python, the CEL spec's standard environment) against pods
built from each tenant's own snippet, then changed one field at a time. The policies use only
what both environments share: Kubernetes' CEL adds libraries (``quantity()``, regex and list
extensions, ``isSorted``...) that cel-python lacks, and gpupool's expressions call none of them.
"""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpupool import assemble
from gpupool.model import Admission, Stack, Tenant
from gpupool.sharing import admission, snippets
from tests.manifests import validate_manifests
from tests.paths import EXAMPLES
from tests.stacks import load_stack

pytestmark = pytest.mark.cloud_sdks  # cel-python is a dev-only validator
celpy = pytest.importorskip("celpy")  # the lower-bounds run installs no dev tools
EXAMPLE_FILES = sorted(EXAMPLES.glob("*.yaml"))
ENV = celpy.Environment()


def evaluate(expression: str, pod: dict[str, Any]) -> bool:
    program = ENV.program(ENV.compile(expression))
    return bool(program.evaluate({"object": celpy.json_to_cel(pod)}))


def denied(stack: Stack, tenant: Tenant, pod: dict[str, Any]) -> list[str]:
    """Return the messages of the validations ``pod`` fails (empty: admitted)."""
    policy = admission.policy(stack, tenant)["spec"]
    if not all(evaluate(c["expression"], pod) for c in policy["matchConditions"]):
        return ["<not matched>"]
    return [v["message"] for v in policy["validations"] if not evaluate(v["expression"], pod)]


def pod_from_snippet(stack: Stack, tenant: Tenant, pool_name: str) -> dict[str, Any]:
    pool = stack.pool(pool_name)
    assert pool is not None
    doc = yaml.safe_load(snippets.snippet(stack, tenant, pool))
    meta = {"name": "worker-0", **doc["metadata"]}
    spec = copy.deepcopy(doc["spec"])
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def cases() -> list[tuple[Path, str]]:
    return [(p, t.name) for p in EXAMPLE_FILES for t in load_stack(p).tenants]


@pytest.mark.parametrize(("path", "tenant_name"), cases(),
                         ids=lambda v: v.stem if isinstance(v, Path) else v)
def test_snippet_pods_are_admitted_and_misaimed_ones_denied(path: Path, tenant_name: str) -> None:
    stack = load_stack(path)
    (tenant,) = [t for t in stack.tenants if t.name == tenant_name]
    for pool_name in tenant.pools:
        pod = pod_from_snippet(stack, tenant, pool_name)
        assert denied(stack, tenant, pod) == [], (pool_name, pod)

        elsewhere = next((p.name for p in stack.pools if p.name not in tenant.pools), "elsewhere")
        aimed = copy.deepcopy(pod)
        aimed["spec"]["nodeSelector"]["gpupool.io/pool"] = elsewhere
        (message,) = denied(stack, tenant, aimed)[:1]
        assert f"Pods of tenant {tenant.name} that use GPUs must run on its pools" in message

        wrong = copy.deepcopy(pod)
        wrong["spec"]["priorityClassName"] = "gpupool-critical" if tenant.priority != \
            "critical" else "gpupool-low"
        assert any("must set priorityClassName" in m for m in denied(stack, tenant, wrong))

        if stack.cluster.scheduler == "kai":
            queue = copy.deepcopy(pod)
            queue["metadata"]["labels"]["kai.scheduler/queue"] = "someone-else"
            assert any("kai.scheduler/queue" in m for m in denied(stack, tenant, queue))
            sched = copy.deepcopy(pod)
            del sched["spec"]["schedulerName"]
            assert any("schedulerName kai-scheduler" in m for m in denied(stack, tenant, sched))


def test_pods_without_a_gpu_are_not_matched() -> None:
    stack = load_stack("azure-kai-fair")
    tenant = stack.tenants[0]
    pod = pod_from_snippet(stack, tenant, tenant.pools[0])
    pod["spec"]["containers"][0].pop("resources", None)
    pod["metadata"].pop("annotations", None)
    condition = admission.policy(stack, tenant)["spec"]["matchConditions"][0]["expression"]
    assert not evaluate(condition, pod)
    pod["spec"]["nodeSelector"]["gpupool.io/pool"] = "anything"
    assert denied(stack, tenant, pod) == ["<not matched>"]


def test_required_node_affinity_to_the_tenants_pools_is_accepted() -> None:
    stack = load_stack("azure-kai-fair")
    tenant = stack.tenants[0]
    pod = pod_from_snippet(stack, tenant, tenant.pools[0])
    del pod["spec"]["nodeSelector"]
    term = {"matchExpressions": [{"key": "gpupool.io/pool", "operator": "In",
                                  "values": list(tenant.pools)}]}
    pod["spec"]["affinity"] = {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}
    assert denied(stack, tenant, pod) == []
    term["matchExpressions"][0]["values"].append("t4-spot" if "t4-spot" not in tenant.pools
                                                 else "a100")
    assert any("must run on its pools" in m for m in denied(stack, tenant, pod))
    del pod["spec"]["affinity"]
    assert any("must run on its pools" in m for m in denied(stack, tenant, pod))


def test_hami_pods_must_stay_within_one_slot() -> None:
    """onprem-hami: a slot's memory (HAMi nvidia.com/gpumem) and cores are the ceiling."""
    stack = load_stack("onprem-hami")
    for tenant in stack.tenants:
        for pool_name in tenant.pools:
            pool = stack.pool(pool_name)
            assert pool is not None
            pod = pod_from_snippet(stack, tenant, pool_name)
            limits = pod["spec"]["containers"][0]["resources"]["limits"]
            if not pool.sharing.kind.scheduler_slots:
                continue
            assert denied(stack, tenant, pod) == []
            for key in ("nvidia.com/gpumem", "nvidia.com/gpumem-percentage", "nvidia.com/gpucores"):
                if key in limits:
                    greedy = copy.deepcopy(pod)
                    greedy["spec"]["containers"][0]["resources"]["limits"][key] = \
                        int(limits[key]) + 1
                    assert any("get one slot of a GPU" in m for m in denied(stack, tenant, greedy))
            bare = copy.deepcopy(pod)
            for key in ("nvidia.com/gpumem", "nvidia.com/gpumem-percentage"):
                bare["spec"]["containers"][0]["resources"]["limits"].pop(key, None)
            assert any("get one slot of a GPU" in m for m in denied(stack, tenant, bare))


def test_spot_pods_must_stop_within_the_drain_time() -> None:
    """A spot pool with interruption.drainSeconds: the snippet sets it, longer is denied."""
    for path in EXAMPLE_FILES:
        stack = load_stack(path)
        for tenant in stack.tenants:
            for pool_name in tenant.pools:
                pool = stack.pool(pool_name)
                assert pool is not None
                drain = pool.interruption.drain_seconds
                if pool.capacity.type != "spot" or drain is None:
                    continue
                pod = pod_from_snippet(stack, tenant, pool_name)
                assert pod["spec"]["terminationGracePeriodSeconds"] == drain
                slow = copy.deepcopy(pod)
                slow["spec"]["terminationGracePeriodSeconds"] = drain + 1
                assert any("terminationGracePeriodSeconds" in m
                           for m in denied(stack, tenant, slow))
                return
    pytest.fail("no example has a spot pool with drainSeconds and a tenant on it")


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_every_tenant_gets_a_valid_policy_and_binding(path: Path) -> None:
    stack = load_stack(path)
    graph = assemble.build(stack)
    kinds = [r.manifest for r in graph.resources if r.manifest
             and r.manifest["apiVersion"] == admission.API_VERSION]
    assert len(kinds) == 2 * len(stack.tenants)
    assert validate_manifests(kinds) == []
    bindings = [m for m in kinds if m["kind"] == "ValidatingAdmissionPolicyBinding"]
    for tenant in stack.tenants:
        (mine,) = [b for b in bindings if b["metadata"]["name"] ==
                   admission.policy_name(stack, tenant)]
        assert mine["spec"]["validationActions"] == ["Deny"]
        assert mine["spec"]["matchResources"]["namespaceSelector"]["matchLabels"] == {
            "kubernetes.io/metadata.name": tenant.namespace}


def test_admission_off_renders_nothing_and_warn_binds_warn() -> None:
    stack = load_stack("azure-kai-fair")
    off = dataclasses.replace(stack, cluster=dataclasses.replace(stack.cluster,
                                                                  admission=Admission("off")))
    assert not [r for r in assemble.build(off).resources if "validatingadmission" in r.address]
    warn = dataclasses.replace(stack, cluster=dataclasses.replace(stack.cluster,
                                                                   admission=Admission("warn")))
    tenant = warn.tenants[0]
    assert admission.binding(warn, tenant, "warn")["spec"]["validationActions"] == ["Warn"]
