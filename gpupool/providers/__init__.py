"""Cloud node pools: one module per cloud turns each pool into resource-graph nodes.

``build(stack)`` hands the stack to ``providers/<cloud>.py``, the builder half of the stack's
cloud plug-in (its facts are ``gpupool.clouds.<cloud>``), and returns a ``CloudResult``: the cloud
resources, the address of the Kubernetes provider wired to the cluster the pools join, and which
node-pool addresses back each pool (in-cluster objects depend on them). Adding a cloud adds a
module here and one in ``gpupool.clouds``.
"""

from __future__ import annotations

from importlib import import_module

from gpupool.graph import CloudResult
from gpupool.model import Stack

__all__ = ["CloudResult", "build"]


def build(stack: Stack) -> CloudResult:
    """Build the cloud resources of a stack with its cloud's module."""
    module = import_module(f"{__name__}.{stack.cloud.name}")
    result: CloudResult = module.build(stack)
    return result
