"""The GPU alert set's rules: each alert, the DCGM fields it reads, and its expression.

This module owns what ``sharing/alerts.py`` puts in the PrometheusRule's one group. The group
first records each DCGM metric it and the dashboard (``sharing/dashboard.py``) read, with a
``node`` label (``promql.record_rule``); then, per pool scope (``promql.scopes``), these alerts,
each with ``severity``, ``pool``, ``stack`` labels and ``summary``, ``description``, ``runbook``
annotations:

- GpupoolGpuMemoryHigh: framebuffer use above ``gpuMemoryPercent`` for ``gpuMemoryMinutes``
  (FB_USED, FB_FREE);
- GpupoolGpuMemoryFullSoon: the early warning, ``predict_linear`` over 10 minutes says the
  framebuffer is full within ``gpuMemoryFullWithinMinutes`` (FB_USED, FB_FREE);
- GpupoolGpuXidError: the last XID error is not 0 (XID_ERRORS);
- GpupoolGpuEccDoubleBit: a double-bit ECC error in the last 10 minutes (ECC_DBE_VOL_TOTAL*);
- GpupoolGpuRowRemapFailed: row remapping failed (ROW_REMAP_FAILURE);
- GpupoolGpuRowRemapPending: a row remap waits for a GPU reset (ROW_REMAP_PENDING*);
- GpupoolGpuThermalThrottling, GpupoolGpuPowerThrottling: throttled more than
  ``throttlePercent`` of the time for ``throttleMinutes`` (THERMAL_VIOLATION*,
  POWER_VIOLATION*);
- GpupoolDcgmExporterDown: a node advertising GPUs (kube-state-metrics) has had no DCGM series
  for ``exporterDownMinutes`` (GPU_TEMP);
- GpupoolGpuIdle: utilisation at 0% for ``idleHours`` (GPU_UTIL);

and once for the stack GpupoolGpuPodPending: a pod requesting GPUs Pending for
``podPendingMinutes`` (a pending pod has no node, so no pool). With KAI fractional pools
(``facts.kai_fractional_pools``) it also takes the pods that ask for part of a GPU by KAI's
``gpu-fraction`` or ``gpu-memory`` annotation, which request no GPU resource: kube-state-metrics'
``kube_pod_annotations`` shows them, given ``promql.KSM_ANNOTATIONS_ALLOWLIST``.

The fields marked * are outside the GPU Operator exporter's default metrics list
(``CUSTOM_METRICS``); ``sharing/alerts.py`` has the exporter read them, or says they are needed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpupool import facts
from gpupool.model import Stack
from gpupool.monitoring_model import Alerts
from gpupool.sharing import promql
from gpupool.sharing.promql import Scope

USED, FREE = "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE"
XID, UTIL, TEMP = "DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_GPU_TEMP"
DBE, REMAP_FAILED = "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "DCGM_FI_DEV_ROW_REMAP_FAILURE"
REMAP_PENDING = "DCGM_FI_DEV_ROW_REMAP_PENDING"
THERMAL, POWER = "DCGM_FI_DEV_THERMAL_VIOLATION", "DCGM_FI_DEV_POWER_VIOLATION"

# DCGM fields the alerts read that the GPU Operator's default metrics list leaves out
# (dcgm-exporter etc/dcp-metrics-included.csv keeps the first, third and fourth commented out and
# has no row for the second).
CUSTOM_METRICS = (DBE, REMAP_PENDING, THERMAL, POWER)

PREDICT_WINDOW_MINUTES = 10  # predict_linear's look-back
FULL_FOR_MINUTES = 2  # how long the prediction must hold before the early warning fires

_NODE = "{{ $labels.node }}"
_GPU = "GPU {{ $labels.gpu }} on node " + _NODE


@dataclass(frozen=True)
class AlertSpec:
    """One alert of a pool's set: how its expression, duration and texts follow from the stack."""

    name: str
    severity: str
    metrics: tuple[str, ...]  # the DCGM metrics it reads
    expr: Callable[[Stack, Scope, Alerts], str]
    minutes: Callable[[Alerts], int]
    summary: str  # "{pool}" and "{n}" (the threshold) are filled in
    description: str
    runbook: str
    threshold: Callable[[Alerts], int] = lambda a: 0


def _memory(stack: Stack, s: Scope, a: Alerts) -> str:
    used, free = s.dcgm(stack, USED), s.dcgm(stack, FREE)
    return f"100 * {used} / ({used} + {free}) > {a.gpu_memory_percent}{s.join}"


