"""What the GPUs of a stack's pools really did over a window, read from Prometheus.

Every figure is aggregated in the server (``quantile_over_time``, ``max_over_time``,
``count_over_time``; range queries at a one-hour step), so what comes back is one series per GPU,
node or namespace whatever the window's length. The per-GPU queries are split by the DCGM
exporter's ``gpu`` index, so each query loads the samples of one GPU per node: at a 30 s scrape
interval, 14 days of 1,200 nodes stay under Prometheus's default ``--query.max-samples`` of 50
million.

Which series mean what (dcgm-exporter's field list; NVIDIA/DCGM issue #80 for MIG):

* memory: ``DCGM_FI_DEV_FB_USED`` (MiB), per GPU or, on MIG, per GPU instance (its
  ``GPU_I_PROFILE`` label names the profile); with ``DCGM_FI_DEV_FB_FREE`` their sum is the
  memory the GPU or instance offers;
* activity: ``DCGM_FI_PROF_GR_ENGINE_ACTIVE``, else ``DCGM_FI_PROF_SM_ACTIVE`` (ratios; Volta or
  newer, MIG-aware) where the GPU reports them, else ``DCGM_FI_DEV_GPU_UTIL`` (percent; saturates,
  never used for a MIG instance), and the evidence says which;
* the node a series is from: ``Hostname`` or ``hostname`` (both spellings exist, see
  ``gpupool.sharing.promql``); a node's pool: its name in ``nodeNames``, or kube-state-metrics'
  ``kube_node_labels`` with the ``gpupool.io/pool`` label;
* a tenant's GPUs: ``kube_pod_container_resource_requests`` of running pods, by namespace.

Under time-slicing and MPS the exporter's per-pod series are copies of the device's, so every
per-GPU figure is taken ``max by`` the device (never summed over pods), and no per-pod size is
inferred on those pools.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from gpupool.advise import hami
from gpupool.advise import interruptions as interruption_series
from gpupool.advise import peaks as peak_series
from gpupool.advise import pods as pod_series
from gpupool.advise import services as service_series
from gpupool.advise.prometheus import Prometheus, PrometheusError, Sample
from gpupool.advise.words import counted, verb
from gpupool.model import Stack
from gpupool.sharing.promql import GPU_RESOURCES, KSM_POOL_LABEL
from gpupool.sharing.showback import TENANT_COST

FB_USED = "DCGM_FI_DEV_FB_USED"
FB_FREE = "DCGM_FI_DEV_FB_FREE"
ENGINE_ACTIVE = "DCGM_FI_PROF_GR_ENGINE_ACTIVE"
SM_ACTIVE = "DCGM_FI_PROF_SM_ACTIVE"
GPU_UTIL = "DCGM_FI_DEV_GPU_UTIL"
# The labels that tell one GPU (or MIG instance) from another, whichever exporter wrote them.
_DEVICE = "Hostname, hostname, gpu, GPU_I_PROFILE, GPU_I_ID"
# A GPU whose memory stayed below this for a whole hour ran no pod that hour (a CUDA context
# alone takes a few hundred MiB).
IDLE_MIB = 1024.0
HOUR = 3600.0


@dataclass(frozen=True)
class GpuUse:
    """One GPU, or one MIG instance, over the window."""

    node: str
    gpu: str
    profile: str | None  # the MIG profile of an instance (``GPU_I_PROFILE``), None: whole GPU
    memory_p99_mib: float
    memory_max_mib: float
    samples: int
    activity_p95: float | None  # a 0..1 ratio; None: the GPU reports no activity metric
    activity_metric: str | None
    memory_total_mib: float | None = None  # FB_USED + FB_FREE; None: no FB_FREE series


@dataclass(frozen=True)
class PoolUse:
    """A pool's GPUs over the window, and its nodes hour by hour."""

    pool: str
    gpus: tuple[GpuUse, ...]
    # per hour of the window: (nodes that reported, nodes whose every GPU was idle)
    hourly_nodes: tuple[tuple[int, int], ...] = ()

    @property
    def samples(self) -> int:
        """The memory samples behind the figures, all GPUs together."""
        return sum(g.samples for g in self.gpus)

    @property
    def hours(self) -> int:
        """The hours in which any of the pool's nodes reported."""
        return sum(1 for present, _ in self.hourly_nodes if present)


