"""Live node state read from a Kubernetes API server: what the cluster says its GPU nodes are.

Owns: the only import of the official ``kubernetes`` client (imported lazily inside functions,
so ``import gpupool.cluster`` works without it), listing every node with its labels,
annotations, allocatable and capacity, readiness and cordon state, taints and status conditions
(``NodeCondition``: type, status, reason, message, lastTransitionTime), turning client failures
(no kubeconfig, unknown context, unreachable server, rejected credentials, an answer that is not
a node list, such as a proxy's empty body or login page) into one
:class:`ClusterUnavailableError` sentence, refusing a kubeconfig whose aliases expand past the
stack-file loader's limits before the client (which would never finish) reads it (Kubernetes
resource quantities are ``gpupool.quantities``', re-exported here). It also reads named
Deployments (the GPU scheduler's), for their declared and ready replicas, and named namespaced
objects of an API group as the server serves them (the services' ScaledObjects and HPAs), which
``gpupool.drift.services`` reads.

Does not own: deciding which nodes belong to a pool (the caller filters on the
``gpupool.io/pool`` label), what the GPU Feature Discovery labels mean for a pool, or drift
rules (``gpupool.drift``; which conditions are GPU health is ``gpupool.drift.conditions``).
Nothing here writes to the cluster.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from types import MappingProxyType
from typing import Any

from gpupool.errors import GpupoolError
from gpupool.files import read_regular
from gpupool.quantities import parse_quantity
from gpupool.spec import load

__all__ = [
    "POOL_LABEL", "ClusterUnavailableError", "NodeCondition", "NodeTaint", "ObservedDeployment",
    "ObservedNode", "parse_quantity", "read_deployments", "read_gpu_nodes", "read_objects",
]

POOL_LABEL = "gpupool.io/pool"
"""The node label that names the gpupool pool a node belongs to."""

_PAGE_SIZE = 500
_REQUEST_TIMEOUT = (10, 60)  # (connect, read) seconds for each list call

_EMPTY: Mapping[str, str] = MappingProxyType({})


class ClusterUnavailableError(GpupoolError):
    """The Kubernetes API cannot be used: no configuration, unknown context, unreachable, denied."""


@dataclass(frozen=True)
class NodeCondition:
    """One entry of a node's ``status.conditions``, values as the API server wrote them.

    ``last_transition`` is RFC 3339 (``2023-06-01T03:57:41Z``), or None when the node has none.
    """

    type: str
    status: str
    reason: str = ""
    message: str = ""
    last_transition: str | None = None

    def to_json(self) -> dict[str, Any]:
        """Return the condition with the API's field names."""
        return {
            "type": self.type,
            "status": self.status,
            "reason": self.reason,
            "message": self.message,
            "lastTransitionTime": self.last_transition,
        }


@dataclass(frozen=True)
class NodeTaint:
    """One entry of a node's ``spec.taints``."""

    key: str
    value: str
    effect: str


@dataclass(frozen=True)
class ObservedNode:
    """One node as the API server reports it. Mappings are read-only; values stay strings."""

    name: str
    labels: Mapping[str, str]
    allocatable: Mapping[str, str]
    capacity: Mapping[str, str]
    unschedulable: bool
    ready: bool
    annotations: Mapping[str, str] = field(default_factory=lambda: _EMPTY)
    conditions: tuple[NodeCondition, ...] = ()
    taints: tuple[NodeTaint, ...] = ()

    @property
    def pool(self) -> str | None:
        """The node's ``gpupool.io/pool`` label, if any."""
        return self.labels.get(POOL_LABEL)

    def allocatable_amount(self, resource: str) -> float:
        """Return the allocatable amount of ``resource`` (e.g. ``nvidia.com/gpu``); 0 if absent."""
        value = self.allocatable.get(resource)
        return parse_quantity(value) if value is not None else 0.0

    def to_json(self) -> dict[str, Any]:
        """Return a plain, JSON-serialisable dict (keys sorted)."""
        return {
            "name": self.name,
            "labels": dict(sorted(self.labels.items())),
            "annotations": dict(sorted(self.annotations.items())),
            "allocatable": dict(sorted(self.allocatable.items())),
            "capacity": dict(sorted(self.capacity.items())),
            "unschedulable": self.unschedulable,
            "ready": self.ready,
            "conditions": [c.to_json() for c in self.conditions],
            "taints": [{"key": t.key, "value": t.value, "effect": t.effect} for t in self.taints],
        }


