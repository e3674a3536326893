"""Benchmark: a week of a 1,000 rps service with 200 replicas beside a 100,000-job batch workload.

Run ``python bench/simulate_services.py`` from the repository root. Each case runs in a process
of its own (``--case``), so that its peak RSS (``os.wait4``) is its own; times are wall seconds
of the simulation and report in that process (the stack's validation excluded):

- ``batch``: the 100,000 jobs alone (one every 6.048 s over the week, 1 GPU each, 30 to 90
  minutes, tenant-less at priority low), the reference;
- ``service``: the service alone (tenant ``serving``, priority normal, 5 requests per second a
  replica, replicas 20 to 200, scaling on requests per second at 4 a replica), on a diurnal
  rate series between 200 and 1,000 requests per second, one row every 5 minutes (2,016 rows);
- ``both``: the two together on the same pool (g6.12xlarge, 4 L4 GPUs a node, 50 to 250
  nodes), under the same scheduler: the replicas preempt batch pods.

It prints a markdown table: seconds, the ratio to ``batch``, peak RSS, and what the run did.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

WEEK = 7 * 86400.0
JOBS = 100_000

STACK = """\
apiVersion: gpupool.io/v1
kind: GpuPoolStack
metadata: {name: bench-services}
provider:
  cloud: aws
  region: us-east-1
  cluster: bench
  settings: {subnetIds: [s-1], nodeRoleArn: "arn:aws:iam::123456789012:role/n"}
cluster:
  monitoring:
    alerts: {}
    prometheus: {url: "http://prometheus.monitoring.svc:9090"}
  autoscaling:
    keda: {install: true}
pools:
  - name: l4
    instanceType: g6.12xlarge
    workload: inference
    nodes: {min: 50, max: 250}
tenants:
  - name: serving
    pools: [l4]
    priority: normal
    limit: {gpus: 400}
services:
  - name: chat
    tenant: serving
    pool: l4
    deployment: chat
    gpus: 1
    cpu: 8
    memoryGiB: 32
    replicas: {min: 20, max: 200}
    scaleOn:
      - {metric: requests-per-second, target: 4, query: 'sum(rate(requests_total[1m]))'}
    startupSeconds: 120
    capacityPerReplica: 5
"""


def _case(case: str) -> dict[str, object]:
    from gpupool.simulate.engine import Settings, Simulation
    from gpupool.simulate.jobs import Job, Workload
    from gpupool.simulate.report import report
    from gpupool.simulate.requests import RateSeries
    from gpupool.simulate.services.actor import ServiceActor
    from tests.stacks import load_stack_text

    stack = load_stack_text(STACK, "bench-services.yaml")
    jobs: tuple[Job, ...] = ()
    if case in ("batch", "both"):
        step = WEEK / JOBS
        jobs = tuple(Job(f"j{i}", i + 2, i * step, 1800.0 + 1800.0 * (i % 3), gpus=1, cpu=4,
                         memory_gib=16, priority="low", pool="l4") for i in range(JOBS))
    observers = []
    actor = None
    if case in ("service", "both"):
        times = tuple(300.0 * k for k in range(int(WEEK / 300) + 1))
        rps = tuple(600 + 400 * math.sin(2 * math.pi * t / 86400) for t in times)
        actor = ServiceActor(stack, {"chat": RateSeries("chat", "bench", 1, times, rps)})
        observers.append(actor)
    start, cpu = time.perf_counter(), time.process_time()
    outcome = Simulation(stack, Workload("bench", jobs), Settings(), observers=observers).run()
    rep = report(outcome, {})
    started = rep.pods["started"]
    seconds = time.perf_counter() - start
    out: dict[str, object] = {"seconds": seconds, "cpu": time.process_time() - cpu,
                              "jobs_started": started, "end_hours": round(outcome.end / 3600, 1)}
    if actor is not None:
        [s] = actor.reports()
        out.update({"requests": s["requests"], "not_served_share": s["not_served_share"],
                    "replicas": s["replicas"], "blocked": s["blocked_scale_ups"]})
    return out


def _spawn(case: str) -> tuple[dict[str, object], float]:
    proc = subprocess.Popen([sys.executable, __file__, "--case", case], stdout=subprocess.PIPE,
                            text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.stdout is not None
    text = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    assert status == 0, status
    return json.loads(text), usage.ru_maxrss / 1024


def main() -> None:
    """Run the cases, each in its own process, and print the table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--case", choices=("batch", "service", "both"))
    args = parser.parse_args()
    if args.case:
        print(json.dumps(_case(args.case)))
        return
    results = {case: _spawn(case) for case in ("batch", "service", "both")}
    ref = float(results["batch"][0]["cpu"])  # type: ignore[arg-type]
    print("| case | wall s | CPU s | CPU over batch | peak RSS | what it did |")
    print("|---|---|---|---|---|---|")
    for case, (doc, rss) in results.items():
        secs = float(doc.pop("seconds"))  # type: ignore[arg-type]
        cpu = float(doc.pop("cpu"))  # type: ignore[arg-type]
        print(f"| {case} | {secs:.1f} | {cpu:.1f} | {cpu / ref:.2f} | {rss:.0f} MiB | "
              f"{json.dumps(doc)} |")


if __name__ == "__main__":
    main()
