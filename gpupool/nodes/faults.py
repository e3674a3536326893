"""The fault rules: which GPU readings need an operator.

Owns the three faults ``gpupool node inspect`` reports, judged on each GPU's reading:

- ``unreachable``: NVML could not open the GPU at all (for example "GPU is lost");
- ``ecc``: any uncorrected ECC error, since the driver loaded (volatile) or over the GPU's
  lifetime (aggregate); corrected errors are not faults;
- ``overheat``: a temperature at or above the GPU's slowdown threshold, or
  :data:`OVERHEAT_FALLBACK_C` when NVML reports no threshold.

Does not own: reading the GPUs (``gpupool.nodes.nvml``) or the report's shape
(``gpupool.nodes.report``, whose :class:`~gpupool.nodes.report.Fault` these rules produce).
"""

from __future__ import annotations

from collections.abc import Iterable

from gpupool.nodes.report import Fault, GpuReport

OVERHEAT_FALLBACK_C = 85
"""Overheat threshold when NVML reports no slowdown temperature for a GPU."""


def detect(gpus: Iterable[GpuReport]) -> tuple[Fault, ...]:
    """Return the faults of every GPU, in GPU order (each GPU's in the order listed above)."""
    return tuple(fault for gpu in gpus for fault in gpu_faults(gpu))


def gpu_faults(gpu: GpuReport) -> list[Fault]:
    """Return the faults of one GPU."""
    faults = []
    if gpu.error is not None:
        faults.append(Fault(gpu.index, "unreachable", f"NVML cannot open the GPU: {gpu.error}"))
    volatile = gpu.ecc_volatile.uncorrected or 0
    aggregate = gpu.ecc_aggregate.uncorrected or 0
    if volatile > 0 or aggregate > 0:
        faults.append(
            Fault(
                gpu.index,
                "ecc",
                f"{_count(gpu.ecc_volatile.uncorrected)} uncorrected ECC errors since the driver "
                f"loaded, {_count(gpu.ecc_aggregate.uncorrected)} over the GPU's lifetime",
            )
        )
    if gpu.temperature_c is not None:
        if gpu.slowdown_c is not None:
            limit, source = gpu.slowdown_c, "its slowdown threshold"
        else:
            limit, source = OVERHEAT_FALLBACK_C, "the default limit (no threshold reported)"
        if gpu.temperature_c >= limit:
            faults.append(
                Fault(
                    gpu.index,
                    "overheat",
                    f"{gpu.temperature_c} C is at or above {source} of {limit} C",
                )
            )
    return faults


def _count(value: int | None) -> str:
    return "n/a" if value is None else str(value)
