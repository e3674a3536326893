"""advise's measured interruption rate and checkpoint-interval (issue 40, item 2's third source).

The hand-worked pool: ten g6.4xlarge spot nodes (one L4 each), every one busy, over a 24-hour
window; three of them vanish, after 8, 12 and 16 hours, while the seven others go on to the
window's end. Busy node-hours: 7 x 24 + 8 + 12 + 16 = 204; interruptions: 3; the rate 3 / 204 =
0.014706 per node and hour, so the mean time between interruptions is 204 / 3 = 68 h =
244,800 s. With a 60 s write, Young's interval is sqrt(2 x 60 x 244,800) = sqrt(29,376,000) =
5,420 s; Daly's (FGCS 22(3), 2006), x = 60 / (2 x 244,800) = 1.2255e-4: 5,419.96 x (1 +
sqrt(x) / 3 + x / 9) - 60 = 5,419.96 x 1.0037037 - 60 = 5,380 s. The declared 600 s is under
half of it, so everySeconds becomes 5,380. What each GPU-hour loses (writes, plus half an
interval redone an interruption): at 600 s, 60 / 600 + 600 / 489,600 = 0.10123; at 5,380 s,
60 / 5,380 + 5,380 / 489,600 = 0.02214. The saving: (0.10123 - 0.02214) x 8.5 busy GPUs (204
node-hours over 24 h, one GPU a node) x the pool's GPU price x 730 hours.

The series are what the DCGM exporter writes (``DCGM_FI_DEV_FB_USED`` by ``Hostname`` and
``gpu``) and kube-state-metrics' ``kube_node_labels`` with the pool label, every five minutes
at 30 s past (off the hourly ranges' edges); served by the demo's engine and by a real
Prometheus on 127.0.0.1 (``tests/advise/promserver.py``) where its binaries are installed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpupool.advise import checkpoint_interval as rule
from gpupool.advise import interruptions
from gpupool.advise.demo import server as demo_server
from gpupool.cli import run
from gpupool.spec.validate import validate_text
from gpupool.usecases import advise
from tests.advise.promserver import PROMETHEUS, PROMTOOL, Family, demo_series, served
from tests.advise.scenario import stack_head

END = 1796218800.0
DAY = 86400.0
HOUR = 3600.0
L4_MIB = 23034.0
GONE = {"spot-7": 8, "spot-8": 12, "spot-9": 16}  # node -> the hours it reported
MTBI = 204 * HOUR / 3

STACK = stack_head("advise-interruptions",
                   comment="# A spot pool whose nodes the cloud takes back.\n") + """\
  - name: spot-l4
    instanceType: g6.4xlarge
    workload: training
    nodes: {min: 0, max: 10}
    capacity: {type: spot}
    interruption: {checkpoint: required}
    # the trainer writes in a minute; every ten minutes was a guess
    checkpoint: {everySeconds: 600, writeSeconds: 60, restoreSeconds: 90}
