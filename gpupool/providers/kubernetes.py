"""Existing clusters (``cloud: kubernetes``): no machines, only labels on the named nodes.

What a pool renders to: one ``kubernetes:core/v1:NodePatch`` per name in ``nodeNames``
(address ``pool.<pool>.node.<node>``), a server-side-apply patch that sets the pool's labels
(``common.node_labels``) on that node and nothing else. The patch carries the
``pulumi.com/patchForce: "true"`` annotation, so gpupool takes over these label keys even when
another field manager (``kubectl label``) set them before; other labels stay untouched.

Taints are not patched: a Node's ``spec.taints`` is one list that server-side apply would own as
a whole, so a patch could remove taints others rely on (cordons, node-problem taints). Taint the
nodes yourself (``kubectl taint``); gpupool's tolerations guidance covers the declared taints.

The Kubernetes provider uses the ambient kubeconfig (``KUBECONFIG`` or ``~/.kube/config``) and
the context from ``settings.context`` when one is given; nothing of it is written to disk.
"""

from __future__ import annotations

from gpupool.graph import CloudResult, Resource
from gpupool.model import Pool, Stack
from gpupool.providers import common

NODE_PATCH = "kubernetes:core/v1:NodePatch"
PATCH_FORCE = "pulumi.com/patchForce"


def _node_patch(stack: Stack, pool: Pool, node: str) -> Resource:
    metadata = {
        "name": node,
        "labels": common.node_labels(stack, pool),
        "annotations": {PATCH_FORCE: "true"},
    }
    return Resource(
        address=common.address(pool, f"node.{node}"),
        type=NODE_PATCH,
        name=node,
        inputs={"metadata": metadata},
        provider=common.K8S_PROVIDER,
        replace_on=("metadata.name",),
        owner=common.owner(pool),
        facts=common.facts(stack, pool, None),
        manifest={"apiVersion": "v1", "kind": "Node", "metadata": metadata},
    )


def k8s_provider(stack: Stack) -> Resource:
    """Return the Kubernetes provider for the ambient kubeconfig (and the stack's context)."""
    context = stack.provider.settings.context
    return common.k8s_provider({"context": context} if context else {})


def build(stack: Stack) -> CloudResult:
    """Build the node patches that label every named node of every pool."""
    resources: list[Resource] = [k8s_provider(stack)]
    node_pools: dict[str, tuple[str, ...]] = {}
    for pool in stack.pools:
        built = [_node_patch(stack, pool, node) for node in pool.node_names]
        resources += built
        node_pools[pool.name] = tuple(r.address for r in built)
    return CloudResult(tuple(resources), common.K8S_PROVIDER, node_pools)
