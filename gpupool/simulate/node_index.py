"""The node index: which nodes a pod may go on, kept as pods are taken and given back.

This module owns the scheduling index over the run's nodes, the part of ``engine.Simulation``
that every placement asks. Per pool it keeps the nodes holding pods (``busy``) and the ids of the
empty schedulable ones (``empty``, sorted): empty nodes of a pool are alike and score alike, so
only the first of them is a candidate. Its speed-ups:

- KAI binpack (``packed``): every pool's busy nodes in one list by (non-allocated GPUs, id),
  and one by (free CPU, id) for pods asking no GPU where the nodes say their CPU, so that the
  node binpack picks, of all the pools a pod may use, is found by one walk from the fullest
  (``placement.choose_packed``, planned once per options list) instead of a scan per pool;
- each pool's free GPUs summed over its schedulable nodes, kept until the pool changes
  (``pool_rev``);
- the nodes released or made ready since the last pass (``touched``), which the queues' gating
  reads.

``_take`` and ``_give_back`` are the only ways a pod's entry goes on or off a node here, and
``placement.retake`` puts a released entry back on the very GPUs it held (the inverse of
``placement.Node.give_back``, for trial evictions).
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Iterator, Sequence

from gpupool.schedulers import Emulation
from gpupool.simulate.cluster import ClusterModel
from gpupool.simulate.demand import Demand
from gpupool.simulate.placement import (
    Node,
    PackedPlan,
    choose,
    choose_packed,
    packed_plan,
    retake,
)


class NodeIndex:
    """The part of a run that indexes its nodes (state set by ``_init_index``)."""

    cluster: ClusterModel
    now: float

    def _init_index(self, packed: bool) -> None:
        """Empty indexes per pool; ``packed``: keep the binpack walk's free indexes too."""
        pools = self.cluster.pools
        # the scheduler's rules (its plug-in's), which ``choose`` scores nodes by
        self.emulation: Emulation = self.cluster.emulation
        self.nodes: dict[str, list[Node]] = {p.name: [] for p in pools}
        # per pool, the nodes holding pods, and the ids of the empty schedulable ones (sorted);
        # empty nodes of a pool are alike, so only the first counts
        self.busy: dict[str, dict[int, Node]] = {p.name: {} for p in pools}
        self.empty: dict[str, list[int]] = {p.name: [] for p in pools}
        self.by_id: dict[int, Node] = {}
        self.packed = packed
        # every pool's nodes holding pods as (non-allocated GPUs, id), merged into one list
        self.free_index: list[tuple[float, int]] = []
        # and (non-allocated CPU, id) for pods asking no GPU, over the pools whose nodes say
        # their CPU
        self.cpu_index: list[tuple[float, int]] | None = [] if packed else None
        # the walk's plan per options list (which it holds, so that the list's id stays its own)
        self.plans: dict[int, PackedPlan] = {}
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
        i = bisect_left(empty, node.id)
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
                insort(self.empty[node.pm.name], node.id)
        self._reindex(node)
        self.touched[node.id] = node
        return d

    def _reindex(self, node: Node) -> None:
        """Put the node at its place in the free indexes (only while it holds pods)."""
        pm = node.pm
        self.pool_rev[pm.name] += 1
        held = bool(node.allocs) and not node.removed
        entry = (pm.gpu_equivalents_per_node - node.gpus_used, node.id) if held else None
        old = node.indexed
        if entry != old:  # a pod asking no GPU leaves the node where it was
            index = self.free_index
            if old is not None:
                del index[bisect_left(index, old)]
            if entry is not None:
                insort(index, entry)
            node.indexed = entry
        by_cpu = self.cpu_index
        if by_cpu is None or pm.cpu == float("inf"):
            return
        entry = (node.cpu_free, node.id) if held else None
        old = node.cpu_indexed
        if entry != old:
            if old is not None:
                del by_cpu[bisect_left(by_cpu, old)]
            if entry is not None:
                insort(by_cpu, entry)
            node.cpu_indexed = entry

    def _choose_among(self, options: list[Demand], kept: bool = True,
                      ) -> tuple[Node | None, Demand | None]:
        """Return the node the scheduler puts one pod on, of all its pools', and the request.

        ``options``: the pod's request on each pool it may use; ``kept``: the list is a job's
        own (``gang.options``), so the walk's plan is kept with it. Scores compare across
        pools; the best wins (``choose``, or KAI binpack's walk, ``choose_packed``).
        """
        best: Node | None = None
        best_d: Demand | None = None
        best_key: tuple[float, float, int] | None = None
        scanned: Sequence[Demand] = options
        if self.packed:
            plan = self._plan(options, kept)
            index = self.free_index if plan.gpu else self.cpu_index
            if plan.walked and index is not None:
                best, best_d, best_key = choose_packed(index, self.by_id, self.empty, plan)
                if best is None:
                    best_key = None
            scanned = plan.scanned
        for d in scanned:
            node, key = choose(self.emulation, self._candidates(d.pool.name), d)
            if node is not None and (best_key is None or key > best_key):
                best, best_d, best_key = node, d, key
        return best, best_d

    def _plan(self, options: list[Demand], kept: bool) -> PackedPlan:
        """Return the walk's plan for ``options`` (kept per list where ``kept``)."""
        plan = self.plans.get(id(options)) if kept else None
        if plan is not None and plan.options is options:
            return plan
        plan = packed_plan(options, len(self.cluster.pools))
        if kept:
            self.plans[id(options)] = plan
        return plan

    def _free_gpus(self, pool: str) -> float:
        """Non-allocated GPUs over the pool's schedulable nodes (kept until the pool changes)."""
        rev = self.pool_rev[pool]
        kept = self.free_sums.get(pool)
        if kept is None or kept[0] != rev:
            # Node.non_allocated_gpus and Node.schedulable, inline: summed in the same order
            free = sum([n.pm.gpu_equivalents_per_node - n.gpus_used for n in self.nodes[pool]
                        if n.ready and not n.draining and not n.removed])
            kept = self.free_sums[pool] = (rev, free)
        return kept[1]
