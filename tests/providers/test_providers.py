"""Cloud modules: node-pool resources, their facts, replacement paths, and the cloud checks."""

from __future__ import annotations

import dataclasses
import json

import pytest
import yaml

from gpupool import catalog, providers
from gpupool.clouds import aws as aws_cloud
from gpupool.clouds.azure import agent_pool_name
from gpupool.facts.groups import capacity_groups
from gpupool.graph import Lookup, Ref, ResourceGraph, order
from gpupool.model import Capacity, NodeRange, Sharing, Stack
from gpupool.providers import azure, common, expander
from gpupool.spec.checks import clouds
from tests.paths import EXAMPLES
from tests.plan.test_plan_fixtures import catalog_rows
from tests.stacks import load_stack, stack_file


def by_address(stack: Stack) -> dict:
    return {r.address: r for r in providers.build(stack).resources}


ALL_EXAMPLES = sorted(p.name for p in EXAMPLES.glob("*.yaml"))


@pytest.mark.parametrize("example_stack", ALL_EXAMPLES, indirect=True)
def test_every_node_pool_resource_has_exactly_the_plan_facts(example_stack: Stack) -> None:
    stack = example_stack
    result = providers.build(stack)
    pools = [r for r in result.resources if r.facts.get("kind") == "node-pool"]
    assert pools
    for res in pools:
        assert set(res.facts) == common.FACT_KEYS, res.address
        assert set(res.facts["sharing"]) == {"mode", "replicas", "mig_layout", "slots_per_gpu"}
        assert res.facts["capacity"] in ("spot", "on-demand")
        assert res.owner == f"pool:{res.facts['pool']}"
        assert res.address.startswith(f"pool.{res.facts['pool']}.")
        json.dumps(res.facts)  # plain data
    # every node-pool address is reported to the sharing modules, and only those
    reported = {a for addrs in result.node_pools.values() for a in addrs}
    assert reported == {r.address for r in pools}
    assert set(result.node_pools) == {p.name for p in stack.pools}
    assert result.k8s_provider == "cluster.k8s_provider"
    # the graph orders and round-trips (Lookup values included)
    graph = ResourceGraph(stack.name, stack.provider.cloud, order(list(result.resources)))
    assert ResourceGraph.from_json(json.loads(graph.dumps())) == graph


def test_aws_spot_pool_with_base_and_fallback_splits_in_two() -> None:
    res = by_address(load_stack("aws-inference-l4.yaml"))
    spot = res["pool.batch-l4-spot.node_group"]
    od = res["pool.batch-l4-spot.on_demand_node_group"]
    assert spot.inputs["capacity_type"] == "SPOT"
    assert od.inputs["capacity_type"] == "ON_DEMAND"
    # nodes 2..16, onDemandBase 2, fallback: spot above the base, on-demand up to the pool max
    assert spot.inputs["scaling_config"] == {"desired_size": 0, "max_size": 14, "min_size": 0}
    assert od.inputs["scaling_config"] == {"desired_size": 2, "max_size": 16, "min_size": 2}
    assert (spot.facts["capacity"], od.facts["capacity"]) == ("spot", "on-demand")
    # spot nodes at the catalog's spot sample, with that row's own price date
    price = catalog.instance("aws", "g6.2xlarge").price  # type: ignore[union-attr]
    assert spot.facts["price_hourly"] == price.spot_hourly < od.facts["price_hourly"]
    assert spot.facts["price_as_of"] == price.as_of
    assert od.facts["price_hourly"] == od.facts["on_demand_price_hourly"] > 0
    assert od.facts["price_as_of"]
    assert od.name == "batch-l4-spot-od"
    cm = res["cluster.autoscaler_priority_expander"]
    assert cm.provider == "cluster.k8s_provider"
    assert set(cm.depends_on) == {spot.address, od.address}
    text = cm.inputs["data"]["priorities"]
    assert '"^eks-batch-l4-spot-[0-9a-f]+-[0-9a-f]{8}-"' in text
    assert text.index("10:") < text.index("50:")


def _yaml_pool(name: str, pool: str) -> dict:
    data = yaml.safe_load(stack_file(name).read_text(encoding="utf-8"))
    (hit,) = [p for p in data["pools"] if p["name"] == pool]
    return hit


