"""The plan's diff, reasons and cost on hand-built resource graphs (no graph builder involved).

Helpers here build node-pool resources with exactly the facts the cloud modules give them, a
cluster-wide sharing config with per-pool facts, and tenant resources; other plan test modules
import them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import pytest

from gpupool import plan
from gpupool.graph import Ref, Resource, ResourceGraph
from gpupool.plan import MISSING, REPLACE, InputChange, MinMax

MEMORY = {"L4": 24.0, "L40S": 48.0, "A100-SXM4-80GB": 80.0}
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"


def node_pool(
    pool: str = "infer",
    *,
    instance: str | None = "g6.xlarge",
    gpu: str = "L4",
    capacity: str = "on-demand",
    lo: int = 1,
    hi: int = 8,
    per_node: int = 1,
    price: float | None = 0.8048,
    on_demand: float | None = 0.8048,
    sharing: Mapping[str, Any] | None = None,
    part: str = "node_group",
    cloud_type: str = NODE_GROUP,
    currency: str | None = "USD",
    declared: str | None = None,
) -> Resource:
    """A node-pool resource as a cloud module builds it (inputs loosely EKS-shaped)."""
    share = dict(sharing or {"mode": "time-slicing", "replicas": 4, "mig_layout": {}})
    share.setdefault("slots_per_gpu", share.get("replicas") or 1)
    return Resource(
        address=f"pool.{pool}.{part}",
        type=cloud_type,
        name=pool if part == "node_group" else f"{pool}-od",
        inputs={
            "cluster_name": Ref("cluster.eks", "name"),
            "instance_types": [instance],
            "capacity_type": "SPOT" if capacity == "spot" else "ON_DEMAND",
            "scaling_config": {"min_size": lo, "max_size": hi, "desired_size": lo},
            "labels": {"gpupool.io/pool": pool},
        },
        replace_on=("instance_types", "capacity_type", "launch_template.id"),
        owner=f"pool:{pool}",
        facts={
            "kind": "node-pool",
            "pool": pool,
            "gpu": gpu,
            "gpu_memory_gib": MEMORY.get(gpu),
            "gpus_per_node": per_node,
            "instance_type": instance,
            "capacity": capacity,
            "nodes_min": lo,
            "nodes_max": hi,
            "price_hourly": price,
            "on_demand_price_hourly": on_demand,
            "price_as_of": None if declared is not None else "2026-07-20",
            "price_currency": currency,
            "price_declared": declared,
            "sharing": share,
        },
    )


def sharing_config(pools: Mapping[str, Mapping[str, Any]]) -> Resource:
    """The cluster-wide device-plugin ConfigMap with one facts entry per pool."""
    return Resource(
        address="k8s.configmap.gpu-operator.gpupool-device-plugin-config",
        type="kubernetes:core/v1:ConfigMap",
        name="gpu-operator/gpupool-device-plugin-config",
        inputs={"data": {f"pool-{name}": repr(sorted(f.items())) for name, f in pools.items()}},
        facts={
            "mig_strategy": "single",
            "pools": {name: {"pool": name, **f} for name, f in pools.items()},
        },
    )


def queue(tenant: str, quota: float | None, limit: float | None) -> Resource:
    """A tenant's KAI queue with its quota facts."""
    return Resource(
        address=f"k8s.queue.{tenant}",
        type="kubernetes:scheduling.run.ai/v2:Queue",
        name=tenant,
        inputs={"spec": {"resources": {"gpu": {"quota": quota, "limit": -1 if limit is None
                                                                          else limit}}}},
        owner=f"tenant:{tenant}",
        facts={"tenant": tenant, "quota_gpus": quota, "limit_gpus": limit},
    )  # fmt: skip


def graph(*resources: Resource, cloud: str = "aws") -> ResourceGraph:
    """A graph of the given resources."""
    return ResourceGraph("ml-prod", cloud, tuple(resources))


