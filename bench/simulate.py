"""Benchmark of ``gpupool simulate`` (issue 28's speed targets), as ratios in one process.

Run ``python bench/simulate.py`` from the repository root (it needs the published openb files,
Alibaba's ``cluster-trace-gpu-v2023``, in the folder ``FGD`` names beside the repository).
It prints a markdown table and the top of a cProfile:

- the reference: reading ``openb_pod_list_default.csv`` with the csv module (a fixed cost of the
  same size as the trace, measured in the same process, so load on the machine cancels out);
- the openb default trace (8,152 pods) on the openb cluster (1,213 GPU nodes written as a stack
  by ``bench/openb_stack.py``), simulation and report, and its time over the reference;
- the trace ten times over, each copy shifted past the end of the one before, and its time over
  the single trace (target: at most 12x);
- a synthetic workload (``bench/synthetic.py``, ``--synthetic N`` jobs) on the same stack;
- peak RSS (``resource.getrusage``) after each run, and the profile of the openb default run.
"""

from __future__ import annotations

import argparse
import cProfile
import csv
import io
import platform
import pstats
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import openb_stack, synthetic  # noqa: E402
from gpupool.simulate.engine import simulate  # noqa: E402
from gpupool.simulate.jobs import Workload  # noqa: E402
from gpupool.simulate.report import report  # noqa: E402
from gpupool.simulate.workload import read_workload  # noqa: E402
from tests.stacks import load_stack_text  # noqa: E402

FGD = ROOT.parent / "shared" / "reference" / "upstream" / "fgd"


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _read_csv(path: Path) -> None:
    with path.open(encoding="utf-8", newline="") as f:
        for _ in csv.DictReader(f):
            pass


def repeated(wl: Workload, times: int) -> Workload:
    """The workload ``times`` over, each copy shifted past the end of the one before."""
    span = max(j.submit + j.duration for j in wl.jobs) + 1.0
    jobs = [
        type(j)(**{**{f: getattr(j, f) for f in j.__slots__}, "submit": j.submit + k * span,
                   "name": f"{j.name}-{k}"})
        for k in range(times) for j in wl.jobs
    ]
    return Workload(f"{wl.source} x{times}", tuple(jobs))


def main() -> int:
    """Measure and print the table and the profile."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--synthetic", type=int, default=100_000, help="synthetic jobs")
    parser.add_argument("--times", type=int, default=10, help="copies of the trace")
    args = parser.parse_args()
    nodes, pods = FGD / "openb_node_list_gpu_node.csv", FGD / "openb_pod_list_default.csv"
    stack = load_stack_text(openb_stack.stack_text(openb_stack.read_nodes(nodes)))
    wl = read_workload(pods, "openb")
    ref = min(_timed(lambda: _read_csv(pods)) for _ in range(5))
    rows = [("reference: csv.DictReader over the pod list", len(wl.jobs), ref, _peak_mib())]
    one = _timed(lambda: report(simulate(stack, wl)))
    rows.append(("openb default trace on the openb stack", len(wl.jobs), one, _peak_mib()))
    big = repeated(wl, args.times)
    many = _timed(lambda: report(simulate(stack, big)))
    rows.append((f"the trace {args.times}x (shifted copies)", len(big.jobs), many, _peak_mib()))
    syn = synthetic.jobs(stack, args.synthetic, seed=2)
    sy = _timed(lambda: report(simulate(stack, syn)))
    rows.append(("synthetic workload (bench/synthetic.py)", len(syn.jobs), sy, _peak_mib()))
    print(f"Machine: {platform.machine()}, Python {platform.python_version()}")
    print("| run | jobs | time s | peak RSS MiB (process so far) |")
    print("|---|---|---|---|")
    for name, n, t, peak in rows:
        print(f"| {name} | {n:,} | {t:.2f} | {peak:.0f} |")
    print(f"\nopenb default / reference: {one / ref:.1f}x; "
          f"{args.times}x pods / 1x: {many / one:.2f}x (target <= {1.2 * args.times:g}x); "
          f"synthetic per job / openb per job: {sy / len(syn.jobs) / (one / len(wl.jobs)):.2f}x")
    prof = cProfile.Profile()
    prof.enable()
    report(simulate(stack, wl))
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(10)
    print("\nProfile of the openb default run (top 10 by own time):")
    print(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
