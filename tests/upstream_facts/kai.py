"""KAI Scheduler's pod annotation names for GPU sharing.

Read from kai-scheduler/KAI-Scheduler tag v0.17.0 (commit
f218c69bee5e5fc6031273ba555d09916b1ca89a), ``pkg/common/constants/constants.go``: the constants
``GpuFraction`` and ``GpuMemory``. That file is Go source, which is kept nowhere beside the
repository, so no conformance test reads it; re-read it upstream when gpupool pins a newer KAI.
"""

from __future__ import annotations

VERSION = "v0.17.0"
GPU_FRACTION = "gpu-fraction"  # constants.GpuFraction: a pod's share of one GPU
GPU_MEMORY = "gpu-memory"  # constants.GpuMemory: a pod's GPU memory, in MiB
