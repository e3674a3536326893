"""Drift of the GPU scheduler: its Deployments' replicas against the stack's (``drift.scheduler``).

The Deployments are read with the official client's ``AppsV1Api.read_namespaced_deployment``
(kubernetes-client/python ``kubernetes/client/api/apps_v1_api.py``); a stand-in serves
``V1Deployment`` objects built by the client's own models, and a 404 is the client's
``ApiException``. ``spec.replicas`` and ``status.readyReplicas`` are the apps/v1 Deployment
fields (Kubernetes API reference, Deployment v1 apps; ``readyReplicas`` is omitted when 0).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("kubernetes")

from kubernetes.client import V1Deployment, V1DeploymentSpec, V1DeploymentStatus
from kubernetes.client.exceptions import ApiException

from gpupool.cluster import ClusterUnavailableError, ObservedDeployment, read_deployments
from gpupool.drift import scheduler
from gpupool.drift.run import DriftInputs, run
from gpupool.model import Stack
from tests.stacks import load_stack_text


def _stack(env: str, scheduler_name: str = "kai") -> Stack:
    return load_stack_text(
        f"""
apiVersion: gpupool.io/v1
kind: GpuPoolStack
metadata: {{name: ha, environment: {env}}}
provider: {{cloud: kubernetes}}
cluster: {{scheduler: {scheduler_name}}}
pools:
  - name: lab
    nodeNames: [n1, n2]
    gpu: {{model: A100-SXM4-80GB, count: 8}}
    workload: training
"""
    )


class RecordedAppsV1Api:
    """Serves Deployments by (namespace, name); anything else is the API server's 404."""

    def __init__(self, deployments: dict[tuple[str, str], tuple[int | None, int | None]],
                 error: Exception | None = None) -> None:
        self.deployments = deployments
        self.error = error
        self.calls: list[tuple[str, str]] = []

    def read_namespaced_deployment(self, name: str, namespace: str, **kwargs: Any) -> V1Deployment:
        self.calls.append((namespace, name))
        assert "_request_timeout" in kwargs
        if self.error is not None:
            raise self.error
        if (namespace, name) not in self.deployments:
            raise ApiException(status=404, reason="Not Found")
        replicas, ready = self.deployments[(namespace, name)]
        return V1Deployment(
            spec=V1DeploymentSpec(replicas=replicas, selector={}, template={}),
            status=V1DeploymentStatus(ready_replicas=ready),
        )


def test_read_deployments_reads_declared_and_ready_replicas() -> None:
    api = RecordedAppsV1Api({("kai-scheduler", "binder"): (2, None),
                             ("kai-scheduler", "pod-grouper"): (2, 2)})
    got = read_deployments([("kai-scheduler", "binder"), ("kai-scheduler", "pod-grouper"),
                            ("kai-scheduler", "kai-scheduler-default")], api=api)
    assert got == [
        ObservedDeployment("kai-scheduler", "binder", True, 2, 0),  # readyReplicas omitted: 0
        ObservedDeployment("kai-scheduler", "pod-grouper", True, 2, 2),
        ObservedDeployment("kai-scheduler", "kai-scheduler-default", False),
    ]


def test_a_forbidden_read_is_one_sentence() -> None:
    api = RecordedAppsV1Api({}, error=ApiException(status=403, reason="Forbidden"))
    with pytest.raises(ClusterUnavailableError, match="forbids reading Deployment kube-system/x"):
        read_deployments([("kube-system", "x")], api=api)


def test_production_kai_declares_two_replicas_of_three_deployments() -> None:
    assert scheduler.wanted(_stack("production")) == [
        ("kai-scheduler", "kai-scheduler-default"), ("kai-scheduler", "binder"),
        ("kai-scheduler", "pod-grouper")]
    assert scheduler.wanted(_stack("production", "default")) == []


