"""A 14-day cluster written as the exporters write it, for the advise tests (a helper).

Two pools of the stack in ``STACK``: ``h100`` (two p5.48xlarge nodes, eight H100 80GB each,
exclusive) whose pods use 9 GiB and 12% of each GPU they run on, and ``l4`` (near its memory
cap). Series are written every 20 minutes as the DCGM exporter (``Hostname``, ``gpu``,
``modelName``), kube-state-metrics (``kube_node_labels`` with the pool label,
``kube_pod_container_resource_requests``, ``kube_pod_status_phase``) write them, with a scrape
gap and an exporter restart (a series that stops and starts again) on the way.

The training Job's 20-minute wait has a cause the simulator can replay: every night from 00:00
to 06:00 a batch Job of four 8-GPU pods (namespace ``batch``, no tenant) fills the h100 pool to
its ``nodes.max`` of 4 (the autoscaler brings nodes h100-c and h100-d for it; their
``kube_node_labels`` exist only then, and no DCGM exporter is scraped on them), so the trainer
submitted at 05:40 starts when the batch ends at 06:00.
"""

from __future__ import annotations

from collections.abc import Callable

from tests.advise.promserver import Family

STEP = 1200.0
H100_MIB = 81559.0
DAY = 86400.0


def stack_head(name: str, *, scheduler: str = "default", environment: str | None = None,
               comment: str = "") -> str:
    """A stack file up to ``pools:`` on the scenario's AWS cluster (Prometheus stated).

    The scenario's stacks and ``bench/advise.py`` differ only in their name, scheduler,
    environment and pools.
    """
    env = f"  environment: {environment}\n" if environment else ""
    return (
        f"{comment}apiVersion: gpupool.io/v1\nkind: GpuPoolStack\nmetadata:\n  name: {name}\n{env}"
        """provider:
  cloud: aws
  region: us-east-1
  cluster: ml
  settings:
    subnets:
      - {id: subnet-0a1b2c3d4e5f60718, zone: us-east-1a}
    nodeRoleArn: arn:aws:iam::123456789012:role/gpu-nodes
state:
  backend: s3://ml-state
cluster:
  gpuOperator: {install: true, driver: preinstalled}
"""
        f"  scheduler: {scheduler}\n"
        """  monitoring:
    dcgmExporter: true
    prometheus: {labels: {release: kps}, kubeStateMetricsPoolLabel: true}
pools:
"""
    )


_COMMENT = "# The advise scenario's stack (comments must survive --write).\n"
STACK = stack_head("advise-scenario", environment="production", comment=_COMMENT) + """\
  # H100 training nodes; the floor keeps two warm
  - name: h100
    instanceType: p5.48xlarge
    workload: training
    nodes: {min: 2, max: 4}  # two warm nodes
  - name: l4
    instanceType: g6.2xlarge
    workload: inference
    nodes: {min: 1, max: 2}
tenants:
  - name: llm
    pools: [h100]
    quota: {gpus: 24}
"""

# A second stack over the same cluster: HAMi slices the L4 of node vgpu-a into four 6 GiB slots,
# and its three inference pods use up to 5.6 GiB of theirs.
HAMI_STACK = stack_head("advise-hami", scheduler="hami",
                        comment="# The HAMi stack of the advise scenario.\n") + """\
  - name: vgpu
    instanceType: g6.2xlarge
    workload: inference
    nodes: {min: 1, max: 2}
    sharing:
      mode: fractional
      fractional: {slotsPerGpu: 4, memoryGiB: 6}  # four inference pods a GPU
"""
# A third: a MIG pool of A100 nodes whose one node reports only GPU 0's two instances, and only
# GPU_UTIL for them (which does not measure a MIG instance).
MIG_STACK = STACK.split("pools:")[0].replace("advise-scenario", "advise-mig") + """\
pools:
  - name: mig
    instanceType: p4d.24xlarge
    workload: inference
    nodes: {min: 1, max: 2}
    sharing:
      mode: mig
      mig: {layout: {3g.20gb: 2}}
"""
SLOT_GIB = 6.0
SLOT_USED_GIB = (5.0, 5.3, 5.6)  # the three pods' steady use: the last two near the cap


