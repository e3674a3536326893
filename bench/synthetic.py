"""A seeded synthetic workload for a stack: the bench's stand-in until ``simulate/generate.py``.

``jobs(stack, count, seed)`` draws ``count`` jobs sized to the stack's pools: a mix of GPU
fractions, whole GPUs (1, 2, 4, 8), CPU-only pods and small gangs, spread over the stack's
tenants (and pods of no tenant), arriving in a daily wave whose peak asks more GPUs than the
pools hold, so queues build and drain. The same stack, count and seed give the same jobs.
"""

from __future__ import annotations

import math
import random

from gpupool.model import Stack
from gpupool.simulate.cluster import cluster_of
from gpupool.simulate.jobs import Job, Workload

MEAN_DURATION = 3600.0
LOAD = 0.9  # mean GPUs asked over GPUs held; the daily wave swings it from 0.5x to 1.3x


def _gpus(stack: Stack) -> float:
    return sum(pm.nodes_max * pm.gpu_equivalents_per_node for pm in cluster_of(stack).pools)


def _shape(rng: random.Random, per_node: int) -> dict[str, object]:
    r = rng.random()
    if r < 0.40:
        return {"fraction": rng.choice((0.1, 0.2, 0.25, 0.3, 0.5, 0.7))}
    if r < 0.75:
        return {"gpus": 1}
    if r < 0.85:
        return {"gpus": min(rng.choice((2, 4, 8)), max(per_node, 1))}
    if r < 0.95:
        return {}
    return {"gpus": 1, "pods": rng.choice((2, 3, 4))}


def _mean_gpus() -> float:
    # 0.40 x mean fraction 0.325 + 0.35 x 1 + 0.10 x 14/3 (capped at the node) + 0.05 x 3
    return 0.40 * 0.325 + 0.35 + 0.10 * 14 / 3 + 0.05 * 3


def jobs(stack: Stack, count: int, seed: int = 0, source: str = "synthetic") -> Workload:
    """Return ``count`` seeded jobs shaped for ``stack``'s pools and tenants."""
    rng = random.Random(seed)
    tenants: list[str | None] = [t.name for t in stack.tenants] + [None]
    per_node = max((pm.gpus_per_node for pm in cluster_of(stack).pools), default=1)
    rate = LOAD * max(_gpus(stack), 1.0) / (_mean_gpus() * MEAN_DURATION)  # jobs per second
    t = 0.0
    out = []
    for i in range(count):
        wave = 1.0 + 0.45 * math.sin(2 * math.pi * t / 86400.0)
        t += rng.expovariate(rate * wave)
        shape = _shape(rng, per_node)
        tenant = rng.choice(tenants)
        gpu = bool(shape)
        out.append(Job(
            name=f"job-{i}", line=i + 2, submit=round(t, 1),
            duration=round(max(rng.expovariate(1 / MEAN_DURATION), 30.0), 1),
            tenant=tenant, cpu=rng.choice((1.0, 2.0, 4.0, 8.0)) if gpu else 2.0,
            memory_gib=rng.choice((4.0, 8.0, 16.0, 32.0)),
            **shape,  # type: ignore[arg-type]
        ))
    return Workload(source, tuple(out))
