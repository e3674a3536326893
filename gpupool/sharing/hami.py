"""HAMi: the Helm release that enforces fractional slots with memory and core limits.

This module owns ``helm.hami``. HAMi's device plugin replaces NVIDIA's (both register
``nvidia.com/gpu``), so ``operator.py`` turns the NVIDIA plugin off whenever this is rendered.

Per-pool settings: HAMi's ``deviceSplitCount`` (vGPUs per GPU) and ``deviceMemoryScaling``
(memory overcommit) are chart-wide, with per-node overrides in
``devicePlugin.nodeConfiguration.config`` keyed by node *name*. Node names are known only for
pools of existing nodes (``nodeNames``). Which split applies on which pool's nodes is a GPU fact
(``gpupool.facts``: the chart-wide values come from the fractional pools whose node names are
unknown, and every pool without named nodes, an exclusive one included, gets them); every named
node whose pool differs from the chart-wide values gets an override here.

Per-slot memory and cores are not chart values (HAMi's ``defaultMemory``/``defaultCores`` are
scheduler-wide); pods state them (``nvidia.com/gpumem``/``gpumem-percentage``/``gpucores``), as
the workload snippets show. A slot without them would get ``gpucores: 100`` injected and own the
whole GPU. ``devices.nvidia.gpuCorePolicy`` is ``force`` when a pool's policy is ``strict``: under
``default`` a container alone on a GPU may run past its ``gpucores`` cap.

HAMi's own metrics (its scheduler's allocations, its device plugin's vGPU memory and core use):
when the stack says a Prometheus Operator runs and asks for ServiceMonitors
(``cluster.monitoring.prometheus``), ``prometheus.enabled`` makes the chart create one
ServiceMonitor for the scheduler and one for the device plugin's monitor, and
``global.labels`` puts the stack's Prometheus labels on them (HAMi v2.10.0
``charts/hami/templates/scheduler/servicemonitor.yaml`` and
``device-plugin/servicemonitor.yaml``; the chart adds ``global.labels`` to object metadata only,
never to selectors).
"""

from __future__ import annotations

import json
from typing import Any

from gpupool import facts
from gpupool.graph import CloudResult, Resource
from gpupool.model import Stack
from gpupool.sharing import scheduler_ha
from gpupool.sharing.objects import chart, helm_release
from gpupool.sharing.pools import daemon_tolerations

SCHEDULER_NAME = "hami-scheduler"

_GPU_TOLERATION = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]


def node_overrides(stack: Stack) -> list[dict[str, Any]]:
    """Return ``nodeconfig`` entries for named nodes whose pool differs from the chart-wide values.

    Every entry states all fields of HAMi's example, so no field falls back to zero.
    """
    known = facts.of(stack)
    out = []
    for pool in stack.pools:
        pf = known.pool(pool)
        split, scaling = pf.hami_split, pf.hami_memory_scaling
        if (split, scaling) == (known.hami_chart_split, known.hami_chart_memory_scaling):
            continue
        for node in pool.node_names:
            out.append(
                {
                    "name": node,
                    "operatingmode": "hami-core",
                    "devicememoryscaling": scaling,
                    "devicesplitcount": split,
                    "preconfigureddevicememory": 0,
                    "enablenumatopology": False,
                    "migstrategy": "none",
                    "filterdevices": {"uuid": [], "index": []},
                    "enablegetpreferredallocation": False,
                }
            )
    return out


def values(stack: Stack) -> dict[str, Any]:
    """Return the HAMi Helm values gpupool sets."""
    known = facts.of(stack)
    split, scaling = known.hami_chart_split or 1, known.hami_chart_memory_scaling or 1.0
    plugin: dict[str, Any] = {
        "deviceSplitCount": split,
        "deviceMemoryScaling": scaling,
        "tolerations": daemon_tolerations(stack, _GPU_TOLERATION),
    }
    overrides = node_overrides(stack)
    if overrides:
        plugin["nodeConfiguration"] = {
            "config": json.dumps({"nodeconfig": overrides}, indent=2) + "\n"
        }
    if stack.cluster.gpu_operator.install:
        # GPU Operator >= 25.10 turns CDI on and no longer makes ``nvidia`` containerd's default
        # runtime, so HAMi's device plugin (and HAMi's GPU pods) must name the RuntimeClass or
        # they get no NVML (HAMi 2.10.0 values ``devicePlugin.runtimeClassName``; gpu-operator
        # v25.10.1 ``transformToolkitCtrForCDI``; HAMi website PR #716, HAMi issue #1568).
        plugin["runtimeClassName"] = known.gpu_runtime_class
    out: dict[str, Any] = {"schedulerName": SCHEDULER_NAME, "devicePlugin": plugin}
    if any(p.policy == "strict" for p in stack.pools):
        out["devices"] = {"nvidia": {"gpuCorePolicy": "force"}}
    ha = scheduler_ha.hami_values(stack)
    if ha:
        # two leader-elected replicas (``sharing.scheduler_ha``)
        out["scheduler"] = ha["scheduler"]
    prom = stack.cluster.monitoring.prometheus
    if prom is not None and prom.service_monitor:
        out["prometheus"] = {"enabled": True}
        if prom.labels:
            out["global"] = {"labels": dict(prom.labels)}
    return out


def build(stack: Stack, cloud: CloudResult, after: tuple[str, ...]) -> list[Resource]:
    """Return ``helm.hami`` when the scheduler is HAMi.

    Args:
        stack: the validated stack.
        cloud: the cloud result.
        after: addresses the release must follow (the GPU Operator release).

    """
    if not facts.uses_scheduler(stack, facts.SCHEDULER_HAMI):
        return []
    deps = list(after)
    for pool in stack.pools:
        deps.extend(cloud.node_pools.get(pool.name, ()))
    known = facts.of(stack)
    release = [
        helm_release(
            chart("hami"),
            values(stack),
            provider=cloud.k8s_provider,
            depends_on=tuple(deps),
            create_namespace=False,
            facts={
                "pools": {
                    p.name: {
                        "pool": p.name,
                        "mode": p.sharing.mode,
                        "split_count": known.pool(p).hami_split,
                        "memory_scaling": known.pool(p).hami_memory_scaling,
                    }
                    for p in stack.pools
                },
                "device_split_count": known.hami_chart_split,
                "device_memory_scaling": known.hami_chart_memory_scaling,
            },
        )
    ]
    return release + scheduler_ha.build(stack, cloud, release[0].address)
