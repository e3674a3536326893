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

What HAMi's device plugin registers on a node is HAMi's too: ``REGISTER_ANNOTATION`` read by
``registered_devices``, and what a pool's nodes should carry there (``node_registration``: the
GPUs, their split and their memory after ``deviceMemoryScaling``), which drift compares
(``registration_findings``).

This is the builder half of the HAMi plug-in (``gpupool.schedulers.hami`` states its traits):
``build``, and where its scheduler runs and what high availability adds (``ha_placement``,
``ha_objects``: its PodDisruptionBudget, from the pieces of ``sharing.scheduler_ha``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from gpupool import facts, schedulers
from gpupool.graph import CloudResult, Resource
from gpupool.model import Stack
from gpupool.sharing import scheduler_ha
from gpupool.sharing.objects import chart, helm_release
from gpupool.sharing.pools import daemon_tolerations

SCHEDULER_NAME = str(schedulers.hami.SCHEDULER.pod_scheduler_name)
#: The labels HAMi 2.10.0's scheduler pods carry (``app.kubernetes.io/component`` and the
#: chart's selector labels, release ``hami``).
POD_LABELS = {
    "app.kubernetes.io/component": "hami-scheduler",
    "app.kubernetes.io/name": "hami",
    "app.kubernetes.io/instance": "hami",
}

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
    if schedulers.of(stack) is not schedulers.hami.SCHEDULER:
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
    return release + ha_objects(stack, cloud, release[0].address)


def ha_placement(stack: Stack) -> scheduler_ha.Placement:
    """Return where HAMi's scheduler runs (``sharing.scheduler_ha.placement``)."""
    ha = stack.cluster.scheduler_ha
    replicas = scheduler_ha.REPLICAS if ha else 1
    open_spots = tuple(p.name for p in facts.open_spot_pools(stack))
    ns = chart("hami").namespace
    deployment = f"{ns}/{scheduler_ha.HAMI_DEPLOYMENT}"
    return scheduler_ha.Placement(
        schedulers.hami.SCHEDULER.name, ha, replicas,
        (scheduler_ha.Deployment(ns, scheduler_ha.HAMI_DEPLOYMENT, replicas),), False, (),
        open_spots, scheduler_ha.HAMI_PRIORITY_CLASS, ((deployment, "gpupool"),) if ha else (),
    )


def ha_objects(stack: Stack, cloud: CloudResult, release: str) -> list[Resource]:
    """Return the scheduler's PodDisruptionBudget under high availability (the chart has none)."""
    if not stack.cluster.scheduler_ha:
        return []
    ns = chart("hami").namespace
    return [scheduler_ha.pdb(stack, cloud, ns, scheduler_ha.HAMI_DEPLOYMENT, dict(POD_LABELS),
                             release)]


#: HAMi's node annotation: the devices HAMi's device plugin registered. HAMi v2.x writes a JSON
#: list (``pkg/device/devices.go`` ``MarshalNodeDevices``: ``id``, ``count``, ``devmem`` MiB,
#: ``devcore``, ``type``, ``numa``, ``health``, ``mode``); HAMi before 2.4 wrote
#: ``id,count,devmem,devcore,type,numa,health[,index,mode]:`` per device (``EncodeNodeDevices``;
#: HAMi website, "Protocol design").
REGISTER_ANNOTATION = "hami.io/node-nvidia-register"

#: One finding of a node against its registration: (declared, observed, summary).
Finding = tuple[object, object, str]


@dataclass(frozen=True)
class NodeRegistration:
    """What HAMi's device plugin should register on each node of a pool.

    Attributes:
        split: vGPUs per GPU (``deviceSplitCount`` or the node's override), or None.
        memory_mib: the memory registered per GPU (after ``deviceMemoryScaling``), or None.

    """

    split: int | None
    memory_mib: float | None


def node_registration(pf: facts.PoolFacts) -> NodeRegistration:
    """Return what HAMi should register on the nodes of the pool ``pf`` describes."""
    memory = None
    if pf.gpu_memory_gib is not None:
        memory = pf.gpu_memory_gib * 1024 * (pf.hami_memory_scaling or 1.0)
    return NodeRegistration(split=pf.hami_split, memory_mib=memory)


def registered_devices(annotation: str) -> list[dict[str, object]] | None:
    """Parse HAMi's ``hami.io/node-nvidia-register`` annotation; None when unreadable.

    Returns one dict per device with ``type`` (str), ``count`` and ``devmem`` (int, MiB).
    """
    text = annotation.strip()
    return _json_devices(text) if text.startswith("[") else _legacy_devices(text)


def _json_devices(text: str) -> list[dict[str, object]] | None:
    """HAMi v2.x: a JSON list of device objects."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, list):
        return None
    out = []
    for d in data:
        if not isinstance(d, Mapping):
            return None
        try:
            out.append(
                {"type": str(d["type"]), "count": int(d["count"]), "devmem": int(d["devmem"])}
            )
        except (KeyError, TypeError, ValueError):
            return None
    return out


def _legacy_devices(text: str) -> list[dict[str, object]] | None:
    """HAMi before 2.4: ``id,count,devmem,devcore,type,...:`` per device."""
    devices = []
    for part in text.split(":"):
        if "," not in part:
            continue
        items = part.split(",")
        if len(items) < 5:
            return None
        try:
            devices.append({"type": items[4], "count": int(items[1]), "devmem": int(items[2])})
        except ValueError:
            return None
    return devices


def registration_findings(
    want: NodeRegistration,
    annotations: Mapping[str, str],
    *,
    gpus: int,
    product: str | None,
    declared: Callable[[str], bool] | None,
    tolerance: float,
) -> list[Finding]:
    """Compare a node's registration with ``want``: each finding (declared, observed, summary).

    Args:
        want: what HAMi should register.
        annotations: the node's annotations.
        gpus: physical GPUs per node (0: not checked).
        product: the declared GPU's name, for messages.
        declared: whether a registered type names the declared GPU; None: not checked.
        tolerance: how far (a share of it) registered memory may be from ``want``'s.

    """
    raw = annotations.get(REGISTER_ANNOTATION)
    if raw is None:
        return [(
            REGISTER_ANNOTATION,
            None,
            f"HAMi has registered no GPUs on this node "
            f"(no {REGISTER_ANNOTATION} annotation: is HAMi's device plugin running?)",
        )]
    devices = registered_devices(raw)
    if devices is None:
        return [(REGISTER_ANNOTATION, raw, f"{REGISTER_ANNOTATION} cannot be read")]
    out: list[Finding] = []
    if gpus and len(devices) != gpus:
        out.append(
            (gpus, len(devices), f"HAMi registered {len(devices)} GPU(s), pool declares {gpus}")
        )
    types = sorted({str(d["type"]) for d in devices})
    wrong = [t for t in types if declared is not None and not declared(t)]
    if wrong:
        shown = ", ".join(wrong)
        out.append((product, shown, f"HAMi registered {shown}, pool declares {product}"))
    splits = sorted({int(str(d["count"])) for d in devices})
    if want.split is not None and splits != [want.split]:
        shown = ", ".join(map(str, splits))
        out.append(
            (want.split, shown, f"HAMi splits each GPU into {shown} vGPUs, expected {want.split}")
        )
    if not wrong and want.memory_mib:
        out.extend(_memory_findings(want.memory_mib, devices, tolerance))
    return out


def _memory_findings(
    want_mib: float, devices: list[dict[str, object]], tolerance: float
) -> list[Finding]:
    return [
        (
            f"{want_mib:.0f} MiB",
            f"{mem} MiB",
            "GPU memory HAMi registered differs from the declared GPU's",
        )
        for mem in sorted({int(str(d["devmem"])) for d in devices})
        if abs(mem - want_mib) > want_mib * tolerance
    ]
