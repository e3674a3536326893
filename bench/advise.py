"""Benchmark of ``gpupool advise``: 1,000 GPUs over 14 days against a real Prometheus.

Run ``python bench/advise.py`` (``--gpus``, ``--days``, ``--interval`` to change the size). It
writes the series of 125 p5.48xlarge nodes (eight H100s each, five pools) as the DCGM exporter
and kube-state-metrics write them (a sample every ``--interval`` seconds, 600 by default: 14 days
give about 4.5 million samples), builds the TSDB blocks once with ``promtool`` (kept in
``--workdir`` for later runs), starts Debian's ``prometheus`` on 127.0.0.1, and times, each in
its own process with its peak RSS (``os.wait4``), the median of several runs of:

* ``gpupool advise`` on the five-pool stack (``--format json``);
* a reference: one query of the same server asking ``count_over_time`` of every DCGM memory
  series over the whole window (the least any tool reading all of them must make it do).

The targets (issue 29): advise under a minute, its peak memory bounded (under 300 MiB, whatever
the window: every figure is aggregated in the server). The ratio to the reference is printed
because these machines are noisy. Exit 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from tests.advise.promserver import serving_file  # noqa: E402  (the repository's own helper)
from tests.advise.scenario import stack_head  # noqa: E402

DAY = 86400.0
GPUS_PER_NODE = 8
POOLS = 5
TARGET_SECONDS = 60.0
TARGET_MIB = 300.0

STACK_HEAD = stack_head("advise-bench")  # the scenario's cluster, default scheduler


def stack(nodes_per_pool: int) -> str:
    """The benchmark's stack: ``POOLS`` pools of p5.48xlarge nodes."""
    pools = "".join(
        f"  - name: pool-{p}\n    instanceType: p5.48xlarge\n    workload: training\n"
        f"    nodes: {{min: {nodes_per_pool // 2}, max: {nodes_per_pool}}}\n"
        for p in range(POOLS)
    )
    tenants = "tenants:\n" + "".join(
        f"  - name: team-{p}\n    pools: [pool-{p}]\n    quota: {{gpus: {nodes_per_pool * 4}}}\n"
        for p in range(POOLS)
    )
    return STACK_HEAD + pools + tenants


def write_series(path: Path, gpus: int, days: float, interval: float, end: float) -> int:
    """Write the OpenMetrics file; return the samples written."""
    nodes = gpus // GPUS_PER_NODE
    start = end - days * DAY
    times = [start + i * interval for i in range(int(days * DAY / interval) + 1)]
    written = 0
    with path.open("w", encoding="utf-8") as out:
        for metric, busy_value, idle_value in (("DCGM_FI_DEV_FB_USED", 9216.0, 300.0),
                                               ("DCGM_FI_PROF_GR_ENGINE_ACTIVE", 0.12, 0.0)):
            out.write(f"# TYPE {metric} gauge\n")
            for n in range(nodes):
                node = f"node-{n:04d}"
                busy_from, busy_to = 6 + n % 4, 18 + n % 4
                for g in range(GPUS_PER_NODE):
                    labels = (f'Hostname="{node}",gpu="{g}",modelName="NVIDIA H100 80GB HBM3",'
                              f'UUID="GPU-{node}-{g}"')
                    lines = []
                    for t in times:
                        hour = (t % DAY) / 3600
                        v = busy_value if busy_from <= hour < busy_to else idle_value
                        lines.append(f"{metric}{{{labels}}} {v} {t:.0f}\n")
                    out.writelines(lines)
                    written += len(lines)
        out.write("# TYPE kube_node_labels gauge\n")
        for n in range(nodes):
            labels = f'node="node-{n:04d}",label_gpupool_io_pool="pool-{n % POOLS}"'
            out.writelines(f"kube_node_labels{{{labels}}} 1 {t:.0f}\n" for t in times)
            written += len(times)
        for family in ("kube_pod_container_resource_requests", "kube_pod_status_phase"):
            out.write(f"# TYPE {family} gauge\n")
            for n in range(nodes):
                ns, pod = f"team-{n % POOLS}", f"trainer-{n:04d}"
                if family == "kube_pod_status_phase":
                    labels = f'namespace="{ns}",pod="{pod}",phase="Running"'
                else:
                    labels = (f'namespace="{ns}",pod="{pod}",container="main",node="node-{n:04d}",'
                              'resource="nvidia_com_gpu",unit="integer"')
                value = 1 if family == "kube_pod_status_phase" else GPUS_PER_NODE
                out.writelines(f"{family}{{{labels}}} {value} {t:.0f}\n" for t in times)
                written += len(times)
        out.write("# EOF\n")
    return written