def read_gpu_nodes(context: str | None = None, api: Any | None = None) -> list[ObservedNode]:
    """List every node of the cluster, in the order the API server returns them.

    All nodes are returned, GPU or not; callers select a pool's nodes by ``gpupool.io/pool``.
    Large clusters are read in pages of 500.

    Args:
        context: kubeconfig context to use; ``None`` uses the current context, or the pod's
            service account when running inside a cluster without a kubeconfig.
        api: An object with ``CoreV1Api.list_node``'s signature, returning ``V1NodeList``
            objects; tests pass one that serves recorded responses. ``None`` builds a real
            client from the kubeconfig.

    Returns:
        The observed nodes.

    Raises:
        ClusterUnavailableError: the client is not installed, there is no usable
            configuration or context, the server cannot be reached, it refuses the request,
            or its answer is not a node list.

    """
    k8s = _import_kubernetes()
    core = api if api is not None else _core_api(k8s, context)
    out = []
    for item in _list_all(k8s, core, context):
        try:
            out.append(_observe(item))
        except (AttributeError, TypeError, ValueError) as exc:
            raise _not_a_node_list(core, context) from exc
    return out


def _not_a_node_list(core: Any, context: str | None) -> ClusterUnavailableError:
    """Return the error for an answer to ``list_node`` that is not a node list."""
    named = f" for context {context!r}" if context else ""
    return ClusterUnavailableError(
        f"The Kubernetes API server{_server(core)} did not answer with a node list{named}: its "
        "answer (an empty body, a web page or another document) is not a NodeList. Check that "
        "the kubeconfig's server is the API server itself, not a proxy or a login page."
    )


def _not_a_deployment(
    apps: Any, context: str | None, which: str, exc: Exception
) -> ClusterUnavailableError:
    """Return the error for an answer to ``read_namespaced_deployment`` the client refused.

    The client's models refuse a Deployment that lacks a field apps/v1 requires (``spec.selector``
    is one): pydantic's ``ValidationError``, a ``ValueError``, with the field in ``errors()``.
    """
    named = f" for context {context!r}" if context else ""
    errors = getattr(exc, "errors", None)
    found = errors() if callable(errors) else []
    where = [".".join(str(p) for p in e.get("loc", ())) for e in found[:3] if isinstance(e, dict)]
    fields = f" (its {', '.join(w for w in where if w)} cannot be read)" if any(where) else ""
    return ClusterUnavailableError(
        f"The Kubernetes API server{_server(apps)} answered Deployment {which}{named} with "
        f"something the Kubernetes client cannot read as a Deployment{fields}. Check that the "
        "kubeconfig's server is the API server itself, not a proxy, and that the Deployment is "
        "one apps/v1 serves."
    )


def _import_kubernetes() -> Any:
    try:
        # The one import of the Kubernetes client in gpupool, deferred so the module loads
        # without it.
        import kubernetes
        import kubernetes.client
        import kubernetes.config
    except ImportError as exc:
        raise ClusterUnavailableError(
            "The Kubernetes client is not installed: run pip install 'gpupool[node]' "
            "(it brings the kubernetes package)."
        ) from exc
    return kubernetes


@dataclass(frozen=True)
class ObservedDeployment:
    """One Deployment as the API server reports it; ``found`` False when there is none.

    ``replicas`` is ``spec.replicas``; ``ready`` is ``status.readyReplicas`` (0 when absent).
    """

    namespace: str
    name: str
    found: bool
    replicas: int = 0
    ready: int = 0


def read_deployments(
    wanted: Sequence[tuple[str, str]], context: str | None = None, api: Any | None = None
) -> list[ObservedDeployment]:
    """Read each ``(namespace, name)`` Deployment; one that does not exist comes back not found.

    Args:
        wanted: the Deployments to read.
        context: kubeconfig context, as for ``read_gpu_nodes``.
        api: an object with ``AppsV1Api.read_namespaced_deployment``'s signature; tests pass one
            that serves recorded responses. ``None`` builds a real client.

    Raises:
        ClusterUnavailableError: as for ``read_gpu_nodes``.

    """
    k8s = _import_kubernetes()
    apps = api if api is not None else k8s.client.AppsV1Api(_api_client(k8s, context))
    out = []
    for namespace, name in wanted:
        try:
            dep = apps.read_namespaced_deployment(
                name, namespace, _request_timeout=_REQUEST_TIMEOUT
            )
        except Exception as exc:
            if isinstance(exc, k8s.client.exceptions.ApiException) and exc.status == 404:
                out.append(ObservedDeployment(namespace, name, False))
                continue
            if isinstance(exc, (TypeError, ValueError)):  # the client could not read its answer
                raise _not_a_deployment(apps, context, f"{namespace}/{name}", exc) from exc
            mapped = _unavailable(k8s, apps, context, exc, f"Deployment {namespace}/{name}")
            if mapped is None:
                raise
            raise mapped from exc
        spec, status = dep.spec, dep.status
        replicas = spec.replicas if spec is not None and spec.replicas is not None else 1
        ready = (status.ready_replicas if status is not None else None) or 0
        out.append(ObservedDeployment(namespace, name, True, int(replicas), int(ready)))
    return out


