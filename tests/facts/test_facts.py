"""One GPU truth: what a pool's nodes advertise is the same in every part that renders or reads it.

Four consumers state how many units one physical GPU of a pool yields, each in its own output:

1. the rendered sharing configuration: HAMi's ``deviceSplitCount`` or its per-node override
   (HAMi 2.10.0 ``charts/hami/values.yaml`` ``devicePlugin.deviceSplitCount`` and
   ``devicePlugin.nodeConfiguration``), else the device-plugin config's replicas (NVIDIA
   k8s-device-plugin README, ``sharing.timeSlicing`` / ``sharing.mps``), the mig-parted config's
   ``mig-devices`` (mig-parted ``config-default.yaml`` format) or GKE's node-pool sharing
   settings (``gpu_sharing_config``, ``gpu_partition_size``);
2. the plan's capacity table;
3. the tenants' ResourceQuotas (a tenant per pool without a limit gets what the pool holds;
   under KAI none: its queue limit is the ceiling, ``gpupool.facts.tenancy.quota_lines``);
4. drift's expected allocatable per node.

The test reads each from the consumer's output, never from ``gpupool.facts``, and demands they
agree for every pool of every example stack and of the HAMi probe (one fractional pool with 4
slots beside one exclusive pool on cloud nodes HAMi cannot address by name).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
import yaml

from gpupool import assemble, catalog, facts, plan, schedulers
from gpupool.drift import expected as drift_expected
from gpupool.facts.names import GPU_RESOURCE, MIG_CONFIGMAP_KEY, mig_resource
from gpupool.graph import ResourceGraph
from gpupool.model import Pool, Stack
from tests import paths
from tests.stacks import load_stack_text

EXAMPLES = sorted(paths.EXAMPLES.glob("*.yaml"))

HAMI_PROBE = """
apiVersion: gpupool.io/v1
kind: GpuPoolStack
metadata: {name: hami-probe}
provider:
  cloud: aws
  region: us-east-1
  cluster: probe
  settings: {subnetIds: [subnet-0a1b2c3d4e5f60718], nodeRoleArn: "arn:aws:iam::123456789012:role/n"}
cluster:
  scheduler: hami
pools:
  - name: slices
    instanceType: g6.2xlarge
    nodes: {min: 1, max: 4}
    sharing: {mode: fractional, fractional: {slotsPerGpu: 4, coresPercent: 25}}
  - name: whole
    instanceType: p4d.24xlarge
    nodes: {min: 0, max: 2}
    sharing: {mode: exclusive}
"""


def _with_probe_tenants(data: dict[str, Any]) -> dict[str, Any]:
    """Return the stack data with one unlimited tenant per pool (no other tenant, no service)."""
    out = copy.deepcopy(data)
    out.pop("services", None)  # they name the tenants replaced here, and advertise nothing
    out["tenants"] = [
        {"name": f"probe-{i}", "pools": [p["name"]], "priority": "low"}
        for i, p in enumerate(out["pools"])
    ]
    return out


def _stack(text: str, name: str) -> Stack:
    data = _with_probe_tenants(yaml.safe_load(text))
    return load_stack_text(yaml.safe_dump(data, sort_keys=False), name)


def _cases() -> list[tuple[str, str]]:
    return [(p.name, p.read_text()) for p in EXAMPLES] + [("hami-probe.yaml", HAMI_PROBE)]


def _manifest(graph: ResourceGraph, kind: str, name: str) -> dict[str, Any] | None:
    for r in graph.resources:
        m = r.manifest
        if m and m.get("kind") == kind and m.get("metadata", {}).get("name") == name:
            return dict(m)
    return None


def rendered_units(stack: Stack, graph: ResourceGraph, pool: Pool) -> dict[str, int]:
    """Units per GPU as the rendered sharing configuration makes the node advertise them."""
    hami = graph.get("helm.hami")
    if hami is not None:
        plugin = hami.inputs["values"]["devicePlugin"]
        split = plugin["deviceSplitCount"]
        config = plugin.get("nodeConfiguration", {}).get("config")
        if config:
            per_node = {e["name"]: e["devicesplitcount"] for e in json.loads(config)["nodeconfig"]}
            splits = {per_node.get(n, split) for n in pool.node_names} or {split}
            [split] = splits
        return {GPU_RESOURCE: split}
    for r in graph.resources:  # GKE's own device plugin shares from node-pool settings
        if r.owner == f"pool:{pool.name}" and "node_config" in r.inputs:
            [accel] = r.inputs["node_config"].get("guest_accelerators") or [{}]
            if "gpu_sharing_config" in accel:
                return {GPU_RESOURCE: accel["gpu_sharing_config"]["max_shared_clients_per_gpu"]}
            if "gpu_partition_size" in accel:
                [(_, count)] = pool.sharing.mig_layout
                gpu = catalog.gpu(pool.gpu.name) if pool.gpu else None
                prof = gpu.mig.profile(accel["gpu_partition_size"]) if gpu and gpu.mig else None
                return {GPU_RESOURCE: prof.max_count if prof else count}
            if accel:
                return {GPU_RESOURCE: 1}
    dp = _manifest(graph, "ConfigMap", "gpupool-device-plugin-config")
    mig = _manifest(graph, "ConfigMap", "gpupool-mig-parted-config")
    strategy = "single"
    if dp is not None:
        cfg = yaml.safe_load(dp["data"][f"pool-{pool.name}"])
        strategy = cfg["flags"]["migStrategy"]
        for block in cfg.get("sharing", {}).values():
            [res] = block["resources"]
            return {res["name"]: res["replicas"]}
    if mig is not None:
        configs = yaml.safe_load(mig["data"][MIG_CONFIGMAP_KEY])["mig-configs"]
        entry = configs.get(f"pool-{pool.name}")
        if entry:
            devices = entry[0]["mig-devices"]
            if strategy == "mixed":
                return {mig_resource(p): c for p, c in devices.items()}
            return {GPU_RESOURCE: sum(devices.values())}
    return {GPU_RESOURCE: 1}


def plan_units(stack: Stack, pool: Pool) -> dict[str, int]:
    """Units per GPU as the plan's capacity table states them."""
    [row] = [c for c in plan.capacity(stack) if c.pool == pool.name]
    return dict(row.resources)


