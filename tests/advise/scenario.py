"""A 14-day cluster written as the exporters write it, for the advise tests (a helper).

Two pools of the stack in ``STACK``: ``h100`` (two p5.48xlarge nodes, eight H100 80GB each,
exclusive) whose pods use 9 GiB and 12% of each GPU they run on, and ``l4`` (near its memory
cap). Series are written every 20 minutes as the DCGM exporter (``Hostname``, ``gpu``,
``modelName``), kube-state-metrics (``kube_node_labels`` with the pool label,
``kube_pod_container_resource_requests``, ``kube_pod_status_phase``) write them, with a scrape
gap and an exporter restart (a series that stops and starts again) on the way.
"""

from __future__ import annotations

from collections.abc import Callable

from tests.advise.promserver import Family

STEP = 1200.0
DAY = 86400.0

STACK = """\
# The advise scenario's stack (comments must survive --write).
apiVersion: gpupool.io/v1
kind: GpuPoolStack
metadata:
  name: advise-scenario
  environment: production
provider:
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
  scheduler: default
  monitoring:
    dcgmExporter: true
    prometheus: {labels: {release: kps}, kubeStateMetricsPoolLabel: true}
pools:
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
            active.add(base, [(t, 0.12 if busy(t) else 0.0) for t in kept])
    pod = {"namespace": "llm", "pod": "trainer-0", "container": "main", "node": "h100-a"}
    busy_a = h100_busy("h100-a")
    requests.add({**pod, "resource": "nvidia_com_gpu", "unit": "integer"},
                 [(t, 8) for t in times if busy_a(t)])
    phase.add({"namespace": "llm", "pod": "trainer-0", "phase": "Running"},
              [(t, 1 if busy_a(t) else 0) for t in times])
    labels_family.add({"node": "l4-a", "label_gpupool_io_pool": "l4"}, [(t, 1) for t in times])
    base = {"Hostname": "l4-a", "gpu": "0", "modelName": "NVIDIA L4", "UUID": "GPU-l4-a-0"}
    fb.add(base, [(t, 21500.0) for t in times])  # 21 GiB of 24: near the cap all the time
    active.add(base, [(t, 0.2) for t in times])
    families = [labels_family, requests, phase]
    return ([fb, active] if dcgm else []) + families
