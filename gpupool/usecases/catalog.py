"""``gpupool catalog``: the known GPU models and instance types, filtered by cloud and GPU."""

from __future__ import annotations

from gpupool import catalog
from gpupool.catalog import GpuModel, InstanceType
from gpupool.errors import InputError


def _unknown(gpu: str) -> InputError:
    close = ", ".join(catalog.closest(gpu, [g.name for g in catalog.gpus()]))
    return InputError(f"unknown GPU model '{gpu}'; closest: {close}")


def gpus(gpu: str | None) -> tuple[GpuModel, ...]:
    """Return every GPU model, or only ``gpu`` (aliases accepted).

    Raises:
        InputError: ``gpu`` is not a known model; the message names the closest ones.

    """
    if not gpu:
        return tuple(catalog.gpus())
    hit = catalog.gpu(gpu)
    if hit is None:
        raise _unknown(gpu)
    return (hit,)


def instances(cloud: str | None, gpu: str | None) -> tuple[InstanceType, ...]:
    """Return the instance types of ``cloud`` (all clouds when None) with ``gpu`` (any when None).

    Raises:
        InputError: ``gpu`` is not a known model; the message names the closest ones.

    """
    if gpu and catalog.gpu(gpu) is None:
        raise _unknown(gpu)
    return tuple(catalog.instances(cloud, gpu))
