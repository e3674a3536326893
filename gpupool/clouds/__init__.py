"""Clouds as plug-ins: one module per cloud states what is true of that cloud.

Each module (``aws``, ``gcp``, ``azure``, ``volcengine``, ``kubernetes``) defines ``CLOUD``, a
``Cloud`` (see ``gpupool.clouds.base``). Validation, the sharing configuration, render, plan
and drift ask these facts instead of comparing cloud names; the node-pool builders of each cloud
are its module in ``gpupool.providers``. Adding a cloud adds a module here, one in
``gpupool.providers``, its catalog data and its schema entry.

This package imports nothing else of gpupool; it sits below the model.
"""

from __future__ import annotations

from gpupool.clouds import aws, azure, gcp, kubernetes, volcengine
from gpupool.clouds.base import DRIVER_OPERATOR, DRIVER_PREINSTALLED, Cloud, NodeSharing, Sdk
from gpupool.clouds.kubernetes import KUBERNETES_SDK

__all__ = [
    "DRIVER_OPERATOR",
    "DRIVER_PREINSTALLED",
    "KUBERNETES_SDK",
    "Cloud",
    "NodeSharing",
    "Sdk",
    "all_clouds",
    "find",
    "get",
    "names",
    "sdks",
]

_CLOUDS: dict[str, Cloud] = {
    m.CLOUD.name: m.CLOUD for m in (aws, gcp, azure, volcengine, kubernetes)
}


def all_clouds() -> tuple[Cloud, ...]:
    """Return every cloud gpupool renders for."""
    return tuple(_CLOUDS.values())


def names(*, provisioning: bool = False) -> tuple[str, ...]:
    """Return every cloud's name (only those that provision machines, if asked)."""
    return tuple(c.name for c in _CLOUDS.values() if c.provisions or not provisioning)


def find(name: str) -> Cloud | None:
    """Return the cloud called ``name``, or None (e.g. a name from an older record)."""
    return _CLOUDS.get(name)


def get(name: str) -> Cloud:
    """Return the cloud called ``name``.

    Raises:
        KeyError: no such cloud (schema validation rules this out for stack files).

    """
    return _CLOUDS[name]


def sdks() -> tuple[Sdk, ...]:
    """Return every provider SDK a rendered program may import, Kubernetes' included."""
    own = [s for c in _CLOUDS.values() for s in (c.sdk, *c.extra_sdks) if s is not None]
    return (*own, KUBERNETES_SDK)
