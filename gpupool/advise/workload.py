"""The measured workload: the GPU pods seen in the window, in ``gpupool simulate``'s format.

Read from kube-state-metrics (``docs/metrics/workload/pod-metrics.md``), each figure one instant
query aggregated in the server, so the answer is one series a pod whatever the window:

* ``kube_pod_created`` (unix seconds): when the pod was submitted;
* ``kube_pod_start_time``: when the kubelet started it (so start less creation is its wait);
* ``kube_pod_status_phase``: the first sample in ``Succeeded`` or ``Failed`` ends it (else the
  last in ``Running``, plus the five-minute step; else the window's end: still running);
* ``kube_pod_info``: its ``node`` (and so its pool) and ``priority_class`` (gpupool's
  ``gpupool-<level>`` classes give the priority);
* ``kube_pod_container_resource_requests``: GPUs (``nvidia_com_gpu``), a MIG instance
  (``nvidia_com_mig_<profile>``), HAMi's ``nvidia_com_gpumem`` (MiB), CPU cores and memory bytes.

The CSV is the workload format of ``docs/workload.md``: a header, then one
row a pod (``pods`` 1), ``submit`` in seconds from the window's start (a pod created before it
is submitted at 0), ``duration`` in seconds from its start to its end. Where nodes carry the
pool label, a pod on a node of no pool of the stack ran outside its pools and is left out.
Observed waits and GPU-hours stay beside the rows, for the fidelity score (``Fidelity``).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from gpupool.advise.prometheus import Prometheus
from gpupool.facts.tenancy import priority_class_name
from gpupool.model import PRIORITIES, Stack
from gpupool.quantile import p95

COLUMNS = ("name", "tenant", "submit", "duration", "gpus", "fraction", "mig", "gpu_memory_gib",
           "cpu", "memory_gib", "priority", "pool", "pods")
STEP = "5m"
STEP_SECONDS = 300.0
GIB = 1024.0**3
_MIG_PREFIX = "nvidia_com_mig_"
#: A simulated wait within this of the observed one (seconds), or within this share of it,
#: counts as reproduced: the five-minute step the phases are read at, and the same again.
WAIT_TOLERANCE_SECONDS = 2 * STEP_SECONDS


@dataclass(frozen=True)
class ObservedPod:
    """One GPU pod seen in the window: what it asked for and when it waited and ran."""

    namespace: str
    pod: str
    tenant: str | None
    pool: str | None
    created: float
    started: float | None  # None: never started in the window (still pending)
    finished: float | None  # None: still running at the window's end
    gpus: int
    mig: str | None
    gpu_memory_gib: float | None
    cpu: float
    memory_gib: float
    priority: str | None

    @property
    def wait(self) -> float | None:
        """Seconds from creation to start, None when it never started."""
        return None if self.started is None else max(0.0, self.started - self.created)


def _pod(labels: Mapping[str, str]) -> tuple[str, str]:
    return labels.get("namespace", ""), labels.get("pod", "")


def read(
    server: Prometheus, stack: Stack, end: float, window_seconds: float,
    node_pools: Mapping[str, str],
) -> list[ObservedPod]:
    """Return the GPU pods seen in the window before ``end``, oldest first."""
    r = f"{max(1, round(window_seconds / 60))}m"

    def values(expr: str) -> dict[tuple[str, str], float]:
        return {_pod(s.labels): s.value for s in server.query(expr, end)
                if not math.isnan(s.value)}

    requests: dict[tuple[str, str], dict[str, float]] = {}
    for s in server.query(
        "sum by (namespace, pod, resource) (max by (namespace, pod, container, resource) "
        f"(max_over_time(kube_pod_container_resource_requests[{r}])))", end
    ):
        if not math.isnan(s.value):
            requests.setdefault(_pod(s.labels), {})[s.labels.get("resource", "")] = s.value
    gpu_pods = {key for key, asked in requests.items()
                if asked.get("nvidia_com_gpu", 0) > 0
                or any(k.startswith(_MIG_PREFIX) and v > 0 for k, v in asked.items())}
    if not gpu_pods:
        return []
    created = values(f"max by (namespace, pod) (max_over_time(kube_pod_created[{r}]))")
    started = values(f"max by (namespace, pod) (max_over_time(kube_pod_start_time[{r}]))")
    phase = 'max by (namespace, pod) (kube_pod_status_phase{{phase=~"{0}"}}) == 1'
    done = values(f"min_over_time(timestamp({phase.format('Succeeded|Failed')})[{r}:{STEP}])")
    running = values(f"max_over_time(timestamp({phase.format('Running')})[{r}:{STEP}])")
    info: dict[tuple[str, str], tuple[str, str]] = {}
    for s in server.query(
        "max by (namespace, pod, node, priority_class) "
        f'(max_over_time(kube_pod_info{{node!=""}}[{r}]))', end
    ):
        info[_pod(s.labels)] = (s.labels.get("node", ""), s.labels.get("priority_class", ""))
    tenants = {t.namespace: t.name for t in stack.tenants}
    pools = {p.name for p in stack.pools}
    levels = {priority_class_name(level): level for level in PRIORITIES}
    out: list[ObservedPod] = []
    for key in sorted(gpu_pods):
        if key not in created:
            continue
        asked = requests[key]
        node, priority_class = info.get(key, ("", ""))
        if node and node_pools and node_pools.get(node) not in pools:
            continue  # it ran on a node of no pool of this stack
        migs = [k[len(_MIG_PREFIX):] for k, v in asked.items() if k.startswith(_MIG_PREFIX) and v]
        finished = done.get(key)
        if finished is None and key in running and running[key] + STEP_SECONDS < end:
            finished = running[key] + STEP_SECONDS
        gpumem = asked.get("nvidia_com_gpumem")
        out.append(ObservedPod(
            namespace=key[0], pod=key[1], tenant=tenants.get(key[0]),
            pool=node_pools.get(node) or None,
            created=created[key], started=started.get(key), finished=finished,
            gpus=round(asked.get("nvidia_com_gpu", 0)),
            mig=_profile(migs[0]) if migs else None,
            gpu_memory_gib=None if not gpumem else gpumem / 1024,
            cpu=asked.get("cpu", 0.0), memory_gib=asked.get("memory", 0.0) / GIB,
            priority=levels.get(priority_class),
        ))
    out.sort(key=lambda p: (p.created, p.namespace, p.pod))
    return out


def _profile(resource: str) -> str:
    """``1g_10gb`` (a resource name with ``_`` for ``.``) -> ``1g.10gb``."""
    head, _, rest = resource.partition("_")
    return f"{head}.{rest.replace('_', '.')}" if rest else head


def _number(value: float) -> str:
    return f"{value:.3f}".rstrip("0").rstrip(".") if value else "0"


def to_csv(pods: Sequence[ObservedPod], start: float, end: float) -> str:
    """Return the pods as a workload CSV: submit from ``start``, unfinished pods end at ``end``."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for p in pods:
        if p.started is None:
            continue  # never ran in the window: no duration to replay
        begin = max(p.started, start)
        duration = max(1.0, (p.finished if p.finished is not None else end) - begin)
        submit = max(0.0, p.created - start)
        writer.writerow([
            f"{p.namespace}/{p.pod}", p.tenant or "", _number(submit), _number(duration),
            p.gpus if p.gpus and not p.mig else "", "", p.mig or "",
            "" if p.gpu_memory_gib is None else _number(p.gpu_memory_gib),
            _number(p.cpu), _number(p.memory_gib), p.priority or "", p.pool or "", 1,
        ])
    return out.getvalue()