"""


def families(gone: dict[str, int] = GONE, nodes: int = 10, hours: int = 24,
             busy_mib: float = 20_000.0, idle: tuple[str, ...] = ()) -> list[Family]:
    """The pool's series: ``nodes`` nodes; those of ``gone`` report only their first hours.

    A node of ``idle`` holds no GPU memory in its last hour (as a node drained for scale-down).
    """
    start = END - hours * HOUR
    used, free, labels = (Family("DCGM_FI_DEV_FB_USED"), Family("DCGM_FI_DEV_FB_FREE"),
                          Family("kube_node_labels"))
    for n in range(nodes):
        node = f"spot-{n}"
        until = start + gone.get(node, hours) * HOUR
        times = [start + 30 + 300 * k for k in range(hours * 12) if start + 30 + 300 * k < until]

        def mib(t: float, node: str = node, until: float = until) -> float:
            return 0.0 if node in idle and t > until - HOUR else busy_mib

        device = {"Hostname": node, "gpu": "0", "modelName": "NVIDIA L4"}
        used.add(device, [(t, mib(t)) for t in times])
        free.add(device, [(t, L4_MIB - mib(t)) for t in times])
        labels.add({"node": node, "label_gpupool_io_pool": "spot-l4"}, [(t, 1) for t in times])
    return [used, free, labels]


def _advise(url: str, tmp: Path, text: str = STACK, hours: int = 24) -> advise.AdviseResult:
    path = tmp / "stack.yaml"
    path.write_text(text, encoding="utf-8")
    checked = validate_text(text, str(path))
    assert checked.stack is not None
    return advise.advise(path, checked.stack, url=url, since_seconds=hours * HOUR, end=END)


def test_the_count_of_the_hand_worked_pool() -> None:
    # node -> {hour: busy}: seven nodes all 24 hours, three for their first 8, 12 and 16
    hours = {f"spot-{n}": dict.fromkeys(range(GONE.get(f"spot-{n}", 24)), True)
             for n in range(10)}
    found = interruptions.count(hours, "spot-l4", DAY, END - DAY + HOUR)
    assert found.busy_node_hours == found.node_hours == 7 * 24 + 8 + 12 + 16 == 204
    assert found.interruptions == 3 and found.idle_gone == ()
    assert [v.node for v in found.vanished] == ["spot-7", "spot-8", "spot-9"]
    # spot-7's last hour is hour 7, which ends 8 hours into the window
    assert found.vanished[0].last_seen == END - DAY + 8 * HOUR
    assert found.interruptions_per_hour == pytest.approx(3 / 204)
    assert found.mtbi_seconds == pytest.approx(244_800.0)


def test_a_node_that_went_idle_before_it_vanished_is_not_counted() -> None:
    # spot-9 idle in its last hour (a scale-down): 2 interruptions over 203 busy node-hours
    hours = {f"spot-{n}": dict.fromkeys(range(GONE.get(f"spot-{n}", 24)), True)
             for n in range(10)}
    hours["spot-9"][15] = False
    found = interruptions.count(hours, "spot-l4", DAY, END - DAY + HOUR)
    assert found.interruptions == 2 and found.idle_gone == ("spot-9",)
    assert found.busy_node_hours == 203 and found.node_hours == 204
    assert found.mtbi_seconds == pytest.approx(203 * HOUR / 2)
    # a node whose series stop and come back counts each stop; the pool's last hour none
    again = interruptions.count(
        {"a": {0: True, 1: True, 3: True}, "b": dict.fromkeys(range(4), True)}, "p", 4 * HOUR, 0.0)
    assert [(v.node, v.last_seen) for v in again.vanished] == [("a", HOUR)]


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.dictionaries(st.sampled_from([f"n{i}" for i in range(6)]),
                       st.dictionaries(st.integers(0, 47), st.booleans(), max_size=48),
                       min_size=1))
def test_a_vanishing_is_a_stop_before_the_pools_last_hour(
        hours: dict[str, dict[int, bool]]) -> None:
    found = interruptions.count(hours, "p", 48 * HOUR, 0.0)
    last = max((max(h) for h in hours.values() if h), default=-1)
    stops = sum(1 for h in hours.values() for i in h if i + 1 not in h and i < last)
    assert len(found.vanished) == stops
    assert found.busy_node_hours == sum(sum(h.values()) for h in hours.values())
    assert found.node_hours == sum(len(h) for h in hours.values())
    assert found.interruptions + len(found.idle_gone) == stops
    for v in found.vanished:  # each ended before the pool's last hour, where a node went on
        assert v.last_seen < last * HOUR and hours[v.node][round(v.last_seen / HOUR)] == v.busy
    if found.interruptions:
        assert found.mtbi_seconds == pytest.approx(
            found.busy_node_hours * HOUR / found.interruptions)


SERVERS = ["demo", pytest.param("prometheus", marks=pytest.mark.skipif(
    PROMETHEUS is None or PROMTOOL is None, reason="prometheus/promtool not on PATH"))]


@pytest.mark.parametrize("kind", SERVERS)
def test_the_hand_worked_interval_from_a_server(kind: str, tmp_path: Path) -> None:
    with served(kind, families(), tmp_path) as url:
        result = _advise(url, tmp_path)
    [rec] = [r for r in result.recommendations if r.kind == "checkpoint-interval"]
    assert rec.path_text == "pools[0].checkpoint.everySeconds" and rec.value == 5380
    ev = rec.evidence
    assert ev["busy_node_hours"] == 204 and ev["vanished_nodes"] == 3
    assert ev["interruptions_per_node_hour"] == round(3 / 204, 6) == 0.014706
    assert ev["mtbi_hours"] == 68.0 and ev["window_hours"] == 24.0
    assert ev["young_seconds"] == 5420 and ev["daly_seconds"] == 5380
    assert ev["loss_share_declared"] == 0.1012 and ev["loss_share_optimum"] == 0.0221
    # the window starts at END - 24 h, 2026-12-01 13:40 UTC: 8, 12 and 16 hours after it
    assert ev["vanished"] == ("spot-7 gone by 2026-12-01 21:40, spot-8 gone by 2026-12-02 01:40, "
                              "spot-9 gone by 2026-12-02 05:40")
    stack = validate_text(STACK, "x.yaml").stack
    assert stack is not None
    gpu_hourly = advise._prices(stack)[0]["spot-l4"]
    assert gpu_hourly is not None
    assert rec.saving_per_month == pytest.approx(
        (0.10122549 - 0.02214098) * 204 / 24 * gpu_hourly * 730, rel=1e-6)
    assert "checkpoint every 5380 s, longer than 600 s" in rec.summary


def test_cannot_tell_without_an_interruption_or_enough_node_hours(tmp_path: Path) -> None:
    with demo_server.serving(demo_series(families(gone={}))) as url:
        none = _advise(url, tmp_path)
    assert not [r for r in none.recommendations if r.kind == "checkpoint-interval"]
    # 10 nodes x 24 h = 240 busy node-hours and no node vanished
    assert ("pool spot-l4: checkpoint interval: cannot tell: no node vanished busy in the "
            "window's 240 busy node-hours, so the mean time between interruptions is only "
            "known to exceed 240 h") in none.gaps
    # six nodes for a day: 3 x 24 + 8 + 12 + 16 = 108 busy node-hours, under a node-week
    with demo_server.serving(demo_series(families(nodes=6, gone={
            "spot-3": 8, "spot-4": 12, "spot-5": 16}))) as url:
        few = _advise(url, tmp_path)
    assert not [r for r in few.recommendations if r.kind == "checkpoint-interval"]
    assert ("pool spot-l4: checkpoint interval: cannot tell the interruption rate from 108 "
            f"busy node-hours (at least {rule.MIN_NODE_HOURS} are needed)") in few.gaps


def test_an_interval_near_the_optimum_is_left_and_nothing_is_read_without_a_checkpoint(
    tmp_path: Path,
) -> None:
    near = STACK.replace("everySeconds: 600", "everySeconds: 7200")  # 7,200 / 5,380 = 1.34
    with demo_server.serving(demo_series(families())) as url:
        kept = _advise(url, tmp_path, near)
        plain = _advise(url, tmp_path, STACK.replace(
            "    checkpoint: {everySeconds: 600, writeSeconds: 60, restoreSeconds: 90}\n", ""))
    assert not [r for r in kept.recommendations if r.kind == "checkpoint-interval"]
    assert kept.evidence.interruptions["spot-l4"].interruptions == 3
    assert plain.evidence.interruptions == {}
    assert plain.evidence.queries == kept.evidence.queries - 1  # the one range query


def test_a_tenants_checkpoint_on_one_pool_is_judged_on_several_not(tmp_path: Path) -> None:
    two_pools = STACK + """\
  - name: spare
    instanceType: g6.4xlarge
    workload: training
    nodes: {min: 0, max: 2}
