"""Turning Kubernetes manifests and Helm releases into resource-graph nodes.

Every sharing module describes a Kubernetes object once, as the manifest the API server sees
(camelCase). ``k8s_object`` derives the rest of the ``Resource`` from it: the graph address, the
Pulumi type token, the logical name and the SDK keyword arguments. ``helm_release`` does the same
for a Helm chart from ``charts.json``. Common labels (the stack's ``metadata.labels`` plus
gpupool's own) are applied here so no module can forget them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Any

from gpupool.errors import RenderError
from gpupool.facts.names import MANAGED_BY, MANAGED_BY_LABEL, STACK_LABEL
from gpupool.graph import Resource
from gpupool.model import Stack

HELM_RELEASE_TYPE = "kubernetes:helm.sh/v3:Release"

# Top-level manifest fields and the SDK keyword each becomes (anything else: an internal error).
_TOP_LEVEL_KWARGS = {
    "apiVersion": "api_version",
    "kind": "kind",
    "metadata": "metadata",
    "spec": "spec",
    "data": "data",
    "value": "value",
    "preemptionPolicy": "preemption_policy",
    "globalDefault": "global_default",
    "description": "description",
}

# Kinds gpupool renders, and whether they are namespaced.
_NAMESPACED = {
    "ConfigMap": True,
    "Namespace": False,
    "ResourceQuota": True,
    "PodDisruptionBudget": True,
    "PriorityClass": False,
    "Queue": False,
    "PrometheusRule": True,
    "ValidatingAdmissionPolicy": False,
    "ValidatingAdmissionPolicyBinding": False,
    "GKENetworkParamSet": False,
    "Network": False,
    "ScaledObject": True,
}


@dataclass(frozen=True)
class Chart:
    """A pinned Helm chart (one entry of ``charts.json``)."""

    key: str
    chart: str
    repo: str | None
    version: str
    namespace: str


@cache
def _charts() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        files("gpupool.sharing").joinpath("charts.json").read_text(encoding="utf-8")
    )
    return data


def chart(key: str, version: str | None = None) -> Chart:
    """Return the pinned chart ``key`` (``gpu-operator``, ``hami``, ``kai-scheduler``).

    Args:
        key: the entry in ``charts.json``.
        version: a version that overrides the pinned one.

    """
    entry = _charts()[key]
    return Chart(
        key=key,
        chart=entry["chart"],
        repo=entry["repo"],
        version=version or entry["version"],
        namespace=entry["namespace"],
    )


def _common_labels(stack: Stack) -> Mapping[str, str]:
    """Return the common labels, computed once per stack (read-only: callers copy)."""
    return stack.memo(
        "gpupool.common_labels",
        lambda: {**dict(stack.labels), MANAGED_BY_LABEL: MANAGED_BY, STACK_LABEL: stack.name},
    )


@cache
def type_token(api_version: str, kind: str) -> str:
    """Return the Pulumi type token of a Kubernetes kind, e.g. ``kubernetes:core/v1:ConfigMap``."""
    group, _, version = api_version.rpartition("/")
    return f"kubernetes:{group or 'core'}/{version}:{kind}"


def k8s_object(
    stack: Stack,
    manifest: Mapping[str, Any],
    *,
    provider: str,
    depends_on: tuple[str, ...] = (),
    owner: str = "cluster",
    facts: Mapping[str, Any] | None = None,
) -> Resource:
    """Build the ``Resource`` of one Kubernetes object from its manifest.

    The common labels are merged into ``metadata.labels`` (object-specific labels win). The
    address is ``k8s.<kind>.<name>`` for cluster-scoped kinds and
    ``k8s.<kind>.<namespace>.<name>`` for namespaced ones; the logical name is ``<name>`` or
    ``<namespace>/<name>``, unique per type.

    Args:
        stack: the stack (for the common labels).
        manifest: the object as the API server sees it (``apiVersion``, ``kind``, ``metadata``...).
        provider: address of the Kubernetes provider.
        depends_on: addresses that must exist first.
        owner: ``cluster``, ``pool:<name>`` or ``tenant:<name>``.
        facts: semantic facts for the plan.

    Raises:
        RenderError: an unknown kind, a missing namespace or an unexpected top-level field.

    """
    kind = str(manifest["kind"])
    if kind not in _NAMESPACED:
        raise RenderError(f"gpupool does not render Kubernetes kind {kind}")
    meta = dict(manifest["metadata"])
    meta["labels"] = {**_common_labels(stack), **meta.get("labels", {})}
    name = str(meta["name"])
    namespace = meta.get("namespace")
    if _NAMESPACED[kind] != (namespace is not None):
        raise RenderError(f"{kind} {name}: namespace {namespace!r} is wrong for its scope")
    full = {**manifest, "metadata": meta}
    try:
        inputs = {_TOP_LEVEL_KWARGS[key]: value for key, value in full.items()}
    except KeyError:
        key = next(k for k in full if k not in _TOP_LEVEL_KWARGS)
        raise RenderError(f"{kind} {name}: unexpected top-level field {key}") from None
    if namespace is None:
        address, logical = f"k8s.{kind.lower()}.{name}", name
    else:
        address, logical = f"k8s.{kind.lower()}.{namespace}.{name}", f"{namespace}/{name}"
    return Resource(
        address=address,
        type=type_token(str(full["apiVersion"]), kind),
        name=logical,
        inputs=inputs,
        depends_on=_unique(depends_on),
        provider=provider,
        owner=owner,
        facts=dict(facts or {}),
        manifest=full,
    )


def helm_release(
    chart_: Chart,
    values: Mapping[str, Any],
    *,
    provider: str,
    depends_on: tuple[str, ...],
    create_namespace: bool,
    facts: Mapping[str, Any] | None = None,
) -> Resource:
    """Build the ``Resource`` of a Helm release (address ``helm.<chart key>``).

    ``facts`` carries the chart, repository, version, namespace and the full ``values``.
    """
    inputs: dict[str, Any] = {"name": chart_.key, "chart": chart_.chart, "version": chart_.version}
    if chart_.repo is not None:
        inputs["repository_opts"] = {"repo": chart_.repo}
    inputs.update(
        namespace=chart_.namespace, create_namespace=create_namespace, values=dict(values)
    )
    return Resource(
        address=f"helm.{chart_.key}",
        type=HELM_RELEASE_TYPE,
        name=chart_.key,
        inputs=inputs,
        depends_on=_unique(depends_on),
        provider=provider,
        owner="cluster",
        facts={
            "chart": chart_.chart,
            "repo": chart_.repo,
            "version": chart_.version,
            "namespace": chart_.namespace,
            "values": dict(values),
            **dict(facts or {}),
        },
    )


def _unique(addresses: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(addresses))
