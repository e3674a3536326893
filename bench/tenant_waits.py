"""Benchmark of issue 34 item 2's tenanted case: one tenant's distinct shapes at once.

Run ``python bench/tenant_waits.py [--before DIR]`` from the repository root. The case is
``bench/simulate_costs.py --tenanted``'s: N one-GPU jobs of 10 minutes of one tenant submitted
at once, each asking a different CPU (1 + i/N cores), on a pool of 0 to 2 one-L4 nodes
(``g6.2xlarge``), so the tenant's ResourceQuota (its pool's 2 GPUs) holds all but two back and
each queue holds one job. ``two`` splits the jobs between two tenants of the pool at two
priority levels (``normal``, ``low``): the tenant that holds the GPUs meets its ceiling, the
other waits for room, which its queues are still retried for after every release. ``kai``
runs the one tenant's jobs under KAI, its queue with a quota of 2 GPUs and the jobs
non-preemptible (``normal``), so that the queue's quota holds them. ``levels``: no tenants,
the jobs at two priority levels (no ceiling at all; every queue waits for room).

Each run is a process of its own (this tree, or ``--before``'s, on ``PYTHONPATH``); it times
the simulation and the report in CPU seconds (``time.process_time``, imports left out). Trees
alternate (before, after, before, after ...) so that both meet the same load; the table gives
each tree's median, the ratio after / before, and each tree's growth from the smallest N.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_CASE = """
import sys, time
from gpupool.simulate.engine import simulate_metered
from gpupool.simulate.report import report
from tests.simulate.simstacks import job, workload
from tests.simulate.test_run_costs import FROM_ZERO
from tests.stacks import load_stack_text
kind, n = sys.argv[1], int(sys.argv[2])
text = FROM_ZERO + "tenants:\\n  - {name: t, pools: [l4]}\\n"
if kind == "kai":
    text = text.replace("scheduler: default", "scheduler: kai").replace(
        "{name: t, pools: [l4]}", "{name: t, pools: [l4], priority: normal, quota: {gpus: 2}}")
tenant = ["t"]
if kind == "two":
    text = text.replace("{name: t, pools: [l4]}",
                        "{name: a, pools: [l4]}\\n  - {name: b, pools: [l4], priority: low}")
    tenant = ["a", "b"]
levels = [None]
if kind == "levels":
    text, tenant, levels = FROM_ZERO, [None], ["normal", "low"]
stack = load_stack_text(text)
jobs = [job(f"j{i}", 0, 600, gpus=1, cpu=1 + i / n, tenant=tenant[i % len(tenant)],
            priority=levels[i % len(levels)]) for i in range(n)]
wl = workload(*jobs)
start = time.process_time()
out, fragmentation = simulate_metered(stack, wl)
report(out, fragmentation)
print(time.process_time() - start, sum(g.first_start is not None for g in out.gangs))
"""


def _run(tree: Path, kind: str, n: int) -> float:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    proc = subprocess.run([sys.executable, "-c", _CASE, kind, str(n)], cwd=tree, env=env,
                          capture_output=True, text=True, check=True)
    seconds, started = proc.stdout.split()
    if int(started) != n:
        raise SystemExit(f"{tree}: {started} of {n} jobs started")
    return float(seconds)


def main() -> None:
    """Run the cases and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="a tree of the code before (git archive)")
    parser.add_argument("--rows", default="1000,4000")
    parser.add_argument("--kinds", default="default,kai")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--after-only", default="", help="row counts run on this tree only")
    args = parser.parse_args()
    trees = {"after": ROOT} if args.before is None else {"before": args.before, "after": ROOT}
    print("| case | rows | " + " | ".join(f"{t}, CPU s" for t in trees)
          + (" | after / before" if len(trees) == 2 else "") + " | growth |")
    print("|---|---:|" + "---:|" * len(trees) + ("---:|" if len(trees) == 2 else "") + "---|")
    only = [int(c) for c in args.after_only.split(",") if c]
    for kind in args.kinds.split(","):
        first: dict[str, float] = {}
        for n in [int(c) for c in args.rows.split(",")] + only:
            runs: dict[str, list[float]] = {t: [] for t in trees}
            for _ in range(args.repeat):
                for name, tree in trees.items():
                    if n in only and name == "before":
                        continue
                    runs[name].append(_run(tree, kind, n))
            med = {t: statistics.median(v) for t, v in runs.items() if v}
            for t, v in med.items():
                first.setdefault(t, v)
            cells = [f"{med[t]:.3f}" if t in med else "-" for t in trees]
            if len(trees) == 2:
                cells.append(f"{med['after'] / med['before']:.3f}" if "before" in med else "-")
            growth = ", ".join(f"{t} {med[t] / first[t]:.1f}x" for t in med)
            print(f"| {kind} | {n:,} | " + " | ".join(cells) + f" | {growth} |", flush=True)


if __name__ == "__main__":
    main()
