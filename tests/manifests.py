"""Validation harness for what gpupool renders (a test helper module, not collected as tests).

There is no Kubernetes API server and no Helm here, and both of them drop misspelt names
silently (Helm ignores unknown value keys; the API server prunes unknown custom-resource
fields). These helpers make such mistakes fail in tests instead:

- ``validate_manifest(obj)``: built-in kinds against the upstream OpenAPI schemas shipped by
  ``kubernetes-validate`` in strict mode (no unknown fields) for Kubernetes ``K8S_VERSION``;
  KAI ``Queue``, ``PrometheusRule``, GKE's ``Network`` and ``GKENetworkParamSet`` and KEDA's
  ``ScaledObject`` against ``schemas/k8s``; any other kind is an error.
  A few API-server rules the OpenAPI schemas do not carry (names, labels, ResourceQuota keys,
  PriorityClass range) and gpupool's own rules are checked too; the latter say ``gpupool:``.
- ``validate_values(chart, values)``: Helm values of gpu-operator, hami, kai-scheduler,
  aws-efa-k8s-device-plugin, nvsentinel, keda.
- ``validate_device_plugin_config(cfg)`` / ``validate_mig_parted_config(cfg)``: the two
  config-file formats, schema plus gpupool's invariants.
- ``validate_dcgm_metrics(text)`` / ``parse_dcgm_metrics(text)``: a DCGM exporter metrics list
  (``dcgmExporter.config.data``), read by dcgm-exporter's own rules.

Every function returns a sorted list of error strings; an empty list means valid.
Compiled validators are cached, so calling these per object in many tests stays cheap.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from importlib.resources import files
from typing import Any

import jsonschema
import yaml
from referencing import Registry, Resource

from tests import dcgm_facts
from tests.paths import ROOT

SCHEMA_DIR = ROOT / "schemas" / "k8s"

# Built-in kinds are checked against this Kubernetes minor. kubernetes-validate 1.37.0 ships
# 1.25 ... 1.37; 1.33 is the oldest minor the managed services (EKS, GKE, AKS) still support in
# standard support in 2026, so anything gpupool renders must already exist there.
K8S_VERSION = "1.33"

CHART_SCHEMAS: dict[str, str] = {
    "gpu-operator": "gpu-operator-values.schema.json",
    "hami": "hami-values.schema.json",
    "kai-scheduler": "kai-values.schema.json",
    "aws-efa-k8s-device-plugin": "efa-device-plugin-values.schema.json",
    "nvsentinel": "nvsentinel-values.schema.json",
    "keda": "keda-values.schema.json",
}

# (apiVersion, kind) -> schema file in schemas/k8s, and whether the kind is namespaced.
CUSTOM_KINDS: dict[tuple[str, str], tuple[str, bool]] = {
    ("scheduling.run.ai/v2", "Queue"): ("kai-queue.schema.json", False),
    ("monitoring.coreos.com/v1", "PrometheusRule"): ("prometheusrule.schema.json", True),
    ("networking.gke.io/v1", "Network"): ("gke-network.schema.json", False),
    ("networking.gke.io/v1", "GKENetworkParamSet"): ("gke-network-param-set.schema.json", False),
    ("keda.sh/v1alpha1", "ScaledObject"): ("keda-scaledobject.schema.json", True),
}

CLUSTER_SCOPED_KINDS = frozenset(
    {
        "Namespace",
        "Node",
        "PersistentVolume",
        "PriorityClass",
        "RuntimeClass",
        "StorageClass",
        "ClusterRole",
        "ClusterRoleBinding",
        "CustomResourceDefinition",
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "APIService",
        "DeviceClass",
    }
)

# API groups whose kinds kubernetes-validate carries; anything else is a custom resource.
_BUILTIN_GROUPS_WITHOUT_SUFFIX = frozenset({"", "apps", "batch", "autoscaling", "policy"})

_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_QUALIFIED_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_CONFIGMAP_KEY = re.compile(r"^[-._a-zA-Z0-9]+$")
_QUANTITY = re.compile(
    r"^[+-]?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE][+-]?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
)
# k8s.io/kubernetes pkg/apis/core/helper standardQuotaResources.
_STANDARD_QUOTA_RESOURCES = frozenset(
    {
        "cpu",
        "memory",
        "ephemeral-storage",
        "requests.cpu",
        "requests.memory",
        "requests.storage",
        "requests.ephemeral-storage",
        "limits.cpu",
        "limits.memory",
        "limits.ephemeral-storage",
        "pods",
        "services",
        "replicationcontrollers",
        "resourcequotas",
        "secrets",
        "persistentvolumeclaims",
        "configmaps",
        "services.nodeports",
        "services.loadbalancers",
    }
)
# scheduling/v1: values above this are reserved for system-* classes.
_HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
# cmd/mps-control-daemon/mps/device.go: 48 clients at compute capability >= 7.5, else 16.
_MPS_MAX_REPLICAS = 48
_MIG_RESOURCE = re.compile(r"^nvidia\.com/mig-")


# --------------------------------------------------------------------------- loading


@functools.cache
def load_schema(filename: str) -> dict[str, Any]:
    """Return a schema from ``schemas/k8s`` (parsed once)."""
    return json.loads((SCHEMA_DIR / filename).read_text(encoding="utf-8"))


@functools.cache
def _validator(filename: str) -> jsonschema.protocols.Validator:
    schema = load_schema(filename)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def _k8s_schema_dir(version: str) -> Any:
    return files("kubernetes_validate").joinpath(
        "kubernetes-json-schema", f"v{version}.0-local-strict"
    )


@functools.cache
def _k8s_registry(version: str) -> Registry:
    """Registry holding kubernetes-validate's strict ``_definitions.json`` for ``version``."""
    path = _k8s_schema_dir(version).joinpath("_definitions.json")
    definitions = Resource.from_contents(json.loads(path.read_text(encoding="utf-8")))
    return definitions @ Registry()


