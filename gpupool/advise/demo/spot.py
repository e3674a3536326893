"""The demo's spot pool: ``spot-l4``, whose nodes the cloud takes back, and its series.

Eight g6.4xlarge spot nodes (one L4 each) run batch training all 14 days, checkpointing every
30 minutes with a 60 s write (``STACK_POOL``). Four times, at 10:00 on days 3, 6, 9 and 12 of
the window, the cloud reclaims a busy node: its series stop, and a node under a new name takes
its place an hour later (``GONE``). What the DCGM exporter records of each node (``Hostname``,
``gpu``: 20 GiB of GPU memory and 85% activity while it runs) and kube-state-metrics'
``kube_node_labels`` with the pool label, every 20 minutes, 30 s before the mark as the rest of
the demo (``advise.demo.scenario``).

Hand-worked (``tests/advise/test_advise_demo.py``): 8 nodes x 336 hours, less the one hour each
reclaimed node's place stood empty: 2,688 - 4 = 2,684 busy node-hours, 4 interruptions, a mean
time between interruptions of 671 h.
"""

from __future__ import annotations

from gpupool.advise.demo.promql import Series, labels_of

POOL = "spot-l4"
NODES = tuple(f"spot-{n:02d}" for n in range(1, 9))
# (day of the window, node reclaimed at 10:00 that day, the node that takes its place)
GONE = ((3, "spot-02", "spot-09"), (6, "spot-05", "spot-10"), (9, "spot-09", "spot-11"),
        (12, "spot-07", "spot-12"))
L4_MIB = 23034.0
USED_MIB = 20 * 1024.0
ACTIVE = 0.85

STACK_POOL = """\
  - name: spot-l4
    instanceType: g6.4xlarge
    workload: training
    nodes: {min: 0, max: 8}
    capacity: {type: spot}
    interruption: {checkpoint: required}
    # the trainer writes its state in a minute; every half hour was a guess
    checkpoint: {everySeconds: 1800, writeSeconds: 60, restoreSeconds: 120}
"""


def lifetimes(start: float, end: float) -> dict[str, tuple[float, float]]:
    """Return each node's (first, last) moment: from ``start`` or its replacement's hour on."""
    out = dict.fromkeys(NODES, (start, end))
    for day, gone, new in GONE:
        at = start + day * 86400.0 + 10 * 3600.0
        out[gone] = (out[gone][0], at)
        out[new] = (at + 3600.0, end)
    return out


def series(times: list[float], start: float, end: float) -> list[Series]:
    """Return the pool's series at ``times`` from ``start`` to ``end``."""
    out: list[Series] = []
    for node, (first, last) in lifetimes(start, end).items():
        alive = [t for t in times if first <= t < last]
        device = {"Hostname": node, "gpu": "0", "modelName": "NVIDIA L4",
                  "UUID": f"GPU-{node}-0"}
        for name, labels, value in (
            ("DCGM_FI_DEV_FB_USED", device, USED_MIB),
            ("DCGM_FI_DEV_FB_FREE", device, L4_MIB - USED_MIB),
            ("DCGM_FI_PROF_GR_ENGINE_ACTIVE", device, ACTIVE),
            ("kube_node_labels", {"node": node, "label_gpupool_io_pool": POOL}, 1.0),
        ):
            s = Series(labels_of(name, labels))
            s.times.extend(alive)
            s.values.extend([value] * len(alive))
            out.append(s)
    return out
