"""Cloud node pools: one module per cloud turns each pool into resource-graph nodes.

``build(stack)`` dispatches on ``provider.cloud`` to ``providers/<cloud>.py`` and returns a
``CloudResult``: the cloud resources, the address of the Kubernetes provider wired to the cluster
the pools join, and which node-pool addresses back each pool (in-cluster objects depend on them).
Adding a cloud adds a module and one line in ``_MODULES``; nothing else changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import import_module

from gpupool.graph import Resource
from gpupool.model import Stack

_MODULES = {
    "aws": "gpupool.providers.aws",
    "gcp": "gpupool.providers.gcp",
    "azure": "gpupool.providers.azure",
    "volcengine": "gpupool.providers.volcengine",
    "kubernetes": "gpupool.providers.kubernetes",
}


@dataclass(frozen=True)
class CloudResult:
    """What a cloud module contributes to the graph."""

    resources: tuple[Resource, ...]
    k8s_provider: str
    node_pools: dict[str, tuple[str, ...]] = field(default_factory=dict)


def build(stack: Stack) -> CloudResult:
    """Build the cloud resources of a stack with its cloud's module."""
    module = import_module(_MODULES[stack.provider.cloud])
    result: CloudResult = module.build(stack)
    return result
