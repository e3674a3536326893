"""The builder half of the stack's GPU scheduler plug-in: its module here, found by name.

A scheduler gpupool installs (``Scheduler.installs``, ``gpupool.schedulers``) has a module
``gpupool.sharing.<name>`` that builds its Helm release and objects (``build``) and says where its
pods run (``ha_placement``) and what high availability adds (``ha_objects``), as each cloud's
node pools are ``gpupool.providers.<cloud>``. This module finds it; nothing here names one.
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

from gpupool import schedulers
from gpupool.graph import CloudResult, Resource
from gpupool.model import Stack


def builder(stack: Stack) -> ModuleType | None:
    """Return the builder module of the stack's scheduler; None when gpupool installs none."""
    plugin = schedulers.of(stack)
    return import_module(f"gpupool.sharing.{plugin.name}") if plugin.installs else None


def build(stack: Stack, cloud: CloudResult, after: tuple[str, ...]) -> list[Resource]:
    """Return the scheduler's release and objects, after ``after`` (the GPU Operator release)."""
    module = builder(stack)
    return [] if module is None else list(module.build(stack, cloud, after))
