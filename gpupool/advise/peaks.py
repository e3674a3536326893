"""Each pod's GPU memory over the window, and the 5-minute windows of the GPUs pods shared.

What the ``memory-overcommit`` rule (``gpupool.advise.overcommit``) judges, read from HAMi's
device-plugin monitor (``cmd/vGPUmonitor/metrics.go`` in Project-HAMi/HAMi v2.10.0, commit
4707fb02). That monitor writes one gauge a container and virtual device, in bytes:

* ``hami_vgpu_memory_used_bytes`` and ``hami_vgpu_memory_limit_bytes``, labelled ``namespace``,
  ``pod``, ``container``, ``vdevice_index`` and ``device_uuid`` (the names of v2.10.0);
* the same figures as ``vGPU_device_memory_usage_in_bytes`` and
  ``vGPU_device_memory_limit_in_bytes``, labelled ``podnamespace``, ``podname``, ``ctrname``,
  ``vdeviceid`` and ``deviceuuid``: the names before v2.10.0, which v2.10.0 still writes beside
  the new ones under ``--legacy-metrics`` (the chart's ``legacyMetrics: true``). The new names
  are read first, the old ones where the server has none of the new.

On an ``exclusive`` pool of a HAMi stack (one pod a GPU, so no sharing to measure) each pod's
own memory comes from the DCGM exporter's per-pod series: ``DCGM_FI_DEV_FB_USED`` with the
exporter's Kubernetes labels ``namespace``, ``pod`` and ``container`` (NVIDIA/dcgm-exporter
``internal/pkg/transformation/const.go``), its allocation the GPU's used + free
(``DCGM_FI_DEV_FB_FREE``): enough to tell a pre-allocating server, whose GPU would not be worth
sharing with an overcommit (``read_dcgm``).

(The monitor's ``Device_memory_desc_of_container`` repeats the container's use with its context,
module and buffer sizes as labels, and ``hami_host_gpu_memory_used_bytes`` /
``HostGPUMemoryUsage`` is the whole GPU's: neither is read.)

Pods that shared a GPU are those whose series carry one device UUID (a GPU's UUID names one GPU
of one node). Per 5-minute window, the server sums the GPU's containers every 30 s (Prometheus
Operator's default scrape interval) and keeps the window's largest sum:
``max_over_time((sum by (device) (used))[299s:30s])`` (299 s: the window's ten steps whichever
the Prometheus version, 2.x ranges holding their start and 3.x not); the containers present are
read with the same subquery, so a container counts in a window exactly where its use counted in
the sum. Each range query covers as many 5-minute steps as keep its answer under 200,000 points
(the whole window for a small pool, under a day for a thousand containers), so no answer nears
the client's size limit and no query loads more than a few million samples.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gpupool import schedulers
from gpupool.advise.overflow import WINDOW_SECONDS
from gpupool.advise.prometheus import MAX_POINTS_PER_SERIES, Prometheus
from gpupool.model import Stack

GIB = 1024.0**3
SUM_STEP = "30s"  # the subquery's step: Prometheus Operator's default scrape interval
# a window's subquery range: its ten 30 s steps whichever the version (Prometheus 2.x ranges
# hold their start, 3.x ranges do not; 299 s leaves the start out of both)
SUM_RANGE = "299s"
_ANSWER_POINTS = 200_000  # points one range answer holds at most (a few MiB of JSON)


@dataclass(frozen=True)
class Names:
    """One spelling of HAMi's per-container memory series and their labels."""

    used: str
    limit: str
    namespace: str
    pod: str
    container: str
    device: str

    @property
    def key(self) -> str:
        """The labels that name one container's virtual device."""
        return f"{self.namespace}, {self.pod}, {self.container}, {self.device}"


CURRENT = Names("hami_vgpu_memory_used_bytes", "hami_vgpu_memory_limit_bytes",
                "namespace", "pod", "container", "device_uuid")
LEGACY = Names("vGPU_device_memory_usage_in_bytes", "vGPU_device_memory_limit_in_bytes",
               "podnamespace", "podname", "ctrname", "deviceuuid")
SPELLINGS = (CURRENT, LEGACY)


