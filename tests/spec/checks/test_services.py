"""The services' checks: each rule trips on one change to a stack that trips none.

``tests/fixtures/valid/services-clean.yaml`` trips no services rule; each case below changes one
thing in it and must trip exactly its rule's code among the services' codes (the fixtures under
``tests/fixtures/invalid/services-*.yaml`` pin the messages and lines). The comment on each case
names the source of the failure mode the rule guards against.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpupool.simulate.autoscaler import SCALE_UP_SECONDS
from gpupool.spec.checks import services
from gpupool.spec.checks.services import NODE_PROVISION_SECONDS
from gpupool.spec.validate import validate_text
from tests.paths import FIXTURES

CLEAN = FIXTURES / "valid" / "services-clean.yaml"
Data = dict[str, Any]


def _codes(data: Data) -> set[str]:
    result = validate_text(yaml.safe_dump(data, sort_keys=False), "s.yaml")
    return {d.code for d in result.diagnostics if d.code.startswith("service.")}


def _clean() -> Data:
    return yaml.safe_load(CLEAN.read_text(encoding="utf-8"))


def _svc(data: Data, name: str) -> Data:
    return next(s for s in data["services"] if s["name"] == name)


def _set(name: str, **fields: Any) -> Callable[[Data], None]:
    def apply(data: Data) -> None:
        _svc(data, name).update(fields)
    return apply


def _trigger(name: str, index: int, **fields: Any) -> Callable[[Data], None]:
    def apply(data: Data) -> None:
        _svc(data, name)["scaleOn"][index].update(fields)
    return apply


def _pool(name: str, **fields: Any) -> Callable[[Data], None]:
    def apply(data: Data) -> None:
        next(p for p in data["pools"] if p["name"] == name).update(fields)
    return apply


def _tenant(name: str, **fields: Any) -> Callable[[Data], None]:
    def apply(data: Data) -> None:
        next(t for t in data["tenants"] if t["name"] == name).update(fields)
    return apply


def _no_query(data: Data) -> None:
    del _svc(data, "batch-embed")["scaleOn"][0]["query"]


def _both(*steps: Callable[[Data], None]) -> Callable[[Data], None]:
    def apply(data: Data) -> None:
        for step in steps:
            step(data)
    return apply


def _production(data: Data) -> None:
    data["metadata"]["environment"] = "production"


def _copy_first(data: Data) -> None:
    data["services"].append(copy.deepcopy(data["services"][0]))


def _no_url(data: Data) -> None:
    del data["cluster"]["monitoring"]["prometheus"]["url"]


CASES: dict[str, Callable[[Data], None]] = {
    "service.duplicate-name": _copy_first,
    "service.unknown-tenant": _set("ranker", tenant="serv"),
    "service.unknown-pool": _set("ranker", pool="mig"),  # a pool, but not the tenant's
    # the tenant's admission policy admits its own priority only (sharing/admission.py)
    "service.priority-not-tenants": _set("ranker", priority="high"),
    "service.prometheus-url-missing": _no_url,
    # docs/workload.md "One GPU shape"
    "service.request-shape": _set("ranker", fraction=0.5),
    "service.request-mode": _set("notebook-llm", mig="4g.40gb"),
    "service.replica-too-big": _set("ranker", gpus=8),
    "service.over-pool": _both(_set("tiny", replicas={"min": 2, "max": 17}),
                               _tenant("small", limit={"gpus": 5})),
    "service.over-limit": _set("ranker", replicas={"min": 2, "max": 13}),
    "service.min-over-quota": _set("notebook-llm", replicas={"min": 3, "max": 4}),
    "service.query-missing": _no_query,
    "service.query-unused": _trigger("ranker", 0, query="sum(x)"),
    "service.query-invalid": _trigger("tiny", 0, query="sum(rate(requests_total[2m])"),
    # kedacore/keda pkg/scalers/prometheus_scaler.go: several series are an error
    "service.query-many-series": _trigger("tiny", 0, query="sum by (pod) (rate(r[2m]))"),
    "service.target-not-percent": _trigger("ranker", 2, target=101),
    # NVIDIA/dcgm-exporter #307, #587, #642: the whole GPU's value on every sharing pod
    "service.gpu-metric-shared-gpu": _pool("whole", sharing={"mode": "time-slicing",
                                                             "replicas": 2}),
    # GKE inference autoscaling best practices: pre-allocated memory never falls
    "service.gpu-memory-never-falls": _pool("whole", workload="inference"),
    # pmady/keda-gpu-scaler #142: nothing uses a GPU at zero replicas
    "service.cannot-wake": _set("batch-embed", scaleOn=[{"metric": "gpu-utilization",
                                                         "target": 50}]),
    # kserve/kserve #1247, #1641: scaled to zero before the node and the model came
    "service.cooldown-too-short": _set("batch-embed", cooldownSeconds=299),
    # kedacore/keda pkg/scaling/executor/scale_scaledobjects.go: inactive (nothing waits, not
    # above activationThreshold 0, pkg/scalers/prometheus_scaler.go) past cooldownPeriod -> 0
    "service.zero-under-load": _set("batch-embed", scaleOn=[
        {"metric": "pending-requests", "target": 20, "query": "max(vllm:num_requests_waiting)"}]),
    "service.single-replica": _both(_production, _set("batch-embed", replicas={"min": 2,
                                                                             "max": 2}),
                                    _set("tiny", replicas={"min": 1, "max": 16})),
    "service.on-spot": _both(_production, _set("batch-embed", replicas={"min": 2, "max": 2}),
                             _pool("frac", capacity={"type": "spot", "onDemandBase": 1})),
}


def test_the_clean_stack_trips_no_services_rule() -> None:
    assert _codes(_clean()) == set()


@pytest.mark.parametrize("code", sorted(CASES))
def test_one_change_trips_exactly_its_rule(code: str) -> None:
    data = _clean()
    CASES[code](data)
    assert _codes(data) == {code}


def test_every_services_code_has_a_case() -> None:
    """The codes are read from the module's source, so a new rule needs a case here."""
    source = Path(services.__file__).read_text(encoding="utf-8")
    assert set(re.findall(r'"(service\.[a-z-]+)"', source)) == set(CASES)


