"""HAMi's fractional slots, read: each container's own GPU memory against its slot's limit.

HAMi's device-plugin monitor (``cmd/vGPUmonitor/metrics.go`` in Project-HAMi/HAMi, scraped on
port 31992) writes one series a container and virtual device, in bytes: what the container uses
and its slot's cap. v2.10.0 names them ``hami_vgpu_memory_used_bytes`` and
``hami_vgpu_memory_limit_bytes`` (labels ``namespace``, ``pod``, ``container``,
``vdevice_index``, ``device_uuid``); earlier versions, and v2.10.0 under ``--legacy-metrics``,
``vGPU_device_memory_usage_in_bytes`` and ``vGPU_device_memory_limit_in_bytes`` (labels
``podnamespace``, ``podname``, ``ctrname``, ``vdeviceid``, ``deviceuuid``). The new names are
read first (``gpupool.advise.peaks.SPELLINGS``). Unlike the DCGM exporter's per-pod series under
time-slicing, these are true per-container figures. The pod's node, and so its pool, comes from
kube-state-metrics' ``kube_pod_info``.

The rule that reads them is ``grow-slots-hami`` (``gpupool.advise.slots``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from gpupool import schedulers
from gpupool.advise.peaks import LEGACY, SPELLINGS
from gpupool.advise.prometheus import Prometheus
from gpupool.model import Pool, Stack

USED = LEGACY.used
LIMIT = LEGACY.limit
GIB = 1024.0**3


@dataclass(frozen=True)
class SlotUse:
    """One container's virtual GPU over the window."""

    namespace: str
    pod: str
    container: str
    used_p99_gib: float
    limit_gib: float
    samples: int
    series: str = f"{LEGACY.used}, {LEGACY.limit}"  # the spelling of HAMi's series read


def hami_pools(stack: Stack) -> list[Pool]:
    """Return the pools whose slots HAMi enforces (its device plugin reports their use)."""
    if not schedulers.of(stack).own_device_plugin:
        return []
    return [p for p in stack.pools if p.sharing.kind.scheduler_slots]


def read(
    server: Prometheus, end: float, range_: str, pod_pools: Mapping[tuple[str, str], str]
) -> tuple[dict[str, list[SlotUse]], list[str]]:
    """Return each pool's containers with their p99 memory and limit, and the gaps met."""
    def by_key(expr: str, key: str) -> dict[tuple[str, ...], float]:
        return {
            tuple(s.labels.get(k.strip(), "") for k in key.split(",")): s.value
            for s in server.query(expr, end) if not math.isnan(s.value)
        }

    used: dict[tuple[str, ...], float] = {}
    for names in SPELLINGS:
        by = f"{names.namespace}, {names.pod}, {names.container}, {names.device}"
        used = by_key(f"max by ({by}) (quantile_over_time(0.99, {names.used}[{range_}]))", by)
        if used:
            break
    if not used:
        return {}, [
            f"HAMi's per-container series ({' or '.join(n.used for n in SPELLINGS)}) are "
            "absent: its device-plugin monitor is not scraped "
            "(cluster.monitoring.prometheus.serviceMonitor under scheduler hami), so no "
            "fractional slot is judged"
        ]
    limit = by_key(f"max by ({by}) (max_over_time({names.limit}[{range_}]))", by)
    count = by_key(f"max by ({by}) (count_over_time({names.used}[{range_}]))", by)
    out: dict[str, list[SlotUse]] = {}
    unplaced = 0
    for key, value in sorted(used.items()):
        namespace, pod, container, _ = key
        pool = pod_pools.get((namespace, pod))
        if pool is None or key not in limit or limit[key] <= 0:
            unplaced += 1
            continue
        out.setdefault(pool, []).append(
            SlotUse(namespace, pod, container, value / GIB, limit[key] / GIB,
                    int(count.get(key, 0)), f"{names.used}, {names.limit}")
        )
    gaps = []
    if unplaced:
        gaps.append(f"{unplaced} HAMi container series have no node in kube_pod_info or no "
                    f"{names.limit}: left out")
    return out, gaps