@functools.cache
def _k8s_validator(version: str, filename: str) -> jsonschema.protocols.Validator | None:
    if not _k8s_schema_dir(version).is_dir():
        from kubernetes_validate import __version__ as kv_version

        raise RuntimeError(
            f"kubernetes-validate {kv_version} has no schemas for Kubernetes {version}; "
            f"install kubernetes-validate>={version}"
        )
    path = _k8s_schema_dir(version).joinpath(filename)
    if not path.is_file():
        return None
    schema = json.loads(path.read_text(encoding="utf-8"))
    registry = Resource.from_contents(schema) @ _k8s_registry(version)
    return jsonschema.Draft202012Validator(schema, registry=registry)


@functools.cache
def _object_meta_validator(version: str) -> jsonschema.protocols.Validator:
    schema = {
        "$ref": "https://kubernetes.io/api/_definitions.json#/$defs/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
    }
    return jsonschema.Draft202012Validator(schema, registry=_k8s_registry(version))


def _builtin_schema_file(api_version: str, kind: str) -> str | None:
    """kubernetes-validate's file name for a built-in kind, or None for a custom group."""
    group, _, version = api_version.rpartition("/")
    if not version:
        return None
    if group not in _BUILTIN_GROUPS_WITHOUT_SUFFIX and not group.endswith(".k8s.io"):
        return None
    short_group = group.split(".", 1)[0]
    suffix = f"{short_group}-{version}" if short_group else version
    return f"{kind.lower()}-{suffix}.json"


# --------------------------------------------------------------------------- formatting


def _json_path(parts: Iterable[Any]) -> str:
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z0-9_][-A-Za-z0-9_]*", str(part)):
            out += f".{part}"
        else:
            out += f"[{json.dumps(str(part))}]"
    return out.lstrip(".") or "<root>"


def _schema_errors(
    validator: jsonschema.protocols.Validator,
    instance: Any,
    prefix: str = "",
    base: tuple[Any, ...] = (),
) -> list[str]:
    errors = []
    for error in validator.iter_errors(instance):
        leaves = _leaf_errors(error)
        for leaf in leaves:
            errors.append(f"{prefix}{_json_path((*base, *leaf.absolute_path))}: {leaf.message}")
    return errors


def _leaf_errors(error: jsonschema.ValidationError) -> list[jsonschema.ValidationError]:
    """For anyOf/oneOf failures report the most relevant branch instead of a bare summary."""
    if error.validator in ("anyOf", "oneOf") and error.context:
        best = jsonschema.exceptions.best_match(error.context)
        if best is not None and best.absolute_path != error.absolute_path:
            return [best]
    return [error]


def _done(errors: Iterable[str]) -> list[str]:
    return sorted(dict.fromkeys(errors))


def _where(obj: Mapping[str, Any]) -> str:
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    name = meta.get("name", "?") if isinstance(meta, Mapping) else "?"
    return f"{obj.get('kind', '?')}/{name}: "


# --------------------------------------------------------------------------- manifests