def change(base: ResourceGraph, desired: ResourceGraph, address: str) -> plan.ResourceChange:
    """The planned change of one address."""
    return next(c for c in plan.diff(base, desired) if c.address == address)


POOL = "pool.infer.node_group"


# ---------------------------------------------------------------------------- actions


def test_first_plan_creates_everything() -> None:
    """Against an empty base every resource is a create; the summary counts them as adds."""
    desired = graph(node_pool(), queue("search", 2, None))
    changes = plan.diff(graph(), desired)
    assert [c.actions for c in changes] == [plan.CREATE, plan.CREATE]
    assert plan.summarize(changes) == plan.Summary(add=2, change=0, destroy=0, replace=0)


def test_identical_graphs_are_all_no_op() -> None:
    """The same graph twice plans only no-ops."""
    g = graph(node_pool(), queue("search", 2, None))
    changes = plan.diff(g, g)
    assert {c.actions for c in changes} == {plan.NO_OP}
    assert plan.summarize(changes) == plan.Summary(0, 0, 0, 0)


def test_removed_resource_is_a_delete() -> None:
    """A resource only the base has is deleted."""
    assert change(graph(node_pool()), graph(), POOL).actions == plan.DELETE


def test_replace_counts_as_add_destroy_and_replace() -> None:
    """Terraform's counting: a replace is one add, one destroy and one replace."""
    base = graph(node_pool(), queue("a", 1, None), queue("gone", 1, None))
    desired = graph(node_pool(instance="g6e.xlarge", gpu="L40S"), queue("a", 2, None),
                    queue("new", 1, None))  # fmt: skip
    summary = plan.summarize(plan.diff(base, desired))
    assert summary == plan.Summary(add=2, change=1, destroy=2, replace=1)


def test_changed_input_under_replace_on_is_a_replace_with_its_path() -> None:
    """A change under replace_on gives actions create+delete and the replace_on path.

    Pulumi creates the replacement first unless the resource sets deleteBeforeReplace (Pulumi
    docs, "Resource option: deleteBeforeReplace"), and the rendered program sets it on no EKS
    resource, so an EKS node group is replaced create-first (Terraform's ["create", "delete"]).
    """
    c = change(graph(node_pool()), graph(node_pool(instance="g6e.xlarge", gpu="L40S")), POOL)
    assert c.actions == REPLACE == ("create", "delete")
    assert not c.deletes_first
    assert c.replace_paths == (("instance_types",),)
    assert c.changes == (InputChange(("instance_types", 0), "g6.xlarge", "g6e.xlarge", True),)


def test_nested_replace_on_path_matches_a_whole_new_subtree() -> None:
    """A new launch_template mapping touches replace_on 'launch_template.id': a replace."""
    before = node_pool()
    after = replace(before, inputs={**before.inputs, "launch_template": {"id": Ref("lt", "id")}})
    c = change(graph(before), graph(after), POOL)
    assert c.actions == REPLACE
    assert c.replace_paths == (("launch_template", "id"),)
    assert c.changes[0].before is MISSING


def test_changed_input_outside_replace_on_is_an_update() -> None:
    """Scaling changes update in place; the dotted path names the leaf."""
    c = change(graph(node_pool(hi=8)), graph(node_pool(hi=4)), POOL)
    assert c.actions == plan.UPDATE
    assert [ic.dotted for ic in c.changes] == ["scaling_config.max_size"]
    assert c.replace_paths == ()


def test_type_change_is_a_replace() -> None:
    """A different type token at the same address is a different resource: replace."""
    before = node_pool()
    after = replace(before, type="aws:eks/nodeGroupV2:NodeGroup")
    c = change(graph(before), graph(after), POOL)
    assert c.actions == REPLACE
    assert "a different kind of resource" in c.reasons[0]