def test_a_declared_price_replaces_the_catalog_price_in_the_facts() -> None:
    """pools[].price is per GPU-hour: a node costs it times its GPUs, spot nodes at the spot
    figure and the on-demand base at perGpuHour; the facts name its source, with no catalog
    date. Without it the same pool has the catalog row's figures again."""
    stack = load_stack("price-declared-spot")
    price = _yaml_pool("price-declared-spot", "t4-spot")["price"]
    gpus = catalog_rows("aws")["g4dn.12xlarge"]["gpu_count"]
    res = by_address(stack)
    spot, od = res["pool.t4-spot.node_group"], res["pool.t4-spot.on_demand_node_group"]
    assert spot.facts["price_hourly"] == pytest.approx(price["spotPerGpuHour"] * gpus)
    assert od.facts["price_hourly"] == pytest.approx(price["perGpuHour"] * gpus)
    for r in (spot, od):
        assert r.facts["on_demand_price_hourly"] == pytest.approx(price["perGpuHour"] * gpus)
        assert r.facts["price_declared"] == price["source"]
        assert r.facts["price_currency"] == price["currency"]
        assert r.facts["price_as_of"] is None
    listed = dataclasses.replace(stack, pools=(dataclasses.replace(stack.pools[0], price=None),))
    bare = by_address(listed)["pool.t4-spot.node_group"].facts
    row = catalog_rows("aws")["g4dn.12xlarge"]["price"]
    assert bare["price_declared"] is None and bare["price_as_of"] == row["as_of"]
    assert (bare["price_hourly"], bare["on_demand_price_hourly"]) == (row["spot_hourly"],
                                                                      row["on_demand_hourly"])


def test_existing_nodes_carry_their_declared_price() -> None:
    """An existing node (one NodePatch each) costs its pool's rate times the GPUs it carries."""
    dgx = _yaml_pool("onprem-hami", "dgx")
    res = by_address(load_stack("onprem-hami"))
    for node in dgx["nodeNames"]:
        facts = res[f"pool.dgx.node.{node}"].facts
        assert facts["instance_type"] is None
        assert facts["price_hourly"] == pytest.approx(dgx["price"]["perGpuHour"]
                                                      * dgx["gpu"]["count"])  # fmt: skip
        assert facts["price_declared"] == dgx["price"]["source"]


@pytest.mark.parametrize(
    ("nodes", "base", "fallback", "want"),
    [
        ((0, 4, 0), 0, False, [("spot", 0, 4, 0)]),
        ((2, 10, 2), 3, False, [("spot", 0, 7, 0), ("on-demand", 3, 3, 3)]),
        ((5, 10, 5), 2, True, [("spot", 3, 8, 3), ("on-demand", 2, 10, 2)]),
        ((0, 6, 0), 0, True, [("spot", 0, 6, 0), ("on-demand", 0, 6, 0)]),
        ((4, 4, 4), 4, False, [("spot", 0, 1, 0), ("on-demand", 4, 4, 4)]),
    ],
)
def test_capacity_groups(nodes, base, fallback, want) -> None:
    pool = load_stack("aws-inference-l4.yaml").pools[2]
    pool = dataclasses.replace(
        pool,
        nodes=NodeRange(*nodes),
        capacity=Capacity("spot", base, None, fallback),
    )
    got = [(g.capacity, g.min, g.max, g.desired) for g in capacity_groups(pool, aws_cloud.CLOUD)]
    assert got == want


def test_aws_replace_paths_and_taints() -> None:
    res = by_address(load_stack("aws-inference-l4.yaml"))
    ng = res["pool.infer-l4.node_group"]
    for path in ("instance_types", "capacity_type", "ami_type", "subnet_ids", "node_role_arn"):
        assert path in ng.replace_on
    assert "scaling_config" not in ng.replace_on and "labels" not in ng.replace_on
    assert ng.inputs["ami_type"] == "AL2023_x86_64_NVIDIA"
    assert ng.inputs["taints"] == [
        {"key": "gpupool.io/pool", "value": "infer-l4", "effect": "NO_SCHEDULE"}
    ]
    # pool labels plus the labels the sharing configuration selects nodes by
    assert ng.inputs["labels"]["tier"] == "online"
    assert ng.inputs["labels"]["gpupool.io/pool"] == "infer-l4"
    assert ng.inputs["tags"] == {"cost-center": "4711", "team": "ml-platform"}
    kube = res["cluster.k8s_provider"]
    assert kube.inputs["kubeconfig"] == Lookup(
        "eks_kubeconfig", {"cluster_name": "ml-prod", "region": "us-east-1"}
    )


