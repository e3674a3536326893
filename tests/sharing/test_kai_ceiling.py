"""A tenant's GPU ceiling under KAI is its queue's limit, not a ResourceQuota (issue 37 item 2).

Why (the rules these tests hold the rendered objects to):

- Kubernetes' ResourceQuota admission refuses a pod at creation when the namespace's pods in a
  non-terminal state, pending ones included, plus the new pod exceed a ``spec.hard`` line
  (Kubernetes docs, "Resource Quotas", concepts/policy/resource-quotas: "The sum of ... requests
  across all pods in a non-terminal state cannot exceed this value", and a refused request fails
  with 403 Forbidden; kubernetes ``pkg/quota/v1/evaluator/core/pods.go`` ``QuotaV1Pod`` counts
  every pod whose phase is neither Failed nor Succeeded).
- KAI preempts and reclaims only for pods that exist and are pending (KAI v0.17.0 = commit
  f218c69, ``pkg/scheduler/actions/preempt/preempt.go`` and ``reclaim/reclaim.go``:
  ``FilterNonPending: true``), and in-queue preemption takes victims from the preemptor's own
  queue only (``preempt.go`` ``buildFilterFuncForPreempt``: ``job.Queue != preemptor.Queue``).
  A tenant whose ResourceQuota is full could never create the pod that would preempt its own
  lower-priority pods, so KAI never sees it.
- KAI's queue ``limit`` is checked when a pod is placed, after the session's evictions gave
  their resources back to the queue (``framework/statement.go`` ``Evict`` calls the proportion
  plugin's ``deallocateHandlerFn``; ``plugins/proportion/capacity_policy/max_allowed_check.go``
  ``isOverLimit``: over when ``MaxAllowed < Allocated + requested``, ``-1`` is no limit; Queue
  CRD ``spec.resources.gpu.limit``, a number), so it holds the ceiling without refusing the
  preemptor. KAI reads no Kubernetes ResourceQuota at all (its v0.17.0 source never lists or
  gets one; ``ResourceQuota`` there names its own queue struct, ``queue_info/quota_info.go``).

So under KAI the tenant's ResourceQuota keeps only the 0 lines that fence it off GPU resources its
pools do not offer (they never refuse a pod KAI could place on its pools), and under the other
schedulers, which have no queue, the ResourceQuota stays the ceiling.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from gpupool import assemble, facts, render
from gpupool.graph import Resource
from gpupool.model import Stack
from tests.manifests import validate_manifests
from tests.paths import FIXTURES, shared_upstream
from tests.stacks import load_stack_text

FIXTURE = FIXTURES / "valid" / "sharing-kai-ceiling.yaml"
MIG_FENCES = {
    "requests.nvidia.com/mig-1g.10gb": "0",
    "requests.nvidia.com/mig-2g.20gb": "0",
    "requests.nvidia.com/mig-3g.40gb": "0",
}


def _stack(scheduler: str) -> Stack:
    text = FIXTURE.read_text(encoding="utf-8")
    return load_stack_text(text.replace("scheduler: kai", f"scheduler: {scheduler}"),
                           FIXTURE.name)


def _objects(stack: Stack, kind: str) -> dict[str, dict[str, Any]]:
    """Return the rendered manifests of one kind by namespace (or name when cluster-scoped)."""
    out = {}
    for r in assemble.build(stack).resources:
        if r.manifest is not None and r.manifest["kind"] == kind:
            meta = r.manifest["metadata"]
            out[meta.get("namespace", meta["name"])] = dict(r.manifest)
    return out


def _manifests(stack: Stack) -> list[dict[str, Any]]:
    resources: list[Resource] = list(assemble.build(stack).resources)
    return [dict(r.manifest) for r in resources if r.manifest is not None]


@pytest.mark.cloud_sdks  # kubernetes-validate (strict) and the Queue CRD's schema
def test_under_kai_the_queue_limit_is_the_ceiling_and_no_quota_line_caps_its_own_gpus() -> None:
    stack = _stack("kai")
    quotas = {ns: q["spec"]["hard"] for ns, q in _objects(stack, "ResourceQuota").items()}
    # team-a and team-b are on whole-GPU pools: no nvidia.com/gpu line (it would refuse the pod
    # KAI preempts for), only the 0 fences off the MIG pool's slices they were not given
    assert quotas["team-a"] == MIG_FENCES
    assert quotas["team-b"] == MIG_FENCES
    # team-m is on the mixed-strategy MIG pool: fenced off nvidia.com/gpu, no line on its slices
    assert quotas["team-m"] == {"requests.nvidia.com/gpu": "0"}
    queues = {n: q["spec"]["resources"]["gpu"] for n, q in _objects(stack, "Queue").items()}
    # hand-worked: team-a limit 8 GPUs on one-unit H100s; team-b no limit -> -1; team-m limit 2
    # GPUs of a p4de's A100 split 3g + 2g + 1g + 1g = 7 compute slices, which KAI counts as 7
    # GPUs (KAI v0.17.0 resource_info/gpu_resource_requirment.go): 14, quota 1 GPU -> 7
    assert queues["team-a"] == {"quota": 4, "overQuotaWeight": 1, "limit": 8}
    assert queues["team-b"] == {"quota": 2, "overQuotaWeight": 1, "limit": -1}
    assert queues["team-m"] == {"quota": 7, "overQuotaWeight": 1, "limit": 14}
    assert validate_manifests(_manifests(stack)) == []


@pytest.mark.cloud_sdks  # kubernetes-validate (strict)
def test_without_queues_the_resource_quota_stays_the_ceiling() -> None:
    # kube-scheduler has no queue: the ResourceQuota is the only ceiling. team-a: limit 8 whole
    # H100s; team-b: no limit -> what its pool holds, g6.12xlarge 4 x L4 x nodes.max 2 = 8.
    stack = _stack("default")
    quotas = {ns: q["spec"]["hard"] for ns, q in _objects(stack, "ResourceQuota").items()}
    assert quotas["team-a"] == {"requests.nvidia.com/gpu": "8", **MIG_FENCES}
    assert quotas["team-b"] == {"requests.nvidia.com/gpu": "8", **MIG_FENCES}
    # team-m: limit 2 GPUs of one slice each per profile on its A100s (one node of 8 GPUs):
    # 2 x 1 of 3g and 2g, 2 x 2 of 1g, each capped at what the pool holds
    assert quotas["team-m"] == {
        "requests.nvidia.com/gpu": "0",
        "requests.nvidia.com/mig-1g.10gb": "4",
        "requests.nvidia.com/mig-2g.20gb": "2",
        "requests.nvidia.com/mig-3g.40gb": "2",
    }
    assert _objects(stack, "Queue") == {}
    assert validate_manifests(_manifests(stack)) == []


def test_a_tenant_with_nothing_to_fence_gets_no_resource_quota() -> None:
    # every pool of this stack advertises nvidia.com/gpu, so under KAI no tenant has a line left
    text = FIXTURE.read_text(encoding="utf-8")
    start = text.index("  - name: mig\n")
    end = text.index("tenants:")
    text = text[:start] + text[end:]
    start = text.index("  - name: team-m\n")
    stack = load_stack_text(text[:start], "no-mig.yaml")
    assert _objects(stack, "ResourceQuota") == {}
    assert {"team-a", "team-b"} <= set(_objects(stack, "Namespace"))  # the namespaces stay
    default = load_stack_text(text[:start].replace("scheduler: kai", "scheduler: default"),
                              "no-mig.yaml")
    assert set(_objects(default, "ResourceQuota")) == {"team-a", "team-b"}


def test_the_queue_limit_is_the_crds_own_field() -> None:
    # KAI v0.17.0 deployments/kai-scheduler/crds/scheduling.run.ai_queues.yaml: spec.resources.gpu
    # has quota, overQuotaWeight and limit, each a number
    crd = yaml.safe_load(shared_upstream("kai-scheduler-v0.17.0-queues-crd.yaml").read_text())
    [version] = [v for v in crd["spec"]["versions"] if v["name"] == "v2"]
    gpu = version["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["resources"][
        "properties"]["gpu"]["properties"]
    queue = _objects(_stack("kai"), "Queue")["team-a"]["spec"]["resources"]["gpu"]
    assert set(queue) == set(gpu)
    assert all(gpu[k]["type"] == "number" and isinstance(v, int | float) for k, v in queue.items())


@pytest.mark.cloud_sdks  # runs the rendered program under pulumi.runtime.set_mocks
def test_the_rendered_program_registers_the_queue_limit_and_no_gpu_quota(tmp_path: Path) -> None:
    from tests.pulumi_mocks import run_programs

    stack = _stack("kai")
    render.render(stack, assemble.build(stack), tmp_path / "out")
    [run] = run_programs([tmp_path / "out"])
    assert run.error is None, run.error
    quotas = {r["name"]: r["inputs"]["spec"]["hard"]
              for r in run.by_type("kubernetes:core/v1:ResourceQuota")}
    assert quotas == {
        "team-a/gpupool-gpus": MIG_FENCES,
        "team-b/gpupool-gpus": MIG_FENCES,
        "team-m/gpupool-gpus": {"requests.nvidia.com/gpu": "0"},
    }
    limits = {r["name"]: r["inputs"]["spec"]["resources"]["gpu"]["limit"]
              for r in run.by_type("kubernetes:scheduling.run.ai/v2:Queue")}
    assert limits == {"gpupool-kai-ceiling": -1, "team-a": 8, "team-b": -1, "team-m": 14}


# the fixture's pools: the resources each offers (strategy mixed: the MIG pool offers its slices)
OFFERS = {"h100": {"nvidia.com/gpu"}, "l4": {"nvidia.com/gpu"},
          "mig": {"nvidia.com/mig-1g.10gb", "nvidia.com/mig-2g.20gb", "nvidia.com/mig-3g.40gb"}}


@st.composite
def tenancies(draw: st.DrawFn) -> tuple[str, list[tuple[list[str], int | None]]]:
    scheduler = draw(st.sampled_from(("kai", "default")))  # HAMi does not run MIG
    tenants = draw(st.lists(st.tuples(
        st.lists(st.sampled_from(sorted(OFFERS)), min_size=1, max_size=3, unique=True),
        st.one_of(st.none(), st.integers(0, 12))), min_size=1, max_size=3))
    return scheduler, tenants


@settings(max_examples=30, deadline=None)
@given(tenancies())
def test_no_quota_line_caps_a_kai_tenants_own_gpus_and_every_other_scheduler_keeps_them(
    case: tuple[str, list[tuple[list[str], int | None]]],
) -> None:
    # the property behind the hand-worked cases above: under KAI a tenant's ResourceQuota holds
    # exactly the 0 fences on what its pools do not offer (none at all when nothing is left) and
    # its queue the limit; elsewhere the ResourceQuota has a line per GPU resource of the stack
    scheduler, tenants = case
    text = FIXTURE.read_text(encoding="utf-8").replace("scheduler: kai", f"scheduler: {scheduler}")
    text = text[:text.index("tenants:")] + "tenants:\n" + "".join(
        f"  - {{name: t{i}, pools: [{', '.join(pools)}], priority: low"
        + ("" if limit is None else f", limit: {{gpus: {limit}}}") + "}\n"
        for i, (pools, limit) in enumerate(tenants))
    stack = load_stack_text(text, "generated.yaml")
    exposed = set(facts.of(stack).exposed_resources)
    quotas = {ns: q["spec"]["hard"] for ns, q in _objects(stack, "ResourceQuota").items()}
    queues = _objects(stack, "Queue")
    for i, (pools, limit) in enumerate(tenants):
        offered = set().union(*(OFFERS[p] for p in pools))
        hard = quotas.get(f"t{i}", {})
        fences = {f"requests.{r}": "0" for r in sorted(exposed - offered)}
        if scheduler == "kai":
            assert hard == fences
            gpu = queues[f"t{i}"]["spec"]["resources"]["gpu"]
            assert (gpu["limit"] == -1) == (limit is None)
        else:
            assert set(hard) == {f"requests.{r}" for r in exposed}
            assert {k: v for k, v in hard.items() if k in fences} == fences
            assert f"t{i}" not in queues