def test_refs_compare_by_address_and_attribute() -> None:
    """Equal Refs are no change; another attribute or a plain string in its place is."""
    base = node_pool()
    same = replace(base, inputs={**base.inputs, "cluster_name": Ref("cluster.eks", "name")})
    other_attr = replace(base, inputs={**base.inputs, "cluster_name": Ref("cluster.eks", "arn")})
    literal = replace(base, inputs={**base.inputs, "cluster_name": "cluster.eks.name"})
    assert change(graph(base), graph(same), POOL).actions == plan.NO_OP
    assert change(graph(base), graph(other_attr), POOL).actions == plan.UPDATE
    assert change(graph(base), graph(literal), POOL).actions == plan.UPDATE


def test_tuples_equal_lists_but_booleans_are_not_numbers() -> None:
    """A recorded graph has lists where a built one has tuples; True is not 1."""
    assert plan.diff_inputs({"a": ("x", "y")}, {"a": ["x", "y"]}) == []
    assert plan.diff_inputs({"a": 1}, {"a": True}) == [InputChange(("a",), 1, True)]
    assert plan.diff_inputs({"a": 1}, {"a": 1.0}) == []


def test_lists_of_other_length_change_as_a_whole() -> None:
    """A list that grows is one change at the list's path, not a change per index."""
    assert plan.diff_inputs({"z": ["a"]}, {"z": ["a", "b"]}) == [
        InputChange(("z",), ["a"], ["a", "b"])
    ]


def test_added_and_removed_keys() -> None:
    """New keys come with MISSING before, removed keys with MISSING after."""
    changes = plan.diff_inputs({"old": 1, "same": 2}, {"same": 2, "new": 3})
    assert changes == [InputChange(("new",), MISSING, 3), InputChange(("old",), 1, MISSING)]


def test_pool_resources_come_before_tenants_and_cluster() -> None:
    """Changes are ordered pools first, then tenants, then cluster-wide resources."""
    desired = graph(sharing_config({"infer": {"mode": "exclusive"}}), queue("a", 1, None),
                    node_pool())  # fmt: skip
    assert [c.owner for c in plan.diff(graph(), desired)] == ["pool:infer", "tenant:a", "cluster"]


# ---------------------------------------------------------------------------- reasons


def test_reason_gpu_memory_change_replaces_nodes() -> None:
    """L4 -> L40S: instance type, GPU model and GPU memory reasons, and the GPUs that leave."""
    c = change(graph(node_pool(hi=8)), graph(node_pool(instance="g6e.xlarge", gpu="L40S")), POOL)
    assert c.reasons == (
        "instance type g6.xlarge -> g6e.xlarge",
        "GPU model L4 -> L40S",
        "GPU memory 24 GiB -> 48 GiB: GPU memory cannot be resized in place, nodes are replaced",
        "Pulumi creates the new node group before it deletes the old one",
        "8 nodes x 1 GPU = up to 8 GPUs leave at once at nodes.max",
    )


def test_reason_blast_radius_counts_gpus_per_node() -> None:
    """A replaced 4-node pool of 8-GPU machines takes 32 GPUs away at once."""
    base = node_pool(hi=4, per_node=8, instance="p4de.24xlarge", gpu="A100-SXM4-80GB")
    desired = replace(base, inputs={**base.inputs, "instance_types": ["p4d.24xlarge"]})
    c = change(graph(base), graph(desired), POOL)
    assert "4 nodes x 8 GPUs = up to 32 GPUs leave at once at nodes.max" in c.reasons
    # no fact changed, so the forcing input is named instead
    assert "instance_types cannot change in place: AWS replaces the node group" in c.reasons


@pytest.mark.parametrize(
    ("cloud", "words"),
    [("aws", "AWS replaces the node group"), ("gcp", "GCP replaces the node pool"),
     ("azure", "Azure replaces the node pool")],
)  # fmt: skip
def test_reason_spot_to_on_demand_names_the_cloud(cloud: str, words: str) -> None:
    """Capacity type changes say which cloud replaces what."""
    base = graph(node_pool(capacity="spot", price=0.3), cloud=cloud)
    c = change(base, graph(node_pool(), cloud=cloud), POOL)
    assert c.actions == REPLACE
    assert f"spot -> on-demand: {words}" in c.reasons


