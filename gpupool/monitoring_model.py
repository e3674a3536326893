"""What a stack says about watching its GPUs: monitoring, alerts, dashboard, fault isolation.

This module owns the frozen values of ``cluster.monitoring`` (the DCGM exporter, the GPU alert
set's thresholds and durations, the Grafana dashboard, the Prometheus Operator the cluster runs)
and of ``cluster.faultIsolation.nvsentinel``, with every default applied, and the builders that
read them from schema-valid data (``monitoring``, which reads ``alerts``, ``dashboard`` and
``prometheus``, and ``nvsentinel``). ``gpupool.model`` keeps them in ``Stack.cluster``. It imports
nothing of gpupool: the model sits above it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Prometheus:
    """The Prometheus Operator the stack says the cluster runs (``cluster.monitoring.prometheus``).

    gpupool installs none of it; these are statements about the cluster that shape what is
    rendered (labels, the DCGM ServiceMonitor) and which warnings validate gives.
    """

    labels: Mapping[str, str] | None  # None: not given (validate warns); {}: selects everything
    service_monitor: bool
    kube_state_metrics_pool_label: bool
    url: str | None = None  # the Prometheus HTTP API KEDA's triggers query (services)


@dataclass(frozen=True)
class Alerts:
    """Thresholds and durations of the GPU alert set (``cluster.monitoring.alerts``)."""

    gpu_memory_percent: int = 90
    gpu_memory_minutes: int = 5
    memory_full_within_minutes: int = 15
    throttle_percent: int = 10
    throttle_minutes: int = 10
    exporter_down_minutes: int = 10
    idle_hours: int = 4
    pod_pending_minutes: int = 15


@dataclass(frozen=True)
class Dashboard:
    """The Grafana dashboard rendered with the alert set (``cluster.monitoring.dashboard``)."""

    enabled: bool = True
    # kube-prometheus-stack's Grafana sidecar loads ConfigMaps labelled grafana_dashboard: "1"
    labels: Mapping[str, str] = field(default_factory=lambda: {"grafana_dashboard": "1"})


@dataclass(frozen=True)
class Monitoring:
    """DCGM exporter, alerts, and the Prometheus Operator the cluster runs, if the stack says so."""

    dcgm_exporter: bool
    alerts: Alerts | None  # None: no alert set rendered
    prometheus: Prometheus | None  # None: the stack does not say the Prometheus Operator runs
    dashboard: Dashboard = field(default_factory=Dashboard)

    @property
    def gpu_memory_alert_percent(self) -> int | None:
        """The GPU memory threshold, or None without alerts."""
        return None if self.alerts is None else self.alerts.gpu_memory_percent


@dataclass(frozen=True)
class NVSentinel:
    """NVIDIA NVSentinel, GPU node fault detection (``cluster.faultIsolation.nvsentinel``)."""

    action: str = "monitor"  # monitor | cordon | drain
    dry_run: bool = False


_ALERT_KEYS = {
    "gpuMemoryPercent": "gpu_memory_percent",
    "gpuMemoryMinutes": "gpu_memory_minutes",
    "gpuMemoryFullWithinMinutes": "memory_full_within_minutes",
    "throttlePercent": "throttle_percent",
    "throttleMinutes": "throttle_minutes",
    "exporterDownMinutes": "exporter_down_minutes",
    "idleHours": "idle_hours",
    "podPendingMinutes": "pod_pending_minutes",
}


def alerts(raw: Mapping[str, Any] | None) -> Alerts | None:
    """Build ``cluster.monitoring.alerts``; None when the block is absent."""
    if raw is None:
        return None
    return Alerts(**{field: raw[key] for key, field in _ALERT_KEYS.items() if key in raw})


def dashboard(raw: Mapping[str, Any]) -> Dashboard:
    """Build ``cluster.monitoring.dashboard`` (defaults when absent)."""
    default = Dashboard()
    return Dashboard(
        enabled=bool(raw.get("enabled", True)),
        labels=dict(raw.get("labels", default.labels)),
    )


def prometheus(raw: Mapping[str, Any] | None) -> Prometheus | None:
    """Build ``cluster.monitoring.prometheus``; None when the block is absent."""
    if raw is None:
        return None
    labels = raw.get("labels")
    return Prometheus(
        labels=None if labels is None else dict(labels),
        service_monitor=bool(raw.get("serviceMonitor", True)),
        kube_state_metrics_pool_label=bool(raw.get("kubeStateMetricsPoolLabel", False)),
        url=raw.get("url"),
    )


def nvsentinel(raw: Mapping[str, Any] | None) -> NVSentinel | None:
    """Build ``cluster.faultIsolation.nvsentinel``; None when the block is absent."""
    if raw is None:
        return None
    return NVSentinel(action=raw.get("action", "monitor"), dry_run=bool(raw.get("dryRun", False)))


def monitoring(raw: Mapping[str, Any]) -> Monitoring:
    """Build ``cluster.monitoring`` (its defaults when the block is absent)."""
    return Monitoring(
        dcgm_exporter=bool(raw.get("dcgmExporter", True)),
        alerts=alerts(raw.get("alerts")),
        prometheus=prometheus(raw.get("prometheus")),
        dashboard=dashboard(raw.get("dashboard", {})),
    )
