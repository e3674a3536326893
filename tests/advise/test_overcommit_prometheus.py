"""memory-overcommit read through a Prometheus (issue 40, item 5): a fixture, and GenTD26's pods.

The fixture (``tests/advise/overcommit_scenario.py``, hand-worked there) is served by the demo's
in-process engine always and by a real Prometheus on 127.0.0.1 where its binaries are installed;
both must give the same advice. The public per-pod GPU memory of Alibaba's GenTD26
(``../shared/reference/upstream/traces/alibaba-gentd26/pod_gpu_memory_used_bytes_anon.tar.gz``,
named in ``SOURCES-gentd26.md`` there: ``timestamp_anon,value,container_ip``, bytes, 57 s
samples, 144 containers over 22.8 h) is read as published and converted here into the series
HAMi v2.10.0's monitor writes (``hami_vgpu_memory_used_bytes`` and ``..._limit_bytes``,
``cmd/vGPUmonitor/metrics.go``), the test skipping, naming the file, where it is absent.
"""

from __future__ import annotations

import csv
import io
import json
import math
import tarfile
from collections import defaultdict
from pathlib import Path

import pytest

from gpupool.advise.demo import server as demo_server
from gpupool.advise.overcommit import largest_factor
from gpupool.cli import run
from gpupool.spec.validate import validate_text
from gpupool.usecases import advise
from tests.advise import overcommit_scenario as fixture
from tests.advise.promserver import PROMETHEUS, PROMTOOL, Family, demo_series, served, serving
from tests.advise.scenario import stack_head
from tests.paths import shared_upstream

GENTD = "traces/alibaba-gentd26/pod_gpu_memory_used_bytes_anon.tar.gz"


def _advise(url: str, stack_text: str, tmp: Path, end: float, since: float,
            share: float = 0.001) -> advise.AdviseResult:
    path = tmp / "stack.yaml"
    path.write_text(stack_text, encoding="utf-8")
    checked = validate_text(stack_text, str(path))
    assert checked.stack is not None
    return advise.advise(path, checked.stack, url=url, since_seconds=since, end=end,
                         overflow_share=share)


SERVERS = ["demo", pytest.param("prometheus", marks=pytest.mark.skipif(
    PROMETHEUS is None or PROMTOOL is None, reason="prometheus/promtool not on PATH"))]


@pytest.mark.parametrize("kind", SERVERS)
def test_the_fixture_gets_the_hand_worked_factor_from_a_server(kind: str, tmp_path: Path) -> None:
    families = fixture.series()
    with served(kind, families, tmp_path) as url:
        result = _advise(url, fixture.STACK, tmp_path, fixture.END, fixture.DAYS * 86400.0)
        wide = _advise(url, fixture.STACK, tmp_path, fixture.END, fixture.DAYS * 86400.0,
                       share=0.05)
    [rec] = [r for r in result.recommendations if r.kind == "memory-overcommit"]
    # the hand-worked values of overcommit_scenario.py: 1,152 windows, one allowed to overflow
    assert rec.value == {"slotsPerGpu": 5, "memoryGiB": 6, "memoryOvercommit": 1.4}
    assert rec.evidence["windows"] == 1152 and rec.evidence["overflow_windows"] == 1
    assert rec.evidence["shared_windows"] == 1152
    assert rec.evidence["peak_of_sum_over_sum_of_peaks"] == 1.0
    assert rec.evidence["gpus"] == 2 and rec.evidence["containers"] == 8
    # two busy GPUs now hold 5 slots where 4 were: 2 x (1 - 4/5) GPUs at 0.9776 USD an hour
    assert rec.saving_per_month == pytest.approx(2 * (1 - 4 / 5) * 0.9776 * 730)
    [rec] = [r for r in wide.recommendations if r.kind == "memory-overcommit"]
    assert rec.value["memoryOvercommit"] == 1.8 and rec.value["slotsPerGpu"] == 7
    assert rec.evidence["overflow_windows"] == 25  # the coinciding window and vgpu-b's hours
    # no container nears its slot's cap, so grow-slots-hami proposes nothing beside it
    assert [r.kind for r in result.recommendations] == ["memory-overcommit"]