def test_reason_time_slicing_replicas_halve_the_slot_memory() -> None:
    """Replicas 4 -> 8 on a 24 GiB L4: each slot's memory share halves, with no isolation."""
    base = graph(node_pool(), sharing_config({"infer": {"mode": "time-slicing", "replicas": 4}}))
    desired = graph(node_pool(), sharing_config({"infer": {"mode": "time-slicing", "replicas": 8}}))
    c = change(base, desired, "k8s.configmap.gpu-operator.gpupool-device-plugin-config")
    assert c.actions == plan.UPDATE
    assert c.reasons == (
        "pool infer: time-slicing replicas 4 -> 8: slot memory share halves (6 GiB -> 3 GiB), "
        "no isolation",
    )


def test_reason_per_pool_sharing_config_facts() -> None:
    """A per-pool sharing config resource (facts pool/mode/replicas) explains itself."""

    def config(replicas: int) -> Resource:
        return Resource("pool.infer.sharing", "kubernetes:core/v1:ConfigMap", "infer",
                        {"data": {"replicas": str(replicas)}}, owner="pool:infer",
                        facts={"pool": "infer", "mode": "mps", "replicas": replicas,
                               "mig_layout": None})  # fmt: skip

    c = change(graph(node_pool(), config(4)), graph(node_pool(), config(2)), "pool.infer.sharing")
    assert c.reasons == (
        "MPS replicas 4 -> 2: each client's memory limit doubles (6 GiB -> 12 GiB), enforced by "
        "MPS",
    )


def test_reason_mig_layout_change_evicts_pods() -> None:
    """A MIG layout change through the MIG manager says running pods are evicted."""
    before = {"mode": "mig", "replicas": None, "mig_layout": {"3g.40gb": 2}}
    after = {"mode": "mig", "replicas": None, "mig_layout": {"1g.10gb": 3, "3g.40gb": 1}}
    c = change(graph(sharing_config({"exp": before})), graph(sharing_config({"exp": after})),
               "k8s.configmap.gpu-operator.gpupool-device-plugin-config")  # fmt: skip
    assert c.reasons == (
        "pool exp: MIG layout {3g.40gb: 2} -> {1g.10gb: 3, 3g.40gb: 1}: MIG manager reconfigures "
        "the GPUs; running pods on those GPUs are evicted",
    )


def test_reason_mig_layout_on_a_replaced_node_pool_says_nodes_are_replaced() -> None:
    """Where the node pool partitions the GPUs (GKE), a new layout means new nodes."""
    mig = {"mode": "mig", "replicas": None, "mig_layout": {"3g.40gb": 2}, "slots_per_gpu": 2}
    base = node_pool(gpu="A100-SXM4-80GB", sharing=mig, hi=6)
    new_mig = {**mig, "mig_layout": {"1g.10gb": 7}, "slots_per_gpu": 7}
    desired = replace(base, facts={**base.facts, "sharing": new_mig},
                      inputs={**base.inputs, "launch_template": {"id": "lt-1g"}})  # fmt: skip
    c = change(graph(base, cloud="gcp"), graph(desired, cloud="gcp"), POOL)
    assert c.reasons == (
        "MIG layout {3g.40gb: 2} -> {1g.10gb: 7}: the node pool sets the MIG partitions when it "
        "creates nodes, so nodes are replaced",
        "Pulumi creates the new node pool before it deletes the old one",
        "6 nodes x 1 GPU = up to 6 GPUs leave at once at nodes.max",
    )


def test_reason_sharing_mode_change() -> None:
    """Changing the sharing mode says what restarts."""
    base = graph(sharing_config({"infer": {"mode": "exclusive", "replicas": None}}))
    desired = graph(sharing_config({"infer": {"mode": "time-slicing", "replicas": 2}}))
    (c,) = plan.diff(base, desired)
    assert c.reasons[0].startswith("pool infer: sharing exclusive -> time-slicing: the device")


