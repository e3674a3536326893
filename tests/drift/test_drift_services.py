"""Drift of the inference services: ScaledObjects and their HPAs (``gpupool.drift.services``).

The objects are read with the official client's ``CustomObjectsApi.get_namespaced_custom_object``
(kubernetes-client/python ``kubernetes/client/api/custom_objects_api.py``), which returns the
object as the API server serves it; a stand-in serves them by (group, plural, namespace, name),
and a 404 is the client's ``ApiException``. The ScaledObject's ``status.conditions`` and
``status.hpaName`` are fields of KEDA's CRD at v2.20.2 (``tests/upstream_facts/crds/
keda-scaledobject.json``); the HPA's ``status.currentReplicas``, ``desiredReplicas`` and its
``ScalingLimited``/``TooManyReplicas`` condition are autoscaling/v2's (kubernetes
``pkg/controller/podautoscaler/horizontal.go``).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

pytest.importorskip("kubernetes")

from kubernetes.client.exceptions import ApiException

from gpupool.cluster import ClusterUnavailableError, read_objects
from gpupool.drift import services
from gpupool.drift.run import DriftInputs, run
from tests.paths import FIXTURES
from tests.stacks import load_stack

STACK = load_stack(FIXTURES / "valid" / "services-clean.yaml")


def _scaled(name: str, ready: str = "True", active: str = "False",
            annotations: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "apiVersion": "keda.sh/v1alpha1", "kind": "ScaledObject",
        "metadata": {"name": name, "annotations": annotations or {}},
        "status": {"hpaName": f"keda-hpa-{name}", "conditions": [
            {"type": "Ready", "status": ready, "reason": "ScaledObjectReady" if ready == "True"
             else "PrometheusScalerError", "message": "" if ready == "True" else
             "prometheus query returned multiple elements"},
            {"type": "Active", "status": active, "reason": "", "message": ""},
        ]},
    }


def _hpa(current: int, desired: int, limited: bool = False) -> dict[str, Any]:
    cond = {"type": "ScalingLimited", "status": "True" if limited else "False",
            "reason": "TooManyReplicas" if limited else "DesiredWithinRange"}
    return {"status": {"currentReplicas": current, "desiredReplicas": desired,
                       "conditions": [cond]}}


class RecordedCustomObjectsApi:
    """Serves objects by (plural, namespace, name); anything else is the API server's 404."""

    def __init__(self, objects: dict[tuple[str, str, str], Any],
                 error: Exception | None = None) -> None:
        self.objects, self.error = objects, error

    def get_namespaced_custom_object(self, group: str, version: str, namespace: str,
                                     plural: str, name: str, **kwargs: Any) -> Any:
        assert "_request_timeout" in kwargs
        if self.error is not None:
            raise self.error
        if (plural, namespace, name) not in self.objects:
            raise ApiException(status=404, reason="Not Found")
        return copy.deepcopy(self.objects[(plural, namespace, name)])


def _healthy() -> dict[tuple[str, str, str], Any]:
    out: dict[tuple[str, str, str], Any] = {}
    for ns, name in services.wanted(STACK):
        out[("scaledobjects", ns, name)] = _scaled(name)
        out[("horizontalpodautoscalers", ns, f"keda-hpa-{name}")] = _hpa(2, 2)
    return out


def _drift(objects: dict[tuple[str, str, str], Any]) -> list[Any]:
    api = RecordedCustomObjectsApi(objects)

    def read(kind: tuple[str, str, str, str], names: Any) -> Any:
        return read_objects(kind, names, api=api)

    report = run(STACK, FIXTURES, DriftInputs(cluster=lambda: [], objects=read))
    return [i for i in report.items if i.address.startswith("service/")]


def test_healthy_services_are_no_drift() -> None:
    assert _drift(_healthy()) == []


def test_a_missing_scaled_object_is_drift() -> None:
    objects = _healthy()
    del objects[("scaledobjects", "small", "tiny")]
    [item] = _drift(objects)
    assert item.address == "service/small/tiny"
    assert item.summary == "ScaledObject small/tiny does not exist: nothing scales Deployment tiny"


@pytest.mark.parametrize("how", [{"autoscaling.keda.sh/paused": "true"},
                                 {"autoscaling.keda.sh/paused-replicas": "0"}])
def test_a_paused_scaled_object_is_drift(how: dict[str, str]) -> None:
    objects = _healthy()
    objects[("scaledobjects", "serve", "ranker")] = _scaled("ranker", annotations=how)
    [item] = _drift(objects)
    assert "is paused" in item.summary and next(iter(how)) in item.summary


def test_a_scaled_object_keda_cannot_serve_says_why() -> None:
    objects = _healthy()
    objects[("scaledobjects", "serve", "ranker")] = _scaled("ranker", ready="False")
    [item] = _drift(objects)
    assert item.summary == ("ScaledObject serve/ranker is not Ready: PrometheusScalerError "
                            "prometheus query returned multiple elements")


def test_at_replicas_max_with_more_wanted_is_capacity_limited() -> None:
    objects = _healthy()
    objects[("horizontalpodautoscalers", "small", "keda-hpa-tiny")] = _hpa(16, 16, limited=True)
    [item] = _drift(objects)
    assert item.summary == ("service tiny is capacity-limited: at replicas.max 16 and its "
                            "triggers ask for more")
    # below replicas.max the same condition is no finding (the HPA is not clamped by the stack)
    objects[("horizontalpodautoscalers", "small", "keda-hpa-tiny")] = _hpa(8, 8, limited=True)
    assert _drift(objects) == []


def test_replicas_waiting_to_run_are_reported() -> None:
    objects = _healthy()
    objects[("horizontalpodautoscalers", "serve", "keda-hpa-ranker")] = _hpa(3, 6)
    [item] = _drift(objects)
    assert (item.declared, item.observed) == (6, 3)


def test_active_is_a_note_not_drift() -> None:
    objects = _healthy()
    objects[("scaledobjects", "serve", "ranker")] = _scaled("ranker", active="True")
    api = RecordedCustomObjectsApi(objects)
    report = run(STACK, FIXTURES, DriftInputs(
        cluster=lambda: [], objects=lambda k, n: read_objects(k, n, api=api)))
    assert [n.summary for n in report.notes if n.address == "service/serve/ranker"] == [
        "ScaledObject serve/ranker is active"]


def test_a_forbidden_read_is_one_sentence_naming_the_resource() -> None:
    api = RecordedCustomObjectsApi({}, error=ApiException(status=403, reason="Forbidden"))
    with pytest.raises(ClusterUnavailableError, match="needs get on scaledobjects"):
        read_objects(services.SCALED_OBJECT, [("serve", "ranker")], api=api)


def test_an_answer_that_is_not_an_object_is_one_sentence() -> None:
    api = RecordedCustomObjectsApi({("scaledobjects", "serve", "ranker"): "<html>login</html>"})
    with pytest.raises(ClusterUnavailableError, match="not an object"):
        read_objects(services.SCALED_OBJECT, [("serve", "ranker")], api=api)
