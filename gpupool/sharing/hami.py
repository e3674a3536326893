"""HAMi: the Helm release that enforces fractional slots with memory and core limits.

This module owns ``helm.hami``. HAMi's device plugin replaces NVIDIA's (both register
``nvidia.com/gpu``), so ``operator.py`` turns the NVIDIA plugin off whenever this is rendered.

Per-pool settings: HAMi's ``deviceSplitCount`` (vGPUs per GPU) and ``deviceMemoryScaling``
(memory overcommit) are chart-wide, with per-node overrides in
``devicePlugin.nodeConfiguration.config`` keyed by node *name*. Node names are known only for
``cloud: kubernetes`` pools (``nodeNames``), so:

* the chart-wide values come from the pools whose node names are unknown (the largest slot count;
  their memory overcommit, which the rendering checks require to agree), or from all pools when
  every name is known;
* every named node whose pool differs from the chart-wide values gets an override.

Per-slot memory and cores are not chart values (HAMi's ``defaultMemory``/``defaultCores`` are
scheduler-wide); pods state them (``nvidia.com/gpumem``/``gpumem-percentage``/``gpucores``), as
the workload snippets show. A slot without them would get ``gpucores: 100`` injected and own the
whole GPU. ``devices.nvidia.gpuCorePolicy`` is ``force`` when a pool's policy is ``strict``: under
``default`` a container alone on a GPU may run past its ``gpucores`` cap.
"""

from __future__ import annotations

import json
from typing import Any

from gpupool.graph import Resource
from gpupool.model import Pool, Stack
from gpupool.providers import CloudResult
from gpupool.sharing.objects import chart, helm_release
from gpupool.sharing.pools import daemon_tolerations

SCHEDULER_NAME = "hami-scheduler"

_GPU_TOLERATION = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]


def split_count(pool: Pool) -> int:
    """Return the vGPUs one GPU of ``pool`` offers under HAMi (1 for exclusive pools)."""
    return pool.sharing.slots_per_gpu if pool.sharing.mode == "fractional" else 1


def memory_scaling(pool: Pool) -> float:
    """Return the memory overcommit of ``pool`` under HAMi (1.0 unless fractional says more)."""
    f = pool.sharing.fractional
    return f.memory_overcommit if pool.sharing.mode == "fractional" and f else 1.0


def chart_wide(stack: Stack) -> tuple[int, float]:
    """Return the chart-wide ``(deviceSplitCount, deviceMemoryScaling)``."""
    unnamed = [p for p in stack.pools if not p.node_names and p.sharing.mode == "fractional"]
    basis = unnamed or [p for p in stack.pools if p.sharing.mode == "fractional"]
    split = max((split_count(p) for p in basis), default=1)
    scaling = max((memory_scaling(p) for p in unnamed), default=1.0)
    return split, scaling


def node_overrides(stack: Stack) -> list[dict[str, Any]]:
    """Return ``nodeconfig`` entries for named nodes whose pool differs from the chart-wide values.

    Every entry states all fields of HAMi's example, so no field falls back to zero.
    """
    split, scaling = chart_wide(stack)
    out = []
    for pool in stack.pools:
        if (split_count(pool), memory_scaling(pool)) == (split, scaling):
            continue
        for node in pool.node_names:
            out.append(
                {
                    "name": node,
                    "operatingmode": "hami-core",
                    "devicememoryscaling": memory_scaling(pool),
                    "devicesplitcount": split_count(pool),
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
    split, scaling = chart_wide(stack)
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
    out: dict[str, Any] = {"schedulerName": SCHEDULER_NAME, "devicePlugin": plugin}
    if any(p.policy == "strict" for p in stack.pools):
        out["devices"] = {"nvidia": {"gpuCorePolicy": "force"}}
    return out


def build(stack: Stack, cloud: CloudResult, after: tuple[str, ...]) -> list[Resource]:
    """Return ``helm.hami`` when the scheduler is HAMi.

    Args:
        stack: the validated stack.
        cloud: the cloud result.
        after: addresses the release must follow (the GPU Operator release).

    """
    if stack.cluster.scheduler != "hami":
        return []
    deps = list(after)
    for pool in stack.pools:
        deps.extend(cloud.node_pools.get(pool.name, ()))
    split, scaling = chart_wide(stack)
    return [
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
                        "split_count": split_count(p),
                        "memory_scaling": memory_scaling(p),
                    }
                    for p in stack.pools
                },
                "device_split_count": split,
                "device_memory_scaling": scaling,
            },
        )
    ]
