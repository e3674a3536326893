"""The resource graph: every cloud and Kubernetes resource a stack needs, as plain data.

This module owns the graph's types (``Resource``, ``Ref``, ``Lookup``, ``CloudResult``,
``ResourceGraph``), their JSON form and dependency ordering (``order``). The graph is the single
source of truth: ``render`` writes it as a Pulumi program, ``plan`` diffs two of them, ``drift``
compares it with what runs. ``gpupool.assemble`` builds it from a stack.

Inputs are the provider SDK's keyword arguments (snake_case at the top level; nested dicts may use
the SDK's snake_case names or the wire names, which the SDK passes through), made of plain JSON
values, ``Ref`` (another resource's output) and ``Lookup`` (a value the program computes when it
runs, such as a kubeconfig read from the existing cluster). A graph round-trips through JSON so
that ``up`` can record what it applied and ``plan`` can diff against it offline.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

GRAPH_FORMAT = "1"


#: Types that never hold a ``Ref``.
_SCALARS = frozenset({str, int, float, bool, type(None)})


@dataclass(frozen=True)
class Ref:
    """Another resource's output, rendered as ``<that resource's variable>.<attr>``.

    An empty ``attr`` stands for the resource object itself (rendered as the bare variable),
    e.g. an explicit cloud provider handed to a ``Lookup``.
    """

    address: str
    attr: str = "id"


@dataclass(frozen=True)
class Lookup:
    """A value the program computes when it runs, from a named helper of the rendered program.

    Lookups read existing infrastructure (the cluster a pool joins, its kubeconfig) through the
    provider SDKs' invokes, or convert another output (``as_string``). ``function`` names a helper
    that ``gpupool.render`` emits into the program; ``args`` are its keyword arguments, made of
    plain JSON values, ``Ref`` and nested ``Lookup``. The graph stays plain data: a lookup
    compares, diffs and round-trips through JSON like any other input value.
    """

    function: str
    args: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Resource:
    """One resource of the program.

    Attributes:
        address: stable identity across runs, e.g. ``pool.infer-l4.node_group``,
            ``k8s.namespace.search``, ``helm.gpu-operator``. Plans match resources by it.
        type: the Pulumi type token, e.g. ``aws:eks/nodeGroup:NodeGroup``.
        name: the Pulumi logical name (unique per type within the stack).
        inputs: SDK keyword arguments as plain data (see the module docstring).
        depends_on: addresses that must exist first (beyond ``Ref``s in the inputs).
        provider: address of an explicit provider resource (the Kubernetes provider), if any.
        replace_on: dotted input paths whose change forces replacement (from the provider schema).
        owner: what the resource belongs to, for grouping: ``pool:<name>``, ``tenant:<name>``
            or ``cluster``.
        facts: semantic facts the plan explains changes with (GPU model, GPU memory, counts,
            sharing); not rendered.
        manifest: for Kubernetes objects, the manifest as the API server sees it (camelCase),
            used to validate and to compare with what the cluster reports.
        ignore_changes: dotted input paths (SDK names) that something else owns after creation,
            such as a node pool's current size under the cluster autoscaler; the program tells
            Pulumi to leave them alone and the plan does not count them as changes.

    """

    address: str
    type: str
    name: str
    inputs: Mapping[str, Any]
    depends_on: tuple[str, ...] = ()
    provider: str | None = None
    replace_on: tuple[str, ...] = ()
    owner: str = "cluster"
    facts: Mapping[str, Any] = field(default_factory=dict)
    manifest: Mapping[str, Any] | None = None
    ignore_changes: tuple[str, ...] = ()

    def refs(self) -> Iterator[Ref]:
        """Yield every ``Ref`` inside the inputs.

        Plain dicts, lists and scalars, nearly everything in a graph of 20,000 resources, are
        told apart by their exact type first; the abstract ``Mapping`` check is the slow path.
        """
        stack: list[Any] = [self.inputs]
        while stack:
            v = stack.pop()
            t = type(v)
            if t is dict:
                stack.extend(v.values())
            elif t in _SCALARS:
                continue
            elif t is list or t is tuple:
                stack.extend(v)
            elif isinstance(v, Ref):
                yield v
            elif isinstance(v, Lookup):
                stack.extend(v.args.values())
            elif isinstance(v, Mapping):
                stack.extend(v.values())
            elif isinstance(v, (list, tuple)):
                stack.extend(v)


@dataclass(frozen=True)
class CloudResult:
    """What a cloud module contributes to the graph, and what in-cluster objects build on.

    Attributes:
        resources: the cloud resources (node pools and what they need).
        k8s_provider: address of the Kubernetes provider wired to the cluster the pools join.
        node_pools: per pool name, the addresses of the node-pool resources that back it (the
            in-cluster objects that configure a pool depend on them).

    """

    resources: tuple[Resource, ...]
    k8s_provider: str
    node_pools: dict[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class ResourceGraph:
    """All resources of one stack, in an order where dependencies come first."""

    stack: str
    cloud: str
    resources: tuple[Resource, ...]

    def get(self, address: str) -> Resource | None:
        """Return the resource at ``address``."""
        return next((r for r in self.resources if r.address == address), None)

    def by_address(self) -> dict[str, Resource]:
        """Return the resources keyed by address."""
        return {r.address: r for r in self.resources}

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-serialisable form (see ``from_json``)."""
        return {
            "graph_format": GRAPH_FORMAT,
            "stack": self.stack,
            "cloud": self.cloud,
            "resources": [
                {
                    "address": r.address,
                    "type": r.type,
                    "name": r.name,
                    "inputs": _encode(r.inputs),
                    "depends_on": list(r.depends_on),
                    "provider": r.provider,
                    "replace_on": list(r.replace_on),
                    "owner": r.owner,
                    "facts": _encode(r.facts),
                    "manifest": _encode(r.manifest),
                    # only where set, so records written before the field existed read the same
                    **({"ignore_changes": list(r.ignore_changes)} if r.ignore_changes else {}),
                }
                for r in self.resources
            ],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ResourceGraph:
        """Rebuild a graph written by ``to_json``, checking every field's type first.

        The record is read back from disk, where anything may have been written: each field must
        have the type ``to_json`` gives it (strings, lists of strings, objects), and values
        nested deeper than ``MAX_DEPTH`` are refused, so a hostile record is a ``ValueError``,
        never another exception later.

        Raises:
            ValueError: the data is not a graph of a known format.

        """
        if not isinstance(data, Mapping) or data.get("graph_format") != GRAPH_FORMAT:
            raise ValueError("not a gpupool resource graph of format " + GRAPH_FORMAT)
        resources = data.get("resources")
        if not isinstance(resources, list):
            raise ValueError("resources must be a list")
        return cls(
            stack=_text(data, "stack"),
            cloud=_text(data, "cloud"),
            resources=tuple(_resource(r) for r in resources),
        )

    def dumps(self) -> str:
        """Serialise deterministically (sorted keys, no timestamps)."""
        return json.dumps(self.to_json(), sort_keys=True, indent=1, ensure_ascii=False) + "\n"


_REF_KEY = "$ref"
_LOOKUP_KEY = "$lookup"
#: how deeply values in a recorded graph may nest (gpupool's own go about 10 levels deep)
MAX_DEPTH = 64


def _text(data: Mapping[str, Any], key: str, default: str | None = None) -> str:
    value = data.get(key, default)
    if not isinstance(value, str):
        raise ValueError(f"{key} must be a string")
    return value


def _texts(data: Mapping[str, Any], key: str) -> tuple[str, ...]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{key} must be a list of strings")
    return tuple(value)


def _object(value: Any, key: str, *, nullable: bool = False) -> Any:
    if value is None and nullable:
        return None
    if not isinstance(value, Mapping):
        raise ValueError(f"{key} must be an object")
    return _decode(value)


def _resource(r: Any) -> Resource:
    if not isinstance(r, Mapping):
        raise ValueError("each resource must be an object")
    provider = r.get("provider")
    if provider is not None and not isinstance(provider, str):
        raise ValueError("provider must be a string or null")
    return Resource(
        address=_text(r, "address"),
        type=_text(r, "type"),
        name=_text(r, "name"),
        inputs=_object(r.get("inputs"), "inputs"),
        depends_on=_texts(r, "depends_on"),
        provider=provider,
        replace_on=_texts(r, "replace_on"),
        owner=_text(r, "owner", "cluster"),
        facts=_object(r.get("facts") or {}, "facts"),
        manifest=_object(r.get("manifest"), "manifest", nullable=True),
        ignore_changes=_texts(r, "ignore_changes"),
    )


def _encode(v: Any) -> Any:
    if isinstance(v, Ref):
        return {_REF_KEY: [v.address, v.attr]}
    if isinstance(v, Lookup):
        return {_LOOKUP_KEY: [v.function, _encode(v.args)]}
    if isinstance(v, Mapping):
        return {str(k): _encode(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_encode(x) for x in v]
    return v


def _decode(v: Any, depth: int = 0) -> Any:
    """Turn JSON back into plain values, ``Ref`` and ``Lookup`` (``ValueError`` when malformed)."""
    if depth > MAX_DEPTH:
        raise ValueError(f"values nest deeper than {MAX_DEPTH} levels")
    if isinstance(v, Mapping):
        if set(v) == {_REF_KEY}:
            ref = v[_REF_KEY]
            if not (isinstance(ref, list) and len(ref) == 2
                    and all(isinstance(x, str) for x in ref)):
                raise ValueError(f"{_REF_KEY} must be [address, attribute]")
            return Ref(ref[0], ref[1])
        if set(v) == {_LOOKUP_KEY}:
            lookup = v[_LOOKUP_KEY]
            if not (isinstance(lookup, list) and len(lookup) == 2 and isinstance(lookup[0], str)
                    and isinstance(lookup[1], Mapping)):
                raise ValueError(f"{_LOOKUP_KEY} must be [function, arguments]")
            return Lookup(lookup[0], _decode(lookup[1], depth + 1))
        return {str(k): _decode(x, depth + 1) for k, x in v.items()}
    if isinstance(v, list):
        return [_decode(x, depth + 1) for x in v]
    return v


def order(resources: list[Resource]) -> tuple[Resource, ...]:
    """Order resources so each comes after what it depends on (stable otherwise).

    Raises:
        ValueError: a dependency cycle or a dependency on an unknown address.

    """
    by_addr = {r.address: r for r in resources}
    done: set[str] = set()
    out: list[Resource] = []
    for root in resources:
        if root.address in done:
            continue
        # the common case, nearly every resource of a built graph: everything it depends on is
        # already placed, so it goes next (what the walk below would do, without the walk)
        if all(dep in done for dep in _dependencies(root)):
            done.add(root.address)
            out.append(root)
            continue
        # iterative depth-first walk; "visiting" marks catch cycles
        visiting: set[str] = set()
        work: list[tuple[Resource, bool]] = [(root, False)]
        while work:
            res, expanded = work.pop()
            if res.address in done:
                continue
            if expanded:
                visiting.discard(res.address)
                done.add(res.address)
                out.append(res)
                continue
            if res.address in visiting:
                raise ValueError(f"dependency cycle through {res.address}")
            visiting.add(res.address)
            work.append((res, True))
            for dep in reversed(_dependencies(res)):
                if dep not in by_addr:
                    raise ValueError(f"{res.address} depends on unknown {dep}")
                if dep not in done:
                    if dep in visiting:
                        raise ValueError(f"dependency cycle through {dep}")
                    work.append((by_addr[dep], False))
    return tuple(out)


def _dependencies(res: Resource) -> list[str]:
    """Return the addresses ``res`` depends on: ``depends_on``, its inputs' refs, its provider."""
    # a Kubernetes object's inputs are its manifest, plain data the API server reads, so they
    # hold no Ref: skip the walk (20,000 of them in a 1,000-pool stack)
    refs = () if res.manifest is not None else res.refs()
    deps = [*res.depends_on, *(x.address for x in refs)]
    if res.provider:
        deps.append(res.provider)
    return deps
