"""``gpupool advise`` end to end against a real Prometheus holding the 14-day scenario."""

from __future__ import annotations

import csv
import json
import time
from pathlib import Path

import pytest

from gpupool.cli import run
from gpupool.simulate.workload import read_workload
from gpupool.spec.validate import validate_file
from tests.advise.promserver import serving
from tests.advise.scenario import DAY, HAMI_STACK, LLM_COST_PER_HOUR, MIG_STACK, STACK, series

END = float((int(time.time()) // 86400 - 1) * 86400)  # midnight yesterday


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> str:
    with serving(series(END), tmp_path_factory.mktemp("prom")) as url:
        yield url


def _advise(tmp_path: Path, url: str, *extra: str, capsys: pytest.CaptureFixture[str],
            text: str = STACK) -> dict:
    stack = tmp_path / "stack.yaml"
    if not stack.exists():
        stack.write_text(text)
    code = run(["advise", str(stack), "--prometheus", url, "--since", "14d", "--format", "json",
                *extra])
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


def test_a_lightly_used_h100_pool_gets_mig_with_its_saving(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(time, "time", lambda: END)
    doc = _advise(tmp_path, server, capsys=capsys)
    by_kind = {(r["kind"], r["pool"] or r["tenant"]): r for r in doc["recommendations"]}
    share = by_kind[("share-gpus", "h100")]
    # 9 GiB (+ headroom 25%: 11.3 GiB) fits the H100's 1g.20gb, four of which fit a GPU
    assert share["edit"] == {"path": "pools[0].sharing",
                             "value": {"mode": "mig", "mig": {"layout": {"1g.20gb": 4}}}}
    assert share["evidence"]["memory_p99_gib"] == pytest.approx(9.01, abs=0.01)
    assert share["evidence"]["activity_metric"] == "DCGM_FI_PROF_GR_ENGINE_ACTIVE"
    # the GPU's memory as the driver offers it: FB_USED + FB_FREE (81,559 MiB), not the
    # catalog's 80 GiB
    assert share["evidence"]["gpu_memory_gib"] == pytest.approx(79.65, abs=0.01)
    assert share["evidence"]["gpu_memory_from"] == "DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE"
    assert share["evidence"]["samples"] > 1000
    assert share["saving_per_month"] > 0
    assert doc["format_version"] == "1" and doc["stack"] == "advise-scenario"


def test_a_pool_near_its_memory_cap_is_not_downsized(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(time, "time", lambda: END)
    doc = _advise(tmp_path, server, capsys=capsys)
    shared = [r for r in doc["recommendations"] if r["kind"] == "share-gpus"]
    assert [r["pool"] for r in shared] == ["h100"]
    assert doc["coverage"]["l4"]["gpus_seen"] == 1


def test_an_idle_night_floor_gets_a_lower_nodes_min(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(time, "time", lambda: END)
    doc = _advise(tmp_path, server, capsys=capsys)
    [floor] = [r for r in doc["recommendations"] if r["kind"] == "lower-floor"]
    # node b is idle 22 h a day, node a 8 h: one idle node in most hours, so the floor drops by one
    assert floor["edit"] == {"path": "pools[0].nodes.min", "value": 1}
    assert floor["saving_per_month"] > 0


def test_a_tenant_using_a_third_of_its_quota(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(time, "time", lambda: END)
    doc = _advise(tmp_path, server, capsys=capsys)
    [quota] = [r for r in doc["recommendations"] if r["kind"] == "tenant-quota"]
    assert quota["tenant"] == "llm"
    assert quota["edit"] == {"path": "tenants[0].quota.gpus", "value": 10}  # ceil(8 * 1.25)


def test_observed_cost_comes_from_gpupool_s_showback_rule(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # gpupool.sharing.showback records gpupool:tenant_cost_usd_per_hour by (stack, tenant); the
    # trainer runs 16 hours of 24, so the window's mean is two thirds of its running cost
    monkeypatch.setattr(time, "time", lambda: END)
    doc = _advise(tmp_path, server, capsys=capsys)
    llm = doc["showback"]["llm"]
    assert llm["usd_per_hour"] == pytest.approx(LLM_COST_PER_HOUR * 16 / 24, rel=0.02)
    assert llm["usd_per_month"] == pytest.approx(llm["usd_per_hour"] * 730, abs=0.05)
    assert set(doc["showback"]) == {"llm"}
    assert not [g for g in doc["gaps"] if "showback" in g]


def test_write_keeps_comments_and_validates(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(time, "time", lambda: END)
    out = tmp_path / "advised.yaml"
    doc = _advise(tmp_path, server, "--write", str(out), capsys=capsys)
    assert doc["written"] == str(out)
    text = out.read_text()
    assert "# The advise scenario's stack (comments must survive --write)." in text
    assert "nodes: {min: 1, max: 4}  # two warm nodes" in text
    assert "# H100 training nodes; the floor keeps two warm" in text
    checked = validate_file(out, str(out))
    assert checked.stack is not None, [d.summary for d in checked.diagnostics]
    assert checked.stack.pools[0].sharing.mode == "mig"
    assert checked.stack.pools[0].capacity.type == "spot"
    assert checked.stack.pools[1].instance_type == "g6.xlarge"
    # the lines the edits did not touch are the file's own
    original = STACK.splitlines()
    assert text.splitlines()[:20] == original[:20]


def test_missing_dcgm_series_is_a_named_gap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(time, "time", lambda: END)
    with serving(series(END, days=2, dcgm=False), tmp_path / "prom") as url:
        doc = _advise(tmp_path, url, "--since", "2d", capsys=capsys)
        hami_dir = tmp_path / "hami"
        hami_dir.mkdir()
        hami_doc = _advise(hami_dir, url, "--since", "2d", capsys=capsys, text=HAMI_STACK)
    assert doc["recommendations"] == [] or all(
        r["kind"] == "tenant-quota" for r in doc["recommendations"]
    )
    [gap] = [g for g in doc["gaps"] if "DCGM_FI_DEV_FB_USED" in g]
    assert "cluster.monitoring.dcgmExporter" in gap
    # HAMi's monitor unscraped: its series' name and the stack key that renders its
    # ServiceMonitor are named (cmd/vGPUmonitor/metrics.go in Project-HAMi/HAMi)
    [hami_gap] = [g for g in hami_doc["gaps"] if "vGPU_device_memory_usage_in_bytes" in g]
    assert "cluster.monitoring.prometheus.serviceMonitor" in hami_gap
    assert not [r for r in hami_doc["recommendations"] if r["kind"] == "grow-slots"]


def test_too_little_data_is_not_judged(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(time, "time", lambda: END)
    doc = _advise(tmp_path, server, "--since", "6h", capsys=capsys)
    assert not [r for r in doc["recommendations"] if r["pool"]]
    assert any("too little data" in g for g in doc["gaps"])


def test_nothing_is_written_when_the_server_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stack = tmp_path / "stack.yaml"
    stack.write_text(STACK)
    out = tmp_path / "advised.yaml"
    code = run(["advise", str(stack), "--prometheus", "http://127.0.0.1:9", "--write", str(out)])
    err = capsys.readouterr().err
    assert code == 1
    assert "cannot reach Prometheus at http://127.0.0.1:9" in err
    assert "Traceback" not in err
    assert not out.exists()
    assert stack.read_text() == STACK
    assert DAY == 86400.0


def test_an_on_demand_pool_whose_pods_are_recreated_gets_spot_with_a_base(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # owners as kube-state-metrics writes them (docs/metrics/workload/pod-metrics.md,
    # kube_pod_owner: owner_kind "<none>" for a bare pod)
    monkeypatch.setattr(time, "time", lambda: END)
    doc = _advise(tmp_path, server, capsys=capsys)
    [spot] = [r for r in doc["recommendations"] if r["kind"] == "spot"]
    assert spot["pool"] == "h100"
    # node a is busy 16 h a day, b 2 h: one busy node in the median hour stays on-demand
    assert spot["edit"] == {"path": "pools[0].capacity",
                            "value": {"type": "spot", "onDemandBase": 1}}
    assert set(spot["evidence"]["owner_kinds"]) == {"Job"}
    assert spot["evidence"]["restarts"] == 1
    # p5.48xlarge: (on-demand 55.04 - spot 30.33) USD an hour, one node above the base, 730 h
    assert spot["saving_per_month"] == pytest.approx((55.04 - 30.33) * 730, rel=1e-3)
    # the L4 pool's server is a bare pod: nothing would recreate it after an interruption
    assert any(g.startswith("pool l4: 1 of its 1 GPU pod has no owner") for g in doc["gaps"])


def test_a_pool_whose_host_requests_stay_low_gets_a_cheaper_instance_with_the_same_gpu(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(time, "time", lambda: END)
    doc = _advise(tmp_path, server, capsys=capsys)
    [cheaper] = [r for r in doc["recommendations"] if r["kind"] == "instance-type"]
    # the server pod requests 2 CPUs and 6 GiB of a g6.2xlarge's 8 and 32: a g6.xlarge (1 L4,
    # 4 vCPUs, 16 GiB) holds them with 25% headroom
    assert cheaper["pool"] == "l4"
    assert cheaper["edit"] == {"path": "pools[1].instanceType", "value": "g6.xlarge"}
    assert cheaper["evidence"]["cpu_requests_p95"] == 2.0
    assert cheaper["evidence"]["memory_requests_p95_gib"] == 6.0
    assert cheaper["saving_per_month"] == pytest.approx((0.9776 - 0.8048) * 730, rel=1e-3)
    # no other AWS instance carries eight H100s: the h100 pool keeps its type
    assert [r["pool"] for r in doc["recommendations"] if r["kind"] == "instance-type"] == ["l4"]


def test_hami_slots_near_their_cap_get_fewer_larger_slots(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # HAMi's per-container series, cmd/vGPUmonitor/metrics.go (Project-HAMi/HAMi):
    # vGPU_device_memory_usage_in_bytes and vGPU_device_memory_limit_in_bytes
    monkeypatch.setattr(time, "time", lambda: END)
    out = tmp_path / "advised.yaml"
    doc = _advise(tmp_path, server, "--write", str(out), capsys=capsys, text=HAMI_STACK)
    [grow] = [r for r in doc["recommendations"] if r["kind"] == "grow-slots"]
    # 5.6 GiB of a 6 GiB slot at p99; 5.6 x 1.25 = 7 GiB: three slots of 8 GiB fit the L4's 24
    assert grow["edit"] == {"path": "pools[0].sharing.fractional",
                            "value": {"slotsPerGpu": 3, "memoryGiB": 8.0}}
    assert grow["evidence"]["containers"] == 3
    assert grow["evidence"]["containers_near_cap"] == 1
    assert grow["evidence"]["memory_p99_gib"] == pytest.approx(5.6, abs=0.01)
    assert grow["saving_per_month"] < 0  # room costs GPUs
    checked = validate_file(out, str(out))
    assert checked.stack is not None, [d.summary for d in checked.diagnostics]
    frac = checked.stack.pools[0].sharing.fractional
    assert frac is not None and (frac.slots_per_gpu, frac.memory_gib) == (3, 8.0)
    assert "# The HAMi stack of the advise scenario." in out.read_text()


def test_coverage_and_confidence_per_pool(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(time, "time", lambda: END)
    doc = _advise(tmp_path, server, capsys=capsys)
    h100 = doc["coverage"]["h100"]
    # two p5.48xlarge nodes reported: 16 GPUs expected, 16 seen; the exporter's hour-long
    # restart on day 3 still leaves a sample in every hour
    assert (h100["gpus_seen"], h100["gpus_expected"]) == (16, 16)
    assert (h100["hours"], h100["window_hours"], h100["confidence"]) == (336, 336.0, "high")
    # the HAMi and MIG stacks' nodes carry pool labels of pools this stack does not declare
    assert not any("MIG instances" in g for g in doc["gaps"])
    assert any(g.startswith("2 nodes with GPUs belong to no pool of this stack")
               for g in doc["gaps"])


def test_gpu_util_on_mig_and_low_coverage_are_not_judged(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # dcgm-exporter: DCGM_FI_DEV_GPU_UTIL is the whole GPU's and is not reported per MIG
    # instance; the profiling metrics are (NVIDIA/DCGM issue #80)
    monkeypatch.setattr(time, "time", lambda: END)
    doc = _advise(tmp_path, server, capsys=capsys, text=MIG_STACK)
    assert [r for r in doc["recommendations"] if r["pool"] == "mig"] == []
    [mig_gap] = [g for g in doc["gaps"] if "MIG instances" in g]
    assert "DCGM_FI_DEV_GPU_UTIL does not measure a MIG instance" in mig_gap
    # one GPU of the node's eight reported: low coverage, so no rule judged the pool
    cover = doc["coverage"]["mig"]
    assert (cover["gpus_seen"], cover["gpus_expected"], cover["instances_seen"]) == (1, 8, 2)
    assert cover["confidence"] == "low"
    assert any(g.startswith("pool mig: low coverage (1 of 8 GPUs") for g in doc["gaps"])


def test_export_workload_writes_the_pods_seen_in_simulates_format(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # kube-state-metrics' pod series (docs/metrics/workload/pod-metrics.md): kube_pod_created,
    # kube_pod_start_time, kube_pod_status_phase, kube_pod_info, resource requests
    monkeypatch.setattr(time, "time", lambda: END)
    out = tmp_path / "workload.csv"
    doc = _advise(tmp_path, server, "--export-workload", str(out), capsys=capsys)
    rows = list(csv.DictReader(out.read_text().splitlines()))
    assert list(rows[0]) == ["name", "tenant", "submit", "duration", "gpus", "fraction", "mig",
                             "gpu_memory_gib", "cpu", "memory_gib", "priority", "pool", "pods"]
    by_name = {r["name"]: r for r in rows}
    # 14 days: the training Jobs of 14 days (the one of the window's first day started before it
    # ends in it too), as many evaluation Jobs, the L4 server and the three HAMi pods
    trainers = sorted(n for n in by_name if n.startswith("llm/trainer-"))
    assert len(trainers) == 14
    day = by_name[trainers[3]]
    assert day["tenant"] == "llm" and day["pool"] == "h100" and day["gpus"] == "8"
    assert float(day["duration"]) == 16 * 3600  # 06:00 to 22:00, the first Succeeded sample
    assert (float(day["cpu"]), float(day["memory_gib"]), day["pods"]) == (16.0, 64.0, "1")
    assert float(day["submit"]) % DAY == pytest.approx((5 * 3600 + 2400 - END) % DAY)
    server_pod = by_name["web/server"]
    assert (server_pod["submit"], server_pod["tenant"], server_pod["pool"]) == ("0", "", "l4")
    assert float(server_pod["duration"]) == 14 * DAY  # still running at the window's end
    # the observed waits: the training Jobs wait 20 minutes for their 06:00 start
    # the HAMi pods run on vgpu-a, a node of a pool this stack does not declare: they ran
    # outside its pools and are left out; the night's batch ran on all four h100 nodes
    assert not [n for n in by_name if n.startswith("search/")]
    assert {by_name[f"batch/night-3-{k}"]["pool"] for k in "abcd"} == {"h100"}
    assert doc["workload"]["pods"] == len(rows)
    assert doc["workload"]["observed_wait_p95_seconds"]["llm"] == 1200.0


def test_the_exported_workload_reads_back_with_simulates_reader(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(time, "time", lambda: END)
    out = tmp_path / "workload.csv"
    _advise(tmp_path, server, "--export-workload", str(out), capsys=capsys)
    jobs = read_workload(out).jobs
    assert {j.pool for j in jobs} >= {"h100", "l4"}
    assert all(j.duration > 0 and j.pods == 1 for j in jobs)


def test_the_exported_workload_replayed_reproduces_the_observed_waits(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 29's fidelity: --export-workload, then simulate on today's stack. The trainer waits
    20 minutes for the night's batch to free the pool at its nodes.max; the simulator, with the
    same four nodes at most, starts it when the batch ends too. Its batch pods wait for the
    autoscaler's 300 s (observed 0: the nodes were there), within the 10-minute tolerance."""
    monkeypatch.setattr(time, "time", lambda: END)
    out = tmp_path / "workload.csv"
    doc = _advise(tmp_path, server, "--export-workload", str(out), capsys=capsys)
    fidelity = doc["fidelity"]
    assert fidelity["wait_p95_seconds"]["llm"] == {"observed": 1200.0, "simulated": 1200.0}
    assert fidelity["wait_p95_seconds"]["(no tenant)"] == {"observed": 0.0, "simulated": 300.0}
    assert fidelity["gpu_hours"]["l4"]["observed"] == pytest.approx(336.0)
    h100 = fidelity["gpu_hours"]["h100"]
    assert h100["simulated"] == pytest.approx(h100["observed"], rel=0.1)
    assert (fidelity["score"], fidelity["within_tolerance"], fidelity["off"]) == (1.0, True, [])
    assert fidelity["tolerance"] == {"wait_seconds": 600.0, "wait_share": 0.25,
                                     "gpu_hours_share": 0.1}
    # the edits were replayed with the exported workload: none lengthens a wait
    assert doc["replayed_workload"] == str(out)
    assert doc["dropped"] == []
    assert not any("queue waits were not checked" in g for g in doc["gaps"])
    assert run(["advise", str(tmp_path / "stack.yaml"), "--prometheus", server, "--since", "14d",
                "--export-workload", str(out)]) == 0
    text = capsys.readouterr().out
    assert ("Fidelity of today's stack replayed: 4 of 4 figures within tolerance (score 1.00)"
            in text)
    assert f"Queue waits checked by replaying {out} before and after each edit." in text


def test_an_edit_that_simulate_says_lengthens_a_queue_is_dropped(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--workload: the team plans an embedding service on the L4 pool asking 6 vCPUs and 20 GiB.
    The instance-type advice (g6.xlarge: 4 vCPUs, 16 GiB, from the pods seen) cannot hold it: the
    simulator leaves it never started, so its wait grows past the tolerance and the edit is
    dropped; the others replay without a longer wait and are kept."""
    monkeypatch.setattr(time, "time", lambda: END)
    planned = tmp_path / "planned.csv"
    planned.write_text(
        "name,tenant,submit,duration,gpus,cpu,memory_gib,pool\n"
        "web/server,,0,86400,1,2,6,l4\n"
        "web/embed,,3600,7200,1,6,20,l4\n"
        "llm/trainer,llm,0,3600,8,16,64,h100\n",
        encoding="utf-8",
    )
    doc = _advise(tmp_path, server, "--workload", str(planned), capsys=capsys)
    [dropped] = doc["dropped"]
    assert (dropped["kind"], dropped["pool"]) == ("instance-type", "l4")
    assert dropped["reason"] == "simulate shows longer queue waits for (no tenant)"
    kept = {r["kind"] for r in doc["recommendations"]}
    assert {"share-gpus", "lower-floor", "tenant-quota"} <= kept and "instance-type" not in kept
    assert doc["replayed_workload"] == str(planned) and doc["fidelity"] is None
    # without a workload the check cannot run, and the report says so
    bare = _advise(tmp_path, server, capsys=capsys)
    assert "instance-type" in {r["kind"] for r in bare["recommendations"]}
    assert any(g.startswith("queue waits were not checked: no workload to replay")
               for g in bare["gaps"])


def test_a_workload_the_stack_cannot_run_is_an_error(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("name,tenant,submit,duration,gpus\nx,nobody,0,60,1\n", encoding="utf-8")
    (tmp_path / "stack.yaml").write_text(STACK)
    code = run(["advise", str(tmp_path / "stack.yaml"), "--prometheus", server,
                "--workload", str(bad)])
    err = capsys.readouterr().err
    assert code == 1
    assert "bad.csv:2" in err and "tenant 'nobody' is not in stack" in err


def test_until_fixes_the_window_and_a_bad_one_is_a_usage_error(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(END))
    doc = _advise(tmp_path, server, "--until", stamp, capsys=capsys)
    assert doc["window"]["end"] == END
    assert {r["kind"] for r in doc["recommendations"]} >= {"share-gpus", "lower-floor"}
    code = run(["advise", str(tmp_path / "stack.yaml"), "--prometheus", server,
                "--until", "yesterday"])
    assert code == 64
    assert "argument --until: takes unix seconds from 0 to 253402300799, or an RFC 3339 time" \
        in capsys.readouterr().err


def test_a_window_longer_than_the_data_is_low_coverage_and_not_judged(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(time, "time", lambda: END)
    doc = _advise(tmp_path, server, "--since", "30d", capsys=capsys)
    h100 = doc["coverage"]["h100"]
    # 14 days of the window's 30 hold data (337 hours: the data's first sample sits on an hour
    # of the window too): under half, so low coverage
    assert (h100["hours"], h100["window_hours"], h100["confidence"]) == (337, 720.0, "low")
    assert not [r for r in doc["recommendations"] if r["pool"]]
    assert any(g.startswith("pool h100: low coverage (16 of 16 GPUs and 337 of 720 hours")
               for g in doc["gaps"])


def test_in_place_refuses_when_the_file_changed_while_advise_queried(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # before: the stack was read before the queries (minutes on a real server) and written over
    # without a look, so an edit saved meanwhile was lost
    from gpupool.usecases import advise as usecase

    monkeypatch.setattr(time, "time", lambda: END)
    stack = tmp_path / "stack.yaml"
    stack.write_text(STACK)
    real = usecase.evidence.read

    def read_while_someone_edits(*args: object, **kwargs: object) -> object:
        with stack.open("a") as fh:
            fh.write("# saved by a colleague while advise queried\n")
        return real(*args, **kwargs)

    monkeypatch.setattr(usecase.evidence, "read", read_while_someone_edits)
    code = run(["advise", str(stack), "--prometheus", server, "--in-place"])
    err = capsys.readouterr().err
    assert code == 1
    assert f"error: {stack} changed since advise read it at" in err
    assert stack.read_text() == STACK + "# saved by a colleague while advise queried\n"


def test_in_place_keeps_the_file_s_mode(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # before: a 0640 stack came back 0644, world-readable
    monkeypatch.setattr(time, "time", lambda: END)
    stack = tmp_path / "stack.yaml"
    stack.write_text(STACK)
    stack.chmod(0o640)
    doc = _advise(tmp_path, server, "--in-place", capsys=capsys)
    assert doc["written"] == str(stack)
    assert stack.read_text() != STACK
    assert stack.stat().st_mode & 0o777 == 0o640
