"""Drift does not report a resource the stack no longer renders as missing (issue 37 item 2).

Under KAI gpupool stopped rendering a tenant's ResourceQuota on its own pools' GPUs (the API
server counts pending pods against it and would refuse the pod KAI preempts for: Kubernetes docs
"Resource Quotas"; KAI v0.17.0 ``pkg/scheduler/actions/preempt/preempt.go`` ``FilterNonPending``;
``tests/sharing/test_kai_ceiling.py``). A state written by an older gpupool still holds it; once
someone deletes it in the cluster, Pulumi's refresh preview says ``delete`` (``refresh
--preview-only``: the state's resource is gone). The file asks for no such object, so that is a
note, not drift; a resource the stack still renders stays drift.
"""

from __future__ import annotations

from pathlib import Path

from gpupool.drift.run import DriftInputs, run
from gpupool.engine.results import EngineResult, ResourceStep
from gpupool.model import Stack
from tests.paths import FIXTURES
from tests.stacks import load_stack_text

FIXTURE = FIXTURES / "valid" / "sharing-kai-ceiling.yaml"
QUOTA = "kubernetes:core/v1:ResourceQuota"


def _stack(text: str) -> Stack:
    return load_stack_text(text, FIXTURE.name)


def _deleted(name: str) -> EngineResult:
    urn = f"urn:pulumi:prod::kai-ceiling::{QUOTA}::{name}"
    return EngineResult("refresh-preview", (ResourceStep(urn, QUOTA, name, "delete"),), {})


def _drift(stack: Stack, name: str, tmp_path: Path) -> tuple[list[str], list[str]]:
    report = run(stack, tmp_path / "s.yaml",
                 DriftInputs(engine=lambda: _deleted(name), cluster=lambda: []))
    return [i.summary for i in report.items], [n.summary for n in report.notes]


def test_a_gpu_quota_kai_no_longer_gets_is_a_note_once_deleted(tmp_path: Path) -> None:
    # the MIG pool makes the stack render each KAI tenant a ResourceQuota of 0 fences; a stack
    # without it renders team-a none at all: the old quota is what the next up removes
    text = FIXTURE.read_text(encoding="utf-8")
    start, end = text.index("  - name: mig\n"), text.index("tenants:")
    no_mig = text[:start] + text[end:text.index("  - name: team-m\n")]
    items, notes = _drift(_stack(no_mig), "team-a/gpupool-gpus", tmp_path)
    assert not [i for i in items if "ResourceQuota" in i]
    assert notes == [f"{QUOTA} team-a/gpupool-gpus is gone from the cluster and gpupool no "
                     "longer renders it: the next up drops it from the state"]


def test_a_quota_the_stack_still_renders_is_drift_when_deleted(tmp_path: Path) -> None:
    text = FIXTURE.read_text(encoding="utf-8")
    for scheduler in ("kai", "default"):  # KAI renders the fences, default the whole ceiling
        stack = _stack(text.replace("scheduler: kai", f"scheduler: {scheduler}"))
        items, notes = _drift(stack, "team-a/gpupool-gpus", tmp_path)
        assert f"{QUOTA} team-a/gpupool-gpus was deleted outside gpupool" in items, scheduler
        assert not [n for n in notes if "ResourceQuota" in n], scheduler
