"""Stack fields that used to render nothing: minimum runtime, queue priority, drain time, spread.

Each test changes one field and checks what the rendered configuration does with it, citing
the upstream document the rendering follows.
"""

from __future__ import annotations

import dataclasses

import jsonschema
import pytest
import yaml

from gpupool import assemble
from gpupool.facts.tenancy import PRIORITY_VALUES
from gpupool.model import Interruption, Stack
from gpupool.providers import gcp
from gpupool.sharing import kai, snippets
from tests.manifests import validate_manifests
from tests.paths import shared_upstream
from tests.stacks import load_stack


def _queue(stack: Stack, tenant: str) -> dict:
    graph = assemble.build(stack)
    (queue,) = [r.manifest for r in graph.resources
                if r.manifest and r.manifest["kind"] == "Queue"
                and r.manifest["metadata"]["name"] == tenant]
    return dict(queue)


@pytest.mark.cloud_sdks  # kubernetes-validate checks the Queue against its CRD
def test_min_runtime_and_priority_reach_the_kai_queue() -> None:
    # KAI v0.17.0 Queue CRD: spec.preemptMinRuntime / reclaimMinRuntime (metav1.Duration strings)
    # and spec.priority ("over-quota resources will be divided first among queues with higher
    # priority"); docs/plugins/minruntime.md shows "20s"-style values.
    stack = load_stack("azure-kai-fair")
    nlp = _queue(stack, "team-nlp")
    assert nlp["spec"]["preemptMinRuntime"] == "30m"
    assert nlp["spec"]["reclaimMinRuntime"] == "1h"
    assert nlp["spec"]["priority"] == PRIORITY_VALUES["low"]
    cv = _queue(stack, "team-cv")
    assert "preemptMinRuntime" not in cv["spec"] and "reclaimMinRuntime" not in cv["spec"]
    assert validate_manifests([nlp, cv]) == []  # the Queue CRD's schema
    high = dataclasses.replace(stack.tenants[1], priority="high")
    assert kai.queue_spec(stack, high)["priority"] == PRIORITY_VALUES["high"]


def test_drain_seconds_become_the_pods_grace_period() -> None:
    # Kubernetes: terminationGracePeriodSeconds is how long the kubelet waits after SIGTERM
    # (concepts/workloads/pods/pod-lifecycle, "Termination of Pods").
    stack = load_stack("azure-kai-fair")
    spot = next(p for p in stack.pools if p.capacity.type == "spot")
    tenant = next(t for t in stack.tenants if spot.name in t.pools)
    grace = {}
    for drain in (5, 25):
        pool = dataclasses.replace(spot, interruption=Interruption(drain, "required"))
        changed = dataclasses.replace(stack, pools=tuple(pool if p.name == spot.name else p
                                                         for p in stack.pools))
        doc = yaml.safe_load(snippets.snippet(changed, tenant, pool))
        grace[drain] = doc["spec"]["terminationGracePeriodSeconds"]
    assert grace == {5: 5, 25: 25}


def test_spread_pools_spread_pods_and_nodes_over_zones() -> None:
    # Kubernetes topologySpreadConstraints (concepts/scheduling-eviction/
    # topology-spread-constraints): maxSkew 1 over topology.kubernetes.io/zone; GKE node pool
    # autoscaling.location_policy BALANCED spreads nodes evenly over the node locations.
    stack = load_stack("aws-inference-l4")
    spread = next(p for p in stack.pools if p.topology == "spread")
    tenant = next(t for t in stack.tenants if spread.name in t.pools)
    doc = yaml.safe_load(snippets.snippet(stack, tenant, spread))
    (constraint,) = doc["spec"]["topologySpreadConstraints"]
    assert constraint["topologyKey"] == "topology.kubernetes.io/zone"
    assert constraint["maxSkew"] == 1
    selected = constraint["labelSelector"]["matchLabels"]
    assert selected.items() <= doc["metadata"]["labels"].items()  # the pod is counted itself
    anywhere = dataclasses.replace(spread, topology="any")
    assert "topologySpreadConstraints" not in yaml.safe_load(
        snippets.snippet(stack, tenant, anywhere))["spec"]

    gke = load_stack("gcp-inference-sharing")
    pool = dataclasses.replace(gke.pools[0], capacity=dataclasses.replace(
        gke.pools[0].capacity, type="spot"))
    policies = {}
    for topology in ("any", "spread"):
        placed = dataclasses.replace(pool, topology=topology)
        stack_ = dataclasses.replace(gke, pools=(placed, *gke.pools[1:]))
        groups = [r for r in gcp.build(stack_).resources if r.type == gcp.NODE_POOL
                  and r.facts.get("pool") == placed.name]
        policies[topology] = {r.inputs["autoscaling"]["location_policy"] for r in groups}
    assert policies == {"any": {"ANY"}, "spread": {"BALANCED"}}