def horizon_minutes(a: Alerts) -> int:
    """How far ahead the early warning predicts: the lead asked for, plus its ``for`` and a step."""
    return a.memory_full_within_minutes + FULL_FOR_MINUTES + 1


def _full_soon(stack: Stack, s: Scope, a: Alerts) -> str:
    used, free = s.dcgm(stack, USED), s.dcgm(stack, FREE)
    window = f"{PREDICT_WINDOW_MINUTES}m"
    predicted = f"predict_linear({used}[{window}], {horizon_minutes(a) * 60})"
    return f"{predicted} >= {used} + {free}{s.join}"


def _above_zero(metric: str) -> Callable[[Stack, Scope, Alerts], str]:
    return lambda stack, s, a: f"{s.dcgm(stack, metric)} > 0{s.join}"


def _increased(metric: str) -> Callable[[Stack, Scope, Alerts], str]:
    return lambda stack, s, a: f"increase({s.dcgm(stack, metric)}[10m]) > 0{s.join}"


def _throttled(metric: str) -> Callable[[Stack, Scope, Alerts], str]:
    # The violation counters count nanoseconds throttled: a rate of 1e9 ns/s is 100% of the time.
    def expr(stack: Stack, s: Scope, a: Alerts) -> str:
        return f"rate({s.dcgm(stack, metric)}[5m]) / 1e7 > {a.throttle_percent}{s.join}"

    return expr


def _exporter_down(stack: Stack, s: Scope, a: Alerts) -> str:
    capacity = s.ksm("kube_node_status_capacity", promql.GPU_RESOURCES)
    series = f'{promql.recorded(TEMP)}{{{promql.STACK_LABEL}="{stack.name}"}}'
    return f"max by (node) ({capacity}) > 0 unless on (node) {series}{s.join}"


def _idle(stack: Stack, s: Scope, a: Alerts) -> str:
    return f"{s.dcgm(stack, UTIL)} == 0{s.join}"


POOL_ALERTS = (
    AlertSpec(
        "GpupoolGpuMemoryHigh",
        "warning",
        (USED, FREE),
        _memory,
        lambda a: a.gpu_memory_minutes,
        "GPU memory above {n}% on pool {pool}",
        _GPU + " uses {{ $value | humanize }}% of its framebuffer.",
        "Find the pod on the GPU (dcgm-exporter's exported_pod label); lower its batch or "
        "context size, or move it to a pool with more memory per GPU.",
        lambda a: a.gpu_memory_percent,
    ),
    AlertSpec(
        "GpupoolGpuMemoryFullSoon",
        "warning",
        (USED, FREE),
        _full_soon,
        lambda a: FULL_FOR_MINUTES,
        "GPU memory on pool {pool} predicted full within {n} minutes",
        _GPU + " is filling its framebuffer at a rate that fills it within {n} minutes "
        "(linear prediction over the last 10 minutes).",
        "Act before out-of-memory errors: stop admitting work to the GPU, or restart the "
        "leaking pod.",
        lambda a: a.memory_full_within_minutes,
    ),
    AlertSpec(
        "GpupoolGpuXidError",
        "critical",
        (XID,),
        _above_zero(XID),
        lambda a: 0,
        "XID error on a GPU of pool {pool}",
        _GPU + " reported XID {{ $value }} (the last XID error the driver logged).",
        "Look the XID up in NVIDIA's XID catalogue; 48, 63, 64, 74, 79, 94 and 95 mean a "
        "hardware or driver fault: cordon the node, drain it and reset or replace the GPU.",
    ),
    AlertSpec(
        "GpupoolGpuEccDoubleBit",
        "critical",
        (DBE,),
        _increased(DBE),
        lambda a: 0,
        "Double-bit ECC error on a GPU of pool {pool}",
        _GPU + " had {{ $value }} uncorrectable (double-bit) ECC errors in 10 minutes.",
        "The GPU corrupted memory: cordon and drain the node, then reset the GPU; replace it "
        "if errors recur.",
    ),
    AlertSpec(
        "GpupoolGpuRowRemapFailed",
        "critical",
        (REMAP_FAILED,),
        _above_zero(REMAP_FAILED),
        lambda a: 0,
        "Row remapping failed on a GPU of pool {pool}",
        _GPU + " could not remap a faulty memory row: it has no spare rows left.",
        "Cordon and drain the node and replace the GPU (NVIDIA's row-remapping guidance: RMA).",
    ),
    AlertSpec(
        "GpupoolGpuRowRemapPending",
        "warning",
        (REMAP_PENDING,),
        _above_zero(REMAP_PENDING),
        lambda a: 0,
        "Row remap pending on a GPU of pool {pool}",
        _GPU + " has a memory row remap that takes effect only after a GPU reset.",
        "Drain the node, then reset the GPU (nvidia-smi -r) or reboot the node.",
    ),
    AlertSpec(
        "GpupoolGpuThermalThrottling",
        "warning",
        (THERMAL,),
        _throttled(THERMAL),
        lambda a: a.throttle_minutes,
        "Thermal throttling on pool {pool}",
        _GPU + " was held back by its temperature {{ $value | humanize }}% of the time.",
        "Check the node's cooling and the GPU temperature on the dashboard.",
        lambda a: a.throttle_percent,
    ),
    AlertSpec(
        "GpupoolGpuPowerThrottling",
        "warning",
        (POWER,),
        _throttled(POWER),
        lambda a: a.throttle_minutes,
        "Power throttling on pool {pool}",
        _GPU + " was held back by its power limit {{ $value | humanize }}% of the time.",
        "Check the GPU's power limit (nvidia-smi -q -d POWER) and the node's power supply.",
        lambda a: a.throttle_percent,
    ),
    AlertSpec(
        "GpupoolDcgmExporterDown",
        "warning",
        (TEMP,),
        _exporter_down,
        lambda a: a.exporter_down_minutes,
        "No GPU metrics from a node of pool {pool}",
        "Node " + _NODE + " advertises GPUs but no DCGM exporter series arrive from it: the "
        "other GPU alerts are blind there.",
        "kubectl -n gpu-operator get pods -o wide | grep dcgm-exporter on that node; check its "
        "logs and that Prometheus scrapes it (its ServiceMonitor).",
    ),
    AlertSpec(
        "GpupoolGpuIdle",
        "warning",
        (UTIL,),
        _idle,
        lambda a: a.idle_hours * 60,
        "GPU idle for {n} hours on pool {pool}",
        _GPU + " has been at 0% utilisation for {n} hours: it costs money and does nothing.",
        "Scale the pool down (nodes.min), or find the pod holding the GPU idle and stop it.",
        lambda a: a.idle_hours,
    ),
)

