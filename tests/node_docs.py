"""Helpers for the node documents: gpupool's own and, beside the repository, upstream ones.

gpupool's own documents are in tests/fixtures/nodes/docs/ (see its README): node objects written
for gpupool, in its node names, pool labels and instance types, that keep the label spellings,
annotation encodings, allocatable shapes and condition reasons of the GPU Operator, GFD, GKE,
HAMi, AKS Node Problem Detector and NVSentinel. Each names its ``twin``: the upstream node
object (from vendors' docs and agents' tests) with the same features, kept in
SHARED_UPSTREAM/nodes/ (its README names each one's source). Tests run on each
own document, and as conformance tests on its twin when that folder is present
(``twins``); without it those skip, naming the file.

``load`` reads one document (about or source, shown, node, and ``failures`` where conditions are
shown failed too: own names are read from the repository, upstream ones from SHARED_UPSTREAM);
``SavedNodes`` serves saved nodes as ``CoreV1Api.list_node``
does, through the kubernetes client's own deserialiser; ``observe`` reads them with
``gpupool.cluster.read_gpu_nodes`` and lays the labels gpupool's node pools set over them (the
documented clusters were not made by gpupool; conditions and taints stay as read);
``with_condition`` applies one of a source's ``failures``; ``drift`` returns the summaries of
drift for saved nodes, leaving out findings about parts of a node its source does not show.
``stack`` builds a stack from pool lines.
"""

from __future__ import annotations

import inspect
import json
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import pytest

from gpupool import facts
from gpupool.cluster import ObservedNode, read_gpu_nodes
from gpupool.drift import nodes as node_state
from gpupool.model import Stack
from tests.paths import FIXTURES, shared_upstream
from tests.stacks import load_stack_text

kubernetes = pytest.importorskip("kubernetes")
from kubernetes.client import ApiClient  # noqa: E402

OWN = FIXTURES / "nodes" / "docs"  # gpupool's own node documents

HEAD = """
apiVersion: gpupool.io/v1
kind: GpuPoolStack
metadata: {{name: real}}
{provider}
cluster:
  gpuOperator: {{install: true, driver: {driver}}}
  scheduler: {scheduler}
pools:
{pools}
"""
GCP = "provider: {cloud: gcp, region: us-central1, cluster: c, settings: {project: research-4711}}"
AWS = (
    "provider: {cloud: aws, region: us-east-1, cluster: c, settings: {subnetIds: [s-1],"
    ' nodeRoleArn: "arn:aws:iam::123456789012:role/n"}}'
)
AZURE = "provider: {cloud: azure, region: eastus, cluster: c, settings: {resourceGroup: rg-1}}"
ONPREM = "provider: {cloud: kubernetes, settings: {context: lab}}"

#: Which findings need which part of a node: a source that does not show it cannot be compared.
_NEEDS = (("allocatable ", "allocatable"), ("label ", "labels"))


def stack_text(
    provider: str, *pools: str, driver: str = "operator", scheduler: str = "default"
) -> str:
    """Return stack YAML with these pool lines (YAML flow mappings)."""
    return HEAD.format(
        provider=provider,
        driver=driver,
        scheduler=scheduler,
        pools="\n".join(f"  - {p}" for p in pools),
    )


def stack(
    provider: str, *pools: str, driver: str = "operator", scheduler: str = "default"
) -> Stack:
    """Build a stack from pool lines (YAML flow mappings)."""
    return load_stack_text(
        stack_text(provider, *pools, driver=driver, scheduler=scheduler), "real.yaml"
    )


def load(name: str) -> dict[str, Any]:
    """Return node document ``name``: gpupool's own, or the upstream one in SHARED_UPSTREAM
    (skipping the test, naming the file, when that folder is absent)."""
    own = OWN / f"{name}.json"
    path = own if own.exists() else shared_upstream(f"nodes/{name}.json")
    doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return doc


def own_names() -> list[str]:
    """The names of gpupool's own node documents."""
    return sorted(p.stem for p in OWN.glob("*.json"))


def twin(own: str) -> str:
    """The upstream document that own document ``own`` stands in for."""
    name: str = json.loads((OWN / f"{own}.json").read_text(encoding="utf-8"))["twin"]
    return name


def twins(*own: str) -> list[Any]:
    """Parameters for a test on own documents ``own`` and, as conformance, on their twins."""
    return [pytest.param(n, id=n) for n in own] + [
        pytest.param(twin(n), id=f"upstream {twin(n)}") for n in own]


def node_name(name: str) -> str:
    """The node name in document ``name``."""
    found: str = load(name)["node"]["metadata"]["name"]
    return found


def node_list(*nodes: dict[str, Any]) -> dict[str, Any]:
    """Return a ``GET /api/v1/nodes`` response body holding ``nodes``."""
    return {"apiVersion": "v1", "kind": "NodeList", "metadata": {}, "items": list(nodes)}


class SavedNodes:
    """Serves saved node objects as ``CoreV1Api.list_node`` does, through the client's types."""

    def __init__(self, *nodes: dict[str, Any]) -> None:
        self.nodes = list(nodes)

    def list_node(self, **kwargs: Any) -> Any:
        text = json.dumps(node_list(*self.nodes))
        api_client = ApiClient()
        if "content_type" in inspect.signature(api_client.deserialize).parameters:
            return api_client.deserialize(text, "V1NodeList", "application/json")
        return api_client.deserialize(SimpleNamespace(data=text), "V1NodeList")  # client < 34


def own_labels(st: Stack, pool: str) -> dict[str, str]:
    """The labels gpupool's node pools put on the nodes of ``pool``."""
    return dict(facts.node_labels(st, st.pool(pool)))


def observe(st: Stack, pool: str, *docs: dict[str, Any]) -> list[ObservedNode]:
    """Read saved nodes through the client and lay gpupool's own labels of ``pool`` over them."""
    own = own_labels(st, pool)
    out = []
    for node in read_gpu_nodes(api=SavedNodes(*(d["node"] for d in docs))):
        out.append(replace(node, labels={**node.labels, **own}))
    return out


def shown(summaries: list[str], *docs: dict[str, Any]) -> list[str]:
    """Leave out findings about parts of a node (labels, allocatable) a source does not show."""
    parts = set.intersection(*(set(d["shown"]) for d in docs)) if docs else set()
    return [s for s in summaries if all(part in parts or not s.startswith(p) for p, part in _NEEDS)]


def with_condition(doc: dict[str, Any], condition: dict[str, Any]) -> dict[str, Any]:
    """Return ``doc`` with its node's condition of that type replaced by ``condition`` (added
    when the node has none of that type): one of the ``failures`` a source shows, applied."""
    out = json.loads(json.dumps(doc))
    status = out["node"].setdefault("status", {})
    kept = [c for c in status.get("conditions", []) if c["type"] != condition["type"]]
    status["conditions"] = [*kept, condition]
    return out


def drift(
    st: Stack,
    pool: str,
    *names: str,
    edit: dict[str, str] | None = None,
    failure: dict[str, Any] | None = None,
) -> list[str]:
    """Return the summaries of drift for node documents ``names`` in ``pool`` of ``st``.

    ``edit`` changes node labels first (a one-value change to a node); ``failure`` puts
    one condition on each node (``with_condition``).
    """
    docs = [load(n) for n in names]
    if failure:
        docs = [with_condition(d, failure) for d in docs]
    if edit:
        for d in docs:
            d["node"]["metadata"].setdefault("labels", {}).update(edit)
    items = node_state.compare(st, observe(st, pool, *docs))
    return shown([i.summary for i in items], *docs)
