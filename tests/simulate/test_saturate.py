"""Capacity mode: the FGD simulator's method, by hand and on the published openb trace."""

from __future__ import annotations

import csv

import pytest

from gpupool.simulate.saturate import saturate, tune
from gpupool.simulate.workload import read_workload
from tests.bench_scripts import openb_stack
from tests.paths import shared_upstream
from tests.simulate.simstacks import job, lab, workload

TWO_NODES = "  - {name: a, nodeNames: [n1, n2], gpu: {model: L4, count: 4}}\n"


def test_tuning_draws_pods_until_the_next_would_pass_the_target() -> None:
    """tuneUpPods: copies drawn while the requests stay within the target (8 GPUs at 100%)."""
    wl = workload(job("p", 0, 10, gpus=3))
    pods = tune(wl, capacity=8, percent=100, seed=1)
    assert len(pods) == 2 and sum(p.gpus for p in pods) == 6


def test_three_gpu_pods_fill_two_four_gpu_nodes_to_75_percent() -> None:
    """Two 3-GPU pods on two 4-GPU nodes: 6 of 8 GPUs arrive and are allocated; nothing fails."""
    out = saturate(lab(TWO_NODES), workload(job("p", 0, 10, gpus=3)), 100, seed=1)
    assert out.capacity_gpus == 8 and out.pods == 2 and out.failed == 0
    assert out.allocated_percent[75] == 75.0
    assert out.allocated_percent[38] == 37.5  # after the first pod (37.5% rounds to 38)


def test_fragmentation_shows_as_failed_pods() -> None:
    """3-GPU pods at 150%: the third and later fit nowhere (1 GPU left per node)."""
    out = saturate(lab(TWO_NODES), workload(job("p", 0, 10, gpus=3)), 150, seed=1)
    assert out.pods == 4 and out.failed == 2
    assert out.allocated_percent[-1] == 75.0


# openb_pod_list_default at tune 1.3, over all six policies and ten seeds, from the simulator's
# experiments/analysis/expected_results/analysis_allo_discrete.csv: the lowest (01-Random) and
# highest (06-FGD) allocation at 100% and 130% of arrived GPU requests.
BAND = {100: (85.87, 95.38), 130: (87.07, 95.49)}
GPU_PACKING = {100: (91.07, 92.58), 130: (91.29, 92.79)}


def _expected() -> dict[str, list[list[float]]]:
    path = shared_upstream("fgd/analysis_allo_discrete.csv")
    out: dict[str, list[list[float]]] = {}
    with path.open(encoding="utf-8", newline="") as f:
        for row in csv.reader(f):
            if row[0] == "openb_pod_list_default" and row[2] == "1.3":
                out.setdefault(row[1], []).append([float(x) for x in row[5:]])
    return out


def test_band_facts_match_the_published_results() -> None:
    curves = _expected()
    every = [c for cs in curves.values() for c in cs]
    for pct, (low, high) in BAND.items():
        assert min(c[pct] for c in every) == low and max(c[pct] for c in every) == high
    for pct, (low, high) in GPU_PACKING.items():
        packing = curves["04-GpuPacking"]
        assert (min(c[pct] for c in packing), max(c[pct] for c in packing)) == (low, high)


@pytest.mark.slow
def test_openb_default_at_130_percent_is_within_the_published_band() -> None:
    """KAI binpack (what a KAI stack runs) on the published cluster and trace, tune 1.3.

    Of the paper simulator's policies, KAI's binpack is closest to 04-GpuPacking
    (pkg/simulator/plugin/gpu_packing_score.go): both put a fraction on a GPU already in use
    before an empty one (KAI's gpusharingorder and gpupack), and prefer the node with the least
    left (KAI's nodeplacement pack scores the fewest non-allocated GPUs). They differ in what
    they weigh beyond that: GpuPacking ranks nodes by GPU state classes, KAI by a node's
    non-allocated GPUs alone and is blind to CPU, which the trace's CPU-heavy pods also need;
    so KAI's curve may sit below GpuPacking's, and the test holds it within the band of all six
    published policies (Random the floor, FGD the ceiling).
    """
    stack = openb_stack(shared_upstream("fgd/openb_node_list_gpu_node.csv"))
    wl = read_workload(shared_upstream("fgd/openb_pod_list_default.csv"), "openb")
    out = saturate(stack, wl, 130, seed=42)
    assert out.capacity_gpus == 6212
    for pct, (low, high) in BAND.items():
        got = out.allocated_percent[pct]
        assert got is not None and low <= got <= high, (pct, got)