def test_reason_nodes_max() -> None:
    """nodes.max 8 -> 4 is an update that says so."""
    c = change(graph(node_pool(hi=8)), graph(node_pool(hi=4)), POOL)
    assert c.reasons == ("nodes max 8 -> 4",)


def test_reason_quota_and_limit_of_a_tenant() -> None:
    """Quota and limit changes read in GPUs; no limit reads as none."""
    c = change(graph(queue("search", 2, None)), graph(queue("search", 4, 6)), "k8s.queue.search")
    assert c.reasons == ("GPU quota 2 -> 4 GPUs", "GPU limit none -> 6 GPUs")


def test_reason_pool_added_to_a_cluster_wide_config() -> None:
    """A pool entry appearing in a shared config is named."""
    base = graph(sharing_config({"a": {"mode": "exclusive"}}))
    desired = graph(sharing_config({"a": {"mode": "exclusive"}, "b": {"mode": "exclusive"}}))
    (c,) = plan.diff(base, desired)
    assert c.reasons == ("pool b added",)


def test_reason_mig_strategy() -> None:
    """A MIG strategy change warns that resource names change."""
    before = sharing_config({"a": {"mode": "mig", "mig_layout": {"3g.40gb": 2}}})
    after = replace(before, facts={**before.facts, "mig_strategy": "mixed"},
                    inputs={"data": {"x": "mixed"}})  # fmt: skip
    (c,) = plan.diff(graph(before), graph(after))
    assert c.reasons[0].startswith("MIG strategy single -> mixed: MIG devices are advertised")


def test_reason_falls_back_to_changed_inputs() -> None:
    """Without explaining facts the reason names the input with its old and new value."""
    before = Resource("helm.x", "kubernetes:helm.sh/v3:Release", "x", {"version": "v1", "a": 1})
    after = Resource("helm.x", "kubernetes:helm.sh/v3:Release", "x", {"version": "v2", "a": 1})
    (c,) = plan.diff(graph(before), graph(after))
    assert c.reasons == ('version "v1" -> "v2"',)


def test_created_and_deleted_node_pools_say_what_gpus_come_and_go() -> None:
    """Lifecycle reasons count GPUs for node pools."""
    (created,) = plan.diff(graph(), graph(node_pool(lo=2, hi=6)))
    assert created.reasons == ("adds 2-6 L4 GPUs (2-6 nodes x 1 GPU, on-demand)",)
    (deleted,) = plan.diff(graph(node_pool(hi=6)), graph())
    assert deleted.reasons == (
        "removes L4 nodes: 6 nodes x 1 GPU = up to 6 GPUs leave at once at nodes.max",
    )


def test_every_update_and_replace_has_a_reason() -> None:
    """No update or replace is left unexplained."""
    base = graph(
        node_pool(), queue("a", 1, None), sharing_config({"infer": {"mode": "mps", "replicas": 4}})
    )
    desired = graph(node_pool(instance="g6e.xlarge", gpu="L40S", hi=3), queue("a", 3, 4),
                    sharing_config({"infer": {"mode": "mps", "replicas": 8}}))  # fmt: skip
    for c in plan.diff(base, desired):
        if c.action in ("update", "replace"):
            assert c.reasons, c.address


# ---------------------------------------------------------------------------- cost


def test_cost_on_demand_pool_at_min_and_max() -> None:
    """Hourly cost is nodes x price at each end; monthly is 730 hours."""
    report = plan.cost(graph(), graph(node_pool(lo=1, hi=8, price=0.8048)), "us-east-1")
    assert report.hourly == MinMax(pytest.approx(0.8048), pytest.approx(8 * 0.8048))
    assert report.monthly.max == pytest.approx(8 * 0.8048 * 730)
    assert report.delta_monthly.max == pytest.approx(8 * 0.8048 * 730)
    assert report.prices_as_of == ("2026-07-20",)


