"""Bench: reading a large workload, as ratios against Python's csv module on the same file.

Writes a synthetic workload (``gpupool.simulate.generate.write_synthetic``, gpupool's CSV format,
1,000,000 rows by default), then in this one process measures:

- time: ``read_workload`` against iterating ``csv.reader`` over the same file (the least any
  CSV reader in Python does), each the best of ``--repeat`` runs;
- memory: the peak of ``tracemalloc`` while ``read_workload`` reads the file (the jobs it
  returns included) against the peak of holding every row as ``csv.reader`` returns it (a
  list of strings per row), measured in separate runs from the times;
- with ``--profile``, the ten functions ``read_workload`` spends most time in (``cProfile``).

Run: ``python bench/workload_read.py [--rows N] [--repeat K] [--profile]``. The machines are
shared and noisy, so only the ratios mean anything.
"""

from __future__ import annotations

import argparse
import cProfile
import csv
import gc
import io
import pstats
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's gpupool

from gpupool.simulate.generate import write_synthetic
from gpupool.simulate.workload import read_workload


def _csv_rows(path: Path) -> int:
    with open(path, encoding="utf-8", newline="") as fh:
        return sum(1 for _ in csv.reader(fh))


def _csv_held(path: Path) -> list[list[str]]:
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.reader(fh))


def _best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _peak(fn: Callable[[], object]) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        kept = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del kept
    return peak


def main(argv: list[str]) -> int:
    """Measure and print the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "workload.csv"
        start = time.perf_counter()
        write_synthetic(path, rows=args.rows, seed=0)
        written = time.perf_counter() - start
        size = path.stat().st_size
        reference = _best(lambda: _csv_rows(path), args.repeat)
        ours = _best(lambda: read_workload(path), args.repeat)
        reference_peak = _peak(lambda: _csv_held(path))
        ours_peak = _peak(lambda: read_workload(path))
        print(f"rows {args.rows:,}, file {size / 2**20:.1f} MiB, written in {written:.1f} s")
        print(
            f"time   csv.reader {reference:8.2f} s   read_workload {ours:8.2f} s   "
            f"ratio {ours / reference:6.1f}x   ({ours / args.rows * 1e6:.1f} us a row)"
        )
        print(f"memory csv rows   {reference_peak / 2**20:8.1f} MiB read_workload "
              f"{ours_peak / 2**20:8.1f} MiB ratio {ours_peak / reference_peak:6.2f}x   "
              f"({ours_peak / args.rows:.0f} B a row)")  # fmt: skip
        if args.profile:
            profile = cProfile.Profile()
            profile.runcall(read_workload, path)
            out = io.StringIO()
            pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(10)
            print(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