POD_PENDING = "GpupoolGpuPodPending"


def _duration(minutes: int) -> str:
    return f"{minutes // 60}h" if minutes and minutes % 60 == 0 else f"{minutes}m"


def _rule(
    name: str, expr: str, minutes: int, labels: dict[str, str], texts: tuple[str, str, str]
) -> dict[str, Any]:
    rule: dict[str, Any] = {"alert": name, "expr": expr}
    if minutes:
        rule["for"] = _duration(minutes)
    rule["labels"] = labels
    rule["annotations"] = dict(zip(("summary", "description", "runbook"), texts, strict=True))
    return rule


def pool_rules(stack: Stack, scope: Scope, a: Alerts) -> list[dict[str, Any]]:
    """Return the alert rules of one scope (a pool, or the pools that share one scope)."""
    labels = {"pool": scope.label, "stack": stack.name}
    out = []
    for spec in POOL_ALERTS:
        n = str(spec.threshold(a))
        texts = tuple(
            t.replace("{pool}", scope.label).replace("{n}", n)
            for t in (spec.summary, spec.description, spec.runbook)
        )
        out.append(
            _rule(
                spec.name,
                spec.expr(stack, scope, a),
                spec.minutes(a),
                {"severity": spec.severity, **labels},
                (texts[0], texts[1], texts[2]),
            )
        )
    return out


def pending_rule(stack: Stack, a: Alerts) -> dict[str, Any]:
    """Return the stack's alert on pods that request GPUs and stay Pending."""
    return _rule(
        POD_PENDING,
        promql.pending_gpu_pods(fractional=bool(facts.kai_fractional_pools(stack))),
        a.pod_pending_minutes,
        {"severity": "warning", "stack": stack.name},
        (
            f"A pod requesting GPUs has been Pending for {a.pod_pending_minutes} minutes",
            "Pod {{ $labels.namespace }}/{{ $labels.pod }} requests GPUs and is still Pending: "
            "scale-up may be stuck.",
            "kubectl describe pod: check the scheduler's events, the pool's nodes.max, the "
            "cloud's GPU quota and spot capacity, and the autoscaler's logs.",
        ),
    )


def read_metrics() -> list[str]:
    """Return the DCGM metrics the rule records: those the alerts and the dashboard read."""
    return sorted(
        {m for spec in POOL_ALERTS for m in spec.metrics} | set(promql.DASHBOARD_METRICS)
    )