def test_aws_compact_pool_uses_a_placement_group_through_a_launch_template() -> None:
    res = by_address(load_stack("aws-training-compact.yaml"))
    pg = res["pool.h100-island.placement_group"]
    lt = res["pool.h100-island.launch_template"]
    assert pg.type == "aws:ec2/placementGroup:PlacementGroup"
    assert pg.inputs["strategy"] == "cluster"
    assert lt.inputs["placement"] == {"group_name": Ref(pg.address, "name")}
    for part in ("node_group", "on_demand_node_group"):
        ng = res[f"pool.h100-island.{part}"]
        assert ng.inputs["launch_template"] == {
            "id": Ref(lt.address, "id"),
            "version": Lookup("as_string", {"value": Ref(lt.address, "latest_version")}),
        }
    refs = {r.address for r in res["pool.h100-island.node_group"].refs()}
    assert refs == {lt.address}
    # onDemandBase 2 without fallback: the on-demand group is exactly the base
    od = res["pool.h100-island.on_demand_node_group"]
    assert od.inputs["scaling_config"] == {"desired_size": 2, "max_size": 2, "min_size": 2}


def test_gcp_node_pools() -> None:
    res = by_address(load_stack("gcp-training-h100-mig.yaml"))
    h100 = res["pool.train-h100.node_group"]
    accel = h100.inputs["node_config"]["guest_accelerators"][0]
    assert accel["type"] == "nvidia-h100-80gb" and accel["count"] == 8
    assert accel["gpu_driver_installation_config"] == {"gpu_driver_version": "DEFAULT"}
    assert h100.inputs["placement_policy"] == {"type": "COMPACT"}
    assert "placement_policy" not in res["pool.exp-a100-mig.node_group"].inputs
    compact = by_address(load_stack("clouds-gpudirect-not-configured.yaml"))
    assert compact["pool.a2.node_group"].inputs["placement_policy"] == {"type": "COMPACT"}
    assert h100.inputs["node_locations"] == ["us-central1-a"]
    assert h100.inputs["project"] == "research-ml-4711"
    assert h100.inputs["node_config"]["taints"] == [
        {"key": "gpupool.io/pool", "value": "train-h100", "effect": "NO_SCHEDULE"}
    ]
    assert "node_config.guest_accelerators" in h100.replace_on
    mig = res["pool.exp-a100-mig.node_group"]
    assert mig.inputs["node_config"]["spot"] is True
    assert mig.inputs["node_config"]["guest_accelerators"][0]["gpu_partition_size"] == "3g.40gb"
    assert res["pool.exp-a100-mig.on_demand_node_group"].inputs["node_config"]["spot"] is False
    shared = by_address(load_stack("gcp-inference-sharing.yaml"))["pool.l4-shared.node_group"]
    sharing = shared.inputs["node_config"]["guest_accelerators"][0]["gpu_sharing_config"]
    assert sharing == {"gpu_sharing_strategy": "TIME_SHARING", "max_shared_clients_per_gpu": 4}
    assert shared.inputs["autoscaling"]["total_max_node_count"] == 10


def test_gcp_with_the_operator_driver_leaves_the_gpu_stack_to_the_operator() -> None:
    stack = load_stack("sharing-gke-operator-driver")
    res = by_address(stack)
    for address in ("pool.sliced.node_group", "pool.mig.node_group"):
        config = res[address].inputs["node_config"]
        accel = config["guest_accelerators"][0]
        assert accel["gpu_driver_installation_config"] == {
            "gpu_driver_version": "INSTALLATION_DISABLED"
        }
        assert "gpu_sharing_config" not in accel and "gpu_partition_size" not in accel
        assert config["image_type"] == "UBUNTU_CONTAINERD"


