"""Benchmark of ``gpupool simulate`` (issue 28's speed targets), as ratios in one run.

Run ``python bench/simulate.py`` from the repository root (it needs the published openb files,
Alibaba's ``cluster-trace-gpu-v2023``, in the folder ``FGD`` names beside the repository).
It prints a markdown table and the top of two cProfiles:

- the reference: reading ``openb_pod_list_default.csv`` with the csv module (a fixed cost of the
  same size as the trace, measured in the same process, so load on the machine cancels out);
- the openb default trace (8,152 pods) on the openb cluster (1,213 GPU nodes written as a stack
  by ``bench/openb_stack.py``), simulation and report, and its time over the reference;
- the trace ten times over, each copy shifted past the end of the one before, and its time over
  the single trace (target: at most 12x);
- the synthetic workload of ``gpupool.simulate.generate.write_synthetic`` (``--synthetic N``
  rows, default 1,000,000, without tenants: the openb stack has none) written to a file and
  replayed end to end by the CLI, ``python -m gpupool simulate STACK --workload FILE --format
  json``, in a process of its own so that its peak RSS (``os.wait4``) is its own (target: it
  finishes, under 1 GiB); ``--share`` keeps that share of the openb nodes for it (default 0.9,
  so that queues form: the synthetic jobs ask 1.85 GPUs for 2 hours on average, one every 2.5
  seconds, about 5,500 GPUs busy against 5,586 on 1,091 nodes; on all 6,212 no job waits);
- peak RSS (``resource.getrusage``) after each in-process run, and the profiles of the openb
  default run and of a ``--profile-rows`` synthetic run on the same stack.
"""

from __future__ import annotations

import argparse
import cProfile
import csv
import io
import os
import platform
import pstats
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import openb_stack  # noqa: E402
from gpupool.simulate.engine import simulate, simulate_metered  # noqa: E402
from gpupool.simulate.generate import write_synthetic  # noqa: E402
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


def _cli(stack_file: Path, workload: Path) -> tuple[float, float, int]:
    """Run ``gpupool simulate`` on the files; return wall seconds, peak RSS MiB, exit status."""
    cmd = [sys.executable, "-m", "gpupool", "simulate", str(stack_file), "--workload",
           str(workload), "--format", "json"]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - start, usage.ru_maxrss / 1024, proc.returncode


def _profile(fn: Callable[[], object], title: str, top: int = 12) -> None:
    prof = cProfile.Profile()
    prof.enable()
    fn()
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(top)
    print(f"\n{title} (top {top} by own time):")
    print(out.getvalue())


def main() -> int:
    """Measure and print the table and the profiles."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--synthetic", type=int, default=1_000_000,
                        help="rows of the synthetic workload (default 1,000,000; 0: skip)")
    parser.add_argument("--share", type=float, default=0.9,
                        help="share of the openb nodes the synthetic run gets (default 0.9: "
                        "every tenth node left out, so the synthetic arrivals ask about 98%% "
                        "of its GPUs and queues form; on all 1,213 nodes no job waits)")
    parser.add_argument("--profile-rows", type=int, default=20_000,
                        help="rows of the profiled synthetic run (0: skip)")
    parser.add_argument("--times", type=int, default=10, help="copies of the trace")
    args = parser.parse_args()
    nodes, pods = FGD / "openb_node_list_gpu_node.csv", FGD / "openb_pod_list_default.csv"
    rows_of_nodes = openb_stack.read_nodes(nodes)
    stack = load_stack_text(openb_stack.stack_text(rows_of_nodes))
    wl = read_workload(pods, "openb")
    ref = min(_timed(lambda: _read_csv(pods)) for _ in range(5))
    rows = [("reference: csv.DictReader over the pod list", len(wl.jobs), ref, _peak_mib())]
    one = _timed(lambda: report(simulate(stack, wl)))
    rows.append(("openb default trace on the openb stack", len(wl.jobs), one, _peak_mib()))
    big = repeated(wl, args.times)
    many = _timed(lambda: report(simulate(stack, big)))
    rows.append((f"the trace {args.times}x (shifted copies)", len(big.jobs), many, _peak_mib()))
    # --share 0.9 leaves out every tenth node of the list (0.8: every fifth)
    step = round(1 / (1 - args.share)) if args.share < 1 else 0
    kept = [r for i, r in enumerate(rows_of_nodes) if not step or i % step]
    with tempfile.TemporaryDirectory() as tmp:
        stack_file = Path(tmp) / "openb.yaml"
        stack_file.write_text(openb_stack.stack_text(kept), encoding="utf-8")
        syn_stack = load_stack_text(stack_file.read_text(encoding="utf-8"))
        syn = None
        if args.synthetic:
            path = Path(tmp) / "synthetic.csv"
            wrote = _timed(lambda: write_synthetic(path, args.synthetic, tenants=False))
            print(f"wrote {args.synthetic:,} synthetic rows in {wrote:.1f} s", flush=True)
            syn, syn_peak, rc = _cli(stack_file, path)
            if rc != 0:
                print(f"gpupool simulate exited {rc} on the synthetic workload", file=sys.stderr)
                return 1
        print(f"Machine: {platform.machine()}, {os.cpu_count()} CPU(s), "
              f"Python {platform.python_version()}")
        print("| run | jobs | time s | peak RSS MiB |")
        print("|---|---|---|---|")
        for name, n, t, peak in rows:
            print(f"| {name} | {n:,} | {t:.2f} | {peak:.0f} (process so far) |")
        if syn is not None:
            print(f"| synthetic, `gpupool simulate` on {len(kept):,} openb nodes, end to end "
                  f"(read, simulate, report) | {args.synthetic:,} | {syn:.1f} | "
                  f"{syn_peak:.0f} (its own) |")
        print(f"\nopenb default / reference: {one / ref:.1f}x; "
              f"{args.times}x pods / 1x: {many / one:.2f}x (target <= {1.2 * args.times:g}x)")
        if syn is not None:
            print(f"synthetic per job / openb default per job: "
                  f"{syn / args.synthetic / (one / len(wl.jobs)):.2f}x; synthetic peak RSS "
                  f"{syn_peak:.0f} MiB (target < 1024)")
        _profile(lambda: report(simulate(stack, wl)), "Profile of the openb default run")
        if args.profile_rows:
            path = Path(tmp) / "profiled.csv"
            write_synthetic(path, args.profile_rows, tenants=False)
            prof_wl = read_workload(path)
            _profile(lambda: report(*simulate_metered(syn_stack, prof_wl)),
                     f"Profile of {args.profile_rows:,} synthetic rows (simulation and report)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
