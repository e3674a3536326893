"""Where NVSentinel cannot work as asked (``gpupool/spec/checks/faultisolation.py``).

The fixtures ``tests/fixtures/*/nvsentinel-*.yaml`` and ``sharing-nvsentinel-drain.yaml`` pin
each diagnostic on its line; these tests pin when each rule stays silent and where its edges are.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpupool import model
from gpupool.model import Stack
from gpupool.spec import schema
from gpupool.spec.checks import faultisolation

AWS: dict[str, Any] = {
    "apiVersion": "gpupool.io/v1",
    "kind": "GpuPoolStack",
    "metadata": {"name": "checks"},
    "provider": {
        "cloud": "aws",
        "region": "us-east-1",
        "cluster": "ml",
        "settings": {
            "subnetIds": ["subnet-0a1b2c3d4e5f60718"],
            "nodeRoleArn": "arn:aws:iam::123456789012:role/gpu-nodes",
        },
    },
    "pools": [
        {"name": "h100", "instanceType": "p5.48xlarge", "workload": "training",
         "nodes": {"min": 0, "max": 4}},
    ],
}  # fmt: skip


def stack(cluster: dict[str, Any], max_nodes: int = 4) -> Stack:
    doc = copy.deepcopy(AWS)
    doc["cluster"] = cluster
    doc["pools"][0]["nodes"]["max"] = max_nodes
    assert not schema.validate(doc)
    return model.build(doc, "checks.yaml")


def codes(s: Stack) -> set[str]:
    return {d.code for d in faultisolation.run(s)}


def sentinel(**fields: Any) -> dict[str, Any]:
    return {"faultIsolation": {"nvsentinel": fields}}


def test_nothing_without_nvsentinel() -> None:
    # an old cluster and the user's own operator concern NVSentinel only when it is installed
    assert codes(stack({"kubernetesVersion": "1.20", "gpuOperator": {"install": False}})) == set()


def test_the_default_monitor_needs_nothing_it_cannot_have() -> None:
    assert codes(stack(sentinel())) == set()


@pytest.mark.parametrize(("version", "too_old"), [("1.24", True), ("1.25", False), ("1.9", True)])
def test_kubernetes_minimum_is_upstreams(version: str, too_old: bool) -> None:
    # NVIDIA/NVSentinel v1.19.0 README.md, Prerequisites: "Kubernetes 1.25+". The minor is
    # compared as a number: 1.9 is older than 1.25.
    got = codes(stack({"kubernetesVersion": version, **sentinel()}))
    assert ("nvsentinel.kubernetes-too-old" in got) is too_old


def test_dry_run_warns_only_where_nothing_reads_it() -> None:
    # v1.19.0: global.dryRun is passed only to fault-quarantine, node-drainer and
    # fault-remediation (their templates/deployment.yaml --dry-run).
    assert codes(stack(sentinel(dryRun=True))) == {"nvsentinel.dry-run-without-action"}
    assert "nvsentinel.dry-run-without-action" not in codes(
        stack(sentinel(action="cordon", dryRun=True))
    )


@pytest.mark.parametrize("action", ["cordon", "drain"])
def test_cordon_and_drain_advise_on_the_datastore(action: str) -> None:
    found = faultisolation.run(stack(sentinel(action=action)))
    assert [(d.code, d.severity.value) for d in found] == [("nvsentinel.datastore-needs", "info")]


@pytest.mark.parametrize(("max_nodes", "trips"), [(1, True), (2, True), (3, False), (10, False)])
def test_circuit_breaker_trips_at_the_first_cordon_up_to_two_nodes(
    max_nodes: int, trips: bool
) -> None:
    # fault-quarantine/pkg/breaker/breaker.go (v1.19.0): threshold = ceil(nodes x 50 / 100), and
    # it trips once the recent cordons reach it; ceil(2 x 0.5) = 1, ceil(3 x 0.5) = 2.
    got = codes(stack(sentinel(action="cordon"), max_nodes=max_nodes))
    assert ("nvsentinel.circuit-breaker-trips-at-once" in got) is trips
    assert "nvsentinel.circuit-breaker-trips-at-once" not in codes(
        stack(sentinel(), max_nodes=max_nodes)
    )
