"""The resource graph ``gpupool.assemble.build`` makes grows in step with the stack.

The rendered program registers every dependency edge with the Pulumi engine, so edges that grow
with the square of the tenants make a large stack's preview crawl: admission policies once
followed every tenant's namespace, 2.6 million edges for 1,600 tenants, and ``bench/run.py``'s
1,000-pool program under mocks went from about a minute to more than fifteen. These tests count
edges (never time): a stack with 4x the pools and tenants must have at most about 4x the edges.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import yaml

from gpupool import assemble
from gpupool.graph import ResourceGraph
from tests.stacks import load_stack_text

BENCH = Path(__file__).resolve().parent.parent / "bench" / "generate.py"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_generate", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _graph(pools: int) -> ResourceGraph:
    text = yaml.safe_dump(_generator().stack(pools, 4), sort_keys=False)
    return assemble.build(load_stack_text(text))


def _edges(graph: ResourceGraph) -> int:
    return sum(len(r.depends_on) for r in graph.resources)


def test_dependency_edges_grow_linearly_with_pools_and_tenants() -> None:
    small, large = _graph(5), _graph(20)
    assert len(large.resources) <= 4.5 * len(small.resources)
    assert _edges(large) <= 4.5 * _edges(small), (_edges(small), _edges(large))


def test_each_admission_policy_follows_its_own_namespace_only() -> None:
    graph = _graph(5)
    namespaces = {r.manifest["metadata"]["name"]: r.address for r in graph.resources
                  if r.manifest and r.manifest["kind"] == "Namespace"}
    policies = [r for r in graph.resources
                if r.manifest and r.manifest["kind"] == "ValidatingAdmissionPolicy"]
    assert len(policies) == 20
    for policy in policies:
        # the policy's own namespace: the one its binding selects
        binding = next(r for r in graph.resources if r.manifest
                       and r.manifest["kind"] == "ValidatingAdmissionPolicyBinding"
                       and r.manifest["spec"]["policyName"] == policy.manifest["metadata"]["name"])
        selected = binding.manifest["spec"]["matchResources"]["namespaceSelector"]["matchLabels"]
        assert policy.depends_on == (namespaces[selected["kubernetes.io/metadata.name"]],)


def test_kubernetes_objects_hold_no_reference_in_their_inputs() -> None:
    """``graph.order`` skips the walk for Refs in a resource with a manifest: its inputs are the
    manifest, plain data. Every example, fixture stack and the benchmark stack hold to that."""
    from tests.paths import EXAMPLES, FIXTURES
    from tests.stacks import load_stack

    files = sorted(EXAMPLES.glob("*.yaml")) + sorted((FIXTURES / "valid").glob("*.yaml"))
    graphs = [assemble.build(load_stack(f)) for f in files] + [_graph(10)]
    checked = 0
    for graph in graphs:
        for res in graph.resources:
            if res.manifest is not None:
                checked += 1
                assert not list(res.refs()), res.address
    assert checked > 100
    # and a resource that does refer to another is still ordered after it
    assert any(list(r.refs()) for g in graphs for r in g.resources if r.manifest is None)


def test_order_puts_dependencies_first_and_keeps_the_rest_in_place() -> None:
    """``graph.order``: a resource whose dependencies are placed goes next; one listed before what
    it depends on (by ``depends_on``, a ``Ref`` in its inputs or its provider) waits for it; a
    cycle or an unknown address is an error."""
    import pytest

    from gpupool.graph import Ref, Resource, order

    def res(address: str, *deps: str, ref: str = "", provider: str | None = None) -> Resource:
        inputs = {"x": [{"y": Ref(ref)}]} if ref else {}
        return Resource(address, "t", address, inputs, depends_on=deps, provider=provider)

    given = [res("a"), res("b", "d"), res("c", ref="e"), res("d", provider="p"), res("p"),
             res("e"), res("f", "a")]
    assert [r.address for r in order(given)] == ["a", "p", "d", "b", "e", "c", "f"]
    with pytest.raises(ValueError, match="dependency cycle through"):
        order([res("a", "b"), res("b", "a")])
    with pytest.raises(ValueError, match="dependency cycle through a"):
        order([res("a", "a")])
    with pytest.raises(ValueError, match="a depends on unknown z"):
        order([res("a", "z")])