def validate_manifest(
    obj: Mapping[str, Any], *, k8s_version: str = K8S_VERSION, require_namespace: bool = True
) -> list[str]:
    """Validate one Kubernetes object; return error strings (empty = valid).

    Built-in kinds use kubernetes-validate's strict schemas for ``k8s_version``; the custom kinds
    of ``CUSTOM_KINDS`` use ``schemas/k8s`` plus a strict ObjectMeta check; unknown custom kinds are
    an error. Namespaced kinds must name their namespace unless ``require_namespace`` is False
    (an object without one lands in ``default``), cluster-scoped kinds must not.
    """
    if not isinstance(obj, Mapping):
        return [f"<object>: expected a mapping, got {type(obj).__name__}"]
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str) or not api_version or not kind:
        return [f"{_where(obj)}apiVersion and kind must both be non-empty strings"]
    where = _where(obj)
    errors: list[str] = []

    custom = CUSTOM_KINDS.get((api_version, kind))
    if custom is not None:
        filename, namespaced = custom
        errors += _schema_errors(_validator(filename), obj, where)
        if isinstance(obj.get("metadata"), Mapping) and not any(
            e.startswith(f"{where}metadata") for e in errors
        ):
            # The schema's ObjectMeta is closed but loosely typed; the upstream one types it.
            errors += _schema_errors(
                _object_meta_validator(k8s_version), obj["metadata"], where, ("metadata",)
            )
    else:
        schema_file = _builtin_schema_file(api_version, kind)
        validator = _k8s_validator(k8s_version, schema_file) if schema_file else None
        if validator is None:
            return [
                f"{where}no schema for apiVersion {api_version} kind {kind}: not a built-in kind "
                f"of Kubernetes {k8s_version} and not one of the custom kinds in "
                f"tests/manifests.py CUSTOM_KINDS ({', '.join(sorted(k for _, k in CUSTOM_KINDS))})"
            ]
        namespaced = kind not in CLUSTER_SCOPED_KINDS
        errors += _schema_errors(validator, obj, where)

    errors += _check_metadata(obj, namespaced=namespaced, require_namespace=require_namespace)
    checker = _KIND_CHECKS.get(kind)
    if checker is not None:
        errors += [where + e for e in checker(obj)]
    return _done(errors)


def validate_manifests(objs: Iterable[Mapping[str, Any]], **kwargs: Any) -> list[str]:
    """Validate several objects; also reject duplicate (apiVersion group, kind, namespace, name)."""
    errors: list[str] = []
    seen: set[tuple[str, str, str, str]] = set()
    for obj in objs:
        errors += validate_manifest(obj, **kwargs)
        meta = obj.get("metadata") if isinstance(obj, Mapping) else None
        if isinstance(meta, Mapping):
            group = str(obj.get("apiVersion", "")).rpartition("/")[0]
            key = (
                group,
                str(obj.get("kind")),
                str(meta.get("namespace", "")),
                str(meta.get("name")),
            )
            if key in seen:
                errors.append(f"{_where(obj)}duplicate object {'/'.join(key)}")
            seen.add(key)
    return _done(errors)


def _check_metadata(
    obj: Mapping[str, Any], *, namespaced: bool, require_namespace: bool
) -> list[str]:
    """API-server name, label and annotation rules that the OpenAPI schemas do not carry."""
    where = _where(obj)
    meta = obj.get("metadata")
    if not isinstance(meta, Mapping):
        return [f"{where}metadata: required mapping is missing"]
    errors: list[str] = []
    kind = str(obj.get("kind"))
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        errors.append(f"{where}metadata.name: required")
    elif kind.startswith(("Role", "ClusterRole")):
        if name in (".", "..") or "/" in name or "%" in name:
            errors.append(f"{where}metadata.name: {name!r} is not a valid path segment name")
    elif kind == "Namespace":
        if len(name) > 63 or not _DNS_LABEL.match(name):
            errors.append(
                f"{where}metadata.name: {name!r} is not a DNS-1123 label (a-z0-9-, at most 63)"
            )
    elif len(name) > 253 or not _DNS_SUBDOMAIN.match(name):
        errors.append(f"{where}metadata.name: {name!r} is not a DNS-1123 subdomain")

    namespace = meta.get("namespace")
    if namespaced:
        if namespace is None and require_namespace:
            errors.append(
                f"{where}metadata.namespace: required for namespaced kind {kind} (else 'default')"
            )
        elif namespace is not None and (
            not isinstance(namespace, str) or not _DNS_LABEL.match(namespace)
        ):
            errors.append(f"{where}metadata.namespace: {namespace!r} is not a DNS-1123 label")
    elif namespace is not None:
        errors.append(
            f"{where}metadata.namespace: {kind} is cluster-scoped; namespace must be absent"
        )

    for field in ("labels", "annotations"):
        values = meta.get(field)
        if values is None:
            continue
        if not isinstance(values, Mapping):
            errors.append(f"{where}metadata.{field}: must be a mapping")
            continue
        for key, value in values.items():
            errors += [
                f"{where}{_json_path(('metadata', field, key))}: {e}"
                for e in _qualified_name_errors(key)
            ]
            # (non-string values are reported by the schemas)
            if (
                isinstance(value, str)
                and field == "labels"
                and (len(value) > 63 or not _LABEL_VALUE.match(value))
            ):
                errors.append(
                    f"{where}{_json_path(('metadata', 'labels', key))}: {value!r} is not a valid "
                    "label value"
                )
    return errors