def read_objects(
    kind: tuple[str, str, str, str], wanted: Sequence[tuple[str, str]],
    context: str | None = None, api: Any | None = None,
) -> list[Mapping[str, Any] | None]:
    """Read each ``(namespace, name)`` object of ``kind`` as the API serves it (None: not found).

    ``kind`` is ``(group, version, plural, Kind)``: a custom resource (KEDA's ScaledObjects) or
    any namespaced built-in of an API group (``autoscaling``/``v2`` HPAs), read by their REST
    path with ``CustomObjectsApi.get_namespaced_custom_object``. ``api``: an object with that
    method (tests); None builds a real client. Raises ``ClusterUnavailableError`` as
    ``read_gpu_nodes`` does.
    """
    k8s = _import_kubernetes()
    group, version, plural, name_of_kind = kind
    custom = api if api is not None else k8s.client.CustomObjectsApi(_api_client(k8s, context))
    out: list[Mapping[str, Any] | None] = []
    for namespace, name in wanted:
        try:
            got = custom.get_namespaced_custom_object(
                group, version, namespace, plural, name, _request_timeout=_REQUEST_TIMEOUT)
        except Exception as exc:
            if isinstance(exc, k8s.client.exceptions.ApiException) and exc.status == 404:
                out.append(None)
                continue
            what = f"{name_of_kind} {namespace}/{name}"
            mapped = _unavailable(k8s, custom, context, exc, what, plural)
            if mapped is None:
                raise
            raise mapped from exc
        if not isinstance(got, Mapping):  # a proxy's page, not an object
            raise ClusterUnavailableError(
                f"The Kubernetes API server{_server(custom)} answered {name_of_kind} "
                f"{namespace}/{name} with something that is not an object.")
        out.append(got)
    return out


def _core_api(k8s: Any, context: str | None) -> Any:
    return k8s.client.CoreV1Api(_api_client(k8s, context))


def _api_client(k8s: Any, context: str | None) -> Any:
    config_error = k8s.config.ConfigException
    kubeconfig = os.environ.get("KUBECONFIG") or None
    _check_kubeconfigs(kubeconfig or str(Path("~/.kube/config").expanduser()))
    try:
        api_client = k8s.config.new_client_from_config(config_file=kubeconfig, context=context)
    except config_error as exc:
        if context is not None:
            raise ClusterUnavailableError(
                f"Kubernetes context {context!r} cannot be used from the kubeconfig: {exc}."
            ) from exc
        api_client = _in_cluster_client(k8s)
        if api_client is None:
            where = f"KUBECONFIG={kubeconfig}" if kubeconfig else "~/.kube/config"
            raise ClusterUnavailableError(
                f"No Kubernetes configuration found in {where} and not running inside a "
                "cluster: point KUBECONFIG at a kubeconfig file or create ~/.kube/config."
            ) from exc
    return api_client


def _check_kubeconfigs(files: str) -> None:
    """Refuse a kubeconfig the client would take forever over, before the client reads it.

    The client names every merged entry after its whole content (kubernetes-client/python
    ``config/kube_config.py``, ``KubeConfigMerger._merge``), so an alias-built file of a few
    hundred bytes that expands to 10**9 values never finishes loading. Each file is read (at
    most ``load.MAX_BYTES``) with gpupool's own loader, which stops at its expansion and
    nesting limits; anything else wrong with a file is left for the client to report.
    """
    for name in files.split(os.pathsep):
        path = Path(name).expanduser()
        try:
            raw = read_regular(path, load.MAX_BYTES) if name else b""
        except OSError:  # missing, not a regular file, too large: the client says so
            continue
        text = raw.decode("utf-8", errors="replace")
        _doc, diags = load.parse(text, str(path))
        for d in diags:
            if d.code in ("yaml.too-large", "yaml.too-deep"):
                why = d.detail.split("; ")[0]
                raise ClusterUnavailableError(
                    f"The kubeconfig {path} cannot be used: {why[:1].lower()}{why[1:]}."
                )


def _in_cluster_client(k8s: Any) -> Any | None:
    configuration = k8s.client.Configuration()
    try:
        k8s.config.load_incluster_config(client_configuration=configuration)
    except k8s.config.ConfigException:
        return None
    return k8s.client.ApiClient(configuration)