#: Allocation counts as reproduced when a pool's simulated GPU-hours are within this share of the
#: observed ones (or within one GPU-hour).
ALLOCATION_TOLERANCE = 0.10


def reproduced(observed: float, simulated: float) -> bool:
    """Whether a simulated p95 wait is within the tolerance of the observed one (seconds)."""
    return abs(simulated - observed) <= max(WAIT_TOLERANCE_SECONDS, 0.25 * observed)


def allocation_reproduced(observed: float, simulated: float) -> bool:
    """Whether a pool's simulated GPU-hours are within the tolerance of the observed ones."""
    return abs(simulated - observed) <= max(1.0, ALLOCATION_TOLERANCE * observed)


@dataclass(frozen=True)
class Replayed:
    """What advise reads from one simulation of a workload on a stack (``""``: no tenant).

    ``waits``: each tenant's p95 queue wait in seconds, the figure ``gpupool simulate`` prints
    (nearest rank, ``gpupool.quantile``, over the pods that started; a tenant none of whose pods
    started has none); ``waits_counting_unstarted``: the same p95 over every pod of the
    tenant, one that never started counted as waiting to the run's end, which the queue-wait
    check compares (an edit that leaves pods nowhere to run lengthens it);
    ``gpu_hours``: each pool's allocated GPU-hours.
    """

    waits: Mapping[str, float]
    waits_counting_unstarted: Mapping[str, float]
    gpu_hours: Mapping[str, float]