def _qualified_name_errors(key: Any) -> list[str]:
    if not isinstance(key, str):
        return ["key must be a string"]
    prefix, _, name = key.rpartition("/")
    errors = []
    if "/" in key and (not prefix or len(prefix) > 253 or not _DNS_SUBDOMAIN.match(prefix)):
        errors.append(f"key prefix {prefix!r} is not a DNS-1123 subdomain")
    if not name or len(name) > 63 or not _QUALIFIED_NAME.match(name):
        errors.append(
            f"key name {name!r} is not a qualified name (alphanumerics, -_. inside, at most 63)"
        )
    return errors


def _check_resource_quota(obj: Mapping[str, Any]) -> list[str]:
    hard = (obj.get("spec") or {}).get("hard") or {}
    errors: list[str] = []
    if not isinstance(hard, Mapping):
        return errors
    for key, value in hard.items():
        path = _json_path(("spec", "hard", key))
        if not _QUANTITY.match(str(value)):
            errors.append(f"{path}: {value!r} is not a Kubernetes quantity")
        key = str(key)
        if "/" not in key:
            if key not in _STANDARD_QUOTA_RESOURCES and not key.startswith(
                ("hugepages-", "requests.hugepages-")
            ):
                errors.append(f"{path}: not a standard quota resource name")
        elif not key.startswith(("count/", "requests.")) and not key.split("/", 1)[0].endswith(
            "kubernetes.io"
        ):
            errors.append(
                f"{path}: extended resources are only enforced by quota as 'requests.<name>' "
                "(k8s quota evaluator isExtendedResourceNameForQuota); "
                f"use 'requests.{key.removeprefix('limits.')}'"
            )
    return errors


def _check_priority_class(obj: Mapping[str, Any]) -> list[str]:
    value = obj.get("value")
    name = str((obj.get("metadata") or {}).get("name", ""))
    if (
        isinstance(value, int)
        and value > _HIGHEST_USER_DEFINABLE_PRIORITY
        and not name.startswith("system-")
    ):
        return [
            f"value: {value} exceeds {_HIGHEST_USER_DEFINABLE_PRIORITY}, "
            "the highest user-definable priority"
        ]
    return []


def _check_config_map(obj: Mapping[str, Any]) -> list[str]:
    errors = []
    for field in ("data", "binaryData"):
        for key in obj.get(field) or {}:
            if len(str(key)) > 253 or not _CONFIGMAP_KEY.match(str(key)):
                errors.append(
                    f"{_json_path((field, key))}: ConfigMap keys must match [-._a-zA-Z0-9]+"
                )
    return errors


def _check_queue(obj: Mapping[str, Any]) -> list[str]:
    """gpupool: every Queue states quota, limit and overQuotaWeight for gpu, cpu and memory.

    KAI treats an unset limit as 0 ("no additional resources allowed"), so a missing block or
    field silently blocks that resource (KAI ``capacity_policy/max_allowed_check.go``).
    """
    resources = (obj.get("spec") or {}).get("resources")
    if not isinstance(resources, Mapping):
        return []
    errors = []
    for res in ("gpu", "cpu", "memory"):
        block = resources.get(res)
        if not isinstance(block, Mapping):
            errors.append(
                f"spec.resources.{res}: gpupool: must be set explicitly (unset limit means 0)"
            )
            continue
        errors += [
            f"spec.resources.{res}.{field}: gpupool: must be set explicitly (limit -1 = no limit)"
            for field in ("quota", "limit", "overQuotaWeight")
            if field not in block
        ]
    return errors


def _check_prometheus_rule(obj: Mapping[str, Any]) -> list[str]:
    """Group names are the keys of a list-map (x-kubernetes-list-map-keys: [name])."""
    groups = (obj.get("spec") or {}).get("groups")
    if not isinstance(groups, list):
        return []
    names = [g.get("name") for g in groups if isinstance(g, Mapping)]
    return [
        f"spec.groups: duplicate group name {name!r}"
        for name in sorted({n for n in names if names.count(n) > 1}, key=str)
    ]


