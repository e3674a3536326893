"""The checkpoint rules (gpupool/spec/checks/checkpoint.py) beyond the fixture's pinned lines.

The fixture tests/fixtures/invalid/checkpoint.yaml pins one finding of each rule; these hold
the figures a warning states (worked by hand), where a tenant's own values apply instead of its
pool's, and the cases no rule must fire on. The notices are the catalog's (clouds.json): GCP's
preemption notice is 30 s (cloud.google.com/kubernetes-engine/docs/how-to/preemptible-vms),
AWS's two minutes (EC2 user guide, spot-instance-termination-notices).
"""

from __future__ import annotations

from gpupool.spec.validate import validate_file, validate_text
from tests.paths import FIXTURES

HEAD = """apiVersion: gpupool.io/v1
kind: GpuPoolStack
metadata: {name: ck}
provider: {cloud: gcp, region: us-central1, cluster: c, settings: {project: my-project}}
"""


def _found(text: str) -> list[tuple[str, str, tuple[object, ...]]]:
    result = validate_text(HEAD + text, "stack.yaml")
    return [(d.code, d.detail, d.path) for d in result.diagnostics
            if d.code.startswith("checkpoint.")]


def test_the_interval_warning_states_the_cost_worked_by_hand() -> None:
    # pool train: a2-highgpu-8g (8 A100) x nodes.max 2 = 16 GPUs; perHour 0.1: M = 36,000 s;
    # write 28 s: Young sqrt(2 x 28 x 36,000) = 1,419.9 s = 23.7 min; Daly 1,401.3 s = 23.4 min.
    # Every 7,200 s loses 28/7,200 + 7,200/72,000 = 10.4%; the optimum 28/1,401.3 + 1,401.3/72,000
    # = 3.9%; (0.10389 - 0.03945) x 16 x 24 = 24.7 GPU-hours a day.
    result = validate_file(FIXTURES / "invalid" / "checkpoint.yaml")
    (warn,) = [d for d in result.diagnostics if d.code == "checkpoint.interval-off-optimum"]
    assert "Daly's optimum interval is 23.4 min (Young's first order: 23.7 min)" in warn.detail
    assert "loses 10.4% of each GPU-hour" in warn.detail and "against 3.9%" in warn.detail
    assert "24.7 GPU-hours a day more on its 16 GPUs" in warn.detail


def test_a_tenants_own_checkpoint_is_checked_on_each_of_its_pools_at_its_own_path() -> None:
    found = _found("""pools:
  - {name: a, instanceType: a2-highgpu-1g, nodes: {min: 0, max: 2}, capacity: {type: spot}}
  - {name: b, instanceType: a2-highgpu-1g, nodes: {min: 0, max: 2}}
tenants:
  - name: t
    pools: [a, b]
    checkpoint: {everySeconds: 600, writeSeconds: 45, restoreSeconds: 30}
""")
    # only the spot pool has a notice to fit in; one finding at the tenant's field
    assert [(c, p) for c, _, p in found] == [
        ("checkpoint.write-exceeds-notice", ("tenants", 0, "checkpoint", "writeSeconds"))]


def test_a_tenants_budget_is_judged_with_its_pools_parts() -> None:
    # on-demand pool b can grow (0..2): grace 30 (default, no checkpoint) + 10 + 300 + startup 60
    # = 400 s, over the tenant's 300 s; the pool's own 600 s budget is not exceeded
    found = _found("""pools:
  - name: b
    instanceType: a2-highgpu-1g
    nodes: {min: 0, max: 2}
    maxDowntimeSeconds: 600
    startupSeconds: 60
tenants:
  - {name: t, pools: [b], maxDowntimeSeconds: 300}
""")
    assert [(c, p) for c, _, p in found] == [
        ("checkpoint.downtime-over-budget", ("tenants", 0, "maxDowntimeSeconds"))]
    detail = found[0][1]
    assert "drain 30 s, rescheduling 10 s, scale-up 300 s, startup 60 s" in detail


def test_a_pool_that_cannot_grow_waits_for_no_node() -> None:
    # nodes.min == nodes.max: 30 + 10 + 0 + 0 + restore 40 = 80 s, inside 90 s
    assert _found("""pools:
  - name: b
    instanceType: a2-highgpu-1g
    nodes: {min: 2, max: 2}
    checkpoint: {everySeconds: 600, writeSeconds: 20, restoreSeconds: 40}
    maxDowntimeSeconds: 90
""") == []


def test_a_checkpoint_warning_may_be_acknowledged() -> None:
    text = """pools:
  - name: b
    instanceType: a2-highgpu-1g
    nodes: {min: 0, max: 2}
    maxDowntimeSeconds: 60
acknowledge:
  - {code: checkpoint.downtime-over-budget, reason: a cold start is accepted, path: pools.b}
"""
    result = validate_text(HEAD + text, "stack.yaml")
    assert [d.code for d in result.diagnostics] == []
    assert [a.diagnostic.code for a in result.acknowledged] == ["checkpoint.downtime-over-budget"]
