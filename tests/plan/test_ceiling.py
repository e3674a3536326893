"""The plan says what enforces each tenant's limit: KAI's queue or the ResourceQuota.

Under KAI the queue's ``limit`` is the ceiling and no ResourceQuota line caps the tenant's own
GPUs: ResourceQuota admission counts pending pods and would refuse the pod KAI preempts or
reclaims for (Kubernetes docs "Resource Quotas"; KAI v0.17.0 ``pkg/scheduler/actions/preempt/
preempt.go`` ``FilterNonPending``, ``plugins/proportion/capacity_policy/max_allowed_check.go``;
the reasons in full: ``tests/sharing/test_kai_ceiling.py``). Without queues the ResourceQuota is.
"""

from __future__ import annotations

import json

from gpupool import plan
from gpupool.assemble import build
from gpupool.model import Stack
from gpupool.plan import reasons
from gpupool.views import plan_json, plan_markdown, plan_text
from tests.paths import FIXTURES
from tests.stacks import load_stack_text

FIXTURE = FIXTURES / "valid" / "sharing-kai-ceiling.yaml"


def _plan(scheduler: str) -> plan.PlanResult:
    text = FIXTURE.read_text(encoding="utf-8").replace("scheduler: kai", f"scheduler: {scheduler}")
    stack: Stack = load_stack_text(text, FIXTURE.name)
    return plan.make_plan(plan.Base("empty", None, None), build(stack), stack)


def test_under_kai_each_limit_is_said_to_be_the_queues() -> None:
    result = _plan("kai")
    lines = plan_text.ceiling_lines(result)
    assert lines[0] == (
        "team-a: limit 8 GPUs enforced by the KAI Scheduler's queue team-a's limit (8 of its GPU "
        "units); quota 4 GPUs guaranteed by its quota (4 units); no ResourceQuota on its pools' "
        "GPUs: it would block the KAI Scheduler's preemption and reclaim (ResourceQuota "
        "team-a/gpupool-gpus keeps only the 0 lines on GPU resources its pools do not offer)")
    assert lines[1].startswith(
        "team-b: no limit: the KAI Scheduler's queue team-b has limit -1, so only its pools bound "
        "it; quota 2 GPUs")
    # 2 GPUs of A100s split into 7 compute slices each: 14 of KAI's GPUs; quota 1 GPU -> 7
    assert "limit (14 of its GPU units); quota 1 GPU guaranteed by its quota (7 units)" in lines[2]
    text = plan_text.format_text(result)
    assert "Ceilings (what enforces each tenant's limit):\n  team-a: limit 8 GPUs" in text
    # only 0 fences are left, and the quota table lists non-zero lines: it is left out
    assert "ResourceQuota per tenant" not in text
    assert lines[0] in plan_markdown.format_markdown(result).replace("\\", "")


def test_without_queues_each_limit_is_said_to_be_the_resource_quotas() -> None:
    result = _plan("default")
    assert plan_text.ceiling_lines(result) == [
        "team-a: limit 8 GPUs enforced by ResourceQuota team-a/gpupool-gpus",
        "team-b: no limit: ResourceQuota team-b/gpupool-gpus caps it at what its pools hold",
        "team-m: limit 2 GPUs enforced by ResourceQuota team-m/gpupool-gpus",
    ]
    assert "ResourceQuota per tenant" in plan_text.format_text(result)


def test_json_names_what_enforces_each_limit() -> None:
    kai = {t["tenant"]: t for t in json.loads(plan_json.format_json(_plan("kai")))["tenants"]}
    assert kai["team-a"]["ceiling"] == {
        "enforcedBy": "queue", "queue": "team-a", "queueGpuLimit": 8.0, "queueGpuQuota": 4.0,
        "resourceQuota": "team-a/gpupool-gpus"}
    assert kai["team-b"]["ceiling"]["queueGpuLimit"] is None  # the queue's -1: no limit
    assert {q["units"] for q in kai["team-a"]["resourceQuota"]} == {0}  # fences only
    default = {t["tenant"]: t
               for t in json.loads(plan_json.format_json(_plan("default")))["tenants"]}
    assert default["team-a"]["ceiling"] == {
        "enforcedBy": "resource-quota", "queue": None, "queueGpuLimit": None,
        "queueGpuQuota": None, "resourceQuota": "team-a/gpupool-gpus"}


def _graphs(text: str) -> tuple[plan.ResourceChange, ...]:
    base = build(load_stack_text(text.replace("scheduler: kai", "scheduler: default"), "b.yaml"))
    desired = build(load_stack_text(text, "d.yaml"))
    return plan.diff(base, desired)


def test_moving_to_kai_says_why_the_quota_loses_its_gpu_lines() -> None:
    # the same tenants applied under kube-scheduler, then planned under KAI: team-a keeps a
    # ResourceQuota of 0 fences (an update), and without the MIG pool it has none (a delete)
    text = FIXTURE.read_text(encoding="utf-8")
    changes = {c.address: c for c in _graphs(text)}
    update = changes["k8s.resourcequota.team-a.gpupool-gpus"]
    assert update.actions == plan.UPDATE
    assert reasons.QUEUE_CEILING in update.reasons
    start, end = text.index("  - name: mig\n"), text.index("tenants:")
    no_mig = text[:start] + text[end:text.index("  - name: team-m\n")]
    changes = {c.address: c for c in _graphs(no_mig)}
    gone = changes["k8s.resourcequota.team-a.gpupool-gpus"]
    assert gone.actions == plan.DELETE
    assert gone.reasons == (reasons.QUEUE_CEILING,)
    # a quota the queue does not replace says nothing of it (the namespace stays as it was)
    assert reasons.QUEUE_CEILING not in changes["k8s.namespace.team-a"].reasons
