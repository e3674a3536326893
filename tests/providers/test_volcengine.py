"""Volcengine VKE: what the rendered program does with the cluster it joins, and spot pools.

The rendered program is executed under Pulumi's mocks with the real ``pulumi_volcengine`` and
``pulumi_volcenginecc`` SDKs (``tests/pulumi_mocks.py``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpupool import assemble, clouds, render
from gpupool.providers import volcengine
from tests.pulumi_mocks import run_programs
from tests.stacks import load_stack
from tests.upstream_facts import volcengine as cc

pytestmark = pytest.mark.cloud_sdks

GET_KUBECONFIGS = "volcengine:vke/getKubeconfigs:getKubeconfigs"


def _render(tmp_path: Path) -> Path:
    stack = load_stack("volcengine-a10.yaml")
    render.render(stack, assemble.build(stack), tmp_path / "out")
    return tmp_path / "out"


def test_program_fails_closed_when_the_cluster_has_no_kubeconfig(tmp_path: Path) -> None:
    # pulumi/pulumi-kubernetes PR #2180 ("Load default kubeconfig if not specified in
    # provider"): a provider whose kubeconfig is unset loads the ambient kubeconfig, and
    # vke.get_kubeconfigs (pulumi-volcengine v0.0.47 vke/get_kubeconfigs.py) lists no
    # kubeconfig for a cluster that has no Kubeconfig object. The program must stop there
    # instead of applying the GPU Operator to whatever cluster the local kubeconfig points at.
    [run] = run_programs(
        [_render(tmp_path)], calls={GET_KUBECONFIGS: {"kubeconfigs": [], "totalCount": 0}}
    )
    assert run.error is not None
    assert "has no kubeconfig" in run.error
    assert "will not fall back to the local kubeconfig" in run.error
    # nothing inside the cluster was registered with a fallback configuration
    k8s = [r for r in run.resources if r["type"] == "pulumi:providers:kubernetes"]
    assert all(r["inputs"].get("kubeconfig") for r in k8s)


def test_program_uses_the_public_kubeconfig_when_there_is_one(tmp_path: Path) -> None:
    [run] = run_programs([_render(tmp_path)])
    assert run.error is None, run.error
    [k8s] = run.by_type("pulumi:providers:kubernetes")
    assert k8s["inputs"]["kubeconfig"].startswith("apiVersion: v1")
    assert "kubeconfig" in k8s["secrets"]


# -- spot: one Cloud Control node pool (pulumi-volcenginecc) ---------------------------------------

SPOT_STACK = "checks-spot-volcengine.yaml"


def _render_stack(name: str, out: Path) -> Path:
    stack = load_stack(name)
    render.render(stack, assemble.build(stack), out)
    return out


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def test_spot_pool_is_one_cloud_control_node_pool_buying_spot(tmp_path: Path) -> None:
    # pulumi-volcenginecc 0.0.64 vke/_inputs.py NodePoolNodeConfigArgs.spot_strategy (NoSpot |
    # SpotAsPriceGo) and NodePoolNodeConfigInstancesDistributionArgs, run under the mocks with
    # the real SDK: the inputs reach the registered resource under their wire names
    [run] = run_programs([_render_stack(SPOT_STACK, tmp_path / "out")])
    assert run.error is None, run.error
    spot = run.get(volcengine.SPOT_NODE_POOL, "batch")
    assert spot["provider"] == "pulumi:providers:volcenginecc::volcenginecc"
    config = spot["inputs"]["nodeConfig"]
    assert config["spotStrategy"] == "SpotAsPriceGo"
    # onDemandBase 2 and fallbackToOnDemand stay in the one node pool, nothing on-demand above it
    assert config["instancesDistribution"] == {
        "onDemandBaseCapacity": 2,
        "onDemandPercentageAboveBaseCapacity": 0,
        "compensateWithOnDemand": True,
    }
    # nodes 0..8 with a base of 2 that always runs: min 2, never more than nodes.max
    scaling = spot["inputs"]["autoScaling"]
    assert (scaling["minReplicas"], scaling["maxReplicas"], scaling["desiredReplicas"]) == (2, 8, 2)
    assert config["instanceTypeIds"] == ["ecs.gni2.3xlarge"]
    assert spot["inputs"]["clusterId"] == "cc-mock-id"  # the pulumi-volcengine lookup
    assert not [r for r in run.resources if r["name"].endswith("-od")]
    cc = run.get(volcengine.CC_PROVIDER, "volcenginecc")
    assert cc["inputs"]["region"] == "cn-beijing"
    # the on-demand pool stays a pulumi-volcengine node pool, without a spot strategy
    serve = run.get(volcengine.NODE_POOL, "serve")
    assert serve["provider"] == "pulumi:providers:volcengine::volcengine"
    assert "spotStrategy" not in serve["inputs"]["nodeConfig"]


def test_program_pins_volcenginecc_only_when_a_pool_is_spot(tmp_path: Path) -> None:
    spot = (_render_stack(SPOT_STACK, tmp_path / "spot") / "requirements.txt").read_text()
    plain = (_render(tmp_path) / "requirements.txt").read_text()
    assert "pulumi-volcenginecc==0.0.64\n" in spot and "pulumi-volcengine==0.0.47\n" in spot
    assert "volcenginecc" not in plain
    assert "import pulumi_volcenginecc" not in (tmp_path / "out" / "__main__.py").read_text()


def test_spot_inputs_are_the_cloud_control_schemas() -> None:
    # Volcengine_VKE_NodePool.json (terraform-provider-volcenginecc fe912e86, the Cloud Control
    # type pulumi-volcenginecc 0.0.64's vke.NodePool bridges; tests/upstream_facts/volcengine.py):
    # SpotStrategy's enum has no price-limit strategy, and the mixed-instance settings are
    # InstancesDistribution's properties
    assert cc.SPOT_STRATEGIES == ("NoSpot", volcengine.SPOT_STRATEGY)
    [np_] = [
        r
        for r in assemble.build(load_stack(SPOT_STACK)).resources
        if r.type == volcengine.SPOT_NODE_POOL
    ]
    sent = np_.inputs["node_config"]
    assert set(sent) <= {_snake(k) for k in cc.NODE_CONFIG}
    assert set(sent["instances_distribution"]) <= {_snake(k) for k in cc.INSTANCES_DISTRIBUTION}
    # OnDemandBaseCapacity "Value range: [0,500]": the most gpupool lets onDemandBase be on VKE
    assert clouds.get("volcengine").on_demand_base_max == cc.ON_DEMAND_BASE_CAPACITY_RANGE[1]


def test_spot_node_pool_is_replaced_only_for_its_create_only_inputs() -> None:
    # Volcengine_VKE_NodePool.json createOnlyProperties (the Terraform Cloud Control provider
    # marks them RequiresReplaceIfConfigured): of what gpupool sets, only NodeConfig.SpotStrategy;
    # ClusterId is not create-only there, so gpupool does not claim a replacement for it
    create_only = {
        ".".join(_snake(part) for part in path.removeprefix("/properties/").split("/"))
        for path in cc.CREATE_ONLY
    }
    [np_] = [
        r
        for r in assemble.build(load_stack(SPOT_STACK)).resources
        if r.type == volcengine.SPOT_NODE_POOL
    ]
    sent = {f"node_config.{k}" for k in np_.inputs["node_config"]} | set(np_.inputs)
    assert set(np_.replace_on) == create_only & sent == {"node_config.spot_strategy"}
    # the autoscaler owns the current size here too
    assert np_.ignore_changes == ("auto_scaling.desired_replicas",)