def _check_scaled_object(obj: Mapping[str, Any]) -> list[str]:
    """The ScaledObject CRD's CEL rule on spec (KEDA v2.20.2 keda.sh_scaledobjects.yaml
    x-kubernetes-validations): minReplicaCount <= maxReplicaCount, 100 when it is unset."""
    spec = obj.get("spec")
    if not isinstance(spec, Mapping) or not isinstance(spec.get("minReplicaCount"), int):
        return []
    most = spec.get("maxReplicaCount", 100)
    if isinstance(most, int) and spec["minReplicaCount"] > most:
        return ["spec: minReplicaCount must be less than or equal to maxReplicaCount"]
    return []


def _check_gke_network(obj: Mapping[str, Any]) -> list[str]:
    """A Device network takes its parameters from a cluster-scoped GKENetworkParamSet.

    gke-networking-api ``apis/network/v1``: ``parametersRef.namespace`` "MUST be unset when
    referring to a Cluster-scoped resource", and a Device network referencing a parameter set
    without ``deviceMode`` is not ready (``DeviceModeMissing``); gpupool renders only these.
    """
    spec = obj.get("spec") or {}
    if not isinstance(spec, Mapping) or spec.get("type") != "Device":
        return []
    ref = spec.get("parametersRef")
    if not isinstance(ref, Mapping):
        return ["spec.parametersRef: a Device network needs its GKENetworkParamSet"]
    want = {"group": "networking.gke.io", "kind": "GKENetworkParamSet"}
    errors = [
        f"spec.parametersRef.{k}: must be {v!r}" for k, v in want.items() if ref.get(k) != v
    ]
    if "namespace" in ref:
        errors.append("spec.parametersRef.namespace: GKENetworkParamSet is cluster-scoped")
    return errors


def _check_gke_network_param_set(obj: Mapping[str, Any]) -> list[str]:
    """gpupool: every parameter set it renders serves a Device network, so it names a deviceMode."""
    spec = obj.get("spec") or {}
    if isinstance(spec, Mapping) and "vpc" in spec and "deviceMode" not in spec:
        return ["spec.deviceMode: gpupool: a Device network's parameter set needs it"]
    return []


_KIND_CHECKS = {
    "ResourceQuota": _check_resource_quota,
    "PriorityClass": _check_priority_class,
    "ConfigMap": _check_config_map,
    "Queue": _check_queue,
    "PrometheusRule": _check_prometheus_rule,
    "Network": _check_gke_network,
    "ScaledObject": _check_scaled_object,
    "GKENetworkParamSet": _check_gke_network_param_set,
}


# --------------------------------------------------------------------------- helm values


def validate_values(chart: str, values: Mapping[str, Any]) -> list[str]:
    """Validate the Helm values gpupool passes to ``chart`` (gpu-operator, hami, kai-scheduler).

    For gpu-operator the embedded configs are checked as well: each
    ``devicePlugin.config.data`` entry with ``validate_device_plugin_config`` and
    ``migManager.config.data["config.yaml"]`` with ``validate_mig_parted_config``.
    """
    filename = CHART_SCHEMAS.get(chart)
    if filename is None:
        return [f"<values>: unknown chart {chart!r}; known: {', '.join(sorted(CHART_SCHEMAS))}"]
    prefix = f"{chart} values: "
    errors = _schema_errors(_validator(filename), values, prefix)
    if chart == "gpu-operator" and isinstance(values, Mapping):
        errors += [prefix + e for e in _check_gpu_operator_values(values)]
    return _done(errors)


def _parse_embedded_yaml(text: Any, path: str) -> tuple[Any, list[str]]:
    if not isinstance(text, str):
        return None, []  # the schema reports the type
    try:
        return yaml.safe_load(text), []
    except yaml.YAMLError as exc:
        return None, [f"{path}: not valid YAML: {exc}"]


