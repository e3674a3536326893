"""The Alibaba openb cluster written as a gpupool stack, for ``gpupool simulate`` and its bench.

Reads the published node list (``openb_node_list_gpu_node.csv`` of alibaba/clusterdata
``cluster-trace-gpu-v2023``, columns ``sn, cpu_milli, memory_mib, gpu, model``: one GPU node per
row) and writes a stack of existing nodes (``cloud: kubernetes``): one pool per GPU model and
node shape (GPUs, CPU and memory), naming its nodes, its ``host`` from the node's CPU
(``cpu_milli`` / 1000 vCPUs) and memory (``memory_mib`` / 1024 GiB). GPU models take the
catalog's names where it has them (``gpupool.simulate.openb.GPU_MODELS``, shared with the pod
reader so a pod's ``gpu_spec`` names its pool's GPU); the models the catalog lacks are declared
with their memory: P100 16 GiB (the Tesla P100 PCIe 16GB the FGD simulator names), and
Alibaba's anonymised G2 and G3 with the 20,000 and 30,000 MiB the FGD simulator gives them
(hkust-adsl/kubernetes-scheduler-simulator @ 8f3d6417,
``pkg/type/open-gpu-share/utils/const.go``, ``MapGpuTypeMemoryMiB``).

Every pool shares its GPUs as the trace's pods do, in fractions of a GPU placed by KAI
(``sharing.mode: fractional`` under ``cluster.scheduler: kai``, whose ``gpu-fraction`` takes
any share; ``slotsPerGpu`` only sizes the workload snippets).

Run: ``python bench/openb_stack.py NODE_LIST.csv OUT.yaml``.
"""

from __future__ import annotations

import csv
import sys
from collections.abc import Iterable
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's gpupool

from gpupool import catalog
from gpupool.simulate.openb import GPU_MODELS

#: Memory of the GPU models the catalog lacks, in GiB (the module docstring gives the sources).
DECLARED_MEMORY_GIB = {"P100": 16.0, "G2": 20000 / 1024, "G3": 30000 / 1024}
#: Slots per GPU on every pool: 16 is the most a stack allows and 1 GiB each on a 16 GiB GPU.
SLOTS_PER_GPU = 16


def read_nodes(path: Path) -> list[dict[str, str]]:
    """Return the node list's rows (``sn``, ``cpu_milli``, ``memory_mib``, ``gpu``, ``model``)."""
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    want = {"sn", "cpu_milli", "memory_mib", "gpu", "model"}
    if rows and not want <= set(rows[0]):
        raise ValueError(f"{path}: not an openb node list (columns {sorted(want)})")
    return rows


def stack_data(rows: Iterable[dict[str, str]], *, name: str = "openb") -> dict[str, object]:
    """Return the stack (as YAML data) of the nodes: one pool per GPU model and node shape."""
    groups: dict[tuple[str, int, int, int], list[str]] = {}
    for row in rows:
        key = (row["model"], int(row["gpu"]), int(row["cpu_milli"]), int(row["memory_mib"]))
        groups.setdefault(key, []).append(row["sn"])
    pools = []
    for (model, gpus, cpu_milli, memory_mib), nodes in sorted(groups.items()):
        gpu_name = GPU_MODELS.get(model, model)
        gpu: dict[str, object] = {"model": gpu_name, "count": gpus}
        if catalog.gpu(gpu_name) is None:
            gpu["memoryGiB"] = DECLARED_MEMORY_GIB[model]
        pools.append(
            {
                "name": f"{model.lower()}-{gpus}x-{cpu_milli // 1000}c-{memory_mib // 1024}g",
                "nodeNames": nodes,
                "gpu": gpu,
                "host": {"memoryGiB": memory_mib / 1024, "vcpus": cpu_milli // 1000},
                "sharing": {"mode": "fractional", "fractional": {"slotsPerGpu": SLOTS_PER_GPU}},
            }
        )
    return {
        "apiVersion": "gpupool.io/v1",
        "kind": "GpuPoolStack",
        "metadata": {"name": name, "environment": "production"},
        "provider": {"cloud": "kubernetes", "settings": {"context": "openb"}},
        "cluster": {
            "gpuOperator": {"install": True, "driver": "preinstalled"},
            "scheduler": "kai",
            "monitoring": {"dcgmExporter": False},
        },
        "pools": pools,
    }


def stack_text(rows: Iterable[dict[str, str]], *, name: str = "openb") -> str:
    """Return the stack as YAML text, with a comment saying where it comes from."""
    head = (
        "# The openb GPU cluster (alibaba/clusterdata cluster-trace-gpu-v2023,\n"
        "# openb_node_list_gpu_node.csv) as a gpupool stack, written by bench/openb_stack.py.\n"
    )
    body = yaml.safe_dump(stack_data(rows, name=name), sort_keys=False, default_flow_style=None,
                          width=100)  # fmt: skip
    return head + body


def main(argv: list[str]) -> int:
    """Write the stack of the node list ``argv[0]`` to ``argv[1]``."""
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    Path(argv[1]).write_text(stack_text(read_nodes(Path(argv[0]))), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
