"""Assemble a stack's resource graph: its cloud's node pools, then the in-cluster objects.

This module owns the one function that turns a validated ``Stack`` into a ``ResourceGraph``:
the cloud plug-in's builder (``gpupool.providers``) makes the node pools and the Kubernetes
provider, the sharing builders (``gpupool.sharing``) make what runs inside the cluster on them,
and ``graph.order`` puts dependencies first. Render, plan, record and drift take the graph from
here.
"""

from __future__ import annotations

from gpupool import providers, sharing
from gpupool.graph import ResourceGraph, order
from gpupool.model import Stack


def build(stack: Stack) -> ResourceGraph:
    """Build the resource graph of a valid stack: cloud node pools, then in-cluster objects."""
    cloud = providers.build(stack)
    in_cluster = sharing.build(stack, cloud)
    return ResourceGraph(stack.name, stack.provider.cloud, order([*cloud.resources, *in_cluster]))
