"""Rules on where NVSentinel (``cluster.faultIsolation.nvsentinel``) cannot work as asked.

NVSentinel v1.19.0 (NVIDIA/NVSentinel README.md and docs/, the release gpupool pins) rests on
things the stack file says or cannot say:

- Kubernetes 1.25 or newer (README, Prerequisites): ``nvsentinel.kubernetes-too-old`` when
  ``cluster.kubernetesVersion`` says older;
- the GPU Operator's standalone DCGM (``dcgm.enabled``), which its GPU health monitor queries and
  its labeler waits for (``labeler/main.go``: pods labelled ``app=nvidia-dcgm``). gpupool turns it
  on in the operator it installs; ``nvsentinel.own-operator-dcgm`` when the user runs their own;
- ``global.dryRun`` is read by fault-quarantine, node-drainer and fault-remediation only, so with
  ``action: monitor`` it does nothing (``nvsentinel.dry-run-without-action``);
- cordon and drain read their events from NVSentinel's MongoDB store, whose TLS certificates
  come from cert-manager and whose replicas claim persistent volumes: gpupool installs neither
  and cannot see them (``nvsentinel.datastore-needs``, advice);
- fault-quarantine's circuit breaker (on by default: 50% of the GPU nodes in 5 minutes,
  ``fault-quarantine/pkg/breaker/breaker.go`` trips at ``ceil(nodes x 50%)`` recent cordons and
  stays tripped until reset by hand): with at most two GPU nodes the first cordon trips it
  (``nvsentinel.circuit-breaker-trips-at-once``).
"""

from __future__ import annotations

import math

from gpupool.facts.groups import reach
from gpupool.model import Stack
from gpupool.spec.diagnostics import Diagnostic, error, info, warning

_PATH = ("cluster", "faultIsolation", "nvsentinel")
#: NVSentinel v1.19.0 README.md, Prerequisites: "Kubernetes 1.25+".
MIN_MINOR = 25
#: fault-quarantine's default circuit breaker (v1.19.0 charts/fault-quarantine/values.yaml).
BREAKER_PERCENT = 50
BREAKER_WINDOW = "5m"
_ISOLATING = ("cordon", "drain")


def _too_old(stack: Stack) -> list[Diagnostic]:
    version = stack.cluster.kubernetes_version
    if version is None or int(version.split(".")[1]) >= MIN_MINOR:
        return []
    return [
        error(
            "nvsentinel.kubernetes-too-old",
            f"NVSentinel needs Kubernetes 1.{MIN_MINOR}, not {version}",
            f"The NVSentinel release gpupool pins (v1.19.0) lists Kubernetes 1.{MIN_MINOR}+ "
            "among its prerequisites. Upgrade the cluster, or remove "
            "cluster.faultIsolation.nvsentinel.",
            ("cluster", "kubernetesVersion"),
        )
    ]


def _own_operator(stack: Stack) -> list[Diagnostic]:
    if stack.cluster.gpu_operator.install:
        return []
    return [
        warning(
            "nvsentinel.own-operator-dcgm",
            "Run your GPU Operator with dcgm.enabled=true for NVSentinel",
            "NVSentinel's GPU health monitor queries the GPU Operator's standalone DCGM (the "
            "Service nvidia-dcgm.gpu-operator.svc, port 5555), and its labeler schedules that "
            "monitor only on nodes running a nvidia-dcgm pod. The operator runs none unless "
            "dcgm.enabled is true (its default is false, the DCGM exporter embedding its own); "
            "gpupool sets it in the operator it installs, but does not install one here. Without "
            "it no GPU fault is reported.",
            ("cluster", "gpuOperator", "install"),
        )
    ]


def _dry_run(stack: Stack) -> list[Diagnostic]:
    ns = stack.cluster.nvsentinel
    if ns is None or not ns.dry_run or ns.action in _ISOLATING:
        return []
    return [
        warning(
            "nvsentinel.dry-run-without-action",
            "dryRun changes nothing with action monitor",
            "NVSentinel's dry run (global.dryRun) holds back fault-quarantine's cordons and "
            "node-drainer's evictions; with action monitor neither runs, and the monitors report "
            "node conditions either way. Set action: cordon or drain to rehearse them, or remove "
            "dryRun.",
            (*_PATH, "dryRun"),
        )
    ]


def _datastore(stack: Stack) -> list[Diagnostic]:
    ns = stack.cluster.nvsentinel
    if ns is None or ns.action not in _ISOLATING:
        return []
    return [
        info(
            "nvsentinel.datastore-needs",
            f"NVSentinel's action {ns.action} needs cert-manager and persistent volumes",
            "Cordon and drain read their events from NVSentinel's MongoDB store (3 replicas), "
            "which gpupool turns on with them: its TLS certificates are cert-manager "
            "Certificates and each replica claims an 8Gi volume from the default StorageClass. "
            "gpupool installs neither cert-manager nor a StorageClass and cannot check them; "
            "without them the store never starts and no node is cordoned.",
            (*_PATH, "action"),
        )
    ]


def _breaker(stack: Stack) -> list[Diagnostic]:
    ns = stack.cluster.nvsentinel
    if ns is None or ns.action not in _ISOLATING or not stack.pools:
        return []
    nodes = sum(reach(pool, stack.cloud)[1] for pool in stack.pools)
    if math.ceil(nodes * BREAKER_PERCENT / 100) > 1:
        return []
    return [
        warning(
            "nvsentinel.circuit-breaker-trips-at-once",
            f"NVSentinel's circuit breaker trips at its first cordon ({nodes} GPU "
            f"node{'' if nodes == 1 else 's'} at most)",
            "fault-quarantine's circuit breaker trips once the nodes it cordoned within "
            f"{BREAKER_WINDOW} reach {BREAKER_PERCENT}% of the GPU nodes (rounded up: 1 of "
            f"{nodes}), and stays tripped until someone resets it by hand (the ConfigMap "
            "circuit-breaker in namespace nvsentinel); NVSentinel's docs suggest turning it off "
            "below 10 GPU nodes, which gpupool does not. Expect one automatic cordon, then "
            "node conditions only.",
            (*_PATH, "action"),
        )
    ]


def run(stack: Stack) -> list[Diagnostic]:
    """Check what NVSentinel needs of the cluster, when the stack installs it."""
    if stack.cluster.nvsentinel is None:
        return []
    return [
        *_too_old(stack),
        *_own_operator(stack),
        *_dry_run(stack),
        *_datastore(stack),
        *_breaker(stack),
    ]
