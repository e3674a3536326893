"""The demo's cluster: a bundled example stack and 14 days of the series its exporters would write.

``STACK`` is a newcomer's EKS stack under HAMi: an L4 pool cut into four 5 GiB slots a GPU for
online inference (tenants ``search`` and ``ads``) and an H100 pool for training (tenant
``llm``). ``series`` writes what the DCGM exporter (``Hostname``, ``gpu``, ``modelName``;
framebuffer and activity), HAMi's device-plugin monitor (``hami_vgpu_memory_used_bytes`` and
``hami_vgpu_memory_limit_bytes`` a container, v2.10.0's ``cmd/vGPUmonitor/metrics.go``),
kube-state-metrics (``kube_node_labels`` with the pool label, the pod series of
``docs/metrics/workload/pod-metrics.md``) and gpupool's showback rule
(``gpupool:tenant_cost_usd_per_hour``) would have recorded, every 20 minutes:

* ``infer-l4``: two g6.2xlarge nodes held by ``nodes.min: 2``; from 08:00 to 20:00 each runs four
  pods (three of ``search``, one of ``ads``; ReplicaSets; each holds 1.5 GiB of GPU memory and
  peaks at 4 GiB of its 5 GiB slot one sample in four, in turn, so a GPU's pods use 8.5 GiB
  together against peaks that sum to 16; once, at noon on the window's last day, all four of
  ``l4-a`` peak together), and from 20:00 to 08:00 the services are scaled to zero, so both
  nodes sit idle 12 of 24 hours;
* ``train-h100``: one p5.48xlarge running one training Job's pod on all eight GPUs the whole
  window (70 GiB and 90% activity each);
* ``serve-l4``: two g6.12xlarge nodes serving the inference service ``chat``, minute by minute
  (``advise.demo.service``);
* ``spot-l4``: eight g6.4xlarge spot nodes training, four of which the cloud reclaims in the
  window (``advise.demo.spot``).

Samples sit 30 s before each 20-minute mark, so no sample lies on the edge of an hourly range or
of the window, where Prometheus versions differ (2.x ranges include their start, 3.x do not).
"""

from __future__ import annotations

from collections.abc import Callable

from gpupool.advise.demo import service, spot
from gpupool.advise.demo.promql import Series, labels_of

END = 1796083200.0  # 2026-12-01T00:00:00Z: the demo's window ends here, whatever the clock says
DAYS = 14
STEP = 1200.0
DAY = 86400.0
NAME = "advise-demo"
L4_MIB = 23034.0  # an L4's memory as its driver offers it (used + free)
H100_MIB = 81559.0
POD_GIB = 1.5  # GPU memory each inference pod holds between its peaks
PEAK_GIB = 4.0  # and at its peak

STACK = f"""\
# The stack `gpupool advise --demo` advises (gpupool.advise.demo): an EKS cluster under HAMi
# with an L4 pool cut into slots for online inference and an H100 pool for training, three teams.
apiVersion: gpupool.io/v1
kind: GpuPoolStack
metadata:
  name: {NAME}
provider:
  cloud: aws
  region: us-east-1
  cluster: ml
  settings:
    subnets:
      - {{id: subnet-0a1b2c3d4e5f60718, zone: us-east-1a}}
    nodeRoleArn: arn:aws:iam::123456789012:role/gpu-nodes
cluster:
  gpuOperator: {{install: true, driver: preinstalled}}
  scheduler: hami
  monitoring:
    dcgmExporter: true
    prometheus:
      url: http://kube-prometheus-stack-prometheus.monitoring:9090
      labels: {{release: kube-prometheus-stack}}
      kubeStateMetricsPoolLabel: true
pools:
  - name: infer-l4
    instanceType: g6.2xlarge
    workload: inference
    nodes: {{min: 2, max: 4}}  # two warm nodes
    sharing:
      mode: fractional
      fractional: {{slotsPerGpu: 4, memoryGiB: 5}}  # four inference pods a GPU
  - name: train-h100
    instanceType: p5.48xlarge
    workload: training
    nodes: {{min: 1, max: 2}}
{service.STACK_POOL}{spot.STACK_POOL}acknowledge:
  - code: hami.split-reaches-whole-gpus
    reason: the training Job takes all eight GPUs of its node, so their vGPUs go unused
    path: pools.train-h100
tenants:
  - name: search
    pools: [infer-l4]
    limit: {{gpus: 8}}
  - name: ads
    pools: [infer-l4]
    limit: {{gpus: 4}}
  - name: llm
    pools: [train-h100]
    limit: {{gpus: 16}}
{service.STACK_TENANT}\
{service.STACK_SERVICES}"""


def _hour(t: float) -> float:
    return (t % DAY) / 3600


def serving(t: float) -> bool:
    """Whether the inference services run at time t: 08:00 to 20:00."""
    return 8 <= _hour(t) < 20


