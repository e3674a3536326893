"""Rendering checks and the invariants ``sharing.build`` enforces itself.

``gpupool.spec.checks.rendering`` flags combinations that validate elsewhere but cannot be
rendered faithfully; ``sharing.build`` refuses them too.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from gpupool import facts, model, sharing
from gpupool.errors import RenderError
from gpupool.graph import CloudResult
from gpupool.model import Fractional, Stack
from gpupool.sharing import deviceplugin, kai, pools
from gpupool.spec import schema
from gpupool.spec.checks import rendering, structure
from tests.paths import EXAMPLES, FIXTURES
from tests.stacks import load_stack

CLEAN = sorted(EXAMPLES.glob("*.yaml")) + sorted((FIXTURES / "valid").glob("sharing-*.yaml"))

BASE: dict[str, Any] = {
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
    "cluster": {"gpuOperator": {"install": True, "driver": "preinstalled"}, "scheduler": "default"},
    "pools": [],
    "tenants": [],
}
L4 = {"instanceType": "g6.2xlarge", "workload": "inference", "nodes": {"min": 1, "max": 4}}
A100 = {"instanceType": "p4de.24xlarge", "workload": "mixed", "nodes": {"min": 1, "max": 2}}


def stack(
    pools_: list[dict[str, Any]], tenants: list[dict[str, Any]] = (), **cluster: Any
) -> Stack:
    doc = copy.deepcopy(BASE)
    doc["pools"] = pools_
    doc["tenants"] = list(tenants)
    doc["cluster"].update(cluster)
    # The rendering rules are part of validation now, so a stack that breaks one of them never
    # comes out of validate_text: build the model directly from schema-valid data instead, and
    # check the other rule families stay silent so each test isolates one rendering rule.
    assert not schema.validate(doc)
    built = model.build(doc, "checks.yaml")
    others = [d for fam in (structure,) for d in fam.run(built, doc) if d.is_error]
    assert not others, [d.summary for d in others]
    return built


def codes(s: Stack) -> set[tuple[str, str]]:
    return {(d.severity.value, d.code) for d in rendering.run(s)}


def build(s: Stack) -> list[Any]:
    cloud = CloudResult((), "p", {p.name: (f"np.{p.name}",) for p in s.pools})
    return sharing.build(s, cloud)


@pytest.mark.parametrize("path", CLEAN, ids=lambda p: p.stem)
def test_examples_and_fixtures_render_cleanly(path: Path) -> None:
    found = rendering.run(load_stack(path))
    if path.parent.name == "examples":
        assert found == []
    else:  # fixtures may show a warning they mark (the fixture test checks the markers)
        assert [d for d in found if d.is_error] == []


def test_mps_beside_mixed_mig_is_an_error() -> None:
    s = stack(
        [
            {
                **A100,
                "name": "mig",
                "sharing": {"mode": "mig", "mig": {"layout": {"3g.40gb": 1, "2g.20gb": 2}}},
            },
            {**L4, "name": "mps", "sharing": {"mode": "mps", "replicas": 4}},
        ]
    )
    diags = rendering.run(s)
    assert [(d.severity.value, d.code) for d in diags] == [("error", "sharing.mps-with-mig-mixed")]
    assert diags[0].path == ("pools", 1, "sharing", "mode")
    with pytest.raises(RenderError, match="mps-with-mig-mixed"):
        build(s)


def test_mps_beside_single_profile_mig_is_fine() -> None:
    s = stack(
        [
            {**A100, "name": "mig", "sharing": {"mode": "mig", "mig": {"layout": {"3g.40gb": 2}}}},
            {**L4, "name": "mps", "sharing": {"mode": "mps", "replicas": 4}},
        ]
    )
    assert codes(s) == set()
    assert build(s)


@pytest.mark.parametrize(
    "sharing_",
    [
        {"mode": "time-slicing", "replicas": 2},
        {"mode": "mps", "replicas": 2},
        {"mode": "mig", "mig": {"layout": {"3g.40gb": 2}}},
    ],
    ids=lambda x: x["mode"],
)
def test_hami_cannot_render_device_plugin_modes(sharing_: dict[str, Any]) -> None:
    base = A100 if sharing_["mode"] == "mig" else L4
    s = stack([{**base, "name": "p", "sharing": sharing_}], scheduler="hami")
    assert codes(s) == {("error", "hami.mode-unsupported")}
    with pytest.raises(RenderError):
        build(s)


def test_hami_overcommit_must_agree_on_cloud_pools() -> None:
    s = stack(
        [
            {
                **L4,
                "name": "a",
                "sharing": {"mode": "fractional", "fractional": {"slotsPerGpu": 2}},
            },
            {
                **L4,
                "name": "b",
                "sharing": {
                    "mode": "fractional",
                    "fractional": {"slotsPerGpu": 2, "memoryOvercommit": 1.5},
                },
            },
        ],
        scheduler="hami",
    )
    assert codes(s) == {("error", "hami.overcommit-differs")}


def test_hami_split_count_shared_is_a_warning() -> None:
    s = stack(
        [
            {
                **L4,
                "name": "a",
                "sharing": {"mode": "fractional", "fractional": {"slotsPerGpu": 2}},
            },
            {
                **L4,
                "name": "b",
                "sharing": {"mode": "fractional", "fractional": {"slotsPerGpu": 8}},
            },
        ],
        scheduler="hami",
    )
    assert codes(s) == {("warning", "hami.split-count-shared")}
    release = next(r for r in build(s) if r.address == "helm.hami")
    assert release.facts["values"]["devicePlugin"]["deviceSplitCount"] == 8


def test_hami_without_own_operator_warns() -> None:
    s = stack(
        [{**L4, "name": "a", "sharing": {"mode": "fractional", "fractional": {"slotsPerGpu": 2}}}],
        scheduler="hami",
        gpuOperator={"install": False},
    )
    assert codes(s) == {("warning", "hami.nvidia-plugin-running")}


@pytest.mark.parametrize("namespace", ["kube-system", "gpu-operator", "kai-scheduler", "default"])
def test_reserved_namespaces(namespace: str) -> None:
    s = stack([{**L4, "name": "a"}], [{"name": "t", "namespace": namespace, "pools": ["a"]}])
    assert ("error", "tenant.reserved-namespace") in codes(s)


@pytest.mark.parametrize("name", ["default-queue", "default-parent-queue", "gpupool-checks"])
def test_kai_queue_names_taken(name: str) -> None:
    s = stack(
        [{**L4, "name": "a"}],
        [{"name": name, "pools": ["a"], "priority": "low", "quota": {"gpus": 1}}],
        scheduler="kai",
    )
    assert codes(s) == {("error", "kai.queue-name-taken")}


def test_kai_non_preemptible_without_quota_warns() -> None:
    s = stack(
        [{**L4, "name": "a"}],
        [{"name": "t", "pools": ["a"], "priority": "normal"}],
        scheduler="kai",
    )
    assert codes(s) == {("warning", "kai.non-preemptible-without-quota")}
    low = stack(
        [{**L4, "name": "a"}], [{"name": "t", "pools": ["a"], "priority": "low"}], scheduler="kai"
    )
    assert codes(low) == set()


def test_kai_queue_units_differ_warns_and_uses_smallest() -> None:
    s = stack(
        [
            {**L4, "name": "whole"},
            {**L4, "name": "sliced", "sharing": {"mode": "time-slicing", "replicas": 4}},
        ],
        [
            {
                "name": "t",
                "pools": ["whole", "sliced"],
                "priority": "low",
                "quota": {"gpus": 2},
                "limit": {"gpus": 3},
            }
        ],
        scheduler="kai",
    )
    assert codes(s) == {("warning", "kai.queue-units-differ")}
    q = next(r for r in build(s) if r.address == "k8s.queue.t")
    assert q.manifest["spec"]["resources"]["gpu"] == {"quota": 2, "overQuotaWeight": 1, "limit": 3}


# --------------------------------------------------------------------------- build invariants


def test_device_plugin_config_invariants() -> None:
    both = {
        "version": "v1",
        "sharing": {
            "timeSlicing": {"resources": [{"name": "nvidia.com/gpu", "replicas": 2}]},
            "mps": {"resources": [{"name": "nvidia.com/gpu", "replicas": 2}]},
        },
    }
    with pytest.raises(RenderError, match="both"):
        deviceplugin.check(both)
    renamed = {
        "sharing": {
            "timeSlicing": {"resources": [{"name": "nvidia.com/gpu", "replicas": 2, "rename": "x"}]}
        }
    }
    with pytest.raises(RenderError, match="rename"):
        deviceplugin.check(renamed)
    mig_mps = {
        "sharing": {"mps": {"resources": [{"name": "nvidia.com/mig-1g.10gb", "replicas": 2}]}}
    }
    with pytest.raises(RenderError, match="MPS"):
        deviceplugin.check(mig_mps)


def test_queue_without_resources_is_refused() -> None:
    with pytest.raises(RenderError, match=r"spec\.resources"):
        kai.check({"displayName": "x"})
    with pytest.raises(RenderError, match="gpu"):
        kai.check({"resources": {"gpu": {"quota": 1}, "cpu": {}, "memory": {}}})


def test_gpu_fraction_must_be_below_one() -> None:
    s = stack(
        [{**L4, "name": "a", "sharing": {"mode": "fractional", "fractional": {"slotsPerGpu": 2}}}],
        scheduler="kai",
    )
    pool = s.pools[0]
    assert pools.slot(pool).fraction == 0.5
    whole = replace(
        pool,
        sharing=replace(pool.sharing, fractional=Fractional(2, None, 100, None, 1.0)),
    )
    with pytest.raises(RenderError, match="strictly between 0 and 1"):
        pools.slot(whole)


def test_node_labels_under_each_scheduler() -> None:
    pool = {**L4, "name": "a", "sharing": {"mode": "fractional", "fractional": {"slotsPerGpu": 2}}}
    on_hami = stack([pool], scheduler="hami")
    assert facts.node_labels(on_hami, on_hami.pools[0]) == {
        "gpupool.io/pool": "a",
        "nvidia.com/mig.config": "all-disabled",
        "gpu": "on",
    }
    on_kai = stack([pool], scheduler="kai")
    assert facts.node_labels(on_kai, on_kai.pools[0]) == {
        "gpupool.io/pool": "a",
        "nvidia.com/device-plugin.config": "pool-a",
        "nvidia.com/mig.config": "all-disabled",
    }