#: ``simulate`` as advise calls it: a stack file's text in (the workload is bound by the
#: caller), what the replay gave out.
Simulate = Callable[[str], Replayed]


@dataclass(frozen=True)
class Fidelity:
    """How far the simulation of today's stack is from what the window showed.

    ``waits`` maps each tenant to (observed, simulated) p95 waits in seconds; ``gpu_hours`` each
    pool to (observed, simulated) allocated GPU-hours. The score is the share of those figures
    the simulation reproduces within the tolerances (``reproduced``, ``allocation_reproduced``).
    """

    waits: Mapping[str, tuple[float, float]]
    gpu_hours: Mapping[str, tuple[float, float]]

    @property
    def off(self) -> list[str]:
        """The figures outside their tolerance, named ``wait <tenant>`` or ``GPU-h <pool>``."""
        out = [f"wait {t or '(no tenant)'}" for t, (o, s) in self.waits.items()
               if not reproduced(o, s)]
        out += [f"GPU-h {p}" for p, (o, s) in self.gpu_hours.items()
                if not allocation_reproduced(o, s)]
        return out

    @property
    def score(self) -> float | None:
        """The share of the figures within tolerance, 0..1 (None: no figure to compare)."""
        total = len(self.waits) + len(self.gpu_hours)
        return None if not total else (total - len(self.off)) / total

    @property
    def within_tolerance(self) -> bool:
        """Whether every figure is within its tolerance."""
        return not self.off


def observed_waits(pods: Sequence[ObservedPod]) -> dict[str, float]:
    """Return each tenant's p95 wait (seconds) over the pods that started; ``""``: no tenant."""
    waits: dict[str, list[float]] = {}
    for p in pods:
        if p.wait is not None:
            waits.setdefault(p.tenant or "", []).append(p.wait)
    return {t: p95(w) for t, w in sorted(waits.items())}


def observed_gpu_hours(pods: Sequence[ObservedPod], start: float, end: float) -> dict[str, float]:
    """Return each pool's GPU-hours of whole-GPU pods in the window, as the export replays them.

    A pool with a MIG or GPU-memory pod is left out: the simulation counts those as shares of a
    GPU, the requests as a count of devices.
    """
    hours: dict[str, float] = {}
    shared: set[str] = set()
    for p in pods:
        if p.pool is None or p.started is None:
            continue
        if p.mig or p.gpu_memory_gib is not None:
            shared.add(p.pool)
            continue
        begin = max(p.started, start)
        duration = max(1.0, (p.finished if p.finished is not None else end) - begin)
        hours[p.pool] = hours.get(p.pool, 0.0) + p.gpus * duration / 3600
    return {pool: h for pool, h in sorted(hours.items()) if pool not in shared}


def fidelity(pods: Sequence[ObservedPod], start: float, end: float,
             today: Replayed) -> Fidelity:
    """Return the replay of today's stack against what the window showed."""
    # a tenant none of whose replayed pods started has no p95 of started pods: its pods' wait
    # to the run's end stands in (off by far), not a wait of 0
    waits = {t: (w, today.waits.get(t, today.waits_counting_unstarted.get(t, 0.0)))
             for t, w in observed_waits(pods).items()}
    hours = {p: (h, today.gpu_hours.get(p, 0.0))
             for p, h in observed_gpu_hours(pods, start, end).items()}
    return Fidelity(waits, hours)


def regressions(before: Mapping[str, float], after: Mapping[str, float]) -> list[str]:
    """Return the tenants whose simulated p95 wait grows beyond the tolerance after an edit."""
    return [t or "(no tenant)" for t, w in after.items()
            if w - before.get(t, 0.0) > max(WAIT_TOLERANCE_SECONDS, 0.25 * before.get(t, 0.0))]
