"""The services in a plan (``gpupool/plan/services.py``, ``gpupool/views/plan_services.py``).

A plan counts a service as validation does (``gpupool.facts.services``): slots and GPUs at
``replicas.min`` and ``replicas.max`` beside its pool's slots at ``nodes.max``, its cost at both
ends from its pool's price of one GPU an hour, and a ScaledObject's change in service terms.
"""

from __future__ import annotations

import json

from gpupool import plan
from gpupool.assemble import build
from gpupool.model import Stack
from gpupool.views import plan as plan_view
from tests.paths import FIXTURES
from tests.stacks import load_stack, load_stack_text

CLEAN = FIXTURES / "valid" / "services-clean.yaml"


def _plan(desired: Stack, base: Stack | None) -> plan.PlanResult:
    graph = None if base is None else build(base)
    return plan.make_plan(plan.Base("file", "base.yaml", graph), build(desired), desired)


def _bigger_ranker() -> Stack:
    text = CLEAN.read_text(encoding="utf-8").replace("replicas: {min: 2, max: 12}",
                                                       "replicas: {min: 2, max: 16}")
    return load_stack_text(text.replace("limit: {gpus: 12}", "limit: {gpus: 16}"))


def test_each_service_is_counted_at_both_ends() -> None:
    result = _plan(load_stack(CLEAN), None)
    by = {p.service: p for p in result.services}
    tiny = by["tiny"]  # 0.25 of an L4 on a pool of 4 slots per GPU: one slot per replica
    assert (tiny.slots, tiny.pool_slots, tiny.slot) == ((2, 16), 16, "1/4 GPU")
    assert (tiny.gpus.min, tiny.gpus.max) == (0.5, 4.0)
    embed = by["batch-embed"]  # two whole GPUs per replica, scaled to zero
    assert embed.slots == (0, 4) and embed.replicas == (0, 2)
    assert by["notebook-llm"].slo == "queue 2 s" and by["ranker"].slo == "p95 latency 0.2 s"
    price = result.tenant_cost.gpu_hourly["frac"] if result.tenant_cost else None
    assert price is not None and tiny.hourly is not None
    assert tiny.hourly.max == 4.0 * price.max


def test_a_pool_with_no_node_at_nodes_min_is_still_priced() -> None:
    """Pool whole has nodes.min 0: no GPU there, so its first node's price per GPU stands in."""
    result = _plan(load_stack(CLEAN), None)
    ranker = next(p for p in result.services if p.service == "ranker")
    gpu = result.tenant_cost.gpu_hourly["whole"] if result.tenant_cost else None
    assert gpu is not None and gpu.min == gpu.max and gpu.max
    assert ranker.hourly is not None
    assert (ranker.hourly.min, ranker.hourly.max) == (2 * gpu.max, 12 * gpu.max)


def test_a_bigger_replicas_max_is_explained_in_service_terms() -> None:
    result = _plan(_bigger_ranker(), load_stack(CLEAN))
    [change] = [c for c in result.changes if c.address == "k8s.scaledobject.serve.ranker"]
    assert change.action == "update"
    assert change.reasons[0] == (
        "replicas.max 12 -> 16: the ScaledObject may now ask for 4 more L4 whole GPU slots; "
        "pool whole holds 16 at nodes.max")


def test_a_new_service_says_what_it_may_ask_for() -> None:
    result = _plan(load_stack(CLEAN), None)
    [change] = [c for c in result.changes if c.address == "k8s.scaledobject.small.tiny"]
    assert "KEDA scales tiny between 2 and 16 replicas, up to 16 L4 1/4 GPU slots of pool frac" \
        in change.reasons


def test_every_view_carries_the_services() -> None:
    result = _plan(load_stack(CLEAN), None)
    doc = json.loads(plan_view.render(result, "json").result)
    assert [s["service"] for s in doc["services"]] == [p.service for p in result.services]
    tiny = next(s for s in doc["services"] if s["service"] == "tiny")
    assert tiny["slots"] == {"min": 2, "max": 16} and tiny["poolSlotsAtNodesMax"] == 16
    assert {t["tenant"] for t in doc["serviceCost"]} == {"serve", "notebooks", "small"}
    text = plan_view.render(result, "text").result
    assert "Services (KEDA scales each between replicas.min and replicas.max):" in text
    markdown = plan_view.render(result, "markdown").result
    assert "#### Services (KEDA, replicas.min to replicas.max)" in markdown
    assert "| tiny |" in markdown.replace("`", "")


def test_no_service_no_section() -> None:
    result = _plan(load_stack("aws-inference-l4"), None)
    assert result.services == ()
    assert "Services (" not in plan_view.render(result, "text").result
    assert json.loads(plan_view.render(result, "json").result)["services"] == []
