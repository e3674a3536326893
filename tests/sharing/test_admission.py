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
from hypothesis import example, given, settings
from hypothesis import strategies as st

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


def required(*terms: list[dict[str, Any]]) -> dict[str, Any]:
    """Return a pod's ``affinity`` with one required term per list of match expressions."""
    rule = {"nodeSelectorTerms": [{"matchExpressions": t} if t else {} for t in terms]}
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": rule}}


def by_affinity(pod: dict[str, Any], *terms: list[dict[str, Any]]) -> dict[str, Any]:
    """Return ``pod`` aimed by required node affinity instead of its node selector."""
    aimed = copy.deepcopy(pod)
    del aimed["spec"]["nodeSelector"]["gpupool.io/pool"]
    aimed["spec"]["affinity"] = required(*terms)
    return aimed


def pool_in(*names: str) -> dict[str, Any]:
    return {"key": "gpupool.io/pool", "operator": "In", "values": list(names)}


def test_hami_slot_rule_judges_pods_that_reach_the_pool_by_affinity() -> None:
    """Issue 27 item 1: a HAMi pod aimed by affinity had no one-slot ceiling.

    Kubernetes ``component-helpers/scheduling/corev1/nodeaffinity`` (``RequiredNodeAffinity``):
    the scheduler honours required node affinity as it does ``nodeSelector``, so a pod whose
    affinity admits the pool lands there and the pool's rules must judge it.
    """
    stack = load_stack("onprem-hami")
    tenant = next(t for t in stack.tenants if "dgx" in t.pools)
    pod = pod_from_snippet(stack, tenant, "dgx")
    greedy = copy.deepcopy(pod)
    greedy["spec"]["containers"][0]["resources"]["limits"].update(
        {"nvidia.com/gpumem": 81920, "nvidia.com/gpucores": 100})
    assert any("get one slot of a GPU" in m for m in denied(stack, tenant, greedy))
    for aimed in (by_affinity(greedy, [pool_in("dgx")]),
                  by_affinity(greedy, [pool_in("elsewhere")], [pool_in("dgx")]),
                  by_affinity(greedy, [pool_in("dgx"), {"key": "gpupool.io/pool",
                                                        "operator": "Exists"}])):
        messages = denied(stack, tenant, aimed)
        assert any("get one slot of a GPU" in m for m in messages), aimed["spec"]["affinity"]
    # the same pod within its slot, aimed the same way, is admitted
    assert denied(stack, tenant, by_affinity(pod, [pool_in("dgx")])) == []


def test_drain_rule_judges_pods_that_reach_the_spot_pool_by_affinity() -> None:
    """Issue 27 item 1: a 3,600 s grace period on a spot pool passed when aimed by affinity."""
    stack = load_stack("azure-kai-fair")
    tenant, pool = next((t, p) for t in stack.tenants for name in t.pools
                        if (p := stack.pool(name)) is not None and p.capacity.type == "spot"
                        and p.interruption.drain_seconds is not None)
    pod = pod_from_snippet(stack, tenant, pool.name)
    slow = copy.deepcopy(pod)
    slow["spec"]["terminationGracePeriodSeconds"] = 3600
    others = [p for p in tenant.pools if p != pool.name]
    for aimed in (by_affinity(slow, [pool_in(pool.name)]),
                  by_affinity(slow, [pool_in(*tenant.pools)])):
        assert any("terminationGracePeriodSeconds" in m for m in denied(stack, tenant, aimed))
    assert denied(stack, tenant, by_affinity(pod, [pool_in(pool.name)])) == []
    if others:  # aimed only at the tenant's other pools: the spot pool's rule does not apply
        assert not any("terminationGracePeriodSeconds" in m
                       for m in denied(stack, tenant, by_affinity(slow, [pool_in(*others)])))


# A model of the scheduler's required node affinity for one node labelled gpupool.io/pool=<pool>,
# written from Kubernetes apimachinery ``pkg/labels/selector.go`` (``NewRequirement``,
# ``Requirement.Matches``) and component-helpers ``nodeaffinity.go`` (empty terms match nothing,
# terms ORed, a term with a requirement that does not parse matches nothing).
INT64 = 2**63 - 1
OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
VALUES = ("dgx", "other", "12", "7", "-3", "+40", "x1", "99999999999999999999")


