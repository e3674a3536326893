"""Benchmark of per-job records (issue 37 item 3): a run with ``--jobs`` over one without.

Run ``python bench/records.py`` from the repository root (it needs the published openb node
list, Alibaba's ``cluster-trace-gpu-v2023``, in the folder ``FGD`` names beside the repository).
In one process, on the openb cluster less every tenth node (``bench/simulate.py``'s ``--share
0.9``, so that queues form), it replays ``--rows`` rows of the synthetic workload
(``gpupool.simulate.generate.write_synthetic``, without tenants: the openb stack has none) as
``gpupool simulate`` does (``simulate_metered`` and the report), once plain and once with
``simulate.records.JobRecords`` streaming every record through ``usecases.job_records
.RecordsFile`` into a file, alternately, ``--repeats`` times each, and prints the best time of
each and their ratio (target: at most 1.25), and the records' peak of live jobs is not held:
the observer keeps only queued and running jobs.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import openb_stack  # noqa: E402
from gpupool.model import Stack  # noqa: E402
from gpupool.simulate.engine import simulate_metered  # noqa: E402
from gpupool.simulate.generate import write_synthetic  # noqa: E402
from gpupool.simulate.jobs import Workload  # noqa: E402
from gpupool.simulate.records import JobRecords  # noqa: E402
from gpupool.simulate.report import report  # noqa: E402
from gpupool.simulate.workload import read_workload  # noqa: E402
from gpupool.usecases.job_records import RecordsFile  # noqa: E402
from tests.stacks import load_stack_text  # noqa: E402

FGD = ROOT.parent / "shared" / "reference" / "upstream" / "fgd"


def _plain(stack: Stack, wl: Workload) -> float:
    gc.collect()
    start = time.process_time()
    report(*simulate_metered(stack, wl))
    return time.process_time() - start


def _recorded(stack: Stack, wl: Workload, out: Path) -> tuple[float, int, int]:
    gc.collect()
    start = time.process_time()
    with RecordsFile(out) as sink:
        records = JobRecords(sink.write)
        report(*simulate_metered(stack, wl, observers=[records]))
    return time.process_time() - start, sink.count, len(records.live)


def main() -> int:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000, help="synthetic rows")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each, alternately")
    args = parser.parse_args()
    rows = openb_stack.read_nodes(FGD / "openb_node_list_gpu_node.csv")
    kept = [r for i, r in enumerate(rows) if i % 10]
    stack = load_stack_text(openb_stack.stack_text(kept))
    print("| workload | jobs | plain CPU s | with --jobs CPU s | ratio | records |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for tenants in (False,):
            path = Path(tmp) / "synthetic.csv"
            write_synthetic(path, args.rows, tenants=tenants)
            wl = read_workload(path)
            plain, recorded = [], []
            count = left = 0
            for _ in range(args.repeats):
                plain.append(_plain(stack, wl))
                seconds, count, left = _recorded(stack, wl, Path(tmp) / "jobs.jsonl")
                recorded.append(seconds)
            a, b = min(plain), min(recorded)
            name = "synthetic, tenants" if tenants else "synthetic, no tenants"
            print(f"| {name} | {len(wl.jobs):,} | {a:.2f} | {b:.2f} | {b / a:.3f} | "
                  f"{count:,} (live at the end: {left}) |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
