"""Nodes of a pool that vanished in the window: the interruption rate advise measures (issue 40).

**What is read** (only where a pool or tenant states a ``checkpoint``: nothing else needs it).
Each GPU node's hours in the window, from the DCGM exporter's ``DCGM_FI_DEV_FB_USED``: one
range query at a one-hour step of ``max by (Hostname, hostname) (max_over_time(...[1h]))``, the
series ``evidence.Reader.hourly_nodes`` reads too (a node's pool: ``Evidence.node_pools``, from
the stack's ``nodeNames`` or kube-state-metrics' ``kube_node_labels``). A node is present in an
hour whose range holds a sample, and busy where its GPUs held at least the evidence's idle line
(``evidence.IDLE_MIB``, 1 GiB: a CUDA context alone takes a few hundred MiB).

**What counts as an interruption.** A node whose series stop while the pool's other nodes go
on (its last present hour before the pool's last) vanished: the cloud reclaimed it (spot), it
failed, or the autoscaler removed it. A node removed by cluster-autoscaler had nothing on it
worth keeping (its scale-down takes unneeded nodes), so only a node that vanished *busy* (its
last hour busy) counts as an interruption; one that went idle is listed apart and not counted.
A node that vanishes and comes back under the same name counts each time its series stop; a
pool all of whose nodes stop together shows no vanishing (no other node goes on).
The rate is those interruptions over the pool's busy node-hours: the rate at which the node a
job runs on goes (``interruptions_per_hour``, per node and hour as ``interruption.perHour``),
and its inverse the mean time between interruptions (``mtbi_seconds``). Hours are whole hours:
the step of the query. ``advise.checkpoint_interval`` turns the rate into an interval.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from gpupool.advise.prometheus import Prometheus
from gpupool.model import Stack

HOUR = 3600.0


@dataclass(frozen=True)
class Vanished:
    """One node whose series stopped before the pool's others did."""

    node: str
    last_seen: float  # the end of the last hour the node reported in (unix seconds)
    busy: bool  # whether its GPUs held memory in that hour


@dataclass(frozen=True)
class PoolInterruptions:
    """One pool's nodes over the window: the busy node-hours, and the nodes that vanished."""

    pool: str
    window_seconds: float
    busy_node_hours: int
    node_hours: int
    vanished: tuple[Vanished, ...] = ()

    @property
    def interruptions(self) -> int:
        """The nodes that vanished busy: each an interruption of what ran there."""
        return sum(1 for v in self.vanished if v.busy)

    @property
    def idle_gone(self) -> tuple[str, ...]:
        """The nodes that vanished idle (scaled down, or reclaimed with nothing on them)."""
        return tuple(v.node for v in self.vanished if not v.busy)

    @property
    def interruptions_per_hour(self) -> float | None:
        """Interruptions per busy node-hour; None where no busy hour was seen."""
        return self.interruptions / self.busy_node_hours if self.busy_node_hours else None

    @property
    def mtbi_seconds(self) -> float | None:
        """The mean time between interruptions of a node; None where none was seen."""
        if not self.interruptions:
            return None
        return self.busy_node_hours * HOUR / self.interruptions


def _node(labels: Mapping[str, str]) -> str:
    return labels.get("hostname") or labels.get("Hostname") or ""


def checkpointed(stack: Stack) -> bool:
    """Whether any pool or tenant states a ``checkpoint`` (so that interruptions are read)."""
    owners = [*stack.pools, *stack.tenants]
    return any(o.recovery.checkpoint is not None for o in owners)


def count(hours: Mapping[str, Mapping[int, bool]], pool: str, window: float,
          start: float) -> PoolInterruptions:
    """Return one pool's figures from its nodes' hours: node -> {hour index: busy}.

    ``start`` is the end of hour 0. A node's run of present hours that ends before the last
    hour any node of the pool was present in is a vanishing.
    """
    last = max((max(h) for h in hours.values() if h), default=-1)
    vanished: list[Vanished] = []
    for node in sorted(hours):
        seen = hours[node]
        for i in sorted(seen):
            if i < last and i + 1 not in seen:
                vanished.append(Vanished(node, start + i * HOUR, seen[i]))
    return PoolInterruptions(
        pool=pool, window_seconds=window,
        busy_node_hours=sum(sum(1 for b in h.values() if b) for h in hours.values()),
        node_hours=sum(len(h) for h in hours.values()),
        vanished=tuple(sorted(vanished, key=lambda v: (v.last_seen, v.node))),
    )


def read(server: Prometheus, stack: Stack, end: float, window: float,
         node_pools: Mapping[str, str], metric: str, idle_mib: float,
         progress: Callable[[str], None] | None = None) -> dict[str, PoolInterruptions]:
    """Return each pool's node-hours and vanished nodes (empty where nothing checkpoints).

    ``metric`` is the GPU memory series (MiB) and ``idle_mib`` the line under which an hour of
    a node's GPUs ran nothing, the evidence's own.
    """
    if not checkpointed(stack) or not node_pools:
        return {}
    if progress:
        progress("reading which nodes vanished in the window")
    start = end - window + HOUR
    expr = f"max by (Hostname, hostname) (max_over_time({metric}[1h]))"
    hours: dict[str, dict[str, dict[int, bool]]] = {}
    steps = max(0, round((end - start) / HOUR) + 1)
    for s in server.query_range(expr, start, end, HOUR):
        node = _node(s.labels)
        pool = node_pools.get(node)
        if pool is None:
            continue
        seen = hours.setdefault(pool, {}).setdefault(node, {})
        for t, v in s.points:
            i = round((t - start) / HOUR)
            if 0 <= i < steps and not math.isnan(v):
                seen[i] = seen.get(i, False) or v >= idle_mib
    return {p.name: count(hours[p.name], p.name, window, start)
            for p in stack.pools if p.name in hours}