def test_cost_spot_split_prices_every_node_the_groups_can_reach() -> None:
    """A split pool: spot nodes at spot, on-demand nodes at on-demand, fallback nodes counted.

    The cluster autoscaler bounds each node group by its own min and max (kubernetes/autoscaler
    cluster-autoscaler/cloudprovider/aws/README.md, "Manual configuration":
    "--nodes=<min>:<max>:<asg-name>" per Auto Scaling group) and only --max-nodes-total bounds a
    sum, cluster-wide, so with fallback the spot group (1..5) and the on-demand group (1..6) can
    be full together: 11 nodes, priced as such.
    """
    spot = node_pool("serve", capacity="spot", lo=1, hi=5, price=0.879, on_demand=2.24208)
    base_nodes = node_pool("serve", part="on_demand_node_group", lo=1, hi=6, price=2.24208,
                           on_demand=2.24208)  # fmt: skip
    report = plan.cost(graph(), graph(spot, base_nodes), None)
    (pool,) = report.pools
    assert pool.hourly.min == pytest.approx(1 * 0.879 + 1 * 2.24208)
    assert pool.hourly.max == pytest.approx(5 * 0.879 + 6 * 2.24208)
    assert pool.on_demand_hourly.max == pytest.approx(11 * 2.24208)
    assert pool.falls_back is True


def _mixed(base: int, fallback: bool, **kw: Any) -> Resource:
    """A mixed spot node pool (VKE): its own on-demand base and fallback in its facts."""
    res = node_pool("batch", capacity="spot", **kw)
    return replace(res, facts={**res.facts, "on_demand_base": base, "on_demand_fallback": fallback})


def test_cost_mixed_spot_pool_prices_its_base_on_demand() -> None:
    """A VKE spot node pool keeps its base on-demand (InstancesDistribution.OnDemandBaseCapacity,
    terraform-provider-volcenginecc Volcengine_VKE_NodePool.json): 2 of its nodes at on-demand at
    both ends, the rest at spot; without fallback nothing else is on-demand."""
    res = _mixed(2, False, lo=2, hi=8, price=0.5, on_demand=2.0)
    (pool,) = plan.cost(graph(), graph(res), None).pools
    assert pool.hourly.min == pytest.approx(2 * 2.0)
    assert pool.hourly.max == pytest.approx(2 * 2.0 + 6 * 0.5)
    assert pool.on_demand_hourly.max == pytest.approx(8 * 2.0)
    assert pool.falls_back is False


def test_cost_mixed_spot_pool_with_fallback_prices_its_top_end_on_demand() -> None:
    """CompensateWithOnDemand: when no spot instance can be bought VKE buys on-demand ones in the
    same node pool, so the top end (still nodes.max) can be all on-demand."""
    res = _mixed(1, True, lo=1, hi=6, price=0.5, on_demand=2.0)
    (pool,) = plan.cost(graph(), graph(res), None).pools
    assert pool.hourly.min == pytest.approx(1 * 2.0)
    assert pool.hourly.max == pytest.approx(6 * 2.0)
    assert pool.falls_back is True


def test_cost_mixed_spot_pool_without_prices_is_unknown_not_zero() -> None:
    """VKE has no price in the catalog: both ends stay unknown and both prices are listed."""
    res = _mixed(2, True, lo=2, hi=8, price=None, on_demand=None, instance="ecs.gni2.3xlarge")
    report = plan.cost(graph(), graph(res, cloud="volcengine"), None)
    assert report.hourly == report.on_demand_hourly == MinMax(None, None)
    assert report.monthly == MinMax(None, None)
    assert report.unpriced == (
        "batch: ecs.gni2.3xlarge spot price",
        "batch: ecs.gni2.3xlarge on-demand price",
    )


