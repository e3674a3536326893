"""The demo's inference service: ``chat`` on the ``serve-l4`` pool, and its series minute by minute.

``chat`` (tenant ``chat``) serves a day that swings from 20 requests a second at 08:00 to 200 at
20:00 (110 - 90 cos(2 pi (h - 8) / 24)). Its stack entry scales on requests per second with a
target of 40 a replica and says ``capacityPerReplica: 40``, but one replica really serves 30 at
full GPU activity. What the cluster's exporters record, as its HPA would have run it (replicas
ceil(demand / 40) within 2 to 6, its pods' GPU activity demand / (replicas x 30), at most 1):

* the request counter ``chat_requests_total{namespace="chat"}``, every 30 s;
* kube-state-metrics' ``kube_horizontalpodautoscaler_status_current_replicas``,
  ``..._desired_replicas`` and ``..._spec_max_replicas`` of HPA ``chat/keda-hpa-chat``;
* the DCGM exporter's memory and ``DCGM_FI_PROF_GR_ENGINE_ACTIVE`` of the pool's two g6.12xlarge
  nodes' eight L4s, replica i on GPU i, with ``exported_namespace`` and ``exported_pod`` while
  a replica runs there (no pod labels, and no use, while none does); every minute.

Samples sit off the minute (15 s and 45 s past it for the counter, 30 s past it for the rest),
so none lies on the edge of a range.
"""

from __future__ import annotations

import math

from gpupool.advise.demo.promql import Series, labels_of

NAMESPACE = "chat"
TARGET = 40.0
CAPACITY = 30.0  # what one replica really serves at full GPU activity
REPLICAS = (2, 6)
NODES = ("serve-a", "serve-b")
GPUS_PER_NODE = 4
L4_MIB = 23034.0
POD_MIB = 12 * 1024.0

STACK_POOL = """\
  - name: serve-l4
    instanceType: g6.12xlarge
    workload: inference
    nodes: {min: 2, max: 2}
"""
STACK_TENANT = """\
  - name: chat
    pools: [serve-l4]
    limit: {gpus: 8}
"""
STACK_SERVICES = """\
services:
  - name: chat
    tenant: chat
    pool: serve-l4
    gpus: 1
    replicas: {min: 2, max: 6}
    scaleOn:
      # one replica handles 40 a second, the load test said
      - {metric: requests-per-second, target: 40,
         query: 'sum(rate(chat_requests_total{namespace="chat"}[1m]))'}
    capacityPerReplica: 40
"""


def demand(t: float) -> float:
    """Return the requests per second at unix time ``t``."""
    hour = (t % 86400.0) / 3600.0
    return 110.0 - 90.0 * math.cos(2 * math.pi * (hour - 8.0) / 24.0)


def replicas(t: float) -> int:
    """Return the replicas the HPA ran at ``t`` (target 40, within 2 to 6)."""
    return max(REPLICAS[0], min(REPLICAS[1], math.ceil(demand(t) / TARGET)))


def activity(t: float) -> float:
    """Return the service's pods' GPU activity at ``t`` (a ratio, saturating at 1)."""
    return min(1.0, demand(t) / (replicas(t) * CAPACITY))


def _pod(i: int) -> str:
    return f"chat-7c9d8f6b5-{i:05d}"


def series(start: float, end: float) -> list[Series]:
    """Return the service's series from ``start`` to ``end``."""
    out: list[Series] = []
    counter = Series(labels_of("chat_requests_total", {"namespace": NAMESPACE}))
    total, t = 0.0, start + 15.0
    while t < end:
        total += demand(t) * 30.0
        counter.times.append(t)
        counter.values.append(total)
        t += 30.0
    out.append(counter)
    minutes = [start + k * 60.0 + 30.0 for k in range(int((end - start) // 60))]
    hpa = {"namespace": NAMESPACE, "horizontalpodautoscaler": "keda-hpa-chat"}
    for name, value in (("kube_horizontalpodautoscaler_status_current_replicas", replicas),
                        ("kube_horizontalpodautoscaler_status_desired_replicas", replicas),
                        ("kube_horizontalpodautoscaler_spec_max_replicas",
                         lambda _t: REPLICAS[1])):
        s = Series(labels_of(name, hpa))
        s.times.extend(minutes)
        s.values.extend(float(value(m)) for m in minutes)
        out.append(s)
    for n, node in enumerate(NODES):
        for g in range(GPUS_PER_NODE):
            out.extend(_gpu(node, g, n * GPUS_PER_NODE + g, minutes))
    return out


def _gpu(node: str, gpu: int, slot: int, minutes: list[float]) -> list[Series]:
    device = {"Hostname": node, "gpu": str(gpu), "modelName": "NVIDIA L4",
              "UUID": f"GPU-{node}-{gpu}"}
    pod = {**device, "exported_namespace": NAMESPACE, "exported_pod": _pod(slot)}
    made: dict[tuple[str, bool], Series] = {}
    for m in minutes:
        busy = slot < replicas(m)
        used = POD_MIB if busy else 0.0
        for name, value in (("DCGM_FI_DEV_FB_USED", used), ("DCGM_FI_DEV_FB_FREE", L4_MIB - used),
                            ("DCGM_FI_PROF_GR_ENGINE_ACTIVE", activity(m) if busy else 0.0)):
            key = (name, busy)
            if key not in made:
                made[key] = Series(labels_of(name, pod if busy else device))
            made[key].times.append(m)
            made[key].values.append(value)
    return list(made.values())
