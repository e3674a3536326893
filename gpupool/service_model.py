"""The inference services of a stack (``services:``), as frozen values with every default applied.

This module owns what a service is after validation: the Deployment it scales, what one replica
asks for, its replica range, the triggers KEDA scales it on and the HPA behaviour it gets.
``build`` reads schema-valid data; ``gpupool.model`` keeps the result in ``Stack.services``.
The defaults are the upstream ones, so a service that says nothing behaves as KEDA and the HPA
would:

* scale-up: no stabilisation window, at most 4 Pods or 100% per 15 s, the larger; scale-down: a
  300 s window, at most 100% per 15 s (kubernetes ``pkg/apis/autoscaling/v2/defaults.go``,
  ``GenerateHPAScaleUpRules``/``GenerateHPAScaleDownRules``; the 300 s is the controller's
  ``--horizontal-pod-autoscaler-downscale-stabilization`` default);
* ``cooldownSeconds`` 300 and a 30 s polling interval (kedacore/keda
  ``pkg/scaling/executor/scale_executor.go`` ``defaultCooldownPeriod``,
  ``apis/keda/v1alpha1/withtriggers_types.go`` ``defaultPollingInterval``).

It imports nothing of gpupool: the model sits above it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

JsonPath = tuple[str | int, ...]

#: The triggers a service may scale on (``scaleOn[].metric``).
REQUESTS_PER_SECOND = "requests-per-second"
QUEUE_TIME_RATIO = "queue-time-ratio"
PENDING_REQUESTS = "pending-requests"
GPU_UTILIZATION = "gpu-utilization"
GPU_MEMORY = "gpu-memory"
METRICS = (REQUESTS_PER_SECOND, QUEUE_TIME_RATIO, PENDING_REQUESTS, GPU_UTILIZATION, GPU_MEMORY)
#: Metrics read from the GPU (DCGM): zero when no replica runs, the same for every pod of a GPU.
GPU_METRICS = (GPU_UTILIZATION, GPU_MEMORY)
#: Metrics whose PromQL the stack file gives.
QUERY_METRICS = (REQUESTS_PER_SECOND, PENDING_REQUESTS)

#: The request's GPU shapes, as the stack file (and the workload file) names them.
SHAPES = ("gpus", "fraction", "mig")
SHAPE_MIG = SHAPES[2]

DEFAULT_COOLDOWN_SECONDS = 300
DEFAULT_STARTUP_SECONDS = 120
POLLING_SECONDS = 30


@dataclass(frozen=True)
class Policy:
    """One HPA scaling policy: at most ``value`` Pods (or percent) per ``period_seconds``."""

    type: str  # Pods | Percent
    value: int
    period_seconds: int


@dataclass(frozen=True)
class Behavior:
    """How fast the HPA may scale one way."""

    stabilization_seconds: int
    policies: tuple[Policy, ...]


SCALE_UP_DEFAULT = Behavior(0, (Policy("Pods", 4, 15), Policy("Percent", 100, 15)))
SCALE_DOWN_DEFAULT = Behavior(300, (Policy("Percent", 100, 15),))


@dataclass(frozen=True)
class Trigger:
    """One ``scaleOn`` entry: a metric, its target per replica, and the user's PromQL if any."""

    metric: str
    target: float
    query: str | None
    path: JsonPath

    @property
    def reads_gpu(self) -> bool:
        """True for the DCGM metrics (utilisation, memory)."""
        return self.metric in GPU_METRICS


@dataclass(frozen=True)
class Request:
    """What one replica asks for, in the workload file's terms (docs/workload.md)."""

    gpus: int | None
    fraction: float | None
    mig: str | None
    gpu_memory_gib: float | None
    cpu: float | None
    memory_gib: float | None

    @property
    def shapes(self) -> tuple[str, ...]:
        """The GPU shapes given: any of ``gpus``, ``fraction``, ``mig`` (one, when valid)."""
        given = zip(SHAPES, (self.gpus, self.fraction, self.mig), strict=True)
        return tuple(name for name, value in given if value is not None)


@dataclass(frozen=True)
class Slo:
    """The objective a service states (reported, never enforced)."""

    queue_seconds: float | None
    p95_latency_seconds: float | None


@dataclass(frozen=True)
class Service:
    """One inference service (``services[]``)."""

    name: str
    path: JsonPath
    tenant: str
    pool: str
    deployment: str
    request: Request
    priority: str | None  # None: the tenant's
    replicas_min: int
    replicas_max: int
    triggers: tuple[Trigger, ...]
    scale_up: Behavior
    scale_down: Behavior
    cooldown_seconds: int
    startup_seconds: int
    capacity_per_replica: float | None
    slo: Slo | None

    @property
    def scales_to_zero(self) -> bool:
        """True when KEDA may take the service to zero replicas."""
        return self.replicas_min == 0


@dataclass(frozen=True)
class Autoscaling:
    """What the stack says of the cluster's autoscalers (``cluster.autoscaling``)."""

    keda_install: bool = True


def _behavior(raw: Mapping[str, Any] | None, default: Behavior) -> Behavior:
    if raw is None:
        return default
    policies = raw.get("policies")
    return Behavior(
        stabilization_seconds=int(raw.get("stabilizationSeconds", default.stabilization_seconds)),
        policies=default.policies if policies is None else tuple(
            Policy(p["type"], int(p["value"]), int(p["periodSeconds"])) for p in policies
        ),
    )


def _service(raw: Mapping[str, Any], index: int) -> Service:
    path: JsonPath = ("services", index)
    slo = raw.get("slo")
    return Service(
        name=raw["name"],
        path=path,
        tenant=raw["tenant"],
        pool=raw["pool"],
        deployment=raw.get("deployment", raw["name"]),
        request=Request(
            gpus=raw.get("gpus"),
            fraction=raw.get("fraction"),
            mig=raw.get(SHAPE_MIG),
            gpu_memory_gib=raw.get("gpuMemoryGiB"),
            cpu=raw.get("cpu"),
            memory_gib=raw.get("memoryGiB"),
        ),
        priority=raw.get("priority"),
        replicas_min=int(raw["replicas"]["min"]),
        replicas_max=int(raw["replicas"]["max"]),
        triggers=tuple(
            Trigger(t["metric"], float(t["target"]), t.get("query"), (*path, "scaleOn", i))
            for i, t in enumerate(raw["scaleOn"])
        ),
        scale_up=_behavior(raw.get("scaleUp"), SCALE_UP_DEFAULT),
        scale_down=_behavior(raw.get("scaleDown"), SCALE_DOWN_DEFAULT),
        cooldown_seconds=int(raw.get("cooldownSeconds", DEFAULT_COOLDOWN_SECONDS)),
        startup_seconds=int(raw.get("startupSeconds", DEFAULT_STARTUP_SECONDS)),
        capacity_per_replica=raw.get("capacityPerReplica"),
        slo=None if slo is None else Slo(slo.get("queueSeconds"), slo.get("p95LatencySeconds")),
    )


def build(raw: Sequence[Mapping[str, Any]]) -> tuple[Service, ...]:
    """Build every service of schema-valid ``services:`` data, in file order."""
    return tuple(_service(s, i) for i, s in enumerate(raw))


def autoscaling(raw: Mapping[str, Any]) -> Autoscaling:
    """Build ``cluster.autoscaling`` (defaults when absent)."""
    return Autoscaling(keda_install=bool(raw.get("keda", {}).get("install", True)))