class _Writer:
    """Collects series, one family at a time."""

    def __init__(self, times: list[float]) -> None:
        self.times = times
        self.out: list[Series] = []

    def add(self, name: str, labels: dict[str, str], value: Callable[[float], float | None],
            during: Callable[[float], bool] = lambda t: True) -> None:
        """Add a series sampled at every time ``during`` holds (a None value: no sample)."""
        s = Series(labels_of(name, labels))
        for t in self.times:
            v = value(t) if during(t) else None
            if v is not None:
                s.times.append(t)
                s.values.append(float(v))
        if s.times:
            self.out.append(s)

    def pod(self, namespace: str, pod: str, node: str, owner: str, begin: float, finish: float,
            requests: dict[str, tuple[str, float]]) -> None:
        """Add one pod's kube-state-metrics series: it runs from ``begin`` to ``finish``."""
        ids = {"namespace": namespace, "pod": pod}

        def alive(t: float) -> bool:  # its series go an hour after it finished
            return begin <= t <= finish + 3600

        self.add("kube_pod_info", {**ids, "node": node, "created_by_kind": owner},
                 lambda t: 1, alive)
        self.add("kube_pod_owner", {**ids, "owner_kind": owner, "owner_is_controller": "true"},
                 lambda t: 1, alive)
        for phase in ("Running", "Succeeded"):
            self.add("kube_pod_status_phase", {**ids, "phase": phase},
                     lambda t, p=phase: float((t < finish) == (p == "Running")), alive)
        for resource, (unit, amount) in requests.items():
            self.add("kube_pod_container_resource_requests",
                     {**ids, "container": "main", "node": node, "resource": resource,
                      "unit": unit}, lambda t, a=amount: a, alive)
        self.add("kube_pod_container_status_restarts_total", {**ids, "container": "main"},
                 lambda t: 0, alive)


def pod_gib(node: str, k: int, t: float, end: float = END) -> float:
    """Return what the inference pod ``k`` of ``node`` uses at time ``t`` (serving), in GiB."""
    if node == "l4-a" and abs(t - (end - DAY / 2 - 30)) < 1:
        return PEAK_GIB  # noon of the last day: the four peak together
    return PEAK_GIB if round((t + 30) / STEP) % 4 == k else POD_GIB


def _gpu(w: _Writer, node: str, gpu: int, model: str, total: float,
         used: Callable[[float], float], active: Callable[[float], float]) -> None:
    labels = {"Hostname": node, "gpu": str(gpu), "modelName": model, "UUID": f"GPU-{node}-{gpu}"}
    w.add("DCGM_FI_DEV_FB_USED", labels, used)
    w.add("DCGM_FI_DEV_FB_FREE", labels, lambda t: total - used(t))
    w.add("DCGM_FI_PROF_GR_ENGINE_ACTIVE", labels, active)


def series(end: float = END, days: int = DAYS) -> list[Series]:
    """Return the demo's series from ``end - days`` to ``end``."""
    start = end - days * DAY
    w = _Writer([start + k * STEP - 30 for k in range(1, int(days * DAY / STEP) + 1)])
    pools = {"l4-a": "infer-l4", "l4-b": "infer-l4", "h100-a": "train-h100",
             **dict.fromkeys(service.NODES, "serve-l4")}
    for node, pool in pools.items():
        w.add("kube_node_labels", {"node": node, "label_gpupool_io_pool": pool}, lambda t: 1)
    for node in ("l4-a", "l4-b"):
        _gpu(w, node, 0, "NVIDIA L4", L4_MIB,
             lambda t, n=node: 1024 * sum(pod_gib(n, k, t, end) for k in range(4))
             if serving(t) else 0.0,
             lambda t: 0.35 if serving(t) else 0.0)
    for gpu in range(8):
        _gpu(w, "h100-a", gpu, "NVIDIA H100 80GB HBM3", H100_MIB,
             lambda t: 70.0 * 1024, lambda t: 0.9)
    w.pod("llm", "pretrain-0", "h100-a", "Job", start - DAY, end + DAY,
          {"nvidia_com_gpu": ("integer", 8), "cpu": ("core", 120),
           "memory": ("byte", 1024 * 1024**3)})
    midnight = start - start % DAY
    for d in range(days + 1):
        opens, closes = midnight + d * DAY + 8 * 3600, midnight + d * DAY + 20 * 3600
        for node in ("l4-a", "l4-b"):
            for k, tenant in enumerate(("search", "search", "search", "ads")):
                name = f"{tenant}-{node}-{d}-{k}"
                w.pod(tenant, name, node, "ReplicaSet", opens, closes,
                      {"nvidia_com_gpu": ("integer", 1), "cpu": ("core", 1),
                       "memory": ("byte", 3 * 1024**3)})
                ids = {"namespace": tenant, "pod": name, "container": "main",
                       "vdevice_index": "0", "device_uuid": f"GPU-{node}-0"}
                w.add("hami_vgpu_memory_used_bytes", ids,
                      lambda t, n=node, j=k: pod_gib(n, j, t, end) * 1024**3,
                      lambda t, a=opens, b=closes: a <= t < b)
                w.add("hami_vgpu_memory_limit_bytes", ids, lambda t: 5 * 1024**3,
                      lambda t, a=opens, b=closes: a <= t < b)
    for node, (first, last) in spot.lifetimes(start, end).items():
        w.pod("batch", f"train-{node}", node, "Job", first, last,
              {"nvidia_com_gpu": ("integer", 1), "cpu": ("core", 12),
               "memory": ("byte", 48 * 1024**3)})
    slot = 0.9776 / 4  # a g6.2xlarge's price a slot
    costs = {"search": lambda t: 6 * slot if serving(t) else 0.0,
             "ads": lambda t: 2 * slot if serving(t) else 0.0, "llm": lambda t: 8 * 6.88}
    for tenant, cost in costs.items():
        w.add("gpupool:tenant_cost_usd_per_hour", {"stack": NAME, "tenant": tenant}, cost)
    return w.out + service.series(start, end) + spot.series(w.times, start, end)
