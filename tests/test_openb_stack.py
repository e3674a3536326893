"""bench/openb_stack.py: the openb node list written as a stack that validates.

The node list's columns (``sn, cpu_milli, memory_mib, gpu, model``) are those of alibaba/clusterdata
``cluster-trace-gpu-v2023/csv/openb_node_list_gpu_node.csv``. The made-up list below keeps the
converter tested without the upstream files; the published list is read through
``tests.paths.shared_upstream``.

``host.vcpus`` is issue 28's new key (added to the schema with the simulator); where this
checkout's schema does not have it yet, the stack is validated without it and the key's values
are checked on the data.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

from gpupool.model import Stack
from tests import bench_scripts
from tests.paths import ROOT, shared_upstream
from tests.stacks import load_stack_text

NODES = """sn,cpu_milli,memory_mib,gpu,model
node-a1,96000,393216,8,G2
node-a2,96000,393216,8,G2
node-b1,32000,131072,4,V100M16
node-c1,16000,122880,2,P100
node-c2,64000,262144,2,P100
"""


def _converter() -> ModuleType:
    return bench_scripts.load("openb_stack")


def _schema_has_vcpus() -> bool:
    schema = json.loads((ROOT / "schemas" / "gpupool.schema.json").read_text(encoding="utf-8"))
    host = schema["properties"]["pools"]["items"]["properties"]["host"]
    return "vcpus" in host["properties"]


def _validated(data: dict[str, Any]) -> Stack:
    """Validate the stack, without ``host.vcpus`` where the schema does not know it yet."""
    data = copy.deepcopy(data)
    if not _schema_has_vcpus():
        for pool in data["pools"]:
            del pool["host"]["vcpus"]
    return load_stack_text(yaml.safe_dump(data, sort_keys=False))


def test_one_pool_per_model_and_node_shape(tmp_path: Path) -> None:
    path = tmp_path / "nodes.csv"
    path.write_text(NODES, encoding="utf-8")
    module = _converter()
    data = module.stack_data(module.read_nodes(path))
    pools = {p["name"]: p for p in data["pools"]}
    assert list(pools) == ["g2-8x-96c-384g", "p100-2x-16c-120g", "p100-2x-64c-256g",
                           "v100m16-4x-32c-128g"]  # fmt: skip
    g2 = pools["g2-8x-96c-384g"]
    assert g2["nodeNames"] == ["node-a1", "node-a2"]
    assert g2["gpu"] == {"model": "G2", "count": 8, "memoryGiB": 20000 / 1024}  # not catalogued
    assert g2["host"] == {"memoryGiB": 384.0, "vcpus": 96}
    v100 = pools["v100m16-4x-32c-128g"]
    assert v100["gpu"] == {"model": "V100-SXM2-16GB", "count": 4}  # the catalog's name
    stack = _validated(data)
    assert stack.provider.cloud == "kubernetes" and stack.cluster.scheduler == "kai"
    assert sum(p.gpus_per_node * len(p.node_names) for p in stack.pools) == 8 + 8 + 4 + 2 + 2


def test_the_published_cluster_is_a_valid_stack_of_6212_gpus() -> None:
    """The FGD paper's cluster: 1,213 GPU nodes and 6,212 GPUs."""
    path = shared_upstream("fgd/openb_node_list_gpu_node.csv")
    module = _converter()
    rows = module.read_nodes(path)
    stack = _validated(module.stack_data(rows))
    assert sum(len(p.node_names) for p in stack.pools) == 1213
    assert sum(p.gpus_per_node * len(p.node_names) for p in stack.pools) == 6212
    assert all(p.gpu is not None for p in stack.pools)
    assert {p.host_memory_gib for p in stack.pools} == {int(r["memory_mib"]) / 1024 for r in rows}