@pytest.mark.cloud_sdks  # kubernetes-validate checks the Queue against its CRD, the Pod strictly
def test_a_checkpoint_write_reaches_the_grace_period_and_the_kai_queue() -> None:
    # KAI v0.17.0 docs/plugins/minruntime.md: min runtime lets a job "complete critical
    # initialization or checkpointing before being interrupted"; Queue CRD preemptMinRuntime /
    # reclaimMinRuntime are Go-duration strings. Kubernetes pod-lifecycle, "Termination of Pods":
    # terminationGracePeriodSeconds is the time the container gets after SIGTERM.
    stack = load_stack("checkpoint-spot-kai")
    # research has no checkpoint of its own: the pool's 60 s write; batch its own 100 s
    assert _queue(stack, "research")["spec"]["preemptMinRuntime"] == "60s"
    assert _queue(stack, "research")["spec"]["reclaimMinRuntime"] == "60s"
    batch = _queue(stack, "batch")
    assert (batch["spec"]["preemptMinRuntime"], batch["spec"]["reclaimMinRuntime"]) == (
        "100s", "100s")
    # a declared minRuntime is kept (validate warns when it is shorter than the write)
    declared = dataclasses.replace(stack.tenants[1], preempt_min_runtime="1h")
    spec = kai.queue_spec(stack, declared)
    assert (spec["preemptMinRuntime"], spec["reclaimMinRuntime"]) == ("1h", "100s")
    pool = stack.pools[0]
    # on the spot pool the drain time sets the grace period, which fits the 100 s write
    doc = yaml.safe_load(snippets.snippet(stack, stack.tenants[1], pool))
    assert doc["spec"]["terminationGracePeriodSeconds"] == 120
    # without drainSeconds the write sets it
    no_drain = dataclasses.replace(pool, interruption=Interruption(None, "required", 0.05))
    changed = dataclasses.replace(stack, pools=(no_drain,))
    doc = yaml.safe_load(snippets.snippet(changed, changed.tenants[1], no_drain))
    assert doc["spec"]["terminationGracePeriodSeconds"] == 100
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {**doc["metadata"], "name": "p"},
           "spec": doc["spec"]}
    assert validate_manifests([_queue(stack, "research"), batch, pod]) == []


def test_the_checkpoint_queues_fit_the_pinned_kai_queue_crd() -> None:
    # the Queue CRD of KAI v0.17.0 as released (../shared/reference/upstream/
    # kai-scheduler-v0.17.0-queues-crd.yaml, SOURCES.md): the rendered specs, with the minimum
    # runtimes gpupool derives from writeSeconds, validate against its v2 openAPIV3Schema
    crd = yaml.safe_load(shared_upstream("kai-scheduler-v0.17.0-queues-crd.yaml").read_text(
        encoding="utf-8"))
    (v2,) = [v for v in crd["spec"]["versions"] if v["name"] == "v2"]
    schema = v2["schema"]["openAPIV3Schema"]
    props = schema["properties"]["spec"]["properties"]
    assert props["preemptMinRuntime"]["type"] == props["reclaimMinRuntime"]["type"] == "string"
    stack = load_stack("checkpoint-spot-kai")
    for tenant in ("research", "batch"):
        queue = _queue(stack, tenant)
        jsonschema.validate(queue, schema)
        assert queue["spec"]["preemptMinRuntime"].endswith("s")