def test_azure_agent_pools() -> None:
    res = by_address(load_stack("azure-kai-fair.yaml"))
    spot = res["pool.t4-spot.node_group"]
    assert spot.inputs["scale_set_priority"] == "Spot"
    assert spot.inputs["scale_set_eviction_policy"] == "Delete"
    assert spot.inputs["spot_max_price"] == 0.6
    assert azure.SPOT_TAINT in spot.inputs["node_taints"]
    assert "node_taints" in spot.replace_on and "vm_size" in spot.replace_on
    assert spot.inputs["resource_name_"] == "shared-aks"
    assert spot.inputs["mode"] == "User" and spot.inputs["enable_auto_scaling"] is True
    od = res["pool.t4-spot.on_demand_node_group"]
    assert "scale_set_priority" not in od.inputs and "node_taints" not in od.inputs
    assert od.inputs["agent_pool_name"] != spot.inputs["agent_pool_name"]
    a100 = res["pool.a100.node_group"]
    assert a100.inputs["agent_pool_name"] == "a100"
    assert a100.inputs["gpu_profile"] == {"driver": "Install"}
    mixed = by_address(load_stack("azure-mig-compact.yaml"))
    assert mixed["pool.notebooks.node_group"].inputs["gpu_instance_profile"] == "MIG1g"
    ppg = mixed["pool.nd-train.proximity_placement_group"]
    assert mixed["pool.nd-train.node_group"].inputs["proximity_placement_group_id"] == Ref(
        ppg.address, "id"
    )
    assert mixed["pool.nd-train.node_group"].inputs["availability_zones"] == ["1"]


@pytest.mark.parametrize(
    ("layout", "want"),
    [
        ((("3g.40gb", 2),), "MIG3g"),
        ((("1g.10gb", 7),), "MIG1g"),
        ((("1g.20gb", 4),), None),  # MIG1g makes 1g.10gb instances
        ((("1g.10gb", 3),), None),  # AKS always makes all seven
        ((("1g.10gb", 2), ("3g.40gb", 1)), None),
    ],
)
def test_aks_instance_profile_only_where_it_makes_the_layout(layout, want) -> None:
    pool = load_stack("gcp-training-h100-mig.yaml").pools[1]  # A100 80GB
    pool = dataclasses.replace(pool, sharing=Sharing("mig", mig_layout=layout))
    assert azure.mig_instance_profile(pool) == want


def test_aks_agent_pool_names() -> None:
    names = {
        agent_pool_name(n, od)
        for n in ("a100", "t4-spot", "t4spot", "1abc", "x" * 40)
        for od in (False, True)
    }
    assert len(names) == 10
    for name in names:
        assert 1 <= len(name) <= 12 and name.isalnum() and name[0].isalpha() and name.islower()


def test_volcengine_node_pool() -> None:
    res = by_address(load_stack("volcengine-a10.yaml"))
    prov = res["cloud.provider"]
    assert prov.type == "pulumi:providers:volcengine"
    assert prov.inputs == {"region": "cn-beijing"}
    np_ = res["pool.a10.node_group"]
    assert np_.provider == "cloud.provider"
    provider = Ref("cloud.provider", "")
    assert np_.inputs["cluster_id"] == Lookup(
        "vke_cluster_id", {"cluster": "cc5silt2b4ndeifgq0pq0", "provider": provider}
    )
    node = np_.inputs["node_config"]
    assert node["instance_type_ids"] == ["ecs.gni2.3xlarge"]
    assert node["security"] == {"security_group_ids": ["sg-1v9zvjkmx14w51j8ehbxrq8u7"]}
    assert {"key": "gpupool.io/pool", "value": "a10", "effect": "NoSchedule"} in (
        np_.inputs["kubernetes_config"]["taints"]
    )
    assert np_.facts["gpu"] == "A10" and np_.facts["price_hourly"] is None
    # the Kubernetes provider is ordered after the Volcengine provider its lookup uses
    graph = order(list(providers.build(load_stack("volcengine-a10.yaml")).resources))
    addresses = [r.address for r in graph]
    assert addresses.index("cloud.provider") < addresses.index("cluster.k8s_provider")


