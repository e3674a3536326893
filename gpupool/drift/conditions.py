"""GPU health node conditions, cordons and fault-isolation taints on the nodes of a pool.

Owns the table of node condition types that GPU health agents set (:data:`KNOWN`: each type,
who sets it, which status is the fault, what it means) and turning a pool node's conditions,
cordon and taints into drift items; and :func:`fold`, which merges a ``gpupool node inspect``
fault into the condition item that reports the same fault on the same node.

Who sets what (each row of :data:`KNOWN` names its document):

* **AKS Node Problem Detector** (MicrosoftDocs/azure-aks-docs ``articles/aks/
  node-problem-detector.md``, ``gpu-health-monitoring.md``, ``aks-managed-gpu-nodes.md``;
  Azure/AgentBaker ``e2e/validators.go``, which asserts them on AKS GPU VMs): every condition is
  named after the problem and is ``True`` while the problem lasts (healthy:
  ``GPUMissing=False``, reason ``NoGPUMissing``).
* **NVSentinel** (NVIDIA/NVSentinel ``platform-connectors/pkg/connectors/kubernetes/
  process_node_events.go``): the platform connector names the condition after the health
  check (``checkName``), sets it ``True`` with reason ``<check>IsNotHealthy`` for a fatal
  event and ``False`` with reason ``<check>IsHealthy`` and message ``No Health Failures`` on
  recovery. The GPU health monitor's checks are ``Gpu<DCGM watch>Watch``
  (``DCGM_HEALTH_WATCH_PCIE`` -> ``GpuPcieWatch``: ``gpu_health_monitor/platform_connector/
  platform_connector.py``), ``GpuXidError`` and its DCGM connectivity checks; the syslog
  monitor's are ``SysLogsXIDError``, ``SysLogsSXIDError``, ``SysLogsGPUFallenOff``
  (``health-monitors/syslog-health-monitor/main.go``). A ``True`` condition whose reason is
  ``<type>IsNotHealthy`` is NVSentinel's even when its check is not in the table (NIC, CSP,
  preflight checks). Its fault-quarantine module cordons by default (labels
  ``<prefix>cordon-by=NVSentinel``, ``<prefix>cordon-reason``, prefix ``k8saas.nvidia.com/`` by
  default) and records the taints it applied, when a rule set configures one, in the node
  annotation ``quarantineHealthEventAppliedTaints`` (``fault-quarantine/pkg/common/common.go``,
  chart ``fault-quarantine/values.yaml``).

A condition in its fault state is a ``fault`` item (source ``cluster``, address
``pool.<pool>/node/<node>/condition/<type>``, observed: pool, node, condition, status, reason,
message, lastTransitionTime). A cordoned node and a taint NVSentinel applied are ``drift``
items at the node's address: the pool's nodes are meant to take its pods. Conditions other
agents set (the kubelet's ``MemoryPressure``, NPD's ``KernelDeadlock``) are not GPU health and
are left alone; so is a ``False`` or ``Unknown`` status.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from gpupool.cluster import NodeCondition, ObservedNode
from gpupool.drift.items import DriftItem

AKS_NPD = "AKS Node Problem Detector"
NVSENTINEL = "NVSentinel"

#: NVSentinel's reason for a failed check is the check's name with this suffix.
NVSENTINEL_UNHEALTHY_SUFFIX = "IsNotHealthy"
#: fault-quarantine's ``ServiceName``, written to ``<prefix>cordon-by``.
NVSENTINEL_SERVICE = "NVSentinel"
CORDON_BY_SUFFIX = "cordon-by"
CORDON_REASON_SUFFIX = "cordon-reason"
APPLIED_TAINTS_ANNOTATION = "quarantineHealthEventAppliedTaints"
IS_CORDONED_ANNOTATION = "quarantineHealthEventIsCordoned"

#: ``evidence_of`` fault names shared with ``gpupool.drift.node_reports`` (``gpupool node
#: inspect``'s fault kinds from ``gpupool.nodes.faults``, and its GPU count).
ECC = "ecc"
OVERHEAT = "overheat"
UNREACHABLE = "unreachable"
GPU_COUNT = "gpu-count"


@dataclass(frozen=True)
class HealthCondition:
    """One known GPU health condition type.

    Attributes:
        type: the condition's ``type``.
        source: who sets it (:data:`AKS_NPD`, :data:`NVSENTINEL`).
        bad: the ``status`` that means the fault is present.
        meaning: what the fault is, for the report.
        same_as: the ``gpupool node inspect`` finding that reports the same fault, if any.

    """

    type: str
    source: str
    bad: str
    meaning: str
    same_as: str | None = None


def _aks(type_: str, meaning: str, same_as: str | None = None) -> HealthCondition:
    return HealthCondition(type_, AKS_NPD, "True", meaning, same_as)


def _nvs(type_: str, meaning: str, same_as: str | None = None) -> HealthCondition:
    return HealthCondition(type_, NVSENTINEL, "True", meaning, same_as)


KNOWN: tuple[HealthCondition, ...] = (
    # AKS node-problem-detector.md "Node conditions" (GPU only rows) and gpu-health-monitoring.md
    _aks("GPUMissing", "nvidia-smi sees fewer GPUs than the VM size has", GPU_COUNT),
    _aks("XIDErrors", "XID errors in the kernel log"),
    _aks("GPUXIDErrors", "XID errors in the kernel log"),  # gpu-health-monitoring.md's name
    _aks("NVLinkStatusInactive", "NVLink is inactive"),
    _aks("IBLinkFlapping", "the InfiniBand link keeps dropping (link flapping)"),
    _aks(
        "GPUClockThrottling",
        "the GPU clocks are throttled by a hardware, thermal or power-brake slowdown",
    ),
    _aks(
        "UnhealthyNvidiaDevicePlugin",
        "the NVIDIA device plugin service is not active: the GPUs may not be advertised",
    ),
    # aks-managed-gpu-nodes.md "Verify the managed GPU node pool"; AgentBaker e2e/validators.go
    _aks("UnhealthyNvidiaDCGMServices", "the NVIDIA DCGM services are not active"),
    _aks("NVIDIAGRIDStatusInvalid", "the NVIDIA GRID (vGPU) driver licence is not valid"),
    # NVSentinel gpu-health-monitor: one check per DCGM health watch, plus its own checks
    _nvs("GpuMemWatch", "DCGM reports a GPU memory failure (ECC errors, faulty memory)", ECC),
    _nvs("GpuThermalWatch", "DCGM reports a thermal violation", OVERHEAT),
    _nvs(
        "GpuThermalMarginWatch",
        "the GPU runs closer to its slowdown temperature than its margin allows",
        OVERHEAT,
    ),
    _nvs("GpuPcieWatch", "DCGM reports PCIe link trouble (replays, bandwidth)"),
    _nvs("GpuNvlinkWatch", "DCGM reports NVLink errors or links down"),
    _nvs("GpuPowerWatch", "DCGM reports a power violation"),
    _nvs("GpuPowerBrakeWatch", "the hardware power brake is forcing the clocks down"),
    _nvs("GpuInforomWatch", "DCGM reports a corrupt InfoROM"),
    _nvs("GpuSmWatch", "DCGM reports streaming multiprocessor errors"),
    _nvs("GpuPmuWatch", "DCGM reports PMU errors"),
    _nvs("GpuMcuWatch", "DCGM reports microcontroller errors"),
    _nvs("GpuDriverWatch", "DCGM reports GPU driver errors"),
    _nvs("GpuCpusetWatch", "DCGM reports CPU affinity trouble"),
    _nvs("GpuNvswitchFatalWatch", "DCGM reports a fatal NVSwitch error"),
    _nvs("GpuNvswitchNonfatalWatch", "DCGM reports an NVSwitch error"),
    _nvs("GpuXidError", "the driver reported a fatal XID error"),
    _nvs("GpuDcgmConnectivityFailure", "NVSentinel cannot reach DCGM on the node"),
    _nvs("GpuDcgmUnresponsive", "DCGM stopped answering on the node (driver may be wedged)"),
    # NVSentinel syslog-health-monitor
    _nvs("SysLogsXIDError", "XID errors in the node's system log"),
    _nvs("SysLogsSXIDError", "NVSwitch SXID errors in the node's system log"),
    _nvs("SysLogsGPUFallenOff", "a GPU fell off the bus (system log)", UNREACHABLE),
)

_BY_TYPE = {c.type: c for c in KNOWN}


def health_condition(cond: NodeCondition) -> HealthCondition | None:
    """Return what ``cond`` is when it is a GPU health condition in its fault state, else None."""
    known = _BY_TYPE.get(cond.type)
    if known is not None:
        return known if cond.status == known.bad else None
    if cond.status == "True" and cond.reason == cond.type + NVSENTINEL_UNHEALTHY_SUFFIX:
        return _nvs(cond.type, f"NVSentinel check {cond.type} failed")
    return None


def node_items(pool: str, node: ObservedNode) -> list[DriftItem]:
    """Return the GPU health faults, the cordon and the fault-isolation taints of one node."""
    addr = f"pool.{pool}/node/{node.name}"
    out: list[DriftItem] = []
    for cond in node.conditions:
        known = health_condition(cond)
        if known is None:
            continue
        reason = f", reason {cond.reason}" if cond.reason else ""
        out.append(
            DriftItem(
                "cluster",
                f"{addr}/condition/{cond.type}",
                None,
                {
                    "pool": pool,
                    "node": node.name,
                    "condition": cond.type,
                    "status": cond.status,
                    "reason": cond.reason,
                    "message": cond.message,
                    "lastTransitionTime": cond.last_transition,
                },
                f"{known.source} condition {cond.type} is {cond.status}{reason}: {known.meaning}",
                kind="fault",
                evidence_of=(node.name, known.same_as) if known.same_as else None,
            )
        )
    if node.unschedulable:
        out.append(
            DriftItem(
                "cluster",
                addr,
                {"spec.unschedulable": False},
                {"spec.unschedulable": True},
                "node is cordoned (spec.unschedulable): no new pods land on its GPUs"
                + _cordoned_by(node),
            )
        )
    for key, value, effect in _applied_taints(node):
        shown = f"{key}={value}:{effect}" if value else f"{key}:{effect}"
        out.append(
            DriftItem(
                "cluster",
                addr,
                None,
                shown,
                f"NVSentinel fault-quarantine tainted the node {shown} "
                f"(listed in its {APPLIED_TAINTS_ANNOTATION} annotation)",
            )
        )
    return out


def _cordoned_by(node: ObservedNode) -> str:
    """Name NVSentinel when its fault-quarantine cordoned the node, with its rule set."""
    for key, value in sorted(node.labels.items()):
        if key.endswith(CORDON_BY_SUFFIX) and not key.endswith("un" + CORDON_BY_SUFFIX):
            if value != NVSENTINEL_SERVICE:
                continue
            prefix = key[: -len(CORDON_BY_SUFFIX)]
            rule = node.labels.get(prefix + CORDON_REASON_SUFFIX)
            return f" by NVSentinel (rule set {rule})" if rule else " by NVSentinel"
    if node.annotations.get(IS_CORDONED_ANNOTATION) == "True":
        return " by NVSentinel"
    return ""


def _applied_taints(node: ObservedNode) -> list[tuple[str, str, str]]:
    """Return the node's taints that NVSentinel's annotation says fault-quarantine applied."""
    raw = node.annotations.get(APPLIED_TAINTS_ANNOTATION)
    if not raw:
        return []
    try:
        listed = json.loads(raw)
    except ValueError:
        return []
    if not isinstance(listed, list):
        return []
    wanted = set()
    for t in listed:
        if isinstance(t, dict) and isinstance(t.get("Key"), str):
            wanted.add((t["Key"], str(t.get("Value") or ""), str(t.get("Effect") or "")))
    on_node = ((t.key, t.value, t.effect) for t in node.taints)
    return sorted(t for t in on_node if t in wanted)


def fold(items: Sequence[DriftItem]) -> list[DriftItem]:
    """Merge each node report that is evidence of a fault a condition item already reports.

    The cluster item stays (it carries the agent's reason, message and time) and its summary
    adds what ``gpupool node inspect`` saw; the node report's own item goes, so one fault on
    one node is one item.
    """
    by_key: dict[tuple[str, str], list[DriftItem]] = {}
    for i in items:
        if i.source == "node" and i.evidence_of is not None:
            by_key.setdefault(i.evidence_of, []).append(i)
    folded: set[int] = set()
    out: list[DriftItem] = []
    for i in items:
        if i.source == "cluster" and i.evidence_of in by_key:
            seen = by_key[i.evidence_of]
            folded.update(id(s) for s in seen)
            also = "; gpupool node inspect sees it too: " + _seen(seen)
            out.append(replace(i, summary=i.summary + also))
        else:
            out.append(i)
    return [i for i in out if id(i) not in folded]


def _seen(items: Iterable[DriftItem]) -> str:
    parts = []
    for i in items:
        gpu = i.address.rpartition("/gpu/")[2] if "/gpu/" in i.address else ""
        parts.append(f"GPU {gpu}: {i.summary}" if gpu else i.summary)
    return "; ".join(parts)
