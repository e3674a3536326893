"""Benchmarks: gpupool's speed as ratios against references measured in the same run.

Run ``python bench/run.py`` (``--quick`` for a smaller sweep). It prints a table and writes
``bench/RESULTS.md``. Every number is a ratio against a reference run side by side on the same
machine, because these machines are noisy; no absolute time is a target. Each measurement is the
median wall time of several runs of a separate process; peak memory is that process's max RSS
(``os.wait4``).
"""

from __future__ import annotations

import argparse
import itertools
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402


@dataclass
class Sample:
    """Median seconds and peak RSS (MiB) of one command."""

    seconds: float
    peak_mib: float
    rc: int


def measure(cmd: list[str], repeat: int, cwd: Path | None = None) -> Sample:
    """Run ``cmd`` ``repeat`` times; return the median wall time and the max peak RSS."""
    times, peaks, rc = [], [], 0
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        times.append(time.perf_counter() - start)
        peaks.append(usage.ru_maxrss / 1024)
        rc = os.waitstatus_to_exitcode(status)
    return Sample(statistics.median(times), max(peaks), rc)


def gpupool(*args: str) -> list[str]:
    """Return the command line running gpupool with this interpreter."""
    return [sys.executable, "-m", "gpupool", *args]


@dataclass
class Row:
    """One line of the results table."""

    what: str
    sample: Sample
    reference: str
    ref: Sample
    target: str

    @property
    def ratio(self) -> float:
        return self.sample.seconds / self.ref.seconds if self.ref.seconds else float("nan")


def run(quick: bool) -> tuple[list[Row], list[tuple[str, int, Sample]]]:
    """Run every benchmark and return the ratio rows and the scaling samples."""
    repeat = 3 if quick else 5
    sizes = [10, 100] if quick else [10, 100, 1000]
    tmp = Path(tempfile.mkdtemp(prefix="gpupool-bench-"))
    files = {}
    for n in sorted({1, *sizes, 1000}):
        f = tmp / f"stack-{n}.yaml"
        f.write_text(generate.dump(n, 4), encoding="utf-8")
        files[n] = f
    rows: list[Row] = []
    py_yaml = measure([sys.executable, "-c", "import yaml"], repeat)
    rows.append(
        Row(
            "gpupool --version",
            measure(gpupool("--version"), repeat),
            'python -c "import yaml"',
            py_yaml,
            "<= 3x",
        )
    )
    rows.append(
        Row(
            "gpupool validate (1 pool)",
            measure(gpupool("validate", str(files[1])), repeat),
            'python -c "import yaml"',
            py_yaml,
            "(start-up cost)",
        )
    )
    cj = shutil.which("check-jsonschema")
    if cj:
        schema = str(ROOT / "schemas" / "gpupool.schema.json")
        ref = measure([cj, "--schemafile", schema, str(files[1000])], repeat)
        rows.append(
            Row(
                "gpupool validate (1,000 pools, schema + all checks)",
                measure(gpupool("validate", str(files[1000])), repeat),
                "check-jsonschema (schema only)",
                ref,
                "<= 0.5x",
            )
        )
    scaling: list[tuple[str, int, Sample]] = []
    commands = {"validate": ["validate"], "plan": ["plan"], "render": ["render", "--out"]}
    for name, args in commands.items():
        probe = subprocess.run(gpupool(name, "--help"), capture_output=True, check=False)
        if probe.returncode != 0:
            continue  # command not available in this build
        for n in sizes:
            extra = [str(tmp / f"out-{name}-{n}")] if name == "render" else []
            scaling.append((name, n, measure(gpupool(*args, *extra, str(files[n])), repeat)))
    return rows, scaling


def growth(scaling: list[tuple[str, int, Sample]]) -> list[tuple[str, str, float]]:
    """Return (command, 'a -> b pools', time ratio) for each 10x step."""
    out = []
    by_cmd: dict[str, list[tuple[int, Sample]]] = {}
    for name, n, s in scaling:
        by_cmd.setdefault(name, []).append((n, s))
    for name, pts in by_cmd.items():
        pts.sort()
        for (n1, s1), (n2, s2) in itertools.pairwise(pts):
            out.append((name, f"{n1} -> {n2} pools", s2.seconds / s1.seconds))
    return out


def report(rows: list[Row], scaling: list[tuple[str, int, Sample]]) -> str:
    """Return the results as markdown."""
    lines = [
        "# gpupool benchmark results",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} CPU(s), Python "
        f"{platform.python_version()}, {platform.system()} {platform.release()}.",
        "Each figure is the median of several runs of a separate process; ratios compare "
        "commands run side by side in the same session.",
        "",
        "| measured | time s | peak MiB | reference | ref s | ratio | target |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.what} | {r.sample.seconds:.3f} | {r.sample.peak_mib:.0f} | {r.reference} | "
            f"{r.ref.seconds:.3f} | {r.ratio:.2f}x | {r.target} |"
        )
    if scaling:
        lines += ["", "| command | pools | time s | peak MiB |", "|---|---|---|---|"]
        for name, n, s in scaling:
            lines.append(f"| {name} | {n} | {s.seconds:.3f} | {s.peak_mib:.0f} |")
        lines += [
            "",
            "| command | step | time ratio (target <= 11x for 10x pools) |",
            "|---|---|---|",
        ]
        for name, step, ratio in growth(scaling):
            lines.append(f"| {name} | {step} | {ratio:.2f}x |")
    return "\n".join(lines) + "\n"


def main() -> None:
    """Run the benchmarks, print the table and write bench/RESULTS.md."""
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--quick", action="store_true", help="fewer sizes and repeats")
    p.add_argument("--out", default=str(HERE / "RESULTS.md"))
    args = p.parse_args()
    rows, scaling = run(args.quick)
    text = report(rows, scaling)
    sys.stdout.write(text)
    Path(args.out).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