def test_the_cooldown_rule_counts_provisioning_plus_startup() -> None:
    """At exactly provisioning plus startup the service is fine; one second less warns."""
    data = _clean()
    need = NODE_PROVISION_SECONDS + 300
    _set("batch-embed", startupSeconds=300, cooldownSeconds=need)(data)
    assert _codes(data) == set()
    _set("batch-embed", cooldownSeconds=need - 1)(data)
    assert _codes(data) == {"service.cooldown-too-short"}


def test_node_provisioning_is_the_simulators_figure() -> None:
    assert NODE_PROVISION_SECONDS == SCALE_UP_SECONDS


def test_a_pool_that_keeps_nodes_does_not_warn_of_cold_starts() -> None:
    data = _clean()
    _set("batch-embed", cooldownSeconds=60)(data)
    _pool("whole", nodes={"min": 1, "max": 4})(data)
    assert _codes(data) == set()


def test_only_a_scale_to_zero_service_on_pending_requests_alone_warns_of_zero_under_load() -> None:
    """A trigger that reads above 0 while requests are served keeps KEDA active
    (kedacore/keda ``pkg/scalers/prometheus_scaler.go``: active above ``activationThreshold``):
    requests-per-second, or Triton's queue time, which counts every request's µs in the queue
    (triton-inference-server/server ``docs/user_guide/metrics.md``); a floor of 1 never reaches
    KEDA's scale to zero (``scale_scaledobjects.go``)."""
    pending = {"metric": "pending-requests", "target": 20,
               "query": "max(vllm:num_requests_waiting)"}
    data = _clean()
    _set("batch-embed", scaleOn=[pending, {"metric": "queue-time-ratio", "target": 1}])(data)
    assert _codes(data) == set()
    data = _clean()
    _set("batch-embed", scaleOn=[pending], replicas={"min": 1, "max": 2})(data)
    assert _codes(data) == set()
    _set("batch-embed", replicas={"min": 0, "max": 2})(data)
    assert _codes(data) == {"service.zero-under-load"}


def test_queue_time_alone_cannot_wake_a_service_from_zero() -> None:
    """gpupool's queue-time rule reads Triton's series from the service's own pods
    (gpupool/sharing/service_rules.py); at zero replicas there is none, which KEDA's Prometheus
    scaler reads as 0 (``ignoreNullValues``, kedacore/keda ``pkg/scalers/prometheus_scaler.go``),
    so it never activates, as GPU metrics never do (pmady/keda-gpu-scaler #142)."""
    data = _clean()
    _set("batch-embed", scaleOn=[{"metric": "queue-time-ratio", "target": 1},
                                 {"metric": "gpu-utilization", "target": 50}])(data)
    assert _codes(data) == {"service.cannot-wake"}
    _set("notebook-llm", replicas={"min": 1, "max": 4})(data)  # queue-time-ratio alone, min 1
    assert _codes(data) == {"service.cannot-wake"}
