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
        """Yield every ``Ref`` inside the inputs."""
        stack: list[Any] = [self.inputs]
        while stack:
            v = stack.pop()
            if isinstance(v, Ref):
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
        """Rebuild a graph written by ``to_json``.

        Raises:
            ValueError: the data is not a graph of a known format.

        """
        if not isinstance(data, Mapping) or data.get("graph_format") != GRAPH_FORMAT:
            raise ValueError("not a gpupool resource graph of format " + GRAPH_FORMAT)
        return cls(
            stack=str(data["stack"]),
            cloud=str(data["cloud"]),
            resources=tuple(
                Resource(
                    address=r["address"],
                    type=r["type"],
                    name=r["name"],
                    inputs=_decode(r["inputs"]),
                    depends_on=tuple(r.get("depends_on", ())),
                    provider=r.get("provider"),
                    replace_on=tuple(r.get("replace_on", ())),
                    owner=r.get("owner", "cluster"),
                    facts=_decode(r.get("facts") or {}),
                    manifest=_decode(r.get("manifest")),
                    ignore_changes=tuple(r.get("ignore_changes", ())),
                )
                for r in data["resources"]
            ),
        )

    def dumps(self) -> str:
        """Serialise deterministically (sorted keys, no timestamps)."""
        return json.dumps(self.to_json(), sort_keys=True, indent=1, ensure_ascii=False) + "\n"


_REF_KEY = "$ref"
_LOOKUP_KEY = "$lookup"


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


def _decode(v: Any) -> Any:
    if isinstance(v, Mapping):
        if set(v) == {_REF_KEY}:
            address, attr = v[_REF_KEY]
            return Ref(address, attr)
        if set(v) == {_LOOKUP_KEY}:
            function, args = v[_LOOKUP_KEY]
            return Lookup(function, _decode(args))
        return {k: _decode(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_decode(x) for x in v]
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
            deps = [*res.depends_on, *(x.address for x in res.refs())]
            if res.provider:
                deps.append(res.provider)
            for dep in reversed(deps):
                if dep not in by_addr:
                    raise ValueError(f"{res.address} depends on unknown {dep}")
                if dep not in done:
                    if dep in visiting:
                        raise ValueError(f"dependency cycle through {dep}")
                    work.append((by_addr[dep], False))
    return tuple(out)