def test_kubernetes_patches_labels_on_named_nodes() -> None:
    res = by_address(load_stack("onprem-hami.yaml"))
    patch = res["pool.dgx.node.dgx-01"]
    assert patch.type == "kubernetes:core/v1:NodePatch"
    assert patch.provider == "cluster.k8s_provider"
    meta = patch.inputs["metadata"]
    assert meta["name"] == "dgx-01"
    assert meta["annotations"] == {"pulumi.com/patchForce": "true"}
    assert meta["labels"]["gpupool.io/pool"] == "dgx"
    assert "spec" not in patch.inputs  # taints are never patched
    assert patch.facts["nodes_min"] == patch.facts["nodes_max"] == 1
    assert patch.facts["gpus_per_node"] == 8 and patch.facts["instance_type"] is None
    assert res["cluster.k8s_provider"].inputs == {
        "context": "lab-admin",
        "enable_server_side_apply": True,
    }


def test_priority_expander_document_quotes_every_pattern() -> None:
    text = expander.priorities(['^eks-a-"b'])
    assert '"^eks-a-\\"b"' in text
    assert expander.regex_literal("a.b-c") == "a\\.b-c"


# -- gpupool.spec.checks.clouds ---------------------------------------------------------------


def codes(stack: Stack) -> list[str]:
    return sorted(d.code for d in clouds.run(stack))


@pytest.mark.parametrize("example_stack", ALL_EXAMPLES, indirect=True)
def test_examples_pass_the_cloud_checks(example_stack: Stack) -> None:
    assert codes(example_stack) == []


def test_gke_mig_needs_one_profile_at_its_full_count() -> None:
    stack = load_stack("gcp-training-h100-mig.yaml")
    pool = stack.pools[1]

    def with_layout(*layout) -> Stack:
        # the A100 pool alone: the H100 pool's GPUDirect networks need GKE's own driver
        p = dataclasses.replace(pool, sharing=Sharing("mig", mig_layout=tuple(layout)))
        return dataclasses.replace(stack, pools=(p,))

    assert codes(with_layout(("1g.10gb", 2), ("3g.40gb", 1))) == ["clouds.gke-mig-mixed-layout"]
    diags = clouds.run(with_layout(("1g.10gb", 3)))
    assert [d.code for d in diags] == ["clouds.gke-mig-partial-layout"]
    assert diags[0].path == ("pools", 1, "sharing", "mig", "layout")
    assert "{1g.10gb: 7}" in diags[0].detail
    # with the GPU Operator's driver the MIG Manager applies any layout
    op = dataclasses.replace(
        stack.cluster,
        gpu_operator=dataclasses.replace(stack.cluster.gpu_operator, driver="operator"),
    )
    assert codes(dataclasses.replace(with_layout(("1g.10gb", 3)), cluster=op)) == []


def test_cloud_name_rules() -> None:
    stack = load_stack("aws-inference-l4.yaml")
    clash = dataclasses.replace(stack.pools[0], name="batch-l4-spot-od")
    assert codes(dataclasses.replace(stack, pools=(*stack.pools, clash))) == [
        "clouds.node-pool-name-clash"
    ]
    gke = load_stack("gcp-training-h100-mig.yaml")
    long = dataclasses.replace(gke.pools[1], name="a" * 31)  # 31 + "-od" > 32
    assert codes(dataclasses.replace(gke, pools=(gke.pools[0], long))) == [
        "clouds.gke-name-too-long"
    ]


def test_placement_and_node_rules() -> None:
    vke = load_stack("volcengine-a10.yaml")
    compact = dataclasses.replace(vke.pools[0], topology="compact")
    assert codes(dataclasses.replace(vke, pools=(compact,))) == ["clouds.compact-unsupported"]
    aws = load_stack("aws-training-compact.yaml")
    wide = dataclasses.replace(aws.pools[0], zones=("us-east-1a", "us-east-1b"))
    assert codes(dataclasses.replace(aws, pools=(wide, aws.pools[1]))) == [
        "clouds.compact-multi-zone"
    ]
    onprem = load_stack("onprem-hami.yaml")
    twice = dataclasses.replace(onprem.pools[1], node_names=("dgx-01",))
    # A node in two pools is reported once, by the structural rules, not again here.
    assert codes(dataclasses.replace(onprem, pools=(onprem.pools[0], twice))) == []