def _list_all(k8s: Any, core: Any, context: str | None) -> Iterator[Any]:
    token: str | None = None
    while True:
        kwargs: dict[str, Any] = {"limit": _PAGE_SIZE, "_request_timeout": _REQUEST_TIMEOUT}
        if token:
            kwargs["_continue"] = token
        try:
            page = core.list_node(**kwargs)
        except (TypeError, ValueError) as exc:  # the client could not read a V1NodeList
            raise _not_a_node_list(core, context) from exc
        except Exception as exc:
            mapped = _unavailable(k8s, core, context, exc)
            if mapped is None:
                raise
            raise mapped from exc
        items = getattr(page, "items", None)
        if not isinstance(items, (list, tuple)) and items is not None:
            raise _not_a_node_list(core, context)
        yield from items or ()
        metadata = page.metadata
        token = getattr(metadata, "_continue", None) if metadata is not None else None
        if not token:
            return


def _unavailable(
    k8s: Any, core: Any, context: str | None, exc: Exception, what: str = "",
    resource: str = "deployments",
) -> ClusterUnavailableError | None:
    """Turn a client failure into one sentence; ``None`` for anything unrecognised.

    ``what`` names the object read (a Deployment); empty: the node list.
    """
    import urllib3  # a dependency of the kubernetes client

    where = _server(core)
    named = f" for context {context!r}" if context else ""
    if isinstance(exc, k8s.client.exceptions.ApiException):
        status = exc.status
        if status == 401:
            return ClusterUnavailableError(
                f"The Kubernetes API server{where} rejected the credentials{named} "
                "(401 Unauthorized): refresh or re-create them in the kubeconfig."
            )
        if status == 403 and what:
            return ClusterUnavailableError(
                f"The Kubernetes API server{where} forbids reading {what}{named} (403 "
                f"Forbidden): the identity needs get on {resource} in that namespace."
            )
        if status == 403:
            return ClusterUnavailableError(
                f"The Kubernetes API server{where} forbids listing nodes{named} (403 Forbidden): "
                "the identity needs get/list on nodes through a ClusterRole."
            )
        doing = f"Reading {what}" if what else "Listing nodes"
        return ClusterUnavailableError(
            f"{doing} on the Kubernetes API server{where} failed{named}: "
            f"HTTP {status} {exc.reason}."
        )
    if isinstance(exc, urllib3.exceptions.HTTPError):
        reason = getattr(exc, "reason", None) or exc
        return ClusterUnavailableError(
            f"Cannot reach the Kubernetes API server{where}{named}: {reason}."
        )
    if isinstance(exc, k8s.config.ConfigException):
        return ClusterUnavailableError(f"The kubeconfig{named} cannot be used: {exc}.")
    return None


def _server(core: Any) -> str:
    host = getattr(getattr(getattr(core, "api_client", None), "configuration", None), "host", None)
    return f" at {host}" if isinstance(host, str) and host else ""


def _observe(node: Any) -> ObservedNode:
    """Convert a ``kubernetes.client.V1Node`` into an :class:`ObservedNode`."""
    metadata = node.metadata
    spec = node.spec
    status = node.status
    conditions = (status.conditions if status is not None else None) or ()
    ready = any(c.type == "Ready" and c.status == "True" for c in conditions)
    return ObservedNode(
        name=metadata.name,
        labels=_frozen(metadata.labels),
        allocatable=_frozen(status.allocatable if status is not None else None),
        capacity=_frozen(status.capacity if status is not None else None),
        unschedulable=bool(spec.unschedulable) if spec is not None else False,
        ready=ready,
        annotations=_frozen(metadata.annotations),
        conditions=tuple(_condition(c) for c in conditions if c.type),
        taints=tuple(
            NodeTaint(str(t.key), str(t.value or ""), str(t.effect or ""))
            for t in ((spec.taints if spec is not None else None) or ())
            if t.key
        ),
    )


def _condition(c: Any) -> NodeCondition:
    """Convert a ``V1NodeCondition`` (the client parses times into ``datetime``)."""
    return NodeCondition(
        type=str(c.type),
        status=str(c.status or ""),
        reason=str(c.reason or ""),
        message=str(c.message or ""),
        last_transition=_rfc3339(c.last_transition_time),
    )


def _rfc3339(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            value = value.astimezone(timezone.utc).replace(tzinfo=None)
        return value.isoformat() + "Z"
    return str(value)


def _frozen(values: Mapping[str, str] | None) -> Mapping[str, str]:
    return MappingProxyType({str(k): str(v) for k, v in (values or {}).items()})
