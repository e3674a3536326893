"""The node index: which nodes a pod may go on, kept as pods are taken and given back.

This module owns the scheduling index over the run's nodes, the part of ``engine.Simulation``
that every placement asks. Per pool it keeps the nodes holding pods (``busy``) and the ids of the
empty schedulable ones (``empty``, sorted): empty nodes of a pool are alike and score alike, so
only the first of them is a candidate. Its speed-ups:

- KAI binpack (``packed``): per pool, each busy node's (non-allocated GPUs, id), and (free CPU,
  id) for pods asking no GPU where the nodes say their CPU, so that the node binpack picks is
  found by a walk from the fullest (``placement.choose_packed``) instead of a scan;
- each pool's free GPUs summed over its schedulable nodes, kept until the pool changes
  (``pool_rev``);
- the nodes released or made ready since the last pass (``touched``), which the queues' gating
  reads.

``_take`` and ``_give_back`` are the only ways a pod's entry goes on or off a node here, and
``placement.retake`` puts a released entry back on the very GPUs it held (the inverse of
``placement.Node.give_back``, for trial evictions).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator

from gpupool.simulate.cluster import ClusterModel
from gpupool.simulate.demand import Demand
from gpupool.simulate.placement import Node, choose, choose_packed, retake


class NodeIndex:
    """The part of a run that indexes its nodes (state set by ``_init_index``)."""

    cluster: ClusterModel
    scheduler: str
    now: float

    def _init_index(self, packed: bool) -> None:
        """Empty indexes per pool; ``packed``: keep the binpack walk's free indexes too."""
        pools = self.cluster.pools
        self.nodes: dict[str, list[Node]] = {p.name: [] for p in pools}
        # per pool, the nodes holding pods, and the ids of the empty schedulable ones (sorted);
        # empty nodes of a pool are alike, so only the first counts
        self.busy: dict[str, dict[int, Node]] = {p.name: {} for p in pools}
        self.empty: dict[str, list[int]] = {p.name: [] for p in pools}
        self.by_id: dict[int, Node] = {}
        self.packed = packed
        self.free_index: dict[str, list[tuple[float, int]]] = {p.name: [] for p in pools}
        # and (non-allocated CPU, id) for pods asking no GPU, where the nodes say their CPU
        self.cpu_index: dict[str, list[tuple[float, int]]] | None = {
            p.name: [] for p in pools if p.cpu != float("inf")} if packed else None
        # a pool's free GPUs summed over its schedulable nodes, kept until the pool changes
        self.pool_rev: dict[str, int] = dict.fromkeys(self.nodes, 0)
        self.free_sums: dict[str, tuple[int, float]] = {}
        self.touched: dict[int, Node] = {}  # nodes released or made ready since the last pass

    def _candidates(self, pool: str) -> Iterator[Node]:
        """Yield the nodes a pod of ``pool`` may go on: those holding pods, the first empty one.

        Every empty node of a pool offers the same and scores the same, and ties go to the
        lowest id, so the first empty node stands for all of them.
        """
        yield from self.busy[pool].values()
        empty = self.empty[pool]
        if empty:
            yield self.by_id[empty[0]]

    def _unindex(self, node: Node) -> None:
        """Take a node out of the empty index (it holds a pod, drains, or is gone)."""
        empty = self.empty[node.pm.name]
        i = bisect.bisect_left(empty, node.id)
        if i < len(empty) and empty[i] == node.id:
            del empty[i]

    def _take(self, node: Node, key: int, d: Demand,
              devices: tuple[int, ...] | None = None, pods: int = 1) -> None:
        """Allocate a pod on the node as entry ``key`` (one more pod where it exists).

        With ``devices``, put a released entry of ``pods`` pods back on its GPUs.
        """
        if not node.allocs:
            self._unindex(node)
            self.busy[node.pm.name][node.id] = node
        if devices is None:
            node.take(key, d)
        else:
            retake(node, key, d, devices, pods)
        self._reindex(node)

    def _give_back(self, node: Node, key: int) -> tuple[Demand, int]:
        """Release entry ``key``'s pods; return its request and pods."""
        d = node.give_back(key, self.now)
        if not node.allocs:
            self.busy[node.pm.name].pop(node.id, None)
            if node.schedulable:
                bisect.insort(self.empty[node.pm.name], node.id)
        self._reindex(node)
        self.touched[node.id] = node
        return d

    def _reindex(self, node: Node) -> None:
        """Put the node at its place in the free index (only while it holds pods)."""
        name = node.pm.name
        self.pool_rev[name] += 1
        index = self.free_index[name]
        old = node.indexed
        if old is not None:
            del index[bisect.bisect_left(index, old)]
        held = bool(node.allocs) and not node.removed
        if held:
            node.indexed = entry = (node.pm.gpu_equivalents_per_node - node.gpus_used, node.id)
            bisect.insort(index, entry)
        else:
            node.indexed = None
        if self.cpu_index is None:
            return
        by_cpu = self.cpu_index.get(name)
        if by_cpu is not None:
            if node.cpu_indexed is not None:
                del by_cpu[bisect.bisect_left(by_cpu, node.cpu_indexed)]
            if held:
                node.cpu_indexed = entry = (node.cpu_free, node.id)
                bisect.insort(by_cpu, entry)
            else:
                node.cpu_indexed = None

    def _choose(self, d: Demand, beat: tuple[float, float, int] | None = None,
                ) -> tuple[Node | None, tuple[float, float, int]]:
        """Return the node the scheduler puts one pod of ``d`` on, and its score (``choose``).

        With ``beat``, a node scoring no higher than it is not returned (the caller keeps the
        node it found on another pool).
        """
        name = d.pool.name
        if self.packed:
            if d.gpus > 0:
                index = self.free_index[name]
            else:
                index = self.cpu_index.get(name) if self.cpu_index is not None else None
            if index is not None:
                empty = self.empty[name]
                return choose_packed(index, self.by_id, self.by_id[empty[0]] if empty else None,
                                     d, beat)
        return choose(self.scheduler, self._candidates(name), d)

    def _free_gpus(self, pool: str) -> float:
        """Non-allocated GPUs over the pool's schedulable nodes (kept until the pool changes)."""
        rev = self.pool_rev[pool]
        kept = self.free_sums.get(pool)
        if kept is None or kept[0] != rev:
            free = sum(n.non_allocated_gpus() for n in self.nodes[pool] if n.schedulable)
            kept = self.free_sums[pool] = (rev, free)
        return kept[1]

