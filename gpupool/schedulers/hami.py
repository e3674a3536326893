"""HAMi (v2.10.0): vGPU slots with memory and core caps, served by its own device plugin.

* Its device plugin replaces NVIDIA's on nodes labelled ``gpu: "on"``, splits each GPU into
  ``deviceSplitCount`` vGPUs with ``deviceMemoryScaling`` overcommit (``charts/hami/values.yaml``)
  and registers them in the ``hami.io/node-nvidia-register`` annotation; time-slicing, MPS and
  MIG layouts, which NVIDIA's plugin implements, do not apply.
* It caps each slot's memory and cores (``nvidia.com/gpumem``, ``nvidia.com/gpucores``) and
  preempts by ``nvidia.com/priority``.
* Its scheduler extender scores nodes ``nodeSchedulerPolicy: binpack`` and GPUs
  ``gpuSchedulerPolicy: spread`` (``pkg/scheduler/policy/node_policy.go``); pods asking no HAMi
  resource are kube-scheduler's.
"""

from gpupool.schedulers.base import DEVICES_VGPU, SCORE_NODE_BINPACK, Emulation, Scheduler

SCHEDULER = Scheduler(
    name="hami",
    title="HAMi's scheduler",
    pod_scheduler_name="hami-scheduler",
    installs=True,
    enforces_fractions=True,
    caps_fractions=True,
    virtualises_memory=True,
    priority_preemption=True,
    own_device_plugin=True,
    emulation=Emulation(
        fraction_devices=DEVICES_VGPU,
        devices_everywhere=True,
        score=SCORE_NODE_BINPACK,
        score_gpu_pods_only=True,
        slot_admission=True,
    ),
)