LLM_COST_PER_HOUR = 8 * 6.88  # what the showback rule records while llm's trainer runs


def _hour(t: float) -> float:
    return (t % DAY) / 3600


def h100_busy(node: str) -> Callable[[float], bool]:
    """Whether a node of the h100 pool runs pods at time t: a 06-22 and b 10-12."""
    if node == "h100-a":
        return lambda t: 6 <= _hour(t) < 22
    return lambda t: 10 <= _hour(t) < 12


def series(end: float, days: int = 14, *, dcgm: bool = True) -> list[Family]:
    """The scenario's series from ``end - days`` to ``end``."""
    start = end - days * DAY
    times = [start + i * STEP for i in range(int(days * DAY / STEP) + 1)]
    fb = Family("DCGM_FI_DEV_FB_USED")
    free = Family("DCGM_FI_DEV_FB_FREE")
    active = Family("DCGM_FI_PROF_GR_ENGINE_ACTIVE")
    labels_family = Family("kube_node_labels")
    requests = Family("kube_pod_container_resource_requests")
    phase = Family("kube_pod_status_phase")
    for node in ("h100-a", "h100-b"):
        busy = h100_busy(node)
        labels_family.add({"node": node, "label_gpupool_io_pool": "h100"}, [(t, 1) for t in times])
        for gpu in range(8):
            base = {"Hostname": node, "gpu": str(gpu), "modelName": "NVIDIA H100 80GB HBM3",
                    "UUID": f"GPU-{node}-{gpu}"}
            # the exporter restarts on day 3 (no samples for an hour) and a scrape is lost on
            # day 9: the series have gaps, never made-up zeros
            kept = [t for t in times if not (2 * DAY <= t - start < 2 * DAY + 3600)
                    and t - start != 9 * DAY]
            fb.add(base, [(t, 9216.0 + gpu if busy(t) else 300.0) for t in kept])
            # an H100 80GB's driver offers 81,559 MiB: used + free adds up to it
            free.add(base, [(t, H100_MIB - (9216.0 + gpu if busy(t) else 300.0)) for t in kept])
            active.add(base, [(t, 0.12 if busy(t) else 0.0) for t in kept])
    pods = Pods(requests, phase)
    day0 = int(start // DAY) * DAY
    for d in range(days + 1):
        midnight = day0 + d * DAY
        # the day's training Job: submitted 05:40, runs 06:00-22:00 on node a (8 GPUs)
        pods.add("llm", f"trainer-{d}", "h100-a", "Job", midnight + 5 * 3600 + 2400,
                 midnight + 6 * 3600, midnight + 22 * 3600, gpus=8, cpu=16, memory_gib=64,
                 restarts=1 if d == 4 else 0, start=start, end=end, times=times)
        # an evaluation Job on node b, 10:00-12:00, started as soon as it is submitted
        pods.add("eval", f"eval-{d}", "h100-b", "Job", midnight + 10 * 3600,
                 midnight + 10 * 3600, midnight + 12 * 3600, gpus=8, cpu=8, memory_gib=32,
                 start=start, end=end, times=times)
    for node in ("h100-c", "h100-d"):  # nodes the autoscaler adds for the night's batch
        night = [t for t in times if _hour(t) < 6]
        labels_family.add({"node": node, "label_gpupool_io_pool": "h100"}, [(t, 1) for t in night])
    for d in range(days + 1):
        midnight = day0 + d * DAY
        for k in "abcd":  # the night's batch fills the pool's four nodes, 00:00-06:00
            pods.add("batch", f"night-{d}-{k}", f"h100-{k}", "Job", midnight, midnight,
                     midnight + 6 * 3600, gpus=8, cpu=8, memory_gib=32, start=start, end=end,
                     times=times)
    # a bare pod (no owner recreates it) serving on the L4 node all the time
    pods.add("web", "server", "l4-a", "<none>", start - DAY, start - DAY, end + DAY, gpus=1,
             cpu=2, memory_gib=6, start=start, end=end, times=times)
    labels_family.add({"node": "l4-a", "label_gpupool_io_pool": "l4"}, [(t, 1) for t in times])
    base = {"Hostname": "l4-a", "gpu": "0", "modelName": "NVIDIA L4", "UUID": "GPU-l4-a-0"}
    fb.add(base, [(t, 21500.0) for t in times])  # 21 GiB of 24: near the cap all the time
    active.add(base, [(t, 0.2) for t in times])
    labels_family.add({"node": "vgpu-a", "label_gpupool_io_pool": "vgpu"}, [(t, 1) for t in times])
    base = {"Hostname": "vgpu-a", "gpu": "0", "modelName": "NVIDIA L4", "UUID": "GPU-vgpu-a-0"}
    fb.add(base, [(t, 1024 * sum(SLOT_USED_GIB) + 900) for t in times])
    active.add(base, [(t, 0.35) for t in times])
    # HAMi's device-plugin monitor (cmd/vGPUmonitor/metrics.go): one series per container and
    # virtual device, in bytes, labelled podnamespace, podname, ctrname, vdeviceid, deviceuuid
    used = Family("vGPU_device_memory_usage_in_bytes")
    limit = Family("vGPU_device_memory_limit_in_bytes")
    for k, gib in enumerate(SLOT_USED_GIB):
        name = f"infer-{k}"
        pods.add("search", name, "vgpu-a", "ReplicaSet", start - DAY, start - DAY, end + DAY,
                 gpus=1, cpu=1, memory_gib=4, start=start, end=end, times=times)
        labels = {"podnamespace": "search", "podname": name, "ctrname": "main", "vdeviceid": "0",
                  "deviceuuid": "GPU-vgpu-a-0", "zone": "vGPU"}
        # the use swings between 80% and 100% of the pod's figure through the day
        used.add(labels, [(t, gib * 1024**3 * (0.8 + 0.2 * (_hour(t) >= 12))) for t in times])
        limit.add(labels, [(t, SLOT_GIB * 1024**3) for t in times])
    labels_family.add({"node": "mig-a", "label_gpupool_io_pool": "mig"}, [(t, 1) for t in times])
    util = Family("DCGM_FI_DEV_GPU_UTIL")
    for instance in ("1", "2"):
        mig = {"Hostname": "mig-a", "gpu": "0", "modelName": "NVIDIA A100-SXM4-40GB",
               "GPU_I_PROFILE": "3g.20gb", "GPU_I_ID": instance, "UUID": "GPU-mig-a-0"}
        fb.add(mig, [(t, 4096.0) for t in times])
        util.add(mig, [(t, 40.0) for t in times])
    # gpupool's showback rule as Prometheus records it (gpupool.sharing.showback: the tenant's
    # running GPU pods at the pool's price, summed by stack and tenant): llm's trainer holds 8
    # H100s of a p5.48xlarge at $6.88 a GPU-hour from 06:00 to 22:00
    showback = Family("gpupool:tenant_cost_usd_per_hour")
    trainer = h100_busy("h100-a")
    showback.add({"stack": "advise-scenario", "tenant": "llm"},
                 [(t, LLM_COST_PER_HOUR if trainer(t) else 0.0) for t in times])
    families = [labels_family, requests, phase, showback, *pods.families()]
    # dcgm=False: no device exporter is scraped (neither the DCGM exporter nor HAMi's monitor)
    return ([fb, free, active, util, used, limit] if dcgm else []) + families


class Pods:
    """kube-state-metrics' pod series, one pod at a time (``docs/metrics/workload/pod-metrics.md``:
    ``kube_pod_info`` with ``node`` and ``priority_class``, ``kube_pod_owner``,
    ``kube_pod_created``, ``kube_pod_start_time``, ``kube_pod_status_phase``, requests by
    ``resource`` and ``unit``, ``kube_pod_container_status_restarts_total``)."""

    def __init__(self, requests: Family, phase: Family) -> None:
        self.requests, self.phase = requests, phase
        self.info = Family("kube_pod_info")
        self.owner = Family("kube_pod_owner")
        self.created = Family("kube_pod_created")
        self.started = Family("kube_pod_start_time")
        self.restarts = Family("kube_pod_container_status_restarts", "counter")

    def add(self, namespace: str, pod: str, node: str, owner: str, submit: float, begin: float,
            finish: float, *, gpus: int, cpu: float, memory_gib: float, restarts: int = 0,
            start: float, end: float, times: list[float]) -> None:
        """One pod: submitted at ``submit``, running from ``begin`` to ``finish``, on ``node``;
        its series exist from submission until an hour after it finished (then it is deleted)."""
        alive = [t for t in times if submit <= t <= finish + 3600 and start <= t <= end]
        if not alive:
            return
        ids = {"namespace": namespace, "pod": pod}
        scheduled = [t for t in alive if t >= begin]
        self.info.add({**ids, "node": node, "priority_class": "", "created_by_kind": owner},
                      [(t, 1) for t in scheduled])
        self.owner.add({**ids, "owner_kind": owner, "owner_name": "<none>" if owner == "<none>"
                        else pod.rsplit("-", 1)[0], "owner_is_controller": "true"},
                       [(t, 1) for t in alive])
        self.created.add(ids, [(t, submit) for t in alive])
        self.started.add(ids, [(t, begin) for t in scheduled])
        container = {**ids, "container": "main", "node": node}
        for resource, unit, value in (("nvidia_com_gpu", "integer", gpus), ("cpu", "core", cpu),
                                      ("memory", "byte", memory_gib * 1024**3)):
            self.requests.add({**container, "resource": resource, "unit": unit},
                              [(t, value) for t in alive])
        for phase in ("Pending", "Running", "Succeeded"):
            self.phase.add({**ids, "phase": phase}, [
                (t, 1 if (phase == "Pending" and t < begin)
                 or (phase == "Running" and begin <= t < finish)
                 or (phase == "Succeeded" and t >= finish) else 0)
                for t in alive
            ])
        self.restarts.add({**ids, "container": "main"},
                          [(t, restarts if t >= begin + 3600 else 0) for t in alive])

    def families(self) -> list[Family]:
        """The pod families written so far (requests and phase belong to the caller)."""
        return [self.info, self.owner, self.created, self.started, self.restarts]


# A stack whose time-sliced L4 pool is idle every night: the search service's pods run 08:00 to
# 20:00 on both floor nodes (four replicas a GPU, 14 GiB used) and KEDA scales it to zero for
# the night, 12 of 24 hours; its nodes stay, held by nodes.min.
NIGHT_STACK = stack_head("advise-night", comment="# The night-idle L4 pool.\n") + """\
  - name: infer-l4
    instanceType: g6.xlarge
    workload: inference
    nodes: {min: 2, max: 4}
    sharing: {mode: time-slicing, replicas: 4}
"""
NIGHT_NODES = ("l4-a", "l4-b")
L4_MIB = 23034.0


def night_busy(t: float) -> bool:
    """Whether the night-idle pool's service runs at time t: 08:00 to 20:00."""
    return 8 <= _hour(t) < 20


def night_series(end: float, days: int = 14) -> list[Family]:
    """The night-idle pool's series from ``end - days`` to ``end`` (DCGM and node labels)."""
    start = end - days * DAY
    times = [start + i * STEP for i in range(int(days * DAY / STEP) + 1)]
    fb = Family("DCGM_FI_DEV_FB_USED")
    free = Family("DCGM_FI_DEV_FB_FREE")
    active = Family("DCGM_FI_PROF_GR_ENGINE_ACTIVE")
    labels_family = Family("kube_node_labels")
    for node in NIGHT_NODES:
        labels_family.add({"node": node, "label_gpupool_io_pool": "infer-l4"},
                          [(t, 1) for t in times])
        base = {"Hostname": node, "gpu": "0", "modelName": "NVIDIA L4", "UUID": f"GPU-{node}-0"}
        used = [(t, 14336.0 if night_busy(t) else 0.0) for t in times]
        fb.add(base, used)
        free.add(base, [(t, L4_MIB - v) for t, v in used])
        active.add(base, [(t, 0.4 if night_busy(t) else 0.0) for t in times])
    return [fb, free, active, labels_family]