def test_cost_mixed_spot_pool_with_only_a_spot_price_is_unknown() -> None:
    """catalog refresh --cloud volcengine reads spot prices only (CNY): a VKE pool whose base
    runs on-demand has no known cost, and only the on-demand price is missing."""
    res = _mixed(1, False, lo=1, hi=4, price=2.35, on_demand=None, currency="CNY",
                 instance="ecs.gni2.3xlarge")  # fmt: skip
    report = plan.cost(graph(), graph(res, cloud="volcengine"), None)
    assert report.currency == "CNY"
    assert report.hourly == MinMax(None, None)
    assert report.unpriced == ("batch: ecs.gni2.3xlarge on-demand price",)
    # with no base and no fallback the same pool is all spot and priced
    plain = _mixed(0, False, lo=1, hi=4, price=2.35, on_demand=None, currency="CNY")
    hourly = plan.cost(graph(), graph(plain, cloud="volcengine"), None).hourly
    assert hourly == MinMax(pytest.approx(2.35), pytest.approx(4 * 2.35))


def test_cost_unknown_price_is_unknown_not_zero() -> None:
    """A missing spot price makes that end unknown (None) and is listed; zero nodes cost 0."""
    spot = node_pool(capacity="spot", lo=0, hi=4, price=None)
    report = plan.cost(graph(), graph(spot), None)
    assert report.hourly == MinMax(0.0, None)
    assert report.monthly.max is None
    assert report.delta_monthly.max is None
    assert report.unpriced == ("infer: g6.xlarge spot price",)


def test_cost_delta_against_a_recorded_base_uses_the_base_prices() -> None:
    """The base is priced from its own facts (its recorded prices), pools gone count negative."""
    base = graph(node_pool(hi=8, price=1.0), node_pool("old", hi=2, price=3.0))
    desired = graph(node_pool(hi=4, price=1.1))
    report = plan.cost(base, desired, None)
    assert report.delta_monthly.max == pytest.approx((4 * 1.1 - 8 * 1.0 - 2 * 3.0) * 730)
    assert [p.pool for p in report.pools] == ["infer", "old"]
    assert report.pools[1].hourly == plan.ZERO


def test_cost_is_in_the_currency_of_its_prices() -> None:
    """A plan priced in CNY (a refreshed Volcengine overlay) totals in CNY, converting nothing;
    a recorded fact without a currency predates currencies and is USD."""
    desired = graph(node_pool(capacity="spot", hi=4, price=2.35, on_demand=None,
                              currency="CNY"), cloud="volcengine")  # fmt: skip
    report = plan.cost(graph(cloud="volcengine"), desired, "cn-beijing")
    assert report.currency == "CNY"
    assert report.hourly == MinMax(pytest.approx(2.35), pytest.approx(4 * 2.35))
    assert report.unpriced == ("infer: g6.xlarge on-demand price",)
    recorded = node_pool(price=1.0)
    recorded = replace(recorded, facts={k: v for k, v in recorded.facts.items()
                                        if k != "price_currency"})  # fmt: skip
    assert plan.cost(graph(), graph(recorded), None).currency == "USD"


def test_cost_never_adds_prices_of_two_currencies() -> None:
    """A CNY-priced pool in a USD plan is not added: it is unknown, named with its currency."""
    usd = node_pool("usd", hi=2, price=1.0)
    cny = node_pool("cny", hi=2, price=2.35, on_demand=None, currency="CNY")
    report = plan.cost(graph(), graph(usd, cny), None)
    assert report.currency == "USD"
    assert report.pools[0].hourly == MinMax(pytest.approx(1.0), pytest.approx(2.0))
    assert report.pools[1].hourly == MinMax(None, None)
    assert report.hourly == MinMax(None, None)
    assert "cny: g6.xlarge on-demand price (priced in CNY, not USD)" in report.unpriced
    tenants = plan.tenant_costs(graph(), graph(usd, cny))
    assert tenants.pool_hourly["cny"] == MinMax(None, None)
    assert tenants.pool_hourly["usd"] == MinMax(pytest.approx(1.0), pytest.approx(2.0))