def _int64(text: str) -> int | None:
    body = text[1:] if text[:1] in "+-" else text
    if not body.isdigit() or not -INT64 - 1 <= int(text) <= INT64:
        return None
    return int(text)


def _requirement_matches(req: dict[str, Any], pool: str) -> bool | None:
    """Return whether ``req`` on gpupool.io/pool matches the pool's nodes (None: does not parse)."""
    op, values = req["operator"], req.get("values", [])
    if req["key"] != "gpupool.io/pool":
        return True  # a node may carry any other label
    if op in ("In", "NotIn"):
        return None if not values else (pool in values) == (op == "In")
    if op in ("Exists", "DoesNotExist"):
        return None if values else op == "Exists"
    if len(values) != 1 or _int64(values[0]) is None:
        return None
    node = _int64(pool)
    if node is None:
        return False
    wanted = _int64(values[0])
    assert wanted is not None
    return node > wanted if op == "Gt" else node < wanted


def k8s_reaches(pod: dict[str, Any], pool: str) -> bool:
    selector = pod["spec"].get("nodeSelector", {})
    if "gpupool.io/pool" in selector and selector["gpupool.io/pool"] != pool:
        return False
    required = pod["spec"].get("affinity", {}).get("nodeAffinity", {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution")
    if required is None:
        return True
    for term in required["nodeSelectorTerms"]:
        results = [_requirement_matches(r, pool) for r in term.get("matchExpressions", [])]
        if results and all(r is True for r in results):
            return True
    return False


@st.composite
def requirements(draw: st.DrawFn) -> dict[str, Any]:
    op = draw(st.sampled_from(OPERATORS))
    req: dict[str, Any] = {"key": "gpupool.io/pool", "operator": op}
    if op in ("Exists", "DoesNotExist"):
        return req
    count = draw(st.integers(1, 1 if op in ("Gt", "Lt") else 3))
    req["values"] = draw(st.lists(st.sampled_from(VALUES), min_size=count, max_size=count))
    return req


@st.composite
def aimed_pods(draw: st.DrawFn) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "main"}]}
    choice = draw(st.sampled_from(("none", "dgx", "12", "other")))
    if choice != "none":
        spec["nodeSelector"] = {"gpupool.io/pool": choice}
    if draw(st.booleans()):
        terms = draw(st.lists(st.lists(requirements(), max_size=3), min_size=1, max_size=3))
        spec["affinity"] = required(*terms)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec}


REACHES = {pool: ENV.program(ENV.compile(admission.reaches(pool))) for pool in ("dgx", "12")}


def _affinity_pod(*reqs: dict[str, Any]) -> dict[str, Any]:
    return {"spec": {"affinity": required(list(reqs))}}


@settings(max_examples=200, deadline=None)
@given(pod=aimed_pods(), pool=st.sampled_from(sorted(REACHES)))
@example(pod=_affinity_pod({"key": "gpupool.io/pool", "operator": "Gt", "values": ["12"]}),
         pool="12")
@example(pod=_affinity_pod({"key": "gpupool.io/pool", "operator": "Lt", "values": ["12"]}),
         pool="12")
@example(pod=_affinity_pod({"key": "gpupool.io/pool", "operator": "Gt", "values": ["7"]}),
         pool="12")
@example(pod=_affinity_pod({"key": "gpupool.io/pool", "operator": "NotIn", "values": ["dgx"]},
                           {"key": "zone", "operator": "Exists"}), pool="dgx")
def test_reaches_agrees_with_the_schedulers_node_affinity(pod: dict[str, Any], pool: str) -> None:
    """Every nodeSelector / required affinity on the pool label: the CEL says what the scheduler
    does (any term admitting the pool's value, Gt/Lt on a pool named by digits), except where a
    requirement would not parse, which the CEL counts as reaching (it only judges more pods)."""
    cel = bool(REACHES[pool].evaluate({"object": celpy.json_to_cel(pod)}))
    expected = k8s_reaches(pod, pool)
    if expected:
        assert cel, pod
    parses = all(_requirement_matches(r, pool) is not None
                 for t in pod["spec"].get("affinity", {}).get("nodeAffinity", {}).get(
                     "requiredDuringSchedulingIgnoredDuringExecution", {}).get(
                     "nodeSelectorTerms", []) for r in t.get("matchExpressions", []))
    if parses:
        assert cel == expected, pod
