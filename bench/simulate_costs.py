"""Benchmark of two of issue 34's runaway simulations: distinct shapes at once, huge gangs.

Run ``python bench/simulate_costs.py`` from the repository root. Each case runs in a process of
its own (``os.wait4`` gives its peak RSS), on a pool of 0 to 2 one-L4 nodes (``g6.2xlarge``):

- ``shapes N``: N one-GPU jobs of 10 minutes submitted at once, each asking a different CPU
  (1 + i/N cores), so every job waits in a queue of its own;
- ``gangs N``: N rows of 100,000-pod gangs asking no GPU, CPU or memory, one every 10 s;
- ``tenanted N``: the ``shapes`` jobs of one tenant of the pool (issue 34 item 2's tenanted
  case: a stack with tenants keeps the original retry rule, and the tenant's ResourceQuota
  ceiling, its pools' capacity, blocks all but two of them at a time; such queues wait, grouped,
  until the tenant's usage moves, ``simulate/held.py``; ``bench/tenant_waits.py`` compares
  trees).

It prints a markdown table: rows, seconds (simulation and report, as ``simulate`` runs them)
and peak RSS. ``--shapes``, ``--gangs`` and ``--tenanted`` give the row counts (several,
comma-separated).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_CASE = """
import sys
from gpupool.simulate.engine import simulate_metered
from gpupool.simulate.report import report
from tests.simulate.simstacks import job, workload
from tests.simulate.test_run_costs import FROM_ZERO
from tests.stacks import load_stack_text
kind, n = sys.argv[1], int(sys.argv[2])
stack = load_stack_text(FROM_ZERO + ("tenants:\\n  - {name: t, pools: [l4]}\\n"
                                     if kind == "tenanted" else ""))
if kind in ("shapes", "tenanted"):
    tenant = "t" if kind == "tenanted" else None
    jobs = [job(f"j{i}", 0, 600, gpus=1, cpu=1 + i / n, tenant=tenant) for i in range(n)]
else:
    jobs = [job(f"g{i}", i * 10, 3600, pods=100_000) for i in range(n)]
out, fragmentation = simulate_metered(stack, workload(*jobs))
report(out, fragmentation)
"""


def _run(kind: str, rows: int, timeout: float) -> tuple[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", _CASE, kind, str(rows)], cwd=ROOT, env=env)
    deadline = start + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            proc.kill()
            _, status, usage = os.wait4(proc.pid, 0)
            return f"over {timeout:.0f}", f"{usage.ru_maxrss / 1024:.0f} (killed)"
        time.sleep(0.05)
    seconds = time.perf_counter() - start
    if status != 0:
        return "failed", "-"
    return f"{seconds:.1f}", f"{usage.ru_maxrss / 1024:.0f}"


def main() -> None:
    """Run the cases and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default="2000,5000,20000")
    parser.add_argument("--gangs", default="10,200")
    parser.add_argument("--tenanted", default="1000,4000")
    parser.add_argument("--timeout", type=float, default=600.0)
    args = parser.parse_args()
    print("| case | rows | seconds | peak RSS (MiB) |")
    print("|---|---:|---:|---:|")
    for kind, counts in (("shapes", args.shapes), ("gangs", args.gangs),
                         ("tenanted", args.tenanted)):
        for rows in (int(c) for c in counts.split(",") if c):
            seconds, peak = _run(kind, rows, args.timeout)
            print(f"| {kind} | {rows:,} | {seconds} | {peak} |", flush=True)


if __name__ == "__main__":
    main()
