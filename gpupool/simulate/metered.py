"""An observer of a run that measures each pool's GPU fragmentation (the FGD measure).

This module owns when and on what the report's fragmentation is measured. The run is the
engine's own (``engine.Simulation``, ``engine.simulate_metered``); ``FragmentationMeter`` is
attached to it as an observer (``observers``) and only looks at the nodes as the clock
advances, at ``SAMPLES`` instants evenly spaced over the workload's span (the latest submit
plus duration; instants keep the same step past it while pods still wait), and keeps those
before the run's end. Instants that see the same cluster are kept as one run of instants, and
a run that outlasts ``MAX_INSTANTS`` steps doubles its step (keeping every other instant), so
a workload of microseconds that waits minutes for a node costs no more than a long one.
At each instant every ready, schedulable node of a pool is measured with
``fragmentation.Meter`` for the workload's typical pod shapes; a pool's figure is the
fragmented GPU capacity summed over the instants over its ready GPU capacity summed over the
same instants (so an instant with more nodes weighs more, as allocation's time weighting does).

A node's free GPU capacity, per GPU, in milli-GPU: under KAI fractions each GPU's free share;
under HAMi each GPU's free slots over its slots; on counted-unit pools (whole GPUs,
time-slicing, MPS, MIG), where the device plugin keeps no per-GPU state, the free GPU
equivalents as whole free GPUs and one partly free GPU for the remainder.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from gpupool.schedulers.base import DEVICES_FRACTION, DEVICES_VGPU
from gpupool.simulate.cluster import PoolModel
from gpupool.simulate.fragmentation import MILLI, Meter, NodeFree, typical_shapes
from gpupool.simulate.jobs import Workload
from gpupool.simulate.observers import Observer, RunView
from gpupool.simulate.placement import Node

SAMPLES = 120
"""Instants the workload's span is measured at (the report's timeline keeps as many)."""

MAX_INSTANTS = SAMPLES * 64
"""The most instants a run keeps: past it the step doubles and every other instant goes."""

_NO_CPU_LIMIT = 10**12  # milli-CPU standing for a node whose CPU the stack does not give


def node_free(node: Node) -> NodeFree:
    """Return the node's free capacity as the FGD measure reads it."""
    pm = node.pm
    n = pm.gpus_per_node
    if pm.device_kind == DEVICES_FRACTION:
        gpus = tuple(max(0, round(f * MILLI)) for f in node.dev_free)
    elif pm.device_kind == DEVICES_VGPU:
        slots = pm.slots_per_gpu or 1
        gpus = tuple(max(0, round(f / slots * MILLI)) for f in node.dev_free)
    else:
        free = max(0.0, node.non_allocated_gpus()) * n / (pm.gpu_equivalents_per_node or n or 1)
        whole = min(n, int(free + 1e-9))
        rest = round((free - whole) * MILLI) if whole < n else 0
        gpus = (MILLI,) * whole + ((rest,) if whole < n else ()) + (0,) * max(0, n - whole - 1)
    cpu = _NO_CPU_LIMIT if node.cpu_free == float("inf") else max(0, round(node.cpu_free * MILLI))
    return NodeFree(gpus, cpu, pm.gpu_name if n else None)


class FragmentationMeter(Observer):
    """Measures each pool's fragmentation at evenly spaced instants of the run it watches."""

    def __init__(self, workload: Workload) -> None:
        shapes = typical_shapes(workload.jobs)
        self.meter = Meter(shapes) if shapes else None
        span = max((j.submit + j.duration for j in workload.jobs), default=0.0)
        self.step = span / SAMPLES if span > 0 else 0.0
        self.next_sample = 0  # index k of the next instant, k x step
        # runs of instants k0 <= k < k1 that saw one cluster: (k0, k1, pool -> (fragmented
        # milli-GPU, ready milli-GPU))
        self.samples: list[tuple[int, int, dict[str, tuple[float, float]]]] = []
        # what is measured, kept from the run's view (not the run: no cycle keeps it alive)
        self.pools: tuple[PoolModel, ...] = ()
        self.nodes: Mapping[str, Sequence[Node]] = {}
        if self.meter is None or self.step <= 0:
            self.on_advance = None  # type: ignore[assignment]  # nothing to measure: no hook

    def attach(self, run: RunView) -> None:
        """Keep the pools and the nodes of the run, which are measured."""
        self.pools = tuple(run.cluster.pools)
        self.nodes = run.nodes

    def on_advance(self, t: float) -> None:
        """Measure the instants the clock passes on its way to ``t``."""
        due = self._due(t)
        while due > MAX_INSTANTS:
            self._coarsen()
            due = self._due(t)
        if due > self.next_sample:
            self.samples.append((self.next_sample, due, self._measure()))
            self.next_sample = due

    def _due(self, t: float) -> int:
        """Return the index of the first instant at or after ``t`` (none before it is taken)."""
        k = max(self.next_sample, math.ceil(t / self.step))
        while k > self.next_sample and (k - 1) * self.step >= t:
            k -= 1
        while k * self.step < t:
            k += 1
        return k

    def _coarsen(self) -> None:
        """Double the step: keep the instants of even index, renumbered by half."""
        self.step *= 2
        kept = []
        for k0, k1, now in self.samples:
            a, b = (k0 + 1) // 2, (k1 + 1) // 2
            if b > a:
                kept.append((a, b, now))
        self.samples = kept
        self.next_sample = (self.next_sample + 1) // 2

    def _measure(self) -> dict[str, tuple[float, float]]:
        assert self.meter is not None
        nodes = self.nodes
        out: dict[str, tuple[float, float]] = {}
        for pm in self.pools:
            frag = cap = 0.0
            empty: float | None = None  # every empty node of a pool offers the same
            for node in nodes[pm.name]:
                if not node.schedulable or not pm.gpus_per_node:
                    continue
                if node.allocs:
                    frag += self.meter.node(node_free(node)).fragmented
                else:
                    if empty is None:
                        empty = self.meter.node(node_free(node)).fragmented
                    frag += empty
                cap += pm.gpus_per_node * MILLI
            out[pm.name] = (frag, cap)
        return out

    def fragmentation(self, end: float) -> dict[str, float | None]:
        """Return each pool's fragmented share of its ready GPU capacity, instants before ``end``.

        None for a pool where the workload has no typical shape or no GPU was ever ready.
        """
        frag: dict[str, float] = {pm.name: 0.0 for pm in self.pools}
        cap: dict[str, float] = dict(frag)
        for k0, k1, pools in self.samples:
            if k0 * self.step >= end and k0 > 0:
                break
            for k in range(k0, k1):
                if k * self.step >= end and k > 0:
                    break
                for name, (f, c) in pools.items():
                    frag[name] += f
                    cap[name] += c
        return {name: frag[name] / cap[name] if cap[name] else None for name in frag}