@dataclass(frozen=True)
class TenantUse:
    """The GPUs a tenant's running pods requested, sampled every five minutes."""

    tenant: str
    namespace: str
    gpus_p95: float
    gpus_max: float
    resolution_seconds: float = 300.0  # the step the requests were read at


@dataclass(frozen=True)
class Evidence:
    """Everything read for one window: per pool, per tenant, and what could not be read."""

    window_seconds: float
    end: float
    pools: Mapping[str, PoolUse]
    tenants: Mapping[str, TenantUse]
    gaps: tuple[str, ...] = ()
    queries: int = 0
    node_pools: Mapping[str, str] = field(default_factory=dict)
    pods: Mapping[str, pod_series.PoolPods] = field(default_factory=dict)
    slots: Mapping[str, tuple[hami.SlotUse, ...]] = field(default_factory=dict)
    # each HAMi pool's containers and the 5-minute windows of the GPUs they shared
    peaks: Mapping[str, peak_series.PoolPeaks] = field(default_factory=dict)
    # USD an hour each tenant's running GPU pods cost on average over the window, as gpupool's
    # own showback recording rule (``gpupool:tenant_cost_usd_per_hour``) recorded it; empty when
    # the rule recorded nothing in the window
    showback: Mapping[str, float] = field(default_factory=dict)
    # each inference service's demand, HPA replicas and GPU activity (advise.services)
    services: Mapping[str, service_series.ServiceUse] = field(default_factory=dict)
    # each pool's busy node-hours and nodes that vanished (read where a checkpoint is stated)
    interruptions: Mapping[str, interruption_series.PoolInterruptions] = field(
        default_factory=dict)


def _duration(seconds: float) -> str:
    """Return a PromQL duration for ``seconds`` (whole minutes)."""
    return f"{max(1, round(seconds / 60))}m"


def _quantile(q: float, ordered: list[float]) -> float:
    """Return the q-quantile of sorted values as PromQL's ``quantile_over_time`` does."""
    rank = q * (len(ordered) - 1)
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def _node(labels: Mapping[str, str]) -> str:
    return labels.get("hostname") or labels.get("Hostname") or labels.get("node") or ""


def _key(labels: Mapping[str, str]) -> tuple[str, str, str, str]:
    return (
        _node(labels),
        labels.get("gpu", ""),
        labels.get("GPU_I_PROFILE", ""),
        labels.get("GPU_I_ID", ""),
    )


def _by_device(samples: Iterable[Sample]) -> dict[tuple[str, str, str, str], float]:
    out: dict[tuple[str, str, str, str], float] = {}
    for s in samples:
        if not math.isnan(s.value):
            key = _key(s.labels)
            out[key] = max(out.get(key, -math.inf), s.value)
    return out


