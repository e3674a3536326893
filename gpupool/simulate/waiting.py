"""Bookkeeping of waiting queues that keeps a scheduling pass's work bounded by what changed.

The engine (``engine.Simulation``) keeps one queue per job shape, tenant and priority level. On
stacks where a failed try leaves no trace (``Simulation._gated``), a queue whose first job failed
is *parked*: it can only fit again on a node released or made ready since. This module owns two
indexes over those queues, so that a release costs work in what it frees, not in how many
distinct shapes wait:

* ``Parked``: the parked queues in the scheduler's order, and per pool the smallest CPU, memory
  and counted unit any of them asks there. A pass walks them in order only while some touched
  node still has room for that smallest request; a queue none of the touched nodes fits is
  skipped (its try would fail with the same outcome).
* ``Wanted``: what the waiting queues ask of the autoscaler, summed per group of queues that may
  use the same pools in the same order, kept exactly (``fractions.Fraction``) as queues change,
  so that a pass's scale-up request costs the number of such groups, not of queues.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction

from gpupool.simulate.autoscaler import nodes_for
from gpupool.simulate.demand import Demand
from gpupool.simulate.placement import Node

_EPS = 1e-9
Key = tuple[object, ...]
Order = tuple[float, ...]


def _needs(d: Demand, resources: Sequence[str]) -> tuple[float, ...]:
    units = dict(d.units)
    return (d.cpu, d.memory_gib, *(float(units.get(r, 0)) for r in resources))


class Parked:
    """Parked queues in the scheduler's order, with per-pool minima of what they ask."""

    def __init__(self) -> None:
        self.gen: dict[Key, int] = {}  # parked queue -> the generation of its entries
        self.serial = 0
        self.order: list[tuple[Order, int, Key]] = []  # (order, generation, key), lazy
        # pool -> (resources named, one lazy heap per dimension of (need, generation, key))
        self.minima: dict[str, tuple[tuple[str, ...], list[list[tuple[float, int, Key]]]]] = {}

    def __contains__(self, key: Key) -> bool:
        return key in self.gen

    def __len__(self) -> int:
        return len(self.gen)

    def __iter__(self) -> Iterable[Key]:  # type: ignore[override]
        return iter(list(self.gen))

    def add(self, key: Key, order: Order, options: Iterable[Demand]) -> None:
        """Park ``key``, whose first job (of scheduler order ``order``) asks ``options``."""
        self.serial += 1
        gen = self.gen[key] = self.serial
        heapq.heappush(self.order, (order, gen, key))
        for d in options:
            name = d.pool.name
            found = self.minima.get(name)
            if found is None:
                resources = tuple(sorted(d.pool.units))
                found = self.minima[name] = (resources, [[] for _ in range(2 + len(resources))])
            resources, heaps = found
            for heap, need in zip(heaps, _needs(d, resources), strict=True):
                heapq.heappush(heap, (need, gen, key))

    def discard(self, key: Key) -> None:
        """Unpark ``key`` (its entries go stale)."""
        self.gen.pop(key, None)

    def _live(self, entry: tuple[object, int, Key]) -> bool:
        return self.gen.get(entry[2]) == entry[1]

    def peek(self) -> tuple[Order, Key] | None:
        """Return the first parked queue in order, or None."""
        order = self.order
        while order and not self._live(order[0]):
            heapq.heappop(order)
        return (order[0][0], order[0][2]) if order else None

    def pop(self) -> None:
        """Take the first parked queue off the walk (``peek`` found it); it stays parked."""
        heapq.heappop(self.order)

    def push_back(self, entries: Iterable[tuple[Order, Key]]) -> None:
        """Put queues taken off the walk back in it (they were skipped, still parked)."""
        for order, key in entries:
            gen = self.gen.get(key)
            if gen is not None:
                heapq.heappush(self.order, (order, gen, key))

    def may_fit(self, node: Node) -> bool:
        """Whether the node has room for the smallest request of its pool's parked queues."""
        found = self.minima.get(node.pm.name)
        if found is None:
            return False
        resources, heaps = found
        free = (node.cpu_free + _EPS, node.mem_free + _EPS,
                *(float(node.units.get(r, 0)) for r in resources))
        for heap, have in zip(heaps, free, strict=True):
            while heap and not self._live(heap[0]):
                heapq.heappop(heap)
            if not heap:
                return False
            if heap[0][0] > have:
                return False
        return True


class Wanted:
    """What the waiting queues ask of the autoscaler, summed exactly per group of queues.

    A queue's request is ``max(nodes_for(pool, d, pods), 1e-6)`` on the first of its pools
    with room; queues whose options name the same pools in the same order form one group, and
    the group keeps, per pool, the sum over its queues. A pass's request per pool is then the
    sum over groups; the pools come in the order of the oldest queue asking each, as a scan of
    the queues in their order would find them.
    """

    def __init__(self) -> None:
        self.sums: dict[tuple[str, ...], list[Fraction]] = {}
        self.heads: dict[tuple[str, ...], list[tuple[int, Key]]] = {}  # lazy (serial, key)
        self.pools: dict[tuple[str, ...], tuple[Demand, ...]] = {}  # a group's first options
        self.held: dict[Key, tuple[tuple[str, ...], int, list[Fraction]]] = {}
        self.serial = 0

    def update(self, key: Key, options: Sequence[Demand], pods: int) -> None:
        """Set queue ``key``'s request to ``pods`` pods of ``options`` (0: the queue is gone)."""
        old = self.held.pop(key, None)
        if old is not None:
            group, serial, parts = old
            sums = self.sums[group]
            for i, part in enumerate(parts):
                sums[i] -= part
        if pods <= 0:
            return
        group = tuple(d.pool.name for d in options)
        sums = self.sums.setdefault(group, [Fraction(0)] * len(options))
        parts = [Fraction(max(nodes_for(d.pool, d, pods), 1e-6)) for d in options]
        for i, part in enumerate(parts):
            sums[i] += part
        if old is None:
            self.serial += 1
            serial = self.serial
            heapq.heappush(self.heads.setdefault(group, []), (serial, key))
            self.pools.setdefault(group, tuple(options))
        self.held[key] = (group, serial, parts)

    def _oldest(self, group: tuple[str, ...]) -> int | None:
        heads = self.heads.get(group, [])
        while heads:
            serial, key = heads[0]
            held = self.held.get(key)
            if held is not None and held[1] == serial:
                return serial
            heapq.heappop(heads)
        return None

    def want(self, has_room: Callable[[str], bool]) -> tuple[dict[str, float], dict[str, Demand]]:
        """Return (nodes wanted per pool, a request on that pool), pools in the scan's order."""
        per_pool: dict[str, tuple[int, Fraction, Demand]] = {}
        for group, sums in self.sums.items():
            oldest = self._oldest(group)
            if oldest is None:
                continue
            for i, name in enumerate(group):
                if has_room(name):
                    seen = per_pool.get(name)
                    if seen is None:
                        per_pool[name] = (oldest, sums[i], self.pools[group][i])
                    else:
                        per_pool[name] = (min(seen[0], oldest), seen[1] + sums[i], seen[2])
                    break
        ranked = sorted(per_pool.items(), key=lambda item: item[1][0])
        want = {name: float(total) for name, (_, total, _) in ranked}
        first = {name: d for name, (_, _, d) in ranked}
        return want, first