def quota_units(stack: Stack, graph: ResourceGraph, pool: Pool) -> dict[str, int]:
    """Units per GPU as the pool's own (unlimited) tenant's ResourceQuota counts them."""
    [tenant] = [t for t in stack.tenants if t.pools == (pool.name,)]
    quotas = [
        r.manifest
        for r in graph.resources
        if r.manifest
        and r.manifest.get("kind") == "ResourceQuota"
        and r.manifest["metadata"].get("namespace") == tenant.namespace
    ]
    assert len(quotas) <= 1
    if not quotas:
        return {}
    gpus = pool.nodes.max * pool.gpus_per_node
    out = {}
    for key, value in quotas[0]["spec"]["hard"].items():
        if int(value):
            assert int(value) % gpus == 0, (key, value, gpus)
            out[key.removeprefix("requests.")] = int(value) // gpus
    return out


def drift_units(stack: Stack, pool: Pool) -> dict[str, int]:
    """Units per GPU as drift expects each node to report them as allocatable."""
    want = drift_expected.expected(stack, pool)
    n = pool.gpus_per_node
    assert all(v % n == 0 for v in want.allocatable.values())
    return {res: v // n for res, v in want.allocatable.items()}


@pytest.mark.parametrize(("name", "text"), _cases(), ids=[c[0] for c in _cases()])
def test_every_consumer_counts_the_same_units(name: str, text: str) -> None:
    stack = _stack(text, name)
    graph = assemble.build(stack)
    for pool in stack.pools:
        rendered = rendered_units(stack, graph, pool)
        assert plan_units(stack, pool) == rendered, pool.name
        if schedulers.of(stack).queue_limits:  # no ResourceQuota line on a pool's own GPUs
            assert quota_units(stack, graph, pool) == {}, pool.name
        else:
            assert quota_units(stack, graph, pool) == rendered, pool.name
        assert drift_units(stack, pool) == rendered, pool.name


def test_hami_probe_exclusive_pool_is_counted_at_the_chart_wide_split() -> None:
    """HAMi's split is chart-wide on cloud nodes: the exclusive pool advertises 4 per GPU too."""
    stack = _stack(HAMI_PROBE, "hami-probe.yaml")
    whole = stack.pool("whole")
    assert whole is not None
    assert facts.exposure(stack, whole) == {GPU_RESOURCE: 4}
    assert facts.pool_facts(stack, whole).slots_per_gpu == 4


def test_kai_counts_a_mixed_mig_slice_by_its_compute_slices() -> None:
    """KAI v0.17.0 GetGpusQuota: nvidia.com/mig-<g>g.<m>gb counts g GPUs per slice."""
    text = (paths.EXAMPLES / "aws-training-compact.yaml").read_text()
    stack = _stack(text, "aws-training-compact.yaml")
    mig_pool = next(p for p in stack.pools if p.sharing.kind.partitioned)
    pf = facts.pool_facts(stack, mig_pool)
    expected = sum(facts.kai_compute_slices(p) * c for p, c in mig_pool.sharing.mig_layout)
    assert pf.kai_gpus_per_gpu == expected
    assert expected == 7  # 1g.10gb x2 + 2g.20gb + 3g.40gb: the whole A100


def test_facts_are_computed_once_per_stack() -> None:
    stack = _stack(HAMI_PROBE, "hami-probe.yaml")
    assert facts.of(stack) is facts.of(stack)