@dataclass(frozen=True)
class PodPeak:
    """One container's GPU memory on one GPU over the window, in GiB."""

    namespace: str
    pod: str
    container: str
    gpu: str  # the device UUID: the group of pods that shared a GPU
    peak_gib: float
    low_gib: float  # its 5th percentile: near the peak, the use was flat
    allocation_gib: float | None  # its slot's limit; None where none was read
    samples: int

    @property
    def name(self) -> str:
        """``namespace/pod`` (and ``/container``) as the report names it."""
        return f"{self.namespace}/{self.pod}/{self.container}"


@dataclass(frozen=True)
class GpuWindow:
    """One 5-minute window of one GPU: the peak of its pods' summed use, and the pods present."""

    gpu: str
    end: float
    summed_peak_gib: float
    pods: tuple[str, ...]  # ``PodPeak.name`` of each container present


@dataclass(frozen=True)
class PoolPeaks:
    """A pool's containers and the windows of the GPUs they ran on."""

    pool: str
    series: str  # the series read, as the evidence names them
    pods: tuple[PodPeak, ...]
    windows: tuple[GpuWindow, ...]


def _spelling(server: Prometheus, end: float, range_: str) -> Names | None:
    """Return the spelling of HAMi's series the server holds, None where it holds neither."""
    for names in SPELLINGS:
        if server.query(f"count(last_over_time({names.used}[{range_}]))", end):
            return names
    return None


def _by_key(server: Prometheus, names: Names, expr: str, end: float
            ) -> dict[tuple[str, str, str, str], float]:
    keys = [k.strip() for k in names.key.split(",")]
    out: dict[tuple[str, str, str, str], float] = {}
    for s in server.query(expr, end):
        if s.value >= 0:  # NaN and negative bytes are no measurement
            key = tuple(s.labels.get(k, "") for k in keys)
            out[(key[0], key[1], key[2], key[3])] = s.value
    return out


def read(server: Prometheus, end: float, window_seconds: float, range_: str,
         pod_pools: Mapping[tuple[str, str], str]) -> tuple[dict[str, PoolPeaks], list[str]]:
    """Return each pool's containers and GPU windows, and the gaps met reading them.

    A server with neither spelling of HAMi's series gives nothing and no gap (``hami.read``
    says they are absent).
    """
    names = _spelling(server, end, range_)
    if names is None:
        return {}, []
    by = f"max by ({names.key})"
    peak = _by_key(server, names, f"{by} (max_over_time({names.used}[{range_}]))", end)
    low = _by_key(server, names,
                  f"{by} (quantile_over_time(0.05, {names.used}[{range_}]))", end)
    limit = _by_key(server, names, f"{by} (max_over_time({names.limit}[{range_}]))", end)
    count = _by_key(server, names, f"{by} (count_over_time({names.used}[{range_}]))", end)
    pools: dict[str, list[PodPeak]] = {}
    gpu_pool: dict[str, str] = {}
    for key, value in sorted(peak.items()):
        namespace, pod, container, gpu = key
        pool = pod_pools.get((namespace, pod))
        if pool is None or not gpu:
            continue
        cap = limit.get(key)
        pools.setdefault(pool, []).append(PodPeak(
            namespace, pod, container, gpu, value / GIB, low.get(key, value) / GIB,
            None if cap is None or cap <= 0 else cap / GIB, int(count.get(key, 0))))
        gpu_pool.setdefault(gpu, pool)
    if not pools:
        return {}, []
    windows = _windows(server, names, end, window_seconds, sum(len(p) for p in pools.values()))
    out = {
        pool: PoolPeaks(pool, f"{names.used}, {names.limit}", tuple(found),
                        tuple(w for w in windows if gpu_pool.get(w.gpu) == pool))
        for pool, found in sorted(pools.items())
    }
    return out, []