def _check_gpu_operator_values(values: Mapping[str, Any]) -> list[str]:
    errors: list[str] = []
    dp_config = _dig(values, "devicePlugin", "config")
    if isinstance(dp_config, Mapping):
        data = dp_config.get("data") or {}
        if isinstance(data, Mapping):
            for key, text in data.items():
                path = _json_path(("devicePlugin", "config", "data", key))
                cfg, parse_errors = _parse_embedded_yaml(text, path)
                errors += parse_errors
                if not parse_errors and isinstance(text, str):
                    errors += [f"{path} -> {e}" for e in validate_device_plugin_config(cfg)]
            default = dp_config.get("default")
            if data and default and default not in data:
                errors.append(
                    f"devicePlugin.config.default: {default!r} is not a key of "
                    "devicePlugin.config.data "
                    "(config-manager fails with 'specified config does not exist')"
                )
    dcgm_config = _dig(values, "dcgmExporter", "config")
    if isinstance(dcgm_config, Mapping) and isinstance(dcgm_config.get("data"), str):
        path = 'dcgmExporter.config.data (ConfigMap key "dcgm-metrics.csv")'
        errors += [f"{path} -> {e}" for e in validate_dcgm_metrics(dcgm_config["data"])]
    mig_config = _dig(values, "migManager", "config")
    if isinstance(mig_config, Mapping):
        data = mig_config.get("data") or {}
        if isinstance(data, Mapping) and data:
            if set(data) != {"config.yaml"}:
                errors.append(
                    f"migManager.config.data: keys {sorted(data)}: "
                    "MIG Manager reads only 'config.yaml'"
                )
            if "config.yaml" in data:
                path = 'migManager.config.data["config.yaml"]'
                cfg, parse_errors = _parse_embedded_yaml(data["config.yaml"], path)
                errors += parse_errors
                if not parse_errors:
                    errors += [f"{path} -> {e}" for e in validate_mig_parted_config(cfg)]
        if mig_config.get("create") is True and not (data and mig_config.get("name")):
            errors.append(
                "migManager.config: gpupool: create=true needs name and data "
                "(the chart silently skips the ConfigMap when data is empty)"
            )
    return errors


def _dig(values: Mapping[str, Any], *keys: str) -> Any:
    node: Any = values
    for key in keys:
        if not isinstance(node, Mapping):
            return None
        node = node.get(key)
    return node


# --------------------------------------------------------------------------- config files


def _sharing_resources(cfg: Mapping[str, Any]) -> Iterator[tuple[str, int, Mapping[str, Any]]]:
    sharing = cfg.get("sharing")
    if not isinstance(sharing, Mapping):
        return
    for mode in ("timeSlicing", "mps"):
        block = sharing.get(mode)
        if isinstance(block, Mapping) and isinstance(block.get("resources"), list):
            for index, resource in enumerate(block["resources"]):
                if isinstance(resource, Mapping):
                    yield mode, index, resource


def validate_device_plugin_config(cfg: Any) -> list[str]:
    """Device-plugin config (``version: v1``): schema plus gpupool's invariants.

    gpupool rules beyond upstream (NVIDIA k8s-device-plugin api/config/v1 and main.go): version
    stated; never timeSlicing and mps together; no ``rename``/``devices`` (the plugin resets
    them) and no top-level ``resources`` (dropped); fully qualified ``nvidia.com/`` names, no
    duplicates; MPS only on ``nvidia.com/gpu``, at most 48 replicas, not with migStrategy
    mixed, ``failRequestsGreaterThanOne`` explicit; time-sliced MIG resources need mixed.
    """
    errors = _schema_errors(_validator("device-plugin-config.schema.json"), cfg)
    if not isinstance(cfg, Mapping):
        return _done(errors)
    if cfg.get("version") != "v1":
        errors.append("version: gpupool: must be stated as v1")
    if "resources" in cfg:
        errors.append("resources: gpupool: ignored by the plugin at runtime; do not emit")
    sharing = cfg.get("sharing") if isinstance(cfg.get("sharing"), Mapping) else {}
    if "timeSlicing" in sharing and "mps" in sharing:
        errors.append(
            "sharing: gpupool: timeSlicing and mps are mutually exclusive (MPS would win)"
        )
    flags = cfg.get("flags") if isinstance(cfg.get("flags"), Mapping) else {}
    mig_strategy = flags.get("migStrategy", "none")
    if isinstance(sharing.get("mps"), Mapping):
        if "failRequestsGreaterThanOne" not in sharing["mps"]:
            errors.append(
                "sharing.mps.failRequestsGreaterThanOne: gpupool: state it "
                "(unset means true for MPS)"
            )
        if mig_strategy == "mixed":
            errors.append("flags.migStrategy: mixed is not supported with MPS")
    seen: set[tuple[str, str]] = set()
    for mode, index, resource in _sharing_resources(cfg):
        path = f"sharing.{mode}.resources[{index}]"
        name = resource.get("name")
        for field in ("rename", "devices"):
            if field in resource:
                errors.append(
                    f"{path}.{field}: gpupool: reset by the plugin at runtime; "
                    "use renameByDefault only"
                )
        if not isinstance(name, str):
            continue
        if not name.startswith("nvidia.com/"):
            errors.append(f"{path}.name: gpupool: write the full name nvidia.com/{name}")
        if (mode, name) in seen:
            errors.append(f"{path}.name: duplicate resource {name}")
        seen.add((mode, name))
        if mode == "mps":
            if name != "nvidia.com/gpu":
                errors.append(
                    f"{path}.name: MPS supports only nvidia.com/gpu (full GPUs), not {name}"
                )
            replicas = resource.get("replicas")
            if isinstance(replicas, int) and replicas > _MPS_MAX_REPLICAS:
                errors.append(
                    f"{path}.replicas: MPS allows at most {_MPS_MAX_REPLICAS} clients per GPU"
                )
        elif _MIG_RESOURCE.match(name) and mig_strategy != "mixed":
            errors.append(
                f"{path}.name: time-slicing MIG resource {name} needs flags.migStrategy mixed"
            )
        elif not _MIG_RESOURCE.match(name) and name != "nvidia.com/gpu":
            errors.append(
                f"{path}.name: gpupool: only nvidia.com/gpu or nvidia.com/mig-* can be time-sliced"
            )
    return _done(errors)


