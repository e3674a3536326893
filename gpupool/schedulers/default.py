"""kube-scheduler with NVIDIA's device plugin: whole resources counted, nothing installed.

It places pods by counted extended resources only (``nodeResourcesFit``, LeastAllocated;
kubernetes ``pkg/scheduler/framework/plugins/noderesources/least_allocated.go``), preempts pods of
lower priority on one node (``defaultpreemption``), and enforces neither fractions nor quotas
beyond a ResourceQuota's cap.
"""

from gpupool.schedulers.base import Emulation, Scheduler

SCHEDULER = Scheduler(name="default", emulation=Emulation())