def test_cost_of_existing_nodes_is_not_priced() -> None:
    """Existing nodes (no instance type) are not priced: their cost and every total they are
    part of is unknown, never $0 (they are not in the catalog's unpriced list either)."""
    nodes = node_pool(instance=None, price=None, on_demand=None)
    report = plan.cost(graph(), graph(nodes, cloud="kubernetes"), None)
    assert report.pools[0].existing_nodes
    assert report.hourly == report.on_demand_hourly == plan.MinMax(None, None)
    assert report.delta_monthly == plan.MinMax(None, None)
    assert report.base_hourly == plan.ZERO  # the empty base costs nothing
    assert report.unpriced == ()


def test_cost_of_existing_nodes_with_a_declared_price_is_that_price() -> None:
    """Existing nodes whose pool declares a chargeback rate are priced at it like any pool (two
    nodes of 8 GPUs at 1.90 a GPU-hour), say where the figure comes from, and add no catalog
    date."""
    nodes = [node_pool("dgx", instance=None, lo=1, hi=1, per_node=8, price=8 * 1.9,
                       on_demand=8 * 1.9, part=f"node.dgx-0{i}", declared="chargeback FY27")
             for i in (1, 2)]  # fmt: skip
    report = plan.cost(graph(cloud="kubernetes"), graph(*nodes, cloud="kubernetes"), None)
    (pool,) = report.pools
    assert pool.existing_nodes and pool.declared == "chargeback FY27"
    assert report.hourly == MinMax(pytest.approx(2 * 8 * 1.9), pytest.approx(2 * 8 * 1.9))
    assert report.unpriced == () and report.prices_as_of == ()
    assert report.declared == {"chargeback FY27": ("dgx",)}
    tenants = plan.tenant_costs(graph(cloud="kubernetes"), graph(*nodes, cloud="kubernetes"))
    assert tenants.gpu_hourly["dgx"] == MinMax(pytest.approx(1.9), pytest.approx(1.9))


def test_cost_never_adds_a_declared_price_in_another_currency() -> None:
    """A pool declared in CNY beside a USD-priced pool: the plan is USD, the CNY pool unknown and
    named with its currency, in the cost and the tenant cost alike."""
    usd = node_pool("usd", hi=2, price=1.0)
    cny = node_pool("cny", instance=None, lo=1, hi=1, price=12.0, on_demand=12.0,
                    currency="CNY", declared="internal rate FY27")  # fmt: skip
    report = plan.cost(graph(), graph(usd, cny), None)
    assert report.currency == "USD"
    assert report.pools[1].hourly == MinMax(None, None)
    assert report.hourly == MinMax(None, None)
    assert report.pools[1].declared == "internal rate FY27"
    assert report.pools[1].price_currency == "CNY"
    assert report.unpriced == ("cny: existing nodes declared on-demand price "
                               "(priced in CNY, not USD)",)  # fmt: skip
    tenants = plan.tenant_costs(graph(), graph(usd, cny))
    assert tenants.pool_hourly["cny"] == MinMax(None, None)
    # alone, the same pool is a plan in CNY
    alone = plan.cost(graph(), graph(cny), None)
    assert alone.currency == "CNY" and alone.hourly == MinMax(12.0, 12.0)


def test_cost_against_a_base_recorded_with_a_declared_price() -> None:
    """A recorded base keeps the declared price it was recorded with (facts round-trip): a new
    rate shows as the delta, and a fact recorded before declared prices existed is the catalog's."""
    old = node_pool(hi=4, price=1.0, on_demand=1.0, declared="contract 2025-04")
    new = node_pool(hi=4, price=0.8, on_demand=0.8, declared="contract 2026-04")
    base = ResourceGraph.from_json(json.loads(graph(old).dumps()))
    report = plan.cost(base, graph(new), None)
    assert report.delta_monthly.max == pytest.approx(4 * (0.8 - 1.0) * 730)
    assert report.pools[0].declared == "contract 2026-04"
    recorded = replace(old, facts={k: v for k, v in old.facts.items() if k != "price_declared"})
    assert plan.cost(graph(), graph(recorded), None).pools[0].declared is None
