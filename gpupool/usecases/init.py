"""``gpupool init``: a commented starter stack for a cloud and its GPUs, valid as written.

This module picks what the starter holds (the cloud's placeholders from its plug-in; one pool per
GPU named, each on the catalog's smallest and cheapest instance type carrying that GPU where the
catalog lists the cloud's instances), has ``views.init`` write the text, validates that text,
and writes the file only where none exists (never overwriting, even in a race: the file is
created exclusively).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gpupool import catalog, clouds, didyoumean
from gpupool.catalog import GpuModel, InstanceType
from gpupool.clouds import Cloud
from gpupool.errors import InputError
from gpupool.resources import schema_path
from gpupool.spec.validate import validate_text
from gpupool.views import init as view

#: The GPU a starter gets when none is named, where the cloud's catalog has it.
DEFAULT_GPU = "L4"


@dataclass(frozen=True)
class StarterPool:
    """One pool of a starter stack: its GPU, and the instance type carrying it."""

    gpu: GpuModel
    instance: InstanceType | None  # None where pools declare their GPUs
    name: str


@dataclass(frozen=True)
class Starter:
    """What a starter stack holds: one pool per GPU asked for, in the order asked."""

    cloud: Cloud
    name: str  # metadata.name
    schema: str  # the schema line's path, relative to the stack file
    pools: tuple[StarterPool, ...]

    @property
    def gpu(self) -> GpuModel:
        """The first pool's GPU."""
        return self.pools[0].gpu

    @property
    def instance(self) -> InstanceType | None:
        """The first pool's instance type."""
        return self.pools[0].instance

    @property
    def pool(self) -> str:
        """The first pool's name."""
        return self.pools[0].name


def _stack_name(path: Path) -> str:
    """Return a stack name (a DNS label) made from the file name."""
    name = re.sub(r"[^a-z0-9-]+", "-", path.stem.lower()).strip("-")[:40].strip("-")
    return name or "my-stack"


def _gpu(name: str | None, cloud: Cloud) -> GpuModel:
    offered = (
        {i.gpu for i in catalog.instances(cloud.name)} if cloud.has_instance_catalog else set()
    )
    if name is None:
        name = DEFAULT_GPU if not offered or DEFAULT_GPU in offered else None
        if name is None:  # the GPU of the cheapest instance type the cloud's catalog lists
            name = min(catalog.instances(cloud.name), key=_cost).gpu
    gpu = catalog.gpu(name)
    if gpu is None:
        hint = ", ".join(didyoumean.closest(name, catalog.gpu_names())) or "none close"
        raise InputError(
            f"gpupool init: unknown GPU {name!r} (closest: {hint}); "
            "`gpupool catalog gpus` lists them"
        )
    if offered and gpu.name not in offered:
        raise InputError(
            f"gpupool init: the catalog lists no {cloud.display} instance type with "
            f"{gpu.name} GPUs; it has {', '.join(sorted(offered))} "
            f"(`gpupool catalog instances --cloud {cloud.name}`)"
        )
    return gpu


def _cost(i: InstanceType) -> tuple[int, float, str]:
    price = i.price.on_demand_hourly if i.price is not None else None
    return (i.gpu_count, price if price is not None else float("inf"), i.name)


def starter(
    path: Path, cloud_name: str, gpu_names: str | Sequence[str] | None = None
) -> Starter:
    """Choose what the starter stack for ``path`` holds: a pool for each GPU named.

    Raises:
        InputError: the cloud or a GPU is unknown, a GPU is named twice, or the cloud's
            catalog has no instance type with a GPU.

    """
    cloud = clouds.find(cloud_name)
    if cloud is None:
        raise InputError(
            f"gpupool init: unknown cloud {cloud_name!r}; one of {', '.join(clouds.names())}"
        )
    names = [gpu_names] if isinstance(gpu_names, str) else list(gpu_names or [None])
    gpus = [_gpu(name, cloud) for name in names]
    seen: dict[str, str | None] = {}
    for name, gpu in zip(names, gpus, strict=True):
        if gpu.name in seen:
            raise InputError(
                f"gpupool init: --gpu {name} names {gpu.name} again (as --gpu {seen[gpu.name]}); "
                "give each GPU once, a pool is written for each"
            )
        seen[gpu.name] = name
    schema = os.path.relpath(schema_path(), path.absolute().parent)
    pools = tuple(_starter_pool(cloud, gpu) for gpu in gpus)
    return Starter(cloud, _stack_name(path), Path(schema).as_posix(), pools)


def _starter_pool(cloud: Cloud, gpu: GpuModel) -> StarterPool:
    instance = None
    if cloud.has_instance_catalog:
        # whole GPUs (not a fraction of one) with at least as much host memory as GPU memory
        # (the host-memory check's ratio for inference), then the fewest GPUs, the cheapest
        offered = catalog.instances(cloud.name, gpu.name)
        whole = [i for i in offered if i.gpu_fraction >= 1]
        roomy = [i for i in whole if i.memory_gib >= i.gpu_count * gpu.memory_gib]
        instance = min(roomy or whole or offered, key=_cost)
    pool = re.sub(r"[^a-z0-9-]+", "-", gpu.name.lower()).strip("-")[:30].strip("-") + "-pool"
    return StarterPool(gpu, instance, pool)


def init(
    path: Path, cloud_name: str, gpu_names: str | Sequence[str] | None = None
) -> Starter:
    """Write the starter stack to ``path``, which must not exist yet; return what it holds.

    Raises:
        InputError: ``path`` exists (it is never overwritten) or cannot be written, or
            ``starter`` refused the cloud or the GPU.

    """
    chosen = starter(path, cloud_name, gpu_names)
    text = view.stack_text(chosen)
    result = validate_text(text, str(path))
    if not result.valid:  # a bug in gpupool, not in the user's input: say what broke
        problems = "; ".join(f"{d.code}: {d.summary}" for d in result.diagnostics if d.is_error)
        raise InputError(f"gpupool init: the starter stack does not validate ({problems})")
    try:
        if path.is_symlink() or path.exists():
            raise InputError(f"{path}: already exists; gpupool init never overwrites a file")
        _folder_for(path)
        with open(path, "x", encoding="utf-8") as fh:
            fh.write(text)
    except FileExistsError:
        raise InputError(f"{path}: already exists; gpupool init never overwrites a file") from None
    except OSError as exc:  # a name too long, no permission, a read-only file system...
        raise InputError(f"{path}: cannot be written ({exc.strerror or exc})") from None
    return chosen


def _folder_for(path: Path) -> None:
    """Make ``path``'s folder, saying so when something on the way is a file, not a folder.

    Raises:
        InputError: an existing part of the folder's path is not a folder.
        OSError: the folder cannot be made.

    """
    for part in (path.parent, *path.parent.parents):
        if part.exists() or part.is_symlink():
            if not part.is_dir():
                raise InputError(f"{path}: cannot be written: {part} is a file, not a folder")
            break
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # made a file meanwhile: not that the stack file exists
        raise InputError(f"{path}: cannot be written: a part of {path.parent} is not a "
                         "folder") from None