def validate_mig_parted_config(cfg: Any) -> list[str]:
    """mig-parted config (``version: v1``): schema plus gpupool's invariants.

    Beyond the schema: ``mig-configs`` must be present, and a non-empty ``mig-devices`` map
    must have a count above 0 (mig-parted AssertValidFormat: "all counts for all MigProfiles
    are 0"). ``mig-enabled: true`` without ``mig-devices`` is a schema error.
    """
    errors = _schema_errors(_validator("mig-parted-config.schema.json"), cfg)
    if not isinstance(cfg, Mapping):
        return _done(errors)
    configs = cfg.get("mig-configs")
    if configs is None:
        errors.append("mig-configs: gpupool: required")
    if not isinstance(configs, Mapping):
        return _done(errors)
    for name, specs in configs.items():
        if not isinstance(specs, list):
            continue
        for index, spec in enumerate(specs):
            if not isinstance(spec, Mapping):
                continue
            devices = spec.get("mig-devices")
            path = _json_path(("mig-configs", name, index, "mig-devices"))
            if (
                isinstance(devices, Mapping)
                and devices
                and all(isinstance(c, int) and c == 0 for c in devices.values())
            ):
                errors.append(
                    f"{path}: all counts are 0 "
                    "(mig-parted rejects this; use {} or mig-enabled false)"
                )
    return _done(errors)


# --------------------------------------------------------------------------- CRD conversion

# openAPIV3Schema keywords that mean the same in JSON Schema. ``description`` is left out: the
# committed schemas keep an upstream CRD's structure, not its prose.
_SAME_KEYWORDS = (
    "type",
    "format",
    "enum",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "uniqueItems",
    "multipleOf",
    "required",
    "default",
)


def crd_openapi_to_json_schema(node: Mapping[str, Any]) -> dict[str, Any]:
    """Convert a CRD ``openAPIV3Schema`` to JSON Schema (draft 2020-12 keywords).

    Objects that list ``properties`` and do not set ``x-kubernetes-preserve-unknown-fields``
    get ``additionalProperties: false`` (the API server would prune anything else silently);
    ``x-kubernetes-int-or-string`` becomes ``type: [integer, string]``; ``nullable`` adds
    ``null``. The root's ``metadata`` stays ``{type: object}`` as in the CRD (the server
    validates it as ObjectMeta; ``validate_manifest`` does the same).
    """
    out: dict[str, Any] = {k: node[k] for k in _SAME_KEYWORDS if k in node}
    if node.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
        out["type"] = ["integer", "string"]
    elif "anyOf" in node:
        out["anyOf"] = [crd_openapi_to_json_schema(n) for n in node["anyOf"]]
    for key in ("allOf", "oneOf"):
        if key in node:
            out[key] = [crd_openapi_to_json_schema(n) for n in node[key]]
    if node.get("nullable") and "type" in out:
        types = out["type"] if isinstance(out["type"], list) else [out["type"]]
        out["type"] = [*types, "null"]
    if "properties" in node:
        out["properties"] = {
            name: crd_openapi_to_json_schema(child) for name, child in node["properties"].items()
        }
        if not node.get("x-kubernetes-preserve-unknown-fields"):
            out["additionalProperties"] = False
    if isinstance(node.get("additionalProperties"), Mapping):
        out["additionalProperties"] = crd_openapi_to_json_schema(node["additionalProperties"])
    if "items" in node:
        out["items"] = crd_openapi_to_json_schema(node["items"])
    return out