class Reader:
    """Reads one stack's evidence from one server, counting what it asked."""

    def __init__(
        self,
        server: Prometheus,
        stack: Stack,
        end: float,
        window_seconds: float,
        progress: Callable[[str], None] | None = None,
    ) -> None:
        self.server = server
        self.stack = stack
        self.end = end
        self.window = window_seconds
        self.range = _duration(window_seconds)
        self.progress = progress or (lambda _: None)
        self.gaps: list[str] = []

    def _gpu_indices(self) -> list[str]:
        found = self.server.query(f"count by (gpu) ({FB_USED})", self.end)
        if not found:
            found = self.server.query(
                f"count by (gpu) (last_over_time({FB_USED}[{self.range}]))", self.end
            )
        return sorted({s.labels.get("gpu", "") for s in found}, key=lambda g: (len(g), g))

    def _per_device(
        self, template: str, indices: list[str]
    ) -> dict[tuple[str, str, str, str], float]:
        out: dict[tuple[str, str, str, str], float] = {}
        for index in indices:
            selector = f'{{gpu="{index}"}}'
            out.update(_by_device(self.server.query(template.format(sel=selector), self.end)))
        return out

    def node_pools(self) -> dict[str, str]:
        """Return each node's pool: named nodes from the stack, the rest by their pool label."""
        mapping = {n: p.name for p in self.stack.pools for n in p.node_names}
        if any(not p.node_names for p in self.stack.pools):
            expr = (
                f"max by (node, {KSM_POOL_LABEL}) "
                f'(max_over_time(kube_node_labels{{{KSM_POOL_LABEL}!=""}}[{self.range}]))'
            )
            labelled = self.server.query(expr, self.end)
            if not labelled:
                self.gaps.append(
                    "no node carries the gpupool.io/pool label in kube_node_labels: "
                    "kube-state-metrics needs --metric-labels-allowlist="
                    "nodes=[gpupool.io/pool,gpupool.io/capacity] to tell the pools' nodes apart"
                )
            declared = {p.name for p in self.stack.pools}
            for s in labelled:
                node, pool = s.labels.get("node", ""), s.labels.get(KSM_POOL_LABEL, "")
                if node and pool in declared:  # another stack's pool: not this one's nodes
                    mapping.setdefault(node, pool)
        return mapping

    def gpu_use(self, node_pools: Mapping[str, str]) -> dict[str, list[GpuUse]]:
        """Return each pool's GPUs with their memory and activity over the window."""
        indices = self._gpu_indices()
        if not indices:
            self.gaps.append(
                f"the server has no {FB_USED} series: the DCGM exporter is not scraped "
                "(cluster.monitoring.dcgmExporter and a ServiceMonitor, "
                "cluster.monitoring.prometheus.serviceMonitor)"
            )
            return {}
        self.progress(f"reading GPU memory of {len(indices)} GPU indices")
        r = self.range
        p99 = self._per_device(
            f"max by ({_DEVICE}) (quantile_over_time(0.99, {FB_USED}{{sel}}[{r}]))", indices
        )
        peak = self._per_device(
            f"max by ({_DEVICE}) (max_over_time({FB_USED}{{sel}}[{r}]))", indices
        )
        count = self._per_device(
            f"max by ({_DEVICE}) (count_over_time({FB_USED}{{sel}}[{r}]))", indices
        )
        # used + free is the memory the GPU (or MIG instance) offers, as the driver reports
        # it: the cap a slot's use is judged against, where the exporter sends FB_FREE
        total = self._per_device(
            f"max by ({_DEVICE}) (last_over_time({FB_USED}{{sel}}[{r}]) "
            f"+ last_over_time({FB_FREE}{{sel}}[{r}]))", indices
        )
        activity = self._activity(indices, p99)
        mig_util_only = sorted({key[0] for key in p99 if key[2] and key not in activity
                                and key[0] in node_pools})
        if mig_util_only:
            self.gaps.append(
                f"{counted(len(mig_util_only), 'node')} with MIG instances (e.g. "
                f"{mig_util_only[0]}) {verb(len(mig_util_only), 'reports', 'report')} "
                f"neither {ENGINE_ACTIVE} nor {SM_ACTIVE} for them, and {GPU_UTIL} does not "
                "measure a MIG instance: their compute use is not judged (the DCGM exporter's "
                "profiling metrics need DCGM's profiling module, -f with a list that has them)"
            )
        pools: dict[str, list[GpuUse]] = {}
        unplaced: set[str] = set()
        for key in sorted(p99):
            node, gpu, profile, _ = key
            pool = node_pools.get(node)
            if pool is None:
                unplaced.add(node)
                continue
            used, metric = activity.get(key, (None, None))
            pools.setdefault(pool, []).append(
                GpuUse(
                    node=node,
                    gpu=gpu,
                    profile=profile or None,
                    memory_p99_mib=p99[key],
                    memory_max_mib=peak.get(key, p99[key]),
                    memory_total_mib=total.get(key),
                    samples=int(count.get(key, 0)),
                    activity_p95=used,
                    activity_metric=metric,
                )
            )
        if unplaced:
            sample = ", ".join(sorted(unplaced)[:3])
            self.gaps.append(
                f"{counted(len(unplaced), 'node')} with GPUs "
                f"{verb(len(unplaced), 'belongs', 'belong')} to no pool of this stack "
                f"(e.g. {sample}); their GPUs are left out"
            )
        return pools

    def _activity(
        self, indices: list[str], p99: Mapping[tuple[str, str, str, str], float]
    ) -> dict[tuple[str, str, str, str], tuple[float, str]]:
        """Return each GPU's p95 activity over the window and the metric it was read from."""
        self.progress("reading GPU activity")
        r = self.range
        # the profiling metrics (Volta or newer, MIG-aware) first; GPU_UTIL only for the GPUs
        # that lack both, and never for a MIG instance (the exporter's GPU_UTIL is the whole
        # GPU's, or absent, there)
        activity: dict[tuple[str, str, str, str], tuple[float, str]] = {}
        for metric, scale in ((ENGINE_ACTIVE, ""), (SM_ACTIVE, ""), (GPU_UTIL, " / 100")):
            if all(key in activity for key in p99):
                break
            found = self._per_device(
                f"max by ({_DEVICE}) (quantile_over_time(0.95, {metric}{{sel}}[{r}])){scale}",
                indices,
            )
            for key, value in found.items():
                if key in activity or (metric == GPU_UTIL and key[2]):
                    continue
                activity[key] = (value, metric)
        return activity

    def hourly_nodes(self, node_pools: Mapping[str, str]) -> dict[str, list[tuple[int, int]]]:
        """Return per pool and hour: (nodes that reported, nodes whose every GPU was idle)."""
        self.progress("reading nodes hour by hour")
        start = self.end - self.window + HOUR
        expr = f"max by (Hostname, hostname) (max_over_time({FB_USED}[1h]))"
        series = self.server.query_range(expr, start, self.end, HOUR)
        hours = max(0, round((self.end - start) / HOUR) + 1)
        declared = {p.name for p in self.stack.pools}
        slots: dict[str, list[list[int]]] = {}  # only pools a series came from: hours x pools
        for s in series:
            pool = node_pools.get(_node(s.labels))
            if pool not in declared:
                continue
            if pool not in slots:
                slots[pool] = [[0, 0] for _ in range(hours)]
            for t, v in s.points:
                i = round((t - start) / HOUR)
                if 0 <= i < hours and not math.isnan(v):
                    slots[pool][i][0] += 1
                    slots[pool][i][1] += int(v < IDLE_MIB)
        return {pool: [(a, b) for a, b in rows] for pool, rows in slots.items()}

    def tenant_use(self) -> dict[str, TenantUse]:
        """Return each tenant's requested GPUs (p95 and max, at five minutes or coarser)."""
        if not self.stack.tenants:
            return {}
        self.progress("reading tenants' GPU requests")
        running = 'max by (namespace, pod) (kube_pod_status_phase{phase="Running"}) == 1'
        requests = (
            "sum by (namespace) (max by (namespace, pod, container, resource) "
            f"(kube_pod_container_resource_requests{{{GPU_RESOURCES}}}) "
            f"* on (namespace, pod) group_left () ({running}))"
        )
        # one range query at a coarse step (five minutes, or the window in 2,000 steps when
        # that is coarser): the join is evaluated once a step, not once per figure
        step = max(300.0, 60.0 * math.ceil(self.window / 2000 / 60))
        p95: dict[str, float] = {}
        peak: dict[str, float] = {}
        for s in self.server.query_range(requests, self.end - self.window, self.end, step):
            values = sorted(v for _, v in s.points if not math.isnan(v))
            if values:
                namespace = s.labels.get("namespace", "")
                p95[namespace] = _quantile(0.95, values)
                peak[namespace] = values[-1]
        if not p95:
            self.gaps.append(
                "no running pod requested a GPU resource in kube-state-metrics' "
                "kube_pod_container_resource_requests: tenants' use is not judged"
            )
            return {}
        return {
            t.name: TenantUse(
                t.name, t.namespace, p95.get(t.namespace, 0.0), peak.get(t.namespace, 0.0), step
            )
            for t in self.stack.tenants
        }


    def showback(self) -> dict[str, float]:
        """Return each tenant's mean cost an hour as gpupool's showback rule recorded it."""
        if not self.stack.tenants:
            return {}
        self.progress("reading gpupool's showback recordings")
        # the rule (gpupool.sharing.showback) sums each tenant's pools by (stack, tenant)
        selector = f'{TENANT_COST}{{stack="{self.stack.name}"}}'
        found = self.server.query(
            f"max by (tenant) (avg_over_time({selector}[{self.range}]))", self.end
        )
        costs = {
            s.labels.get("tenant", ""): s.value for s in found if not math.isnan(s.value)
        }
        if not costs:
            self.gaps.append(
                f"gpupool's showback rule recorded nothing in the window ({TENANT_COST}): "
                "observed cost per tenant is not shown (cluster.monitoring.prometheus renders "
                "the rule; kube-state-metrics needs the pool label allowlisted)"
            )
        return costs