tenants:
  - name: research
    pools: [spot-l4]
    checkpoint: {everySeconds: 36000, writeSeconds: 30, restoreSeconds: 60}
  - name: batch
    pools: [spot-l4, spare]
    checkpoint: {everySeconds: 900, writeSeconds: 60, restoreSeconds: 60}
"""
    with demo_server.serving(demo_series(families())) as url:
        result = _advise(url, tmp_path, two_pools)
    recs = {r.path_text: r for r in result.recommendations if r.kind == "checkpoint-interval"}
    # research: Daly for a 30 s write and 244,800 s, x = 30 / 489,600 = 6.1275e-5:
    # sqrt(14,688,000) = 3,832.49 x (1 + 0.0078278 / 3 + x / 9) - 30 = 3,832.49 x 1.0026161
    # - 30 = 3,812.5, so 3,813 s; 36,000 is over twice it
    assert recs["tenants[0].checkpoint.everySeconds"].value == 3813
    assert recs["tenants[0].checkpoint.everySeconds"].tenant == "research"
    assert "tenants[1].checkpoint.everySeconds" not in recs
    assert any(g.startswith("tenant batch: its checkpoint applies on 2 pools (spot-l4, spare)")
               for g in result.gaps)


def test_the_written_edit_keeps_the_comments(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    with demo_server.serving(demo_series(families())) as url:
        (tmp_path / "stack.yaml").write_text(STACK, encoding="utf-8")
        code = run(["advise", str(tmp_path / "stack.yaml"), "--prometheus", url, "--since",
                    "1d", "--until", str(int(END)), "--write", str(tmp_path / "out.yaml")])
    assert code == 0, capsys.readouterr().err
    written = (tmp_path / "out.yaml").read_text(encoding="utf-8")
    assert "    # the trainer writes in a minute; every ten minutes was a guess\n" in written
    assert "checkpoint: {everySeconds: 5380, writeSeconds: 60, restoreSeconds: 90}" in written
    assert written.replace("everySeconds: 5380", "everySeconds: 600") == STACK
