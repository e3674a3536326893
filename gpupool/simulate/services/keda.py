"""KEDA's scale loop for one ScaledObject, emulated as a clock-driven object with no cluster.

This module owns what KEDA's operator does to a Deployment at each poll, read from
kedacore/keda ``pkg/scaling/executor/scale_scaledobjects.go`` (``RequestScale``,
``scaleToZeroOrIdle``/``scaleToZero``, ``scaleFromZeroOrIdle``/``scaleFromZero``), the decision
chart in KEDA's docs (``docs/scaling-flow`` in kedacore/keda; no ``idleReplicaCount`` and no
``fallback`` here, as gpupool renders neither) and the defaults of v2.20 (commit 8b4f083:
``apis/keda/v1alpha1/withtriggers_types.go`` 30 s polling, ``pkg/scaling/executor/
scale_executor.go`` 300 s cooldown, ``pkg/scalers/prometheus_scaler.go`` activation above 0):

* it polls every ``pollingInterval`` (30 s); the ScaledObject is *active* when some trigger's
  value is above its activation threshold (KEDA's Prometheus scaler: ``activationThreshold``,
  0 when unset, as gpupool renders it);
* at 0 replicas and active: scale to ``max(minReplicaCount, 1)`` and note the time as the last
  active one;
* above 0, inactive, ``minReplicaCount`` 0: scale to 0 once the last active time is more than
  ``cooldownPeriod`` ago (or was never set); else wait;
* inactive below ``minReplicaCount``: scale to it;
* active above 0: note the time (the HPA does the rest);
* between 1 and max the HPA KEDA owns scales (``gpupool.simulate.services.hpa``), with
  ``minReplicas`` ``max(minReplicaCount, 1)`` and ``maxReplicas`` ``maxReplicaCount``.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpupool.service_model import POLLING_SECONDS

ACTIVATION_THRESHOLD = 0.0


@dataclass(frozen=True)
class Poll:
    """What one poll decided: the replicas to set (None: leave them), and why."""

    replicas: int | None
    reason: str


@dataclass
class Keda:
    """One ScaledObject's operator state: when a trigger was last active.

    ``poll`` is one pass of ``RequestScale`` at ``now`` (seconds) over the Deployment's current
    replica count (``spec.replicas``) and each trigger's value.
    """

    min_replicas: int
    max_replicas: int
    cooldown_seconds: float
    polling_seconds: float = float(POLLING_SECONDS)
    last_active: float | None = None

    @property
    def hpa_min(self) -> int:
        """The ``minReplicas`` of the HPA KEDA writes (``max(minReplicaCount, 1)``)."""
        return max(self.min_replicas, 1)

    def poll(self, now: float, current: int, values: list[float],
             thresholds: list[float] | None = None) -> Poll:
        """Return the operator's decision at ``now`` for trigger ``values``."""
        limits = thresholds if thresholds is not None else [ACTIVATION_THRESHOLD] * len(values)
        active = any(v > a for v, a in zip(values, limits, strict=True))
        if current == 0 and active:
            self.last_active = now
            return Poll(self.hpa_min, "ScaledFromZero")
        if not active and current > 0 and self.min_replicas == 0:
            if self.last_active is None or self.last_active + self.cooldown_seconds < now:
                return Poll(0, "ScaledToZero")
            return Poll(None, "CoolingDown")
        if not active and current < self.min_replicas:
            return Poll(self.min_replicas, "ToMinReplicaCount")
        if active:
            self.last_active = now
            return Poll(None, "Active")
        return Poll(None, "NoChange")