def read(
    server: Prometheus,
    stack: Stack,
    end: float,
    window_seconds: float,
    progress: Callable[[str], None] | None = None,
) -> Evidence:
    """Read what ``stack``'s GPUs did in the ``window_seconds`` before ``end``.

    Raises:
        PrometheusError: the server cannot be read (a missing series is a gap, not an error).

    """
    reader = Reader(server, stack, end, window_seconds, progress)
    node_pools = reader.node_pools()
    gpus = reader.gpu_use(node_pools) if node_pools else {}
    hourly = reader.hourly_nodes(node_pools) if gpus else {}
    tenants = reader.tenant_use()
    showback = reader.showback()
    pool_pods: dict[str, pod_series.PoolPods] = {}
    slots: dict[str, list[hami.SlotUse]] = {}
    pool_peaks: dict[str, peak_series.PoolPeaks] = {}
    if node_pools:
        reader.progress("reading pods from kube-state-metrics")
        pool_pods, pod_pools, pod_gaps = pod_series.read(server, end, reader.range, node_pools)
        reader.gaps.extend(pod_gaps)
        if hami.hami_pools(stack):
            reader.progress("reading HAMi's per-container memory")
            slots, slot_gaps = hami.read(server, end, reader.range, pod_pools)
            reader.gaps.extend(slot_gaps)
            reader.progress("reading the GPU memory of pods that shared a GPU")
            pool_peaks, peak_gaps = peak_series.read(
                server, end, window_seconds, reader.range, pod_pools)
            reader.gaps.extend(peak_gaps)
        exclusive = peak_series.dcgm_pools(stack)
        if exclusive:
            reader.progress("reading the GPU memory of each pod of the exclusive pools")
            pool_peaks.update(peak_series.read_dcgm(server, end, reader.range, node_pools,
                                                    exclusive))
    pools = {
        p.name: PoolUse(p.name, tuple(gpus.get(p.name, ())), tuple(hourly.get(p.name, ())))
        for p in stack.pools
    }
    for p in stack.pools:
        if gpus and not pools[p.name].gpus:
            reader.gaps.append(f"pool {p.name}: no GPU series from its nodes in the window")
    outages = interruption_series.read(server, stack, end, window_seconds, node_pools,
                                       FB_USED, IDLE_MIB, progress)
    services, service_gaps = service_series.read(server, stack, end, window_seconds, progress)
    reader.gaps.extend(service_gaps)
    return Evidence(
        window_seconds=window_seconds,
        end=end,
        pools=pools,
        tenants=tenants,
        gaps=tuple(reader.gaps),
        queries=server.queries,
        node_pools=dict(node_pools),
        pods=pool_pods,
        slots={pool: tuple(found) for pool, found in slots.items()},
        peaks=pool_peaks,
        showback=showback,
        services=services,
        interruptions=outages,
    )


__all__ = ["Evidence", "GpuUse", "PoolUse", "PrometheusError", "TenantUse", "read"]
