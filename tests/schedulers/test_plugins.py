"""The scheduler plug-ins: the registry, the traits the checks and builders ask, the emulation seam.

Each trait is held to the behaviour that reads it (a stack with each scheduler, validated or
rendered), and each ``Emulation`` field to what ``gpupool/simulate/`` does with it (the
simulator reads the fields, never a scheduler's name).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpupool import facts, schedulers
from gpupool.schedulers import base
from gpupool.sharing import scheduler, scheduler_ha
from gpupool.simulate import cluster
from gpupool.simulate.cluster import pool_model
from gpupool.simulate.engine import Simulation
from gpupool.simulate.jobs import Workload
from gpupool.simulate.placement import Node
from gpupool.simulate.tenancy import Tenancy
from gpupool.spec.validate import validate_text
from tests.paths import EXAMPLES, FIXTURES, ROOT
from tests.stacks import load_stack, load_stack_text

NAMES = schedulers.names()
STACKS = sorted([*EXAMPLES.glob("*.yaml"), *(FIXTURES / "valid").glob("*.yaml")])

_FRACTIONAL = """\
apiVersion: gpupool.io/v1
kind: GpuPoolStack
metadata: {{name: t}}
provider: {{cloud: kubernetes}}
cluster: {{scheduler: {scheduler}}}
pools:
  - name: p
    nodeNames: [n1]
    gpu: {{model: L4, count: 1}}
    compute: {{policy: {policy}}}
    sharing:
      mode: fractional
      fractional: {{slotsPerGpu: 2, coresPercent: 50{extra}}}