def test_fewer_ready_replicas_than_declared_is_drift() -> None:
    stack = _stack("production")
    observed = [
        ObservedDeployment("kai-scheduler", "kai-scheduler-default", True, 2, 1),
        ObservedDeployment("kai-scheduler", "binder", True, 1, 1),
        ObservedDeployment("kai-scheduler", "pod-grouper", True, 2, 2),
    ]
    items = scheduler.compare(stack, observed)
    assert [(i.address, i.declared, i.observed) for i in items] == [
        ("scheduler/kai-scheduler/kai-scheduler-default", 2, 1),
        ("scheduler/kai-scheduler/binder", 2, 1),
    ]
    assert "1 of 2 declared replicas ready; one more failure" in items[0].summary
    assert "scaled to 1 replica(s), 2 declared" in items[1].summary


def test_a_missing_or_unready_single_scheduler_is_drift_and_a_healthy_one_is_not() -> None:
    stack = _stack("staging", "hami")  # one replica declared
    healthy = [ObservedDeployment("kube-system", "hami-scheduler", True, 1, 1)]
    assert scheduler.compare(stack, healthy) == []
    down = scheduler.compare(stack, [ObservedDeployment("kube-system", "hami-scheduler",
                                                        True, 1, 0)])
    assert len(down) == 1 and "none is ready" in down[0].summary
    gone = scheduler.compare(stack, [ObservedDeployment("kube-system", "hami-scheduler", False)])
    assert len(gone) == 1 and gone[0].observed is None and "does not exist" in gone[0].summary
    # more replicas than declared is not drift
    assert scheduler.compare(stack, [ObservedDeployment("kube-system", "hami-scheduler",
                                                        True, 3, 3)]) == []


def test_drift_run_reports_the_scheduler_through_the_cluster_source(tmp_path: Path) -> None:
    stack = _stack("production", "hami")
    asked: list[list[tuple[str, str]]] = []

    def deployments(names: Any) -> list[ObservedDeployment]:
        asked.append(list(names))
        return [ObservedDeployment("kube-system", "hami-scheduler", True, 2, 1)]

    report = run(stack, tmp_path / "s.yaml",
                 DriftInputs(cluster=lambda: [], deployments=deployments))
    assert asked == [[("kube-system", "hami-scheduler")]]
    # the named nodes are missing too (an empty node list); the scheduler is one more item
    scheduler_items = [i for i in report.items if i.address.startswith("scheduler/")]
    assert [(i.source, i.address) for i in scheduler_items] == [
        ("cluster", "scheduler/kube-system/hami-scheduler")]
    assert report.status == "drift"


class AnsweringAppsV1Api:
    """Answers every read with one JSON body, turned into a V1Deployment by the client itself
    (``ApiClient.deserialize``, as ``read_namespaced_deployment`` does with the server's body)."""

    def __init__(self, body: dict[str, Any]) -> None:
        from kubernetes.client import ApiClient, Configuration

        configuration = Configuration()
        configuration.host = "https://10.0.0.1:6443"
        self.api_client = ApiClient(configuration)
        self.body = body

    def read_namespaced_deployment(self, name: str, namespace: str, **kwargs: Any) -> Any:
        import json

        return self.api_client.deserialize(json.dumps(self.body), "V1Deployment",
                                           "application/json")


def test_a_deployment_without_a_selector_is_one_error_naming_the_server() -> None:
    """apps/v1 requires spec.selector (Kubernetes API reference, DeploymentSpec: "selector ...
    required"); the client's models refuse an answer without it (a pydantic ValidationError, an
    internal error of drift before). Now one sentence naming the server and the Deployment."""
    body = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "binder"},
            "spec": {"replicas": 2, "template": {}}}
    with pytest.raises(ClusterUnavailableError) as caught:
        read_deployments([("kai-scheduler", "binder")], api=AnsweringAppsV1Api(body))
    message = str(caught.value)
    assert "https://10.0.0.1:6443" in message and "kai-scheduler/binder" in message
    assert "selector" in message and "\n" not in message
    # with the selector the same answer is read
    body["spec"]["selector"] = {"matchLabels": {"app": "binder"}}
    got = read_deployments([("kai-scheduler", "binder")], api=AnsweringAppsV1Api(body))
    assert got == [ObservedDeployment("kai-scheduler", "binder", True, 2, 0)]
