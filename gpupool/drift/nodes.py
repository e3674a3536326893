"""Effective GPU state from the Kubernetes API against what each pool declares.

Per pool, the nodes labelled ``gpupool.io/pool=<pool>`` are compared with what the stack implies
(``gpupool.drift.expected``: the GPU facts merged with what the sharing mode, the cloud and the
scheduler plug-ins expect of a node). This module owns the walk: the node count against
nodes.min..max (or the named nodes), the instance type, then per node the checks of the other
modules in order: the MIG strategy and reconfiguration state (``mig_state``, which, when a node
is on the other strategy or mid-reconfiguration, stands in for the GPU findings it implies),
HAMi's registration (``gpupool.sharing.hami``), the GPU's product and memory
(``gpu_identity``), the labels, the MIG profiles a node offers beyond the pool's, and
allocatable (``labels``); each node's GPU health conditions, cordon and fault-isolation taints
are ``gpupool.drift.conditions``'s. Labels GPU Feature Discovery wrote in its 2020 releases are
read as the MIG profiles they stand for first (``legacy_gfd``). Label names and formats follow
GPU Feature Discovery, the GPU Operator, GKE and HAMi (see tests/fixtures/nodes/README.md and
tests/fixtures/nodes/docs/README.md).

A pool of whole GPUs expects GFD's "without sharing" labels where GFD writes them
(``gpu.replicas`` 1, ``gpu.sharing-strategy`` none), no MIG product suffix or MIG profiles, and,
where GKE shares GPUs, none of GKE's sharing labels.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from types import MappingProxyType

from gpupool.cluster import ObservedNode
from gpupool.drift import conditions, gpu_identity, labels, legacy_gfd, mig_state
from gpupool.drift.expectation import Expected
from gpupool.drift.expected import expected
from gpupool.drift.gpu_names import normalise_product
from gpupool.drift.items import DriftItem, NodeFindings
from gpupool.facts.names import GFD_MEMORY, GFD_PRODUCT, INSTANCE_TYPE_LABEL, POOL_LABEL
from gpupool.model import Pool, Stack
from gpupool.sharing import hami


def compare(stack: Stack, nodes: Sequence[ObservedNode]) -> list[DriftItem]:
    """Compare observed nodes with every pool of the stack."""
    out: list[DriftItem] = []
    for pool in stack.pools:
        members = [n for n in nodes if n.labels.get(POOL_LABEL) == pool.name]
        want = expected(stack, pool)
        out.extend(_membership(stack, pool, members))
        for node in sorted(members, key=lambda n: n.name):
            out.extend(_node(stack, pool, want, node))
            out.extend(conditions.node_items(pool.name, node))
    return out


def _membership(stack: Stack, pool: Pool, members: list[ObservedNode]) -> list[DriftItem]:
    """Report named nodes that are missing, or a node count outside nodes.min..max."""
    if not stack.cloud.provisions:
        names = {n.name for n in members}
        return [
            DriftItem(
                "cluster",
                f"pool.{pool.name}/node/{missing}",
                pool.name,
                None,
                f"node {missing} is missing or not labelled {POOL_LABEL}={pool.name}",
            )
            for missing in sorted(set(pool.node_names) - names)
        ]
    if pool.nodes.min <= len(members) <= pool.nodes.max:
        return []
    return [
        DriftItem(
            "cluster",
            f"pool.{pool.name}",
            {"min": pool.nodes.min, "max": pool.nodes.max},
            len(members),
            f"pool has {len(members)} node(s), declared {pool.nodes.min}..{pool.nodes.max}",
        )
    ]


def _node(stack: Stack, pool: Pool, want: Expected, node: ObservedNode) -> list[DriftItem]:
    """Return one node's findings, in the order of the checks."""
    item = NodeFindings(f"pool.{pool.name}/node/{node.name}")
    node = _read_legacy_labels(want, node, item)
    _instance_type(stack, want, node, item)
    stop = mig_state.state(stack, pool, want, node, item)
    if want.hami is not None and want.hami.split is not None:
        _hami(want, node, item)
    got_product = node.labels.get(GFD_PRODUCT)
    if not stop and want.product and got_product:
        gpu_identity.product(want, pool, got_product, item)
    if not stop:
        gpu_identity.memory(want, node.labels.get(GFD_MEMORY), item)
    labels.required(want, node, item, stop=stop)
    labels.optional(want, pool, node, item)
    labels.cloud(want, node, item)
    if not stop:
        mig_state.extra_profiles(want, pool, node, item)
        labels.allocatable(want, node, item)
    return item.items


def _read_legacy_labels(want: Expected, node: ObservedNode, item: NodeFindings) -> ObservedNode:
    """Return the node with 2020 GFD MIG labels renamed, noting each renamed profile."""
    relabelled, renames = legacy_gfd.relabel(want.mig_profiles, node.labels)
    if not renames:
        return node
    for old, new in sorted(renames.items()):
        item.items.append(DriftItem(
            "cluster", item.addr, new, old,
            f"labels nvidia.com/mig-{old}.* come from a GPU Feature Discovery of 2020, "
            f"which named MIG profiles by rounded memory: read as {new} "
            f"(the device plugin advertises nvidia.com/mig-{new})",
            kind="note",
        ))  # fmt: skip
    return replace(node, labels=MappingProxyType(relabelled))


def _instance_type(stack: Stack, want: Expected, node: ObservedNode, item: NodeFindings) -> None:
    got = node.labels.get(INSTANCE_TYPE_LABEL)
    labelled = stack.cloud.labels_instance_type and want.instance_type
    if labelled and got and got != want.instance_type:
        item(want.instance_type, got, f"node runs {got}, pool declares {want.instance_type}")


def _hami(want: Expected, node: ObservedNode, item: NodeFindings) -> None:
    assert want.hami is not None
    names = want.spellings
    findings = hami.registration_findings(
        want.hami,
        node.annotations,
        gpus=want.gpus,
        product=want.product,
        declared=(lambda t: normalise_product(t) in names) if names else None,
        tolerance=gpu_identity.MEMORY_TOLERANCE,
    )
    for declared, observed, summary in findings:
        item(declared, observed, summary)