def test_the_cli_takes_the_share_in_percent_and_refuses_what_is_not_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    with demo_server.serving(demo_series(fixture.series())) as url:
        (tmp_path / "stack.yaml").write_text(fixture.STACK, encoding="utf-8")
        code = run(["advise", str(tmp_path / "stack.yaml"), "--prometheus", url,
                    "--since", "2d", "--until", str(int(fixture.END)), "--overflow-share",
                    "5%", "--format", "json"])
    out = capsys.readouterr().out
    assert code == 0
    [rec] = [r for r in json.loads(out)["recommendations"] if r["kind"] == "memory-overcommit"]
    assert rec["evidence"]["declared_share"] == 0.05
    for bad in ("nan", "-1", "51", "1e-3", "", "0.1%%"):
        assert run(["advise", "x.yaml", "--prometheus", "http://127.0.0.1:1",
                    "--overflow-share", bad]) == 64
        err = capsys.readouterr().err
        assert "--overflow-share" in err and "Traceback" not in err
    assert run(["advise", "--demo", "--overflow-share", "1"]) == 64
    assert "drop --overflow-share" in capsys.readouterr().err


def test_an_exclusive_hami_pool_of_pre_allocating_servers_is_said_not_to_pay(
    tmp_path: Path,
) -> None:
    # two vLLM pods, one an L4 each, holding 90% of the GPU from start to end (vLLM's default
    # --gpu-memory-utilization), as DCGM's per-pod series show them (dcgm-exporter's labels
    # namespace, pod, container: internal/pkg/transformation/const.go)
    stack = stack_head("advise-vllm", scheduler="hami") + """\
  - name: serve
    instanceType: g6.2xlarge
    workload: inference
    nodes: {min: 2, max: 2}
"""
    times = [fixture.END - 86400 + 60 * k + 15 for k in range(1440)]
    used, free, labels = (Family("DCGM_FI_DEV_FB_USED"), Family("DCGM_FI_DEV_FB_FREE"),
                          Family("kube_node_labels"))
    for k, node in enumerate(("vllm-a", "vllm-b")):
        device = {"Hostname": node, "gpu": "0", "modelName": "NVIDIA L4",
                  "namespace": "chat", "pod": f"vllm-{k}", "container": "server"}
        used.add(device, [(t, 0.9 * fixture.L4_MIB) for t in times])
        free.add(device, [(t, 0.1 * fixture.L4_MIB) for t in times])
        labels.add({"node": node, "label_gpupool_io_pool": "serve"}, [(t, 1) for t in times])
    with demo_server.serving(demo_series([used, free, labels])) as url:
        result = _advise(url, stack, tmp_path, fixture.END, 86400.0)
    [gap] = [g for g in result.gaps if "flat at the GPU's" in g]
    assert gap.startswith("pool serve: 2 pods of 2 hold their GPU memory flat at the GPU's")
    assert "chat/vllm-0/server: 20.2 to 20.2 GiB of 22.5" in gap and "would not pay" in gap
    assert not [r for r in result.recommendations if r.kind == "memory-overcommit"]


# --- GenTD26 ------------------------------------------------------------------------------------

PODS_A_GPU = 8  # eight 10 GiB slots of an H100 80GB
SLOT_GIB = 10.0
GENTD_STACK = stack_head("advise-gentd26", scheduler="hami") + f"""\
  - name: sd
    instanceType: p5.48xlarge
    workload: inference
    nodes: {{min: 3, max: 3}}
    sharing:
      mode: fractional
      fractional: {{slotsPerGpu: {PODS_A_GPU}, memoryGiB: {SLOT_GIB:g}}}
"""


def _gentd_rows() -> dict[str, list[tuple[float, float]]]:
    """Read the published file: container -> (time, bytes), in time order."""
    with tarfile.open(shared_upstream(GENTD)) as archive:  # skips, naming it, where absent
        [member] = [m for m in archive.getmembers() if m.name.endswith(".csv")]
        raw = archive.extractfile(member)
        assert raw is not None
        text = io.TextIOWrapper(raw, encoding="utf-8")
        rows: dict[str, list[tuple[float, float]]] = defaultdict(list)
        for row in csv.DictReader(text):
            rows[row["container_ip"]].append((float(row["timestamp_anon"]), float(row["value"])))
    return {ip: sorted(points) for ip, points in rows.items()}


