"""The simulated cluster holds, at rest, exactly what the plan's capacity says each pool holds."""

from __future__ import annotations

import pytest

from gpupool.plan.capacity import capacity
from gpupool.schedulers.base import DEVICES_FRACTION as DEVICE_KAI
from gpupool.schedulers.base import DEVICES_UNITS as DEVICE_UNITS
from gpupool.schedulers.base import DEVICES_VGPU as DEVICE_HAMI
from gpupool.simulate.cluster import UNBOUNDED, cluster_of, gpus_at
from tests.paths import EXAMPLES
from tests.stacks import load_stack, load_stack_text

EXAMPLE_NAMES = sorted(p.stem for p in EXAMPLES.glob("*.yaml"))


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_capacity_at_rest_equals_the_plans(name: str) -> None:
    """Per pool: GPUs at the fewest and most nodes, resources per node and memory per slot."""
    stack = load_stack(name)
    model = cluster_of(stack)
    for pc in capacity(stack):
        pm = model.pool(pc.pool)
        assert pm is not None
        assert (gpus_at(pm, pm.nodes_min), gpus_at(pm, pm.nodes_max)) == (pc.gpus.min, pc.gpus.max)
        assert pm.nodes_max == pc.nodes.max and pm.nodes_min == pc.nodes.min
        assert pm.units == {r: n * pm.gpus_per_node for r, n in pc.resources.items()}
        assert sum(g.max for g in pm.groups) == sum(g.max for g in pc.groups)


def test_instance_type_gives_cpu_and_memory() -> None:
    """An instance type's host comes from the catalog: g6.2xlarge has 8 vCPUs and 32 GiB."""
    stack = load_stack("aws-inference-l4")
    pm = cluster_of(stack).pool("infer-l4")
    assert pm is not None
    inst = pm.pool.instance
    assert inst is not None and (pm.cpu, pm.memory_gib) == (inst.vcpus, inst.memory_gib)


def test_existing_nodes_take_declared_host_and_hami_devices() -> None:
    """onprem-hami: host.memoryGiB 2048 per node, CPUs unbounded until host.vcpus says them;
    HAMi's split 4 with 20 GiB and 25% cores per slot on dgx."""
    stack = load_stack("onprem-hami")
    pm = cluster_of(stack).pool("dgx")
    assert pm is not None
    assert (pm.cpu, pm.memory_gib) == (UNBOUNDED, 2048.0)
    assert pm.device_kind == DEVICE_HAMI and pm.slots_per_gpu == 4
    assert pm.slot_memory_gib == 20 and pm.slot_cores == 25
    assert not cluster_of(stack).autoscales and pm.existing


def test_host_vcpus_is_read() -> None:
    stack = load_stack_text(
        "apiVersion: gpupool.io/v1\nkind: GpuPoolStack\nmetadata: {name: lab}\n"
        "provider: {cloud: kubernetes, settings: {context: lab}}\n"
        "pools:\n"
        "  - {name: a, nodeNames: [n1, n2], gpu: {model: L4, count: 2},"
        " host: {memoryGiB: 64, vcpus: 16}}\n"
    )
    pm = cluster_of(stack).pool("a")
    assert pm is not None
    assert (pm.cpu, pm.memory_gib, pm.nodes_max) == (16.0, 64.0, 2)
    assert pm.device_kind == DEVICE_UNITS and pm.units == {"nvidia.com/gpu": 2}  # per node


def test_kai_fractional_pool_places_on_devices() -> None:
    """azure-kai-fair's t4-spot: fractions are annotations on whole GPUs, KAI places them."""
    stack = load_stack("azure-kai-fair")
    pm = cluster_of(stack).pool("t4-spot")
    assert pm is not None
    assert pm.device_kind == DEVICE_KAI and pm.slots_per_gpu == 2
    assert pm.units == {"nvidia.com/gpu": pm.gpus_per_node}


def test_mixed_mig_units_per_profile() -> None:
    """aws-training-compact's a100-mig: {1g.10gb: 2, 2g.20gb: 1, 3g.40gb: 1} per GPU, mixed."""
    stack = load_stack("aws-training-compact")
    pm = cluster_of(stack).pool("a100-mig")
    assert pm is not None
    n = pm.gpus_per_node
    assert pm.units == {
        "nvidia.com/mig-1g.10gb": 2 * n, "nvidia.com/mig-2g.20gb": n, "nvidia.com/mig-3g.40gb": n,
    }
    # shares by compute slices over the layout's 7: 1/7, 2/7, 3/7
    assert pm.unit_share["nvidia.com/mig-3g.40gb"] == pytest.approx(3 / 7)
    assert pm.unit_kai_gpus["nvidia.com/mig-3g.40gb"] == 3


def test_split_spot_pool_prices_each_group() -> None:
    """A spot pool with an on-demand base is two groups, spot priced at spot, -od on-demand."""
    stack = load_stack("aws-inference-l4")
    spot = [p for p in cluster_of(stack).pools if any(g.spot for g in p.groups)]
    assert spot
    for pm in spot:
        inst = pm.pool.instance
        assert inst is not None
        for g in pm.groups:
            want = inst.price.spot_hourly if g.spot else inst.price.on_demand_hourly
            assert g.price_hourly == want
