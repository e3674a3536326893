"""``gpupool catalog``: known GPU models, instance types and regions, by cloud and GPU."""

from __future__ import annotations

from gpupool import catalog
from gpupool.catalog import CloudFacts, GpuModel, InstanceType
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


def regions(cloud: str | None) -> tuple[CloudFacts, ...]:
    """Return the facts (with region lists) of ``cloud``, or of every cloud that provisions."""
    return tuple(
        c
        for c in catalog.clouds()
        if c.name == cloud or (cloud is None and c.name in catalog.INSTANCE_CLOUDS)
    )
