"""Nodes coming and going: the node autoscaler, and the cloud's spot interruptions.

This module owns the life of the run's nodes, the part of ``engine.Simulation`` that adds and
removes them. A node is added ready (the stack's nodes at the start) or asked for by a scale-up
and made ready by an event after ``scale_up`` seconds (and ``advertise_after`` more, the device
plugin registering the GPUs, in a run whose services ask for it); an empty node is removed after
``Settings.scale_down_seconds`` while its group keeps its minimum; a spot node is interrupted at
seeded random times, drained and gone after the cloud's notice. The scale-up follows
cluster-autoscaler (the timings and growth order in ``autoscaler``): what the waiting pods need
is asked of the first pool with room (``_want``), in the pool's growth order, less what is in
flight; a spot request the cloud cannot fill (``Settings.spot_shortage``, its own seeded stream)
is given up after the provision time and backs its group off, and an on-demand node grown in
its place is counted as a fallback.
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Callable

from gpupool.simulate import autoscaler
from gpupool.simulate.accounting import PoolStats
from gpupool.simulate.cluster import ClusterModel, GroupModel, PoolModel
from gpupool.simulate.demand import Demand
from gpupool.simulate.events import EVICT, GONE, IDLE, INTERRUPT, READY, UNFILLED, WAKE
from gpupool.simulate.gang import GAVE_UP, GAVE_UP_STATE, GIVE_UP_FACTOR, RUNNING, Gang, Settings
from gpupool.simulate.placement import Node
from gpupool.simulate.waiting import Parked


class NodeAutoscaler:
    """The part of a run that adds and removes nodes (state set by ``_init_autoscaler``)."""

    cluster: ClusterModel
    settings: Settings
    now: float
    version: int
    rng: random.Random
    nodes: dict[str, list[Node]]
    by_id: dict[int, Node]
    busy: dict[str, dict[int, Node]]
    empty: dict[str, list[int]]
    touched: dict[int, Node]
    pool_rev: dict[str, int]
    pool_stats: dict[str, PoolStats]
    owner: dict[int, Gang]
    gated: bool
    parked: Parked
    _push: Callable[[float, int, object], None]

    def _init_autoscaler(self, cloud: str) -> None:
        up = self.settings.scale_up_seconds
        self.scale_up = autoscaler.SCALE_UP_SECONDS if up is None else up
        # seconds from a new node's start to its GPUs being advertised (``nvidia.com/gpu``
        # allocatable): no pod binds to it before; 0 unless the services' actor sets it
        self.advertise_after = 0.0
        self.notice = autoscaler.notice_seconds(cloud)
        self.group_nodes: dict[str, list[Node]] = {}
        self.node_id = 0
        self.inflight: dict[str, int] = {}
        self.fallback_ids: set[int] = set()  # on-demand nodes grown in place of spot ones
        self.provisioning: set[int] = set()
        self.rate = self.settings.spot_interruptions_per_hour / 3600.0
        self.shortage_rng = random.Random(f"spot-shortage:{self.settings.seed}")
        self.unfilled: dict[str, int] = {}  # per group: requests that will fail
        self.backoff: dict[str, tuple[float, float]] = {}  # group -> (failed at, backoff)
        self.pool_models = {p.name: p for p in self.cluster.pools}

    def _add_node(self, pm: PoolModel, g: GroupModel, ready_at: float, *,
                  asked: bool = False) -> Node:
        """Add a node ready at ``ready_at``; ``asked``: by a scale-up, ready through an event.

        A node a scale-up asks for is made ready by a ``READY`` event even when it is ready at
        once (``--scale-up-seconds 0``), so a scheduling pass follows at the same instant; made
        ready on the spot it would wait for the next event, which may be hours away.
        """
        members = self.group_nodes.setdefault(g.name, [])
        node = Node(self.node_id, pm, g, len(members), self.now)
        self.by_id[node.id] = node
        self.node_id += 1
        members.append(node)
        self.nodes[pm.name].append(node)
        stats = self.pool_stats[pm.name]
        stats.nodes += 1
        stats.peak_nodes = max(stats.peak_nodes, stats.nodes)
        price = g.node_price(node.index)
        if price is None:
            stats.cost_known = False
        else:
            stats.cost_rate += price
        if ready_at <= self.now and not asked:
            self._ready(node)
        else:
            self.inflight[pm.name] = self.inflight.get(pm.name, 0) + 1
            self.provisioning.add(node.id)
            self._push(ready_at, READY, node)
        return node

    def _ready(self, node: Node) -> None:  # type: ignore[override]
        if node.ready or node.removed:
            return
        if node.id in self.provisioning:
            self.provisioning.discard(node.id)
            self.inflight[node.pm.name] -= 1
        node.ready = True
        node.idle_since = self.now
        self.pool_rev[node.pm.name] += 1
        self.touched[node.id] = node
        bisect.insort(self.empty[node.pm.name], node.id)
        self.pool_stats[node.pm.name].ready_gpus += node.pm.gpu_equivalents_per_node
        self.version += 1
        if self.cluster.autoscales:
            self._push(self.now + self.settings.scale_down_seconds, IDLE, (node, self.now))
        if node.spot and self.rate > 0:
            self._push(self.now + self.rng.expovariate(self.rate), INTERRUPT, node)

    def _freeze(self) -> None:
        """Keep the pools' free GPUs as the last full retry left them, before a change."""
        if self.gated and self.bump_free is None and self.parked:
            self.bump_free = {name: self._free_gpus(name) for name in self.nodes}

    def _remove(self, node: Node) -> None:
        self._freeze()
        node.removed = True
        stats = self.pool_stats[node.pm.name]
        stats.nodes -= 1
        if node.ready:
            stats.ready_gpus -= node.pm.gpu_equivalents_per_node
        price = node.group.node_price(node.index)
        if price is not None:
            stats.cost_rate -= price
        self.nodes[node.pm.name].remove(node)
        self.group_nodes[node.group.name].remove(node)
        self._unindex(node)
        self.busy[node.pm.name].pop(node.id, None)
        self._reindex(node)

    def _idle(self, obj: object) -> None:
        node, since = obj  # type: ignore[misc]
        if node.removed or node.allocs or not self.cluster.autoscales:
            return
        if node.idle_since != since:  # busy since; the check of its later idle time decides
            return
        live = [n for n in self.group_nodes[node.group.name] if not n.removed]
        if len(live) > node.group.min:
            self._remove(node)

    def _interrupt(self, node: Node) -> None:  # type: ignore[override]
        if node.removed or node.draining:
            return
        self._freeze()
        node.draining = True
        self.pool_rev[node.pm.name] += 1
        self._unindex(node)
        drain = node.pm.drain_seconds if node.pm.drain_seconds is not None else self.notice
        drain = min(drain, self.notice)
        self._push(self.now + drain, EVICT, node)
        self._push(self.now + self.notice, GONE, node)

    def _evict_node_pods(self, node: Node) -> None:  # type: ignore[override]
        for key in sorted(node.allocs):
            gang = self.owner.get(key)
            if gang is not None and gang.state == RUNNING:
                gang.interruptions += 1
                first = gang.first_start if gang.first_start is not None else self.now
                give_up = self.now - first > GIVE_UP_FACTOR * gang.job.duration
                lost = self._stop(gang, requeue=not give_up)
                if give_up:
                    gang.state, gang.reason = GAVE_UP_STATE, GAVE_UP
                    gang.gpu_seconds_lost += lost

    def _gone(self, node: Node) -> None:  # type: ignore[override]
        if node.removed:
            return
        self._evict_node_pods(node)
        self._remove(node)
        self.version += 1

    def _want(self, gang: Gang, pods: int, want: dict[str, float],
              first: dict[str, Demand]) -> None:
        """Add what ``pods`` pods shaped like ``gang``'s need to the first pool with room."""
        if not self.cluster.autoscales:
            return
        for d in gang.options:
            pm = d.pool
            live = len(self.nodes[pm.name])
            if live < pm.nodes_max:
                want[pm.name] = want.get(pm.name, 0.0) + max(
                    autoscaler.nodes_for(pm, d, pods), 1e-6)
                first.setdefault(pm.name, d)
                return

    def _scale_up(self, want: dict[str, float], first: dict[str, Demand]) -> None:
        for name, nodes in want.items():
            pm = first[name].pool
            need = math.ceil(nodes - 1e-9) - self.inflight.get(name, 0)
            backed_off = False  # a spot group of the pool was skipped as backed off
            for g in autoscaler.growth_order(pm):
                if need <= 0:
                    break
                held = self.backoff.get(g.name)
                if held is not None and held[0] + held[1] > self.now:
                    backed_off = backed_off or g.spot
                    continue  # backed off after a scale-up the cloud could not fill
                live = len([n for n in self.group_nodes.get(g.name, []) if not n.removed])
                room = g.max - live - self.unfilled.get(g.name, 0)
                for _ in range(min(room, need)):
                    need -= 1
                    if g.spot and self.settings.spot_shortage > 0 and (
                            self.shortage_rng.random() < self.settings.spot_shortage):
                        self._ask_unfilled(pm, g)
                    else:
                        ready = self.now + self.scale_up + self.advertise_after
                        node = self._add_node(pm, g, ready_at=ready, asked=True)
                        if not g.spot and pm.groups[0].spot:
                            self._fell_back(node, backed_off=backed_off)

    def _fell_back(self, node: Node, *, backed_off: bool) -> None:
        """Count an on-demand node grown because the pool's spot group could not grow.

        cluster-autoscaler leaves a node group whose target size is at its max out of a
        scale-up's options (``core/scaleup/orchestrator/orchestrator.go``,
        ``filterValidScaleUpNodeGroups``: "max size reached"), and a backed-off one too
        (``IsNodeGroupReadyToScaleUp``); the priority expander then picks the on-demand group
        among what is left. Draining and provisioning spot nodes count in the target size.
        """
        stats = self.pool_stats[node.pm.name]
        stats.fallback_nodes += 1
        if backed_off:
            stats.fallback_backed_off += 1
        else:
            stats.fallback_at_max += 1
        self.fallback_ids.add(node.id)

    def _ask_unfilled(self, pm: PoolModel, g: GroupModel) -> None:
        """Ask for a spot node that never comes; the autoscaler gives up on it later."""
        self.unfilled[g.name] = self.unfilled.get(g.name, 0) + 1
        self.inflight[pm.name] = self.inflight.get(pm.name, 0) + 1
        self.pool_stats[pm.name].spot_unfilled += 1
        self._push(self.now + autoscaler.MAX_NODE_PROVISION_SECONDS, UNFILLED, (pm.name, g.name))

    def _unfilled(self, obj: object) -> None:
        """Give up on a node not come in the provision time: back its group off."""
        pool, group = obj  # type: ignore[misc]
        self.unfilled[group] -= 1
        self.inflight[pool] -= 1
        held = self.backoff.get(group)
        length = autoscaler.backoff_seconds(
            None if held is None else held[1], None if held is None else self.now - held[0])
        self.backoff[group] = (self.now, length)
        if self.settings.spot_shortage < 1:
            # the group may grow again then; at a shortage of 1 no spot request is ever filled,
            # so retries ride on other events and the run still ends
            self._push(self.now + length, WAKE, None)
