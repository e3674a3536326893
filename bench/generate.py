"""Generate valid gpupool stacks of any size for benchmarks.

``python bench/generate.py --pools 1000 --tenants-per-pool 4 > big.yaml`` writes one AWS stack
whose pools cycle through every sharing mode (exclusive, time-slicing, MPS, MIG, fractional),
spot and on-demand capacity, with tenants whose quotas fit their pools. ``--services-per-pool 2``
adds that many inference services on each pool (its first tenant's), each asking for what the
pool serves and scaling on Triton's queue time and a requests-per-second query.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import yaml

#: A service's request on each shape of ``_SHAPES``, in order.
_REQUESTS: list[dict[str, Any]] = [
    {"gpus": 1}, {"gpus": 1}, {"gpus": 1}, {"mig": "3g.40gb"}, {"fraction": 0.25},
]

# (instance type, GPUs per node, sharing) — each valid on AWS with scheduler kai.
_SHAPES: list[tuple[str, int, dict[str, Any]]] = [
    ("g6.2xlarge", 1, {"mode": "exclusive"}),
    ("g6.12xlarge", 4, {"mode": "time-slicing", "replicas": 4}),
    ("g6e.2xlarge", 1, {"mode": "mps", "replicas": 8}),
    ("p4de.24xlarge", 8, {"mode": "mig", "mig": {"layout": {"3g.40gb": 2}}}),
    ("g5.12xlarge", 4, {"mode": "fractional", "fractional": {"slotsPerGpu": 4}}),
]


def _services(i: int, pool: str, tenant: str, count: int) -> list[dict[str, Any]]:
    return [{
        "name": f"s-{i:05d}-{k}", "tenant": tenant, "pool": pool,
        **_REQUESTS[i % len(_REQUESTS)],
        "replicas": {"min": 0, "max": 2},
        "scaleOn": [{"metric": "queue-time-ratio", "target": 1},
                    {"metric": "requests-per-second", "target": 20,
                     "query": f'sum(rate(requests_total{{service="s-{i}-{k}"}}[1m]))'}],
    } for k in range(count)]


def stack(pools: int, tenants_per_pool: int, name: str = "bench",
          services_per_pool: int = 0) -> dict[str, Any]:
    """Return a valid stack with ``pools`` pools and ``tenants_per_pool`` tenants on each."""
    out_pools = []
    tenants = []
    services: list[dict[str, Any]] = []
    for i in range(pools):
        itype, gpus, sharing = _SHAPES[i % len(_SHAPES)]
        pool: dict[str, Any] = {
            "name": f"pool-{i:05d}",
            "instanceType": itype,
            "workload": "inference",
            "nodes": {"min": 1, "max": 4},
            "sharing": sharing,
            "compute": {"policy": "fair"},
            "labels": {"bench": "yes", "shard": str(i % 16)},
        }
        if i % 3 == 1:
            pool["capacity"] = {"type": "spot", "onDemandBase": 1, "fallbackToOnDemand": True}
            pool["interruption"] = {"drainSeconds": 90, "checkpoint": "recommended"}
        out_pools.append(pool)
        for j in range(tenants_per_pool):
            priority = ["high", "normal", "low", "preemptible"][j % 4]
            tenant: dict[str, Any] = {
                "name": f"t-{i:05d}-{j}",
                "pools": [pool["name"]],
                "priority": priority,
                "quota": {"gpus": gpus / tenants_per_pool},
            }
            if priority in ("low", "preemptible"):  # KAI lets only these borrow over quota
                tenant["fairShare"] = {"weight": 1 + j}
            tenants.append(tenant)
        if services_per_pool and tenants_per_pool:
            services += _services(i, pool["name"], f"t-{i:05d}-0", services_per_pool)
    out: dict[str, Any] = {
        "apiVersion": "gpupool.io/v1",
        "kind": "GpuPoolStack",
        "metadata": {"name": name, "environment": "staging", "labels": {"team": "bench"}},
        "provider": {
            "cloud": "aws",
            "region": "us-east-1",
            "cluster": "bench",
            "settings": {
                "subnetIds": ["subnet-0a1b2c3d4e5f60718"],
                "nodeRoleArn": "arn:aws:iam::123456789012:role/gpu-nodes",
            },
        },
        "cluster": {"scheduler": "kai", "monitoring": {"dcgmExporter": True}},
        "pools": out_pools,
        "tenants": tenants,
    }
    if services:
        out["services"] = services
        out["cluster"]["monitoring"]["prometheus"] = {
            "labels": {}, "url": "http://prometheus.monitoring:9090"}
    return out


def dump(pools: int, tenants_per_pool: int, services_per_pool: int = 0) -> str:
    """Return the stack as YAML text."""
    return yaml.safe_dump(stack(pools, tenants_per_pool, services_per_pool=services_per_pool),
                          sort_keys=False)


def main() -> None:
    """Write a generated stack to stdout."""
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--pools", type=int, default=10)
    p.add_argument("--tenants-per-pool", type=int, default=4)
    p.add_argument("--services-per-pool", type=int, default=0)
    args = p.parse_args()
    sys.stdout.write(dump(args.pools, args.tenants_per_pool, args.services_per_pool))


if __name__ == "__main__":
    main()