"""


def _codes(scheduler_name: str, policy: str = "fair", extra: str = "") -> set[str]:
    text = _FRACTIONAL.format(scheduler=scheduler_name, policy=policy, extra=extra)
    return {d.code for d in validate_text(text, "t.yaml").diagnostics}


def test_registry_finds_every_scheduler_by_its_name() -> None:
    assert NAMES[0] == schedulers.default().name
    assert len(set(NAMES)) == len(NAMES)
    for name in NAMES:
        assert schedulers.get(name).name == name
        assert schedulers.find(name) is schedulers.get(name)
    assert schedulers.find("volcano") is None
    with pytest.raises(KeyError):
        schedulers.get("volcano")
    assert not schedulers.default().installs


def test_schema_offers_exactly_the_registered_schedulers() -> None:
    schema = json.loads((ROOT / "schemas" / "gpupool.schema.json").read_text())
    field = schema["properties"]["cluster"]["properties"]["scheduler"]
    assert field["enum"] == list(NAMES)
    assert field["default"] == schedulers.default().name
    codes = {d.code for d in validate_text(
        _FRACTIONAL.format(scheduler="volcano", policy="fair", extra=""), "t.yaml").diagnostics}
    assert codes and all(c.startswith("schema") for c in codes), codes


@pytest.mark.parametrize("name", NAMES)
def test_fraction_traits_are_what_validation_enforces(name: str) -> None:
    plugin = schedulers.get(name)
    codes = _codes(name)
    assert ("fractional.needs-scheduler" in codes) == (not plugin.enforces_fractions)
    assert ("fractional.cores-not-enforced" in codes) == plugin.uncapped_fractions
    over = _codes(name, extra=", memoryOvercommit: 1.5")
    assert ("fractional.overcommit-needs-hami" in over) == (not plugin.virtualises_memory)
    strict = _codes(name, policy="strict")
    # strict on fractions: only a scheduler that caps each slot (HAMi) achieves it
    assert ("policy.unachievable" in strict) == (not plugin.caps_fractions)
    priority = _codes(name, policy="priority")
    assert ("policy.unachievable" in priority) == (not plugin.priority_preemption)


@pytest.mark.parametrize("name", NAMES)
def test_queue_and_device_plugin_traits_are_what_the_stack_gets(name: str) -> None:
    plugin = schedulers.get(name)
    text = (EXAMPLES / "azure-kai-fair.yaml").read_text().replace(
        "scheduler: kai", f"scheduler: {name}"
    )
    result = validate_text(text, "t.yaml")
    codes = {d.code for d in result.diagnostics}
    # quotas are guarantees only where tenants are queues
    assert ("tenant.quota-not-enforced" in codes) == (not plugin.queues)
    if result.stack is None:
        return
    stack = result.stack
    assert schedulers.of(stack) is plugin
    assert facts.of(stack).device_plugin_configs == (
        not plugin.own_device_plugin and not facts.of(stack).cloud_shares_gpus
    )


@pytest.mark.parametrize("path", STACKS, ids=lambda p: p.stem)
def test_builder_half_and_placement_follow_installs(path: Path) -> None:
    stack = load_stack(path)
    plugin = schedulers.of(stack)
    module = scheduler.builder(stack)
    placement = scheduler_ha.placement(stack)
    assert (module is not None) == plugin.installs == (placement is not None)
    if module is not None and placement is not None:
        assert module.__name__ == f"gpupool.sharing.{plugin.name}"
        assert placement.scheduler == plugin.name
        assert callable(module.ha_objects)


@pytest.mark.parametrize("path", STACKS, ids=lambda p: p.stem)
def test_emulation_says_what_the_simulator_does(path: Path) -> None:
    # each field against the simulator part that reads it (gpupool/schedulers/base.py)
    stack = load_stack(path)
    emulation = schedulers.of(stack).emulation
    for pool in stack.pools:
        model = pool_model(stack, pool)
        assert model.device_kind == emulation.device_kind(pool.sharing.kind.scheduler_slots)
    sim = Simulation(stack, Workload(source="none", jobs=()))
    assert sim.packed == emulation.packs
    assert sim.queue_reclaim == (emulation.victims == base.VICTIMS_QUEUE_RECLAIM)
    assert sim.below_quota_first == (emulation.order == base.ORDER_BELOW_QUOTA)
    assert Tenancy(stack).kai == emulation.queue_quotas
    # the node index scores nodes by the plug-in's rules (placement.choose), none by name
    assert cluster.cluster_of(stack).emulation is emulation
    assert sim.emulation is emulation


@pytest.mark.parametrize(("name", "kind"), [("kai", base.DEVICES_FRACTION),
                                            ("hami", base.DEVICES_VGPU)])
def test_a_node_keeps_its_gpus_as_its_pools_device_kind_says(name: str, kind: str) -> None:
    # one L4 (24 GiB) shared in 2 slots: KAI keeps a free share per GPU (1.0), HAMi vGPU slots
    # (its split), memory (24 GiB at memory scaling 1) and cores (100 percent) per GPU
    stack = load_stack_text(_FRACTIONAL.format(scheduler=name, policy="fair", extra=""))
    pm = pool_model(stack, stack.pools[0])
    assert pm.device_kind == kind
    node = Node(0, pm, pm.groups[0], 0, 0.0)
    per_gpu = {base.DEVICES_FRACTION: ([1.0], [], []),
               base.DEVICES_VGPU: ([float(pm.slots_per_gpu)], [24.0], [100.0])}[kind]
    assert (node.dev_free, node.dev_mem, node.dev_cores) == per_gpu


def test_kube_scheduler_nodes_keep_counted_units_only() -> None:
    stack = load_stack("aws-inference-l4")
    for pool in stack.pools:
        pm = pool_model(stack, pool)
        assert pm.device_kind == base.DEVICES_UNITS
        node = Node(0, pm, pm.groups[0], 0, 0.0)
        assert (node.dev_free, node.dev_mem, node.dev_cores) == ([], [], [])
        assert node.units == pm.units and sum(pm.units.values()) > 0


def test_a_default_stack_names_no_scheduler_for_its_pods() -> None:
    stack = load_stack_text(_FRACTIONAL.format(scheduler="hami", policy="fair", extra=""))
    assert schedulers.of(stack).pod_scheduler_name == "hami-scheduler"
    whole = load_stack("aws-inference-l4")
    assert schedulers.of(whole).pod_scheduler_name is None
