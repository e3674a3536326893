"""One job of a workload: the type every workload reader produces and the simulator consumes."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Job:
    """One row of a workload file: ``pods`` identical pods submitted together (a gang).

    Exactly one GPU request shape is set: ``gpus`` > 0 (whole GPUs per pod), ``fraction`` (a
    share of one GPU), ``mig`` (a MIG profile such as ``1g.10gb``), or none of them for a pod
    that asks for CPU and memory only. ``gpu_memory_gib`` is a memory request on the GPU (HAMi's
    ``gpumem``, KAI's ``gpu-memory``) beside or instead of ``fraction``.
    """

    name: str
    line: int  # 1-based line of the row in its file, for file:line diagnostics
    submit: float  # seconds from the workload's start
    duration: float  # seconds the pod runs once started
    tenant: str | None = None  # a stack tenant's name; None: no tenant (default namespace)
    gpus: int = 0
    fraction: float | None = None
    mig: str | None = None
    gpu_memory_gib: float | None = None
    cpu: float = 0.0  # cores per pod
    memory_gib: float = 0.0  # host memory per pod
    priority: str | None = None  # one of the stack's priority names
    pool: str | None = None  # pinned to this pool
    pods: int = 1  # gang size: all pods start together or none does
    gpu_models: tuple[str, ...] = ()  # GPU models the pod accepts (openb's gpu_spec); () any
    # the row's own checkpoint (seconds), over its tenant's or pool's ``checkpoint``; None: theirs
    checkpoint_every: float | None = None
    checkpoint_write: float | None = None
    checkpoint_restore: float | None = None


@dataclass(frozen=True, slots=True)
class Workload:
    """The jobs of one workload file, sorted by submit time (stable: file order breaks ties)."""

    source: str  # the file's path as the user gave it
    jobs: tuple[Job, ...]
