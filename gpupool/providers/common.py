"""What every cloud module shares: labels, taints, tags and node-pool facts.

This module owns the rules that must read the same on every cloud:

- how a pool's node groups are built from ``gpupool.facts.groups.capacity_groups`` (re-exported
  here for the cloud modules);
- the labels its nodes carry (``node_labels``: the pool's own labels, then the ones the sharing
  configuration selects by, then, per node group, the capacity label ``gpupool.io/capacity``;
  gpupool's win on a clash);
- the ``facts`` every node-pool resource carries for the offline plan (exactly the keys of
  ``FACT_KEYS``);
- graph addresses and logical names.
"""

from __future__ import annotations

from typing import Any

from gpupool import facts as gpu_facts
from gpupool.facts.groups import CapacityGroup
from gpupool.facts.names import CAPACITY_LABEL
from gpupool.graph import Resource
from gpupool.model import Pool, Stack

K8S_PROVIDER = "cluster.k8s_provider"
"""Address of the Kubernetes provider wired to the cluster the pools join."""

K8S_PROVIDER_TYPE = "pulumi:providers:kubernetes"

FACT_KEYS = frozenset(
    {
        "kind",
        "pool",
        "gpu",
        "gpu_memory_gib",
        "gpus_per_node",
        "instance_type",
        "capacity",
        "on_demand_base",
        "on_demand_fallback",
        "nodes_min",
        "nodes_max",
        "price_hourly",
        "on_demand_price_hourly",
        "price_as_of",
        "price_currency",
        "price_declared",
        "price_region",
        "sharing",
    }
)
"""The keys of every node-pool resource's ``facts`` (``sharing`` holds mode, replicas,
mig_layout and slots_per_gpu; ``price_currency`` is the ISO 4217 code of the two prices;
``on_demand_base`` and ``on_demand_fallback`` are the on-demand nodes a mixed spot node pool keeps
and buys itself, 0 and False elsewhere; ``price_declared`` the source of a price the stack file
states, ``pools[].price``, or None for the catalog's; ``price_region`` the region the catalog's
price is for, None for a declared price or none)."""

def address(pool: Pool, part: str) -> str:
    """Return the graph address ``pool.<pool>.<part>``."""
    return f"pool.{pool.name}.{part}"


def owner(pool: Pool) -> str:
    """Return the owner tag of a pool's resources."""
    return f"pool:{pool.name}"


def node_labels(stack: Stack, pool: Pool, group: CapacityGroup | None = None) -> dict[str, str]:
    """Return the labels a pool's nodes carry, keys sorted.

    The pool's ``labels`` come first; the labels the sharing configuration selects nodes by
    (``gpupool.facts.node_labels``) are applied over them, so a pool label can never detach a
    node from its device-plugin or MIG configuration. A node group (``group``) also labels its
    nodes ``gpupool.io/capacity: spot | on-demand``, its capacity type, which the showback rules
    price its nodes by; not a group that mixes both kinds (a VKE spot node pool with an
    on-demand base or on-demand stand-ins), whose nodes one label cannot tell apart. Existing
    nodes (``group`` None) get none. A pool that serves services also gets the cloud's
    ``autoscaler_gpu_label`` where the cloud has one (``gpupool.clouds.base.Cloud``).
    """
    merged = {**dict(pool.labels), **gpu_facts.node_labels(stack, pool)}
    gpu_label = stack.cloud.autoscaler_gpu_label
    if gpu_label is not None and any(s.pool == pool.name for s in stack.services):
        merged.setdefault(*gpu_label)  # the autoscaler waits for the device plugin (#1949)
    if group is not None and not (group.on_demand_base or group.on_demand_fallback):
        merged[CAPACITY_LABEL] = group.capacity
    return dict(sorted(merged.items()))


def tags(stack: Stack) -> dict[str, str]:
    """Return the cloud tags every resource carries: the stack's ``metadata.labels``."""
    return dict(sorted(dict(stack.labels).items()))


def upper_effect(effect: str) -> str:
    """Return a taint effect in the EKS/GKE enum form (``NoSchedule`` -> ``NO_SCHEDULE``)."""
    return "".join(f"_{c}" if c.isupper() and i else c for i, c in enumerate(effect)).upper()