def _windows(server: Prometheus, names: Names, end: float, window_seconds: float,
             containers: int) -> list[GpuWindow]:
    """Return every GPU's 5-minute windows over the window read, a chunk of it at a time."""
    keys = [k.strip() for k in names.key.split(",")]
    summed = (f"max by ({names.device}) (max_over_time((sum by ({names.device}) "
              f"({names.used}))[{SUM_RANGE}:{SUM_STEP}]))")
    present = (f"max by ({names.key}) (max_over_time(({names.used})"
               f"[{SUM_RANGE}:{SUM_STEP}]))")
    steps_per_chunk = max(12, min(MAX_POINTS_PER_SERIES - 1,
                                  _ANSWER_POINTS // max(1, containers)))
    chunk = steps_per_chunk * WINDOW_SECONDS
    first = end - window_seconds + WINDOW_SECONDS
    peaks: dict[tuple[str, float], float] = {}
    pods: dict[tuple[str, float], list[str]] = {}
    lo = first
    while lo <= end:
        hi = min(end, lo + chunk - WINDOW_SECONDS)
        for s in server.query_range(summed, lo, hi, WINDOW_SECONDS):
            gpu = s.labels.get(names.device, "")
            for t, v in s.points:
                if gpu and v >= 0:
                    peaks[(gpu, t)] = v / GIB
        for s in server.query_range(present, lo, hi, WINDOW_SECONDS):
            namespace, pod, container, gpu = (s.labels.get(k, "") for k in keys)
            for t, v in s.points:
                if gpu and v >= 0:
                    pods.setdefault((gpu, t), []).append(f"{namespace}/{pod}/{container}")
        lo = hi + WINDOW_SECONDS
    return [GpuWindow(gpu, t, value, tuple(sorted(pods.get((gpu, t), ()))))
            for (gpu, t), value in sorted(peaks.items())]


FB_USED = "DCGM_FI_DEV_FB_USED"
FB_FREE = "DCGM_FI_DEV_FB_FREE"
MIB = 1024.0
_DCGM_KEY = "Hostname, hostname, gpu, namespace, pod, container"


def dcgm_pools(stack: Stack) -> set[str]:
    """Return the exclusive pools of a stack whose scheduler overcommits GPU memory (HAMi)."""
    if not schedulers.of(stack).virtualises_memory:
        return set()
    return {p.name for p in stack.pools if p.sharing.kind.whole}


def read_dcgm(server: Prometheus, end: float, range_: str, node_pools: Mapping[str, str],
              pools: set[str]) -> dict[str, PoolPeaks]:
    """Return the pods of ``pools`` with their own GPU memory (DCGM's per-pod series).

    A pod's GPU is its node and the exporter's ``gpu`` index; its allocation, the GPU's used +
    free memory. No window is read: one pod a GPU shares it with none.
    """
    selector = f'{FB_USED}{{pod!=""}}'

    def by_key(expr: str) -> dict[tuple[str, str, str, str], float]:
        out: dict[tuple[str, str, str, str], float] = {}
        for s in server.query(expr, end):
            node = s.labels.get("hostname") or s.labels.get("Hostname") or ""
            if node and s.value >= 0:
                out[(f"{node}/{s.labels.get('gpu', '')}", s.labels.get("namespace", ""),
                     s.labels.get("pod", ""), s.labels.get("container", ""))] = s.value
        return out

    by = f"max by ({_DCGM_KEY})"
    peak = by_key(f"{by} (max_over_time({selector}[{range_}]))")
    if not peak:
        return {}
    low = by_key(f"{by} (quantile_over_time(0.05, {selector}[{range_}]))")
    total = by_key(f"{by} (last_over_time({selector}[{range_}]) + "
                   f'last_over_time({FB_FREE}{{pod!=""}}[{range_}]))')
    found: dict[str, list[PodPeak]] = {}
    for key, value in sorted(peak.items()):
        gpu, namespace, pod, container = key
        pool = node_pools.get(gpu.rpartition("/")[0])
        if pool is None or pool not in pools or not pod:
            continue
        cap = total.get(key)
        found.setdefault(pool, []).append(PodPeak(
            namespace, pod, container, gpu, value / MIB, low.get(key, value) / MIB,
            None if cap is None or cap <= 0 else cap / MIB, 0))
    return {pool: PoolPeaks(pool, f"{FB_USED}, {FB_FREE} (per pod)", tuple(pods), ())
            for pool, pods in sorted(found.items())}