def measure(cmd: list[str], cwd: Path) -> tuple[float, float, int]:
    """Run ``cmd``; return its wall seconds, peak RSS in MiB and exit code."""
    begin = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - begin
    return seconds, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


REFERENCE = """\
import json, sys, urllib.parse, urllib.request
url, at, window = sys.argv[1:4]
query = urllib.parse.urlencode({"query": f"count(count_over_time(DCGM_FI_DEV_FB_USED[{window}]))",
                                "time": at})
with urllib.request.urlopen(f"{url}/api/v1/query?{query}", timeout=600) as answer:
    json.load(answer)
"""


def main() -> int:
    """Build, serve, time and print; exit 1 when a target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus", type=int, default=1000)
    parser.add_argument("--days", type=float, default=14)
    parser.add_argument("--interval", type=float, default=600)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args()
    work = args.workdir or Path(tempfile.mkdtemp(prefix="gpupool-advise-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    end = float(int(time.time()) // 3600 * 3600)
    meta = work / "meta.json"
    source = work / "series.om"
    if meta.exists() and (work / "tsdb").exists():
        info = json.loads(meta.read_text())
        end = info["end"]
    else:
        began = time.perf_counter()
        samples = write_series(source, args.gpus, args.days, args.interval, end)
        info = {"end": end, "samples": samples, "write_s": time.perf_counter() - began}
    nodes_per_pool = args.gpus // GPUS_PER_NODE // POOLS
    stack_file = work / "stack.yaml"
    stack_file.write_text(stack(nodes_per_pool), encoding="utf-8")
    began = time.perf_counter()
    with serving_file(source, work) as url:
        if "build_s" not in info:
            info["build_s"] = time.perf_counter() - began
            meta.write_text(json.dumps(info))
        window = f"{int(args.days * 24)}h"
        advise = [sys.executable, "-m", "gpupool", "advise", str(stack_file), "--prometheus",
                  url, "--since", window, "--until", f"{end:.0f}", "--format", "json"]
        reference = [sys.executable, "-c", REFERENCE, url, f"{end:.0f}", window]
        runs_a, runs_r = [], []
        for _ in range(args.runs):
            runs_r.append(measure(reference, ROOT))
            runs_a.append(measure(advise, ROOT))
    if any(rc for _, _, rc in runs_a + runs_r):
        print("a run failed:", runs_a, runs_r)
        return 1
    a_s = statistics.median(s for s, _, _ in runs_a)
    a_mib = max(m for _, m, _ in runs_a)
    r_s = statistics.median(s for s, _, _ in runs_r)
    r_mib = max(m for _, m, _ in runs_r)
    print(f"series: {args.gpus} GPUs, {args.days:g} days, a sample every {args.interval:g} s: "
          f"{info['samples']:,} samples (written in {info.get('write_s', 0):.0f} s, blocks "
          f"built in {info['build_s']:.0f} s)")
    print(f"gpupool advise: {a_s:.1f} s median of {args.runs}, peak RSS {a_mib:.0f} MiB")
    print(f"reference query: {r_s:.1f} s, peak RSS {r_mib:.0f} MiB")
    print(f"ratio: advise / reference = {a_s / r_s:.1f}x time")
    ok = a_s < TARGET_SECONDS and a_mib < TARGET_MIB
    print(f"targets: under {TARGET_SECONDS:g} s and {TARGET_MIB:g} MiB: "
          f"{'met' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
