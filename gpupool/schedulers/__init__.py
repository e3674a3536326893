"""GPU schedulers as plug-ins: one module per scheduler states what it means for a stack.

Each module (``default``, ``kai``, ``hami``) defines ``SCHEDULER``, a ``Scheduler`` (see
``gpupool.schedulers.base``): its traits, which validation, the GPU facts, the sharing
configuration, render, the plan and drift ask instead of comparing ``cluster.scheduler`` with a
name, and its ``Emulation``, the rules ``gpupool simulate`` follows for it. A scheduler gpupool
installs has a builder half, ``gpupool.sharing.<name>`` (its Helm values, objects and
high-availability placement), as a cloud has ``gpupool.providers.<cloud>``. Adding a scheduler
adds a module here, its entry in ``_SCHEDULERS`` and (if installed) its builder; see
``docs/architecture.md``, "Adding a scheduler".

This package imports nothing else of gpupool; it sits below the model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpupool.schedulers import default as default_module
from gpupool.schedulers import hami, kai
from gpupool.schedulers.base import Emulation, Scheduler

if TYPE_CHECKING:
    from gpupool.model import Stack

__all__ = ["Emulation", "Scheduler", "all_schedulers", "default", "find", "get", "names", "of"]

_SCHEDULERS: dict[str, Scheduler] = {
    m.SCHEDULER.name: m.SCHEDULER for m in (default_module, kai, hami)
}


def all_schedulers() -> tuple[Scheduler, ...]:
    """Return every scheduler, the default first."""
    return tuple(_SCHEDULERS.values())


def names() -> tuple[str, ...]:
    """Return every scheduler's name."""
    return tuple(_SCHEDULERS)


def default() -> Scheduler:
    """Return the scheduler a stack has when its file names none (kube-scheduler)."""
    return default_module.SCHEDULER


def find(name: str) -> Scheduler | None:
    """Return the scheduler called ``name``, or None (e.g. a name from an older record)."""
    return _SCHEDULERS.get(name)


def get(name: str) -> Scheduler:
    """Return the scheduler called ``name``.

    Raises:
        KeyError: no such scheduler (schema validation rules this out for stack files).

    """
    return _SCHEDULERS[name]


def of(stack: Stack) -> Scheduler:
    """Return the plug-in of the stack's ``cluster.scheduler``."""
    return _SCHEDULERS[stack.cluster.scheduler]
