"""A tenant's ResourceQuota and what the cluster really enforces for it (gpupool.facts.tenancy).

Kubernetes counts ``requests.<extended resource>`` in a namespace whatever node the pods land on
(Kubernetes docs, "Resource Quotas", extended resources), so one quota line covers every pool
that advertises that resource.
"""

from __future__ import annotations

from gpupool.facts.tenancy import quota_lines
from gpupool.spec.validate import validate_text

MIXED = """
apiVersion: gpupool.io/v1
kind: GpuPoolStack
metadata: {name: mixed}
provider:
  cloud: aws
  region: us-east-1
  cluster: c
  settings: {subnetIds: [subnet-0a1b2c3d4e5f60718], nodeRoleArn: "arn:aws:iam::123456789012:role/n"}
cluster: {scheduler: %(scheduler)s}
pools:
  - name: shared-l4
    instanceType: g6.2xlarge
    nodes: {min: 1, max: 4}
    sharing: {mode: time-slicing, replicas: 4}
  - name: h100
    instanceType: p5.48xlarge
    nodes: {min: 0, max: 6}
  - name: other
    instanceType: g6.2xlarge
    nodes: {min: 0, max: 2}
tenants:
  - name: team
    pools: [shared-l4, h100]
    priority: %(priority)s
    quota: {gpus: 2}
    limit: {gpus: 8}
"""
WEIGHT = "    fairShare: {weight: 2}\n"  # weights need scheduler kai


def _result(scheduler: str = "default", priority: str = "normal"):
    text = MIXED % {"scheduler": scheduler, "priority": priority}
    return validate_text(text + (WEIGHT if scheduler == "kai" else ""), "mixed.yaml")


def _codes(result) -> list[str]:
    return sorted(d.code for d in result.diagnostics)


def test_a_limit_of_n_gpus_never_admits_more_than_n_whole_gpus_of_any_pool() -> None:
    # Issue: limit 8 over a 4-replica time-sliced pool and an exclusive 8 x H100 pool used to
    # become 64 units of nvidia.com/gpu, enough for all 48 H100s.
    stack = _result().stack
    assert stack is not None
    [line] = quota_lines(stack, stack.tenants[0])
    assert line.resource == "nvidia.com/gpu"
    assert line.units == 8
    assert line.gpus == {"h100": 8, "shared-l4": 2}


def test_mixed_units_are_warned_at_the_limit() -> None:
    result = _result()
    [warn] = [d for d in result.diagnostics if d.code == "tenant.quota-units-mixed"]
    assert warn.path == ("tenants", 0, "limit", "gpus")
    assert "1 per GPU on h100, 4 per GPU on shared-l4" in warn.detail


def test_quota_without_kai_is_said_to_be_unenforced() -> None:
    # Kubernetes docs "Resource Quotas": a quota's spec.hard is a ceiling on what a namespace may
    # request; nothing reserves capacity for it, so quota.gpus (a guarantee) lives only in KAI's
    # queue (KAI v0.17.0 Queue CRD spec.resources.gpu.quota).
    assert "tenant.quota-not-enforced" in _codes(_result("default"))
    assert "tenant.quota-not-enforced" not in _codes(_result("kai"))


def test_pools_the_tenant_was_not_given_are_named_when_nothing_fences_them() -> None:
    # admission that only warns fences nothing; the default (deny) refuses pods aimed at "other"
    text = MIXED % {"scheduler": "default", "priority": "normal"}
    warned = validate_text(text.replace("cluster: {scheduler: default}",
                                        "cluster: {scheduler: default, admission: {action: warn}}"),
                           "mixed.yaml")
    [warn] = [d for d in warned.diagnostics if d.code == "tenant.pools-not-fenced"]
    assert "other" in warn.summary and "h100" not in warn.summary
    assert "tenant.pools-not-fenced" not in _codes(_result())


def test_pools_not_fenced_are_named_under_kai_where_no_quota_line_is_left() -> None:
    # under KAI the tenant's ResourceQuota has no nvidia.com/gpu line (its queue limit is the
    # ceiling: facts.tenancy.quota_lines), and nothing else keeps its pods off "other"
    text = (MIXED % {"scheduler": "kai", "priority": "low"}) + WEIGHT
    warned = validate_text(text.replace("cluster: {scheduler: kai}",
                                        "cluster: {scheduler: kai, admission: {action: warn}}"),
                           "mixed.yaml")
    stack = warned.stack
    assert stack is not None and quota_lines(stack, stack.tenants[0]) == ()
    [warn] = [d for d in warned.diagnostics if d.code == "tenant.pools-not-fenced"]
    assert "other" in warn.summary and "h100" not in warn.summary
    # and the ResourceQuota's mixed units are not warned: KAI's own warning speaks for the queue
    assert "tenant.quota-units-mixed" not in _codes(warned)
    assert "kai.queue-units-differ" in _codes(warned)


def test_kai_over_quota_fields_of_non_preemptible_tenants_are_warned() -> None:
    # KAI v0.17.0 docs/priority/README.md: priority >= 100 is non-preemptible and "cannot go over
    # quota", so the weight and a limit above quota do nothing.
    normal = [d for d in _result("kai", "normal").diagnostics if d.code == "kai.over-quota-unused"]
    assert sorted(d.path[-2] for d in normal) == ["fairShare", "limit"]
    low = [d for d in _result("kai", "low").diagnostics if d.code == "kai.over-quota-unused"]
    assert low == []
