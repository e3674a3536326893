"""Drift of the inference services: each ScaledObject and the HPA KEDA made for it.

The objects are read through ``gpupool.cluster.read_objects``, as the API server serves them;
this module says what they mean against the stack:

* the ScaledObject does not exist: nothing scales the Deployment (drift);
* it is paused: the ``autoscaling.keda.sh/paused`` or ``autoscaling.keda.sh/paused-replicas``
  annotation (KEDA docs, "ScaledObject specification", pausing autoscaling), or a ``Paused``
  condition that is ``True``; replicas stay where they are (drift);
* its ``Ready`` condition is not ``True`` (KEDA cannot read its triggers or its target), with
  KEDA's reason and message;
* its HPA (``status.hpaName``, else KEDA's ``keda-hpa-<name>``) has its replicas at
  ``replicas.max`` and its ``ScalingLimited`` condition ``True`` with reason ``TooManyReplicas``
  (the HPA clamped what it computed; kubernetes ``pkg/controller/podautoscaler/horizontal.go``):
  the service is capacity-limited by the stack's ``replicas.max``; or it wants more replicas
  than run (``status.desiredReplicas`` above ``status.currentReplicas``), which is how replicas
  waiting for GPU capacity look.

``Active`` (some trigger above its activation threshold) is reported with the others, as how
the service was found, not as drift.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gpupool.drift.items import DriftItem
from gpupool.facts.services import tenant_of
from gpupool.model import Stack
from gpupool.service_model import Service

SOURCE = "cluster"
SCALED_OBJECT = ("keda.sh", "v1alpha1", "scaledobjects", "ScaledObject")
HPA = ("autoscaling", "v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler")
PAUSED_ANNOTATIONS = ("autoscaling.keda.sh/paused", "autoscaling.keda.sh/paused-replicas")


def _namespace(stack: Stack, s: Service) -> str:
    tenant = tenant_of(stack, s)
    return tenant.namespace if tenant is not None else s.tenant


def wanted(stack: Stack) -> list[tuple[str, str]]:
    """Return the ``(namespace, name)`` of each service's ScaledObject."""
    return [(_namespace(stack, s), s.name) for s in stack.services]


def hpa_names(stack: Stack, scaled: Sequence[Mapping[str, Any] | None]) -> list[tuple[str, str]]:
    """Return the ``(namespace, name)`` of the HPA of each ScaledObject that exists."""
    out = []
    for s, obj in zip(stack.services, scaled, strict=True):
        if obj is not None:
            status = obj.get("status") if isinstance(obj.get("status"), Mapping) else {}
            name = status.get("hpaName") if isinstance(status.get("hpaName"), str) else None
            out.append((_namespace(stack, s), name or f"keda-hpa-{s.name}"))
    return out


def _conditions(obj: Mapping[str, Any] | None) -> dict[str, Mapping[str, Any]]:
    status = obj.get("status") if obj is not None else None
    found = status.get("conditions") if isinstance(status, Mapping) else None
    return {str(c.get("type")): c for c in found or () if isinstance(c, Mapping)}


def _paused(obj: Mapping[str, Any]) -> str | None:
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    notes = meta.get("annotations") if isinstance(meta.get("annotations"), Mapping) else {}
    for key in PAUSED_ANNOTATIONS:
        if key in notes and (key.endswith("replicas") or str(notes[key]).lower() == "true"):
            return f"annotation {key}: {notes[key]}"
    cond = _conditions(obj).get("Paused")
    return "its Paused condition is True" if cond and cond.get("status") == "True" else None


def _hpa_items(s: Service, address: str, hpa: Mapping[str, Any] | None) -> list[DriftItem]:
    status = hpa.get("status") if hpa is not None else None
    if not isinstance(status, Mapping):
        return []
    current, desired = status.get("currentReplicas"), status.get("desiredReplicas")
    limited = _conditions(hpa).get("ScalingLimited") or {}
    if (current == s.replicas_max and limited.get("status") == "True"
            and limited.get("reason") == "TooManyReplicas"):
        return [DriftItem(SOURCE, address, s.replicas_max, current,
                          f"service {s.name} is capacity-limited: at replicas.max "
                          f"{s.replicas_max} and its triggers ask for more")]
    if isinstance(current, int) and isinstance(desired, int) and desired > current:
        return [DriftItem(SOURCE, address, desired, current,
                          f"service {s.name} wants {desired} replicas and {current} run: the "
                          "rest wait (for GPU capacity, or to start)")]
    return []


def compare(stack: Stack, scaled: Sequence[Mapping[str, Any] | None],
            hpas: Sequence[Mapping[str, Any] | None]) -> list[DriftItem]:
    """Return the drift of each service from its ScaledObject and its HPA.

    ``scaled`` is in ``wanted`` order; ``hpas`` in ``hpa_names`` order (existing ScaledObjects).
    """
    out: list[DriftItem] = []
    hpa_of = iter(hpas)
    for s, obj in zip(stack.services, scaled, strict=True):
        ns = _namespace(stack, s)
        address = f"service/{ns}/{s.name}"
        if obj is None:
            out.append(DriftItem(SOURCE, address, "ScaledObject", None,
                                 f"ScaledObject {ns}/{s.name} does not exist: nothing scales "
                                 f"Deployment {s.deployment}"))
            continue
        hpa = next(hpa_of, None)
        paused = _paused(obj)
        if paused is not None:
            out.append(DriftItem(SOURCE, address, "scaling", "paused",
                                 f"ScaledObject {ns}/{s.name} is paused ({paused}): its replicas "
                                 "stay where they are"))
            continue
        conds = _conditions(obj)
        ready = conds.get("Ready")
        if ready is None or ready.get("status") != "True":
            why = "" if ready is None else f": {ready.get('reason', '')} {ready.get('message', '')}"
            out.append(DriftItem(SOURCE, address, "Ready", None if ready is None else
                                 ready.get("status"),
                                 f"ScaledObject {ns}/{s.name} is not Ready{why.rstrip()}"))
        out += _hpa_items(s, address, hpa)
        active = conds.get("Active")
        if active is not None:
            state = "active" if active.get("status") == "True" else "idle"
            out.append(DriftItem(SOURCE, address, None, state,
                                 f"ScaledObject {ns}/{s.name} is {state}", kind="note"))
    return out