def _gentd_families(rows: dict[str, list[tuple[float, float]]]) -> list[Family]:
    """The containers as HAMi pods: eight a GPU in the order of their (hashed) addresses.

    The published values are scaled by the dataset (its README), so they are scaled again,
    uniformly, to put the largest peak at 85% of a 10 GiB slot (under the 90% at which
    grow-slots-hami calls it near the cap); a ratio of peaks, and so the
    factor, does not change with a common scale.
    """
    top = max(v for points in rows.values() for _, v in points)
    scale = 0.85 * SLOT_GIB * 1024**3 / top
    used = Family("hami_vgpu_memory_used_bytes")
    limit = Family("hami_vgpu_memory_limit_bytes")
    info = Family("kube_pod_info")
    labels = Family("kube_node_labels")
    times = sorted({t for points in rows.values() for t, _ in points})
    for n in range(3):
        labels.add({"node": f"sd-{n}", "label_gpupool_io_pool": "sd"}, [(t, 1) for t in times])
    for i, ip in enumerate(sorted(rows)):
        gpu = i // PODS_A_GPU
        node, pod = f"sd-{gpu // 8}", f"sd-{ip[:12]}"
        ids = {"namespace": "gentd", "pod": pod, "container": "main", "vdevice_index": "0",
               "device_uuid": f"GPU-gentd-{gpu}"}
        used.add(ids, [(t, v * scale) for t, v in rows[ip]])
        limit.add(ids, [(t, SLOT_GIB * 1024**3) for t, _ in rows[ip]])
        info.add({"namespace": "gentd", "pod": pod, "node": node}, [(t, 1) for t in times])
    return [used, limit, info, labels]


def _client_factor(rows: dict[str, list[tuple[float, float]]], end: float, share: float
                   ) -> float | None:
    """The factor worked out here from the file: each 5-minute window ending at a step, the
    summed use at every sample time in it (the pods sample together), the peaks of those
    present."""
    peaks = {ip: max(v for _, v in points) for ip, points in rows.items()}
    groups: dict[int, list[str]] = defaultdict(list)
    for i, ip in enumerate(sorted(rows)):
        groups[i // PODS_A_GPU].append(ip)
    pairs = []
    for ips in groups.values():
        at: dict[float, dict[str, float]] = defaultdict(dict)
        for ip in ips:
            for t, v in rows[ip]:
                at[t][ip] = v
        windows: dict[float, list[dict[str, float]]] = defaultdict(list)
        for t, values in at.items():
            windows[end - math.floor((end - t) / 300) * 300].append(values)
        for samples in windows.values():
            present = {ip for values in samples for ip in values}
            pairs.append((max(sum(v.values()) for v in samples),
                          sum(peaks[ip] for ip in present)))
    return largest_factor(pairs, share).factor


@pytest.mark.skipif(PROMETHEUS is None or PROMTOOL is None,
                    reason="prometheus/promtool not on PATH")
def test_gentd26_pods_sharing_gpus_bear_the_factor_their_windows_show(tmp_path: Path) -> None:
    rows = _gentd_rows()
    assert len(rows) == 144  # as SOURCES-gentd26.md says
    last = max(t for points in rows.values() for t, _ in points)
    end = math.ceil(last / 300) * 300 + 300
    since = 24 * 3600.0
    with serving(_gentd_families(rows), tmp_path / "prometheus") as url:
        strict = _advise(url, GENTD_STACK, tmp_path, end, since)
        loose = _advise(url, GENTD_STACK, tmp_path, end, since, share=0.01)
    # at 0.1% the 18 GPUs' windows bear 1.1 (a sample more or less in a window moves the
    # figure by at most a step of the grid from the one worked out from the file here), which
    # adds no whole slot to 8 a GPU
    [gap] = [g for g in strict.gaps if g.startswith("pool sd:") and "memoryOvercommit" in g]
    assert "adds no whole slot to 8 a GPU" in gap
    worked = _client_factor(rows, end, 0.001)
    assert worked is not None and f"memoryOvercommit {worked:g} " in gap
    # at 1% they bear 1.3: 10 slots a GPU
    [rec] = [r for r in loose.recommendations if r.kind == "memory-overcommit"]
    assert rec.value["memoryOvercommit"] == _client_factor(rows, end, 0.01) == 1.3
    assert rec.value["slotsPerGpu"] == 10
    assert rec.evidence["gpus"] == 18 and rec.evidence["containers"] == 144
    assert rec.evidence["overflow_share"] <= 0.01
