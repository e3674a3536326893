"""What the pods on a pool's nodes were, read from kube-state-metrics through Prometheus.

kube-state-metrics' pod series (its ``docs/metrics/workload/pod-metrics.md``):

* ``kube_pod_info``: one series a pod, its ``node`` label naming where it was scheduled;
* ``kube_pod_owner``: the pod's owner by ``owner_kind`` (``ReplicaSet``, ``StatefulSet``,
  ``Job``, ``DaemonSet``...), ``<none>`` for a bare pod nothing recreates;
* ``kube_pod_container_status_restarts_total``: a counter of container restarts;
* ``kube_pod_container_resource_requests``: requests by ``resource`` (``cpu`` in cores, ``memory``
  in bytes, GPU resources with ``_`` for ``.`` and ``/``) with the pod's ``node``.

Every figure is aggregated in the server over the window (``max_over_time``, ``increase``, a
five-minute subquery for the host requests a node carried), so the answer is one series a pod or
a node however long the window.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from gpupool.advise.prometheus import Prometheus
from gpupool.sharing.promql import GPU_RESOURCES

GIB = 1024.0**3
# Owner kinds whose controller makes a new pod when a node goes away (kube-state-metrics writes
# ``<none>`` for a pod without an owner).
RECREATED = frozenset({"ReplicaSet", "StatefulSet", "Job", "DaemonSet", "ReplicationController",
                       "Deployment", "CronJob", "LeaderWorkerSet", "JobSet", "RayCluster",
                       "PyTorchJob", "MPIJob", "TFJob"})
_RUNNING = 'max by (namespace, pod) (kube_pod_status_phase{phase="Running"}) == 1'


@dataclass(frozen=True)
class PoolPods:
    """The GPU pods seen on a pool's nodes over the window, and the host requests they held."""

    pool: str
    pods: int = 0
    owner_kinds: Mapping[str, int] = field(default_factory=dict)  # kind -> pods
    restarts: int = 0  # container restarts over the window, all pods together
    cpu_p95: float | None = None  # cores requested on the busiest node (p95 over the window)
    memory_p95_gib: float | None = None  # GiB requested on the busiest node (p95)
    resolution: str = "5m"  # the step the host requests were read at

    @property
    def bare(self) -> int:
        """Pods that no controller recreates (owner ``<none>`` or a kind not known to)."""
        return sum(n for kind, n in self.owner_kinds.items() if kind not in RECREATED)


def _pod(labels: Mapping[str, str]) -> tuple[str, str]:
    return labels.get("namespace", ""), labels.get("pod", "")


def read(
    server: Prometheus, end: float, range_: str, node_pools: Mapping[str, str]
) -> tuple[dict[str, PoolPods], dict[tuple[str, str], str], list[str]]:
    """Return each pool's pods, each pod's pool (by its node), and the gaps met reading them."""
    gaps: list[str] = []
    nodes = {
        _pod(s.labels): s.labels.get("node", "")
        for s in server.query(
            f'max by (namespace, pod, node) (max_over_time(kube_pod_info{{node!=""}}[{range_}]))',
            end,
        )
    }
    gpu_pods = {
        _pod(s.labels)
        for s in server.query(
            "max by (namespace, pod) (max_over_time("
            f"kube_pod_container_resource_requests{{{GPU_RESOURCES}}}[{range_}])) > 0",
            end,
        )
    }
    if not nodes:
        gaps.append("kube-state-metrics' kube_pod_info is absent: the pods on each pool's nodes "
                    "are unknown (spot and instance-type advice need kube-state-metrics)")
        return {}, {}, gaps
    owners: dict[tuple[str, str], str] = {}
    for s in server.query(
        f"max by (namespace, pod, owner_kind) (max_over_time(kube_pod_owner[{range_}]))", end
    ):
        owners.setdefault(_pod(s.labels), s.labels.get("owner_kind", "<none>"))
    restarts: Counter[tuple[str, str]] = Counter()
    for s in server.query(
        "sum by (namespace, pod) "
        f"(increase(kube_pod_container_status_restarts_total[{range_}]))", end
    ):
        if not math.isnan(s.value):
            restarts[_pod(s.labels)] += round(s.value)
    kinds: dict[str, Counter[str]] = {}
    restarted: Counter[str] = Counter()
    for key in gpu_pods:
        pool = node_pools.get(nodes.get(key, ""))
        if pool is None:
            continue
        kinds.setdefault(pool, Counter())[owners.get(key, "<none>")] += 1
        restarted[pool] += restarts.get(key, 0)
    cpu = _host_requests(server, end, range_, 'resource="cpu"', node_pools)
    memory = _host_requests(server, end, range_, 'resource="memory"', node_pools)
    pools = {
        pool: PoolPods(
            pool=pool,
            pods=sum(kinds.get(pool, Counter()).values()),
            owner_kinds=dict(sorted(kinds.get(pool, Counter()).items())),
            restarts=restarted.get(pool, 0),
            cpu_p95=cpu.get(pool),
            memory_p95_gib=None if pool not in memory else memory[pool] / GIB,
            resolution=resolution(range_),
        )
        for pool in sorted(set(node_pools.values()))
    }
    pod_pools = {key: node_pools[n] for key, n in nodes.items() if n in node_pools}
    return pools, pod_pools, gaps


def resolution(range_: str) -> str:
    """Return the subquery step for a window: five minutes, or the window in 2,000 steps."""
    return f"{max(5, math.ceil(int(range_.rstrip('m')) / 2000))}m"


def _host_requests(
    server: Prometheus, end: float, range_: str, resource: str, node_pools: Mapping[str, str]
) -> dict[str, float]:
    """Return per pool the p95 of a resource its busiest node held.

    The resolution is five minutes, or the window in 2,000 steps when that is coarser.
    """
    step = resolution(range_)
    held = (
        "sum by (node) (max by (namespace, pod, container, node) "
        f"(kube_pod_container_resource_requests{{{resource}}}) "
        f"* on (namespace, pod) group_left () ({_RUNNING}))"
    )
    out: dict[str, float] = {}
    for s in server.query(f"quantile_over_time(0.95, ({held})[{range_}:{step}])", end):
        pool = node_pools.get(s.labels.get("node", ""))
        if pool is not None and not math.isnan(s.value):
            out[pool] = max(out.get(pool, 0.0), s.value)
    return out