def crd_version_schema(crd: Mapping[str, Any], version: str) -> dict[str, Any]:
    """The converted ``openAPIV3Schema`` of one served version of a CRD document."""
    for entry in crd["spec"]["versions"]:
        if entry["name"] == version:
            return crd_openapi_to_json_schema(entry["schema"]["openAPIV3Schema"])
    raise KeyError(f"{crd['metadata']['name']} has no version {version}")


# --------------------------------------------------------------------------- DCGM metrics lists

# dcgm-exporter internal/pkg/counters/variables.go (promMetricType) and exporter_counters.go
# (the exporter's own fields, which DCGM does not know).
DCGM_PROM_TYPES = frozenset({"gauge", "counter", "histogram", "summary", "label"})
DCGM_EXPORTER_FIELDS = frozenset(
    {"DCGM_EXP_XID_ERRORS_COUNT", "DCGM_EXP_CLOCK_EVENTS_COUNT", "DCGM_EXP_GPU_HEALTH_STATUS",
     "DCGM_EXP_P2P_STATUS"}
)  # fmt: skip


def _csv_records(text: str) -> tuple[list[tuple[int, list[str]]], list[str]]:
    """Split a list into records as Go's encoding/csv Reader does with ``Comment = '#'``.

    Go encoding/csv (reader.go, readRecord): a line beginning with the comment character, with
    nothing before it, is skipped, and so is an empty line (a line of spaces is a record);
    fields are split at every comma; with LazyQuotes off a quote inside an unquoted field is
    ErrBareQuote; FieldsPerRecord 0 makes every record need the first record's field count
    (ErrFieldCount), and ReadAll stops at the first error. Quoted fields are not parsed here:
    gpupool renders none, so any quote is reported.
    """
    records: list[tuple[int, list[str]]] = []
    errors: list[str] = []
    for n, line in enumerate(text.replace("\r\n", "\n").split("\n"), 1):
        if line.startswith("#") or line == "":
            continue
        if '"' in line:
            errors.append(f"line {n}: a quote (encoding/csv ErrBareQuote or a quoted field)")
            continue
        fields = line.split(",")
        if records and len(fields) != len(records[0][1]):
            errors.append(
                f"line {n}: {len(fields)} fields, the first record has {len(records[0][1])} "
                "(encoding/csv ErrFieldCount)"
            )
            continue
        records.append((n, fields))
    return records, errors


def parse_dcgm_metrics(text: str) -> tuple[list[tuple[str, str, str]], list[str]]:
    """Parse a DCGM exporter metrics list into (field, type, help) rows, with the errors.

    dcgm-exporter internal/pkg/counters/counter_config.go (ReadCSVFile, ExtractCounters): the
    records from encoding/csv (``_csv_records``), each field trimmed of spaces; a record needs
    exactly 3 fields; the name must be a DCGM field (go-dcgm ``dcgm.GetFieldID``: a current or
    legacy name, as ``tests/dcgm_facts.FIELDS`` records them) or one of the exporter's own; the
    type must be a Prometheus type it knows. Any error makes the exporter exit at start.
    gpupool's own rule: no field listed twice.
    """
    records, errors = _csv_records(text)
    current, legacy = dcgm_facts.names(dcgm_facts.CURRENT), dcgm_facts.names(dcgm_facts.LEGACY)
    rows: list[tuple[str, str, str]] = []
    seen: set[str] = set()
    for n, record in records:
        fields = [f.strip(" ") for f in record]
        if len(fields) != 3:
            errors.append(f"line {n}: malformed CSV record, expected 3 fields, got {len(fields)}")
            continue
        name, prom_type, help_text = fields
        if name not in current and name not in legacy and name not in DCGM_EXPORTER_FIELDS:
            errors.append(
                f"line {n}: could not find DCGM field {name!r} "
                "(not in tests/dcgm_facts.FIELDS: add its row from go-dcgm if DCGM has it)"
            )
            continue
        if prom_type not in DCGM_PROM_TYPES:
            errors.append(f"line {n}: could not find Prometheus metric type {prom_type!r}")
            continue
        if name in seen:
            errors.append(f"line {n}: gpupool: {name} listed twice")
        seen.add(name)
        rows.append((name, prom_type, help_text))
    return rows, errors


def validate_dcgm_metrics(text: str) -> list[str]:
    """Validate a DCGM exporter metrics list (see ``parse_dcgm_metrics``)."""
    rows, errors = parse_dcgm_metrics(text)
    if not rows and not errors:
        errors.append("no metric rows")
    return _done(errors)
