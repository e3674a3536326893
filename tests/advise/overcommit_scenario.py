"""Two days of a HAMi pool whose pods take turns at their memory peaks, as exporters write it.

The pool of ``STACK``: two g6.2xlarge nodes (``vgpu-a``, ``vgpu-b``, one L4 of 24 GiB each)
under ``scheduler: hami``, four 6 GiB slots a GPU, four inference pods on each. HAMi's
device-plugin monitor writes each container's use every minute (v2.10.0's
``hami_vgpu_memory_used_bytes`` and ``hami_vgpu_memory_limit_bytes``, labels ``namespace``,
``pod``, ``container``, ``vdevice_index``, ``device_uuid``: ``cmd/vGPUmonitor/metrics.go``):

* each pod holds 2 GiB and peaks at 5 GiB (of its 6 GiB slot) one hour in four, in turn (pod k
  in the hours h with h % 4 == k), so at any moment one pod of a GPU peaks: its GPU's summed
  use is 5 + 3 x 2 = 11 GiB against peaks that sum to 20, a ratio of 1.82;
* once, a day and a minute after the window starts, all four pods of ``vgpu-a`` peak together
  for three minutes (20 GiB): one 5-minute window in which the peaks coincide;
* from 01:00 to 02:00 UTC every day, the pods of ``vgpu-b`` rise to 3 GiB while their turn's
  pod peaks (5 + 3 x 3 = 14 GiB): 12 windows a day of a ratio of 20 / 14 = 1.43.

Hand-worked: 2 GPUs x 576 windows = 1,152 windows; 0.1% lets floor(1.152) = 1 overflow. The
ratios sorted are 1.0 (once), 1.43 (24 times), 1.82 (the rest): the largest factor at which at
most one window overflows is 1.43, on the 0.05 grid 1.4 (14 x 1.4 = 19.6, not over 20; the
coinciding window overflows, 20 x 1.4 > 20). 4 slots x 1.4 = 5.6: 5 slots a GPU, 5 x 6 GiB =
30 GiB within 24 x 1.4 = 33.6. At 5% (57 windows allowed) the factor is 1.8 (11 x 1.8 = 19.8,
not over; the 25 others overflow): 7 slots.

Samples sit 15 s past each minute, so none lies on a 30 s step of the server's subquery.
The DCGM exporter and kube-state-metrics write what a monitored pool has: the GPUs' memory, the
pool label on the nodes, and each pod's node.
"""

from __future__ import annotations

from tests.advise.promserver import Family
from tests.advise.scenario import stack_head

END = 1796218800.0  # the window's end (--until), as the docs' advise scenario
DAYS = 2
SAMPLE = 60.0
DAY = 86400.0
GIB = 1024.0**3
NODES = ("vgpu-a", "vgpu-b")
L4_MIB = 23034.0

STACK = stack_head("advise-overcommit", scheduler="hami",
                   comment="# A HAMi pool whose pods take turns at their memory peaks.\n") + """\
  - name: vgpu
    instanceType: g6.2xlarge
    workload: inference
    nodes: {min: 2, max: 2}
    sharing:
      mode: fractional
      fractional: {slotsPerGpu: 4, memoryGiB: 6}  # four inference pods a GPU
"""


def _hour(t: float) -> int:
    return int((t % DAY) // 3600)


def use_gib(node: str, k: int, t: float, start: float) -> float:
    """What pod ``k`` of ``node`` uses at time ``t``, in GiB."""
    if node == "vgpu-a" and start + DAY + 60 <= t < start + DAY + 240:
        return 5.0  # the one time the four peak together
    if _hour(t) % 4 == k:
        return 5.0
    if node == "vgpu-b" and _hour(t) == 1:
        return 3.0
    return 2.0


def series(end: float = END, days: int = DAYS) -> list[Family]:
    """The pool's series from ``end - days`` to ``end``."""
    start = end - days * DAY
    times = [start + k * SAMPLE + 15 for k in range(int(days * DAY / SAMPLE))]
    used = Family("hami_vgpu_memory_used_bytes")
    limit = Family("hami_vgpu_memory_limit_bytes")
    info = Family("kube_pod_info")
    labels = Family("kube_node_labels")
    fb = Family("DCGM_FI_DEV_FB_USED")
    free = Family("DCGM_FI_DEV_FB_FREE")
    active = Family("DCGM_FI_PROF_GR_ENGINE_ACTIVE")
    for node in NODES:
        uuid = f"GPU-{node}-0"
        labels.add({"node": node, "label_gpupool_io_pool": "vgpu"}, [(t, 1) for t in times])
        device = {"Hostname": node, "gpu": "0", "modelName": "NVIDIA L4", "UUID": uuid}
        summed = [(t, 1024 * (0.5 + sum(use_gib(node, k, t, start) for k in range(4))))
                  for t in times]
        fb.add(device, summed)
        free.add(device, [(t, L4_MIB - v) for t, v in summed])
        active.add(device, [(t, 0.3) for t in times])
        for k in range(4):
            pod = f"infer-{node[-1]}{k}"
            info.add({"namespace": "search", "pod": pod, "node": node,
                      "created_by_kind": "ReplicaSet"}, [(t, 1) for t in times])
            ids = {"namespace": "search", "pod": pod, "container": "main",
                   "vdevice_index": "0", "device_uuid": uuid}
            used.add(ids, [(t, use_gib(node, k, t, start) * GIB) for t in times])
            limit.add(ids, [(t, 6 * GIB) for t in times])
    return [used, limit, info, labels, fb, free, active]