def facts(stack: Stack, pool: Pool, group: CapacityGroup | None) -> dict[str, Any]:
    """Return the plan facts of one node-pool resource (exactly ``FACT_KEYS``).

    Args:
        stack: the stack.
        pool: the pool the resource provisions.
        group: the node group, or None for the nodes of an existing cluster (one node each).

    Returns:
        The facts; prices are per node and hour at the group's capacity type: the pool's declared
        price (``pools[].price``, per GPU, times its GPUs per node) where it states one, else the
        catalog's, or None when neither has one (existing nodes have no catalog price). A mixed
        spot group (VKE) also says how many of its nodes stay on-demand and whether it buys
        on-demand ones when spot runs out; ``gpupool.plan.cost`` prices those at the on-demand
        price.

    """
    inst = pool.instance
    gpu = pool.gpu
    memory: float | None = gpu.memory_gib if gpu is not None else None
    od_price = spot_price = as_of = currency = region = None
    if inst is not None:
        memory = inst.total_gpu_memory_gib / max(inst.gpu_count, 1)
        od_price, spot_price = inst.price.on_demand_hourly, inst.price.spot_hourly
        as_of, currency = inst.price.as_of, inst.price.currency
        region = inst.price.region or None
    declared = pool.price
    if declared is not None:  # a negotiated or chargeback rate beats the list price
        per = pool.gpus_per_node or None  # GPUs unknown: no price, never 0
        spot = declared.spot_per_gpu_hour
        od_price = declared.per_gpu_hour * per if per else None
        spot_price = spot * per if per and spot is not None else None
        as_of, currency, region = None, declared.currency, None
    capacity = group.capacity if group is not None else pool.capacity.type
    sharing = pool.sharing
    return {
        "kind": "node-pool",
        "pool": pool.name,
        "gpu": gpu.name if gpu is not None else None,
        "gpu_memory_gib": memory,
        "gpus_per_node": pool.gpus_per_node,
        "instance_type": pool.instance_type,
        "capacity": capacity,
        "on_demand_base": group.on_demand_base if group is not None else 0,
        "on_demand_fallback": group.on_demand_fallback if group is not None else False,
        "nodes_min": group.min if group is not None else 1,
        "nodes_max": group.max if group is not None else 1,
        "price_hourly": spot_price if capacity == "spot" else od_price,
        "on_demand_price_hourly": od_price,
        "price_as_of": as_of,
        "price_currency": currency,
        "price_declared": declared.source if declared is not None else None,
        "price_region": region,
        "sharing": {
            "mode": sharing.mode,
            "replicas": sharing.replicas,
            "mig_layout": dict(sharing.mig_layout),
            "slots_per_gpu": sharing.slots_per_gpu,
        },
    }


def node_pool(
    stack: Stack,
    pool: Pool,
    group: CapacityGroup,
    type_: str,
    inputs: dict[str, Any],
    replace_on: tuple[str, ...],
    provider: str | None = None,
    ignore_changes: tuple[str, ...] = (),
) -> Resource:
    """Return the graph node of one cloud node pool (one capacity group of a gpupool pool).

    Every cloud names, addresses, owns and describes its node pools the same way; only the type
    token, the inputs and what forces replacement differ.
    """
    return Resource(
        address=address(pool, group.part),
        type=type_,
        name=pool.name + group.suffix,
        inputs=inputs,
        provider=provider,
        replace_on=replace_on,
        owner=owner(pool),
        facts=facts(stack, pool, group),
        ignore_changes=ignore_changes,
    )


def cloud_manages_gpu(stack: Stack) -> bool:
    """Whether the cloud's node image manages the GPU stack rather than the GPU Operator.

    True with ``driver: preinstalled``: the cloud installs the driver and, where its node-pool
    API offers them, sets up MIG and GPU sharing. False with ``driver: operator``.
    """
    return stack.cluster.gpu_operator.driver == "preinstalled"


def k8s_provider(inputs: dict[str, Any]) -> Resource:
    """Return the Kubernetes provider resource (``cluster.k8s_provider``) with these inputs.

    Server-side apply is switched on explicitly: node patches (``cloud: kubernetes``) need it.
    """
    return Resource(
        address=K8S_PROVIDER,
        type=K8S_PROVIDER_TYPE,
        name="k8s",
        inputs={**inputs, "enable_server_side_apply": True},
        owner="cluster",
    )
