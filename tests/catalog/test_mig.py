"""MIG placement: fit_layout against an independent oracle built from NVIDIA's tables.

The oracle below does not search per layout. It enumerates, once per GPU, every set of
non-overlapping GPU instances on the memory-slot axis (a left-to-right walk: each slot is
either skipped or the start of an instance whose allowed placements include it), keeps the
count vectors that respect compute slices, per-profile maxima and the one-+me rule, and then
answers "does this layout fit" by set membership. The tables are copied here from NVIDIA's MIG
User Guide ("Supported MIG Profiles"), mig-parted's ``pkg/mig/builder/builder_test.go`` and the
placements of the go-nvml A100/A30 mocks vendored in mig-parted (where the guide prints 1/8
memory for A100-40GB 1g.10gb, the mock's size 2 wins), not read from the catalog.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from functools import cache

import pytest

from gpupool import catalog
from gpupool.catalog import (
    GpuModel,
    MigGeometry,
    MigProfile,
    PlacedInstance,
    fit_layout,
    mig_resource_name,
)

SEVEN_SMALL = (0, 1, 2, 3, 4, 5, 6)
# profile: (compute slices, memory slots, max per GPU, allowed start slots)
A100_40GB = {
    "1g.5gb": (1, 1, 7, SEVEN_SMALL),
    "1g.5gb+me": (1, 1, 1, SEVEN_SMALL),
    "1g.10gb": (1, 2, 4, (0, 2, 4, 6)),
    "2g.10gb": (2, 2, 3, (0, 2, 4)),
    "3g.20gb": (3, 4, 2, (0, 4)),
    "4g.20gb": (4, 4, 1, (0,)),
    "7g.40gb": (7, 8, 1, (0,)),
}
A100_80GB = {
    "1g.10gb": (1, 1, 7, SEVEN_SMALL),
    "1g.10gb+me": (1, 1, 1, SEVEN_SMALL),
    "1g.20gb": (1, 2, 4, (0, 2, 4, 6)),
    "2g.20gb": (2, 2, 3, (0, 2, 4)),
    "3g.40gb": (3, 4, 2, (0, 4)),
    "4g.40gb": (4, 4, 1, (0,)),
    "7g.80gb": (7, 8, 1, (0,)),
}
A30 = {
    "1g.6gb": (1, 1, 4, (0, 1, 2, 3)),
    "1g.6gb+me": (1, 1, 1, (0, 1, 2, 3)),
    "2g.12gb": (2, 2, 2, (0, 2)),
    "2g.12gb+me": (2, 2, 1, (0, 2)),
    "4g.24gb": (4, 4, 1, (0,)),
}
# GPU name -> (table, compute slices, memory slots)
REFERENCE = {
    "A100-SXM4-40GB": (A100_40GB, 7, 8),
    "A100-SXM4-80GB": (A100_80GB, 7, 8),
    "H100-SXM5-80GB": (A100_80GB, 7, 8),
    "A30": (A30, 4, 4),
}


def _model(name: str) -> GpuModel:
    model = catalog.gpu(name)
    assert model is not None
    return model


@cache
def _feasible(gpu_name: str) -> frozenset[tuple[int, ...]]:
    """Every count vector (in table order) that some non-overlapping arrangement realizes."""
    table, compute_limit, slots = REFERENCE[gpu_name]
    names = list(table)
    found: set[tuple[int, ...]] = set()

    def walk(slot: int, counts: list[int]) -> None:
        if slot == slots:
            compute = sum(table[n][0] * c for n, c in zip(names, counts, strict=True))
            media = sum(c for n, c in zip(names, counts, strict=True) if n.endswith("+me"))
            within_max = all(c <= table[n][2] for n, c in zip(names, counts, strict=True))
            if compute <= compute_limit and media <= 1 and within_max:
                found.add(tuple(counts))
            return
        walk(slot + 1, counts)  # leave this slot empty
        for i, name in enumerate(names):
            _, size, _, starts = table[name]
            if slot in starts and slot + size <= slots:
                counts[i] += 1
                walk(slot + size, counts)
                counts[i] -= 1

    walk(0, [0] * len(names))
    return frozenset(found)


def test_catalog_tables_match_the_reference() -> None:
    """The catalog's MIG tables equal the reference tables written in this file."""
    for gpu_name, (table, compute_limit, slots) in REFERENCE.items():
        geometry = _model(gpu_name).mig
        assert geometry is not None
        assert (geometry.compute_slices, geometry.memory_slots) == (compute_limit, slots)
        got = {
            p.name: (p.compute_slices, p.memory_slots, p.max_count, p.placements)
            for p in geometry.profiles
        }
        assert got == table


@pytest.mark.parametrize("gpu_name", list(REFERENCE))
def test_fit_layout_matches_oracle_exhaustively(gpu_name: str) -> None:
    """For every count combination (0..max per profile), fit_layout agrees with the oracle."""
    table = REFERENCE[gpu_name][0]
    model = _model(gpu_name)
    feasible = _feasible(gpu_name)
    names = list(table)
    checked = 0
    for counts in itertools.product(*(range(table[n][2] + 1) for n in names)):
        layout = {n: c for n, c in zip(names, counts, strict=True) if c}
        fit = fit_layout(model, layout)
        assert fit.ok == (counts in feasible), (gpu_name, layout, fit.detail)
        if fit.ok:
            _assert_valid_placements(fit.placements, layout, table, REFERENCE[gpu_name][2])
        else:
            assert fit.unplaced in layout and fit.detail
        checked += 1
    assert checked == len(list(itertools.product(*(range(table[n][2] + 1) for n in names))))
    assert len(feasible) > 10


def _assert_valid_placements(
    placements: tuple[PlacedInstance, ...],
    layout: dict[str, int],
    table: dict[str, tuple[int, int, int, tuple[int, ...]]],
    slots: int,
) -> None:
    """Placements use allowed starts, never overlap, and realize exactly the layout."""
    used = [False] * slots
    counts: dict[str, int] = {}
    for placed in placements:
        _, size, _, starts = table[placed.profile]
        assert placed.start in starts and placed.size == size
        for slot in range(placed.start, placed.start + size):
            assert not used[slot]
            used[slot] = True
        counts[placed.profile] = counts.get(placed.profile, 0) + 1
    assert counts == layout


def test_exhaustive_checks_are_fast() -> None:
    """All exhaustive layouts on one A100-80GB stay well under a 20 CPU-second budget.

    A blow-up guard for the placement search (bench/ measures its speed): CPU time, so a loaded
    machine cannot fail it.
    """
    table = A100_80GB
    model = _model("A100-SXM4-80GB")
    started = time.process_time()
    for counts in itertools.product(*(range(v[2] + 1) for v in table.values())):
        fit_layout(model, {n: c for n, c in zip(table, counts, strict=True) if c})
    assert time.process_time() - started < 20


def test_spec_example_detail() -> None:
    """The documented example: 3g.40gb x2 + 1g.10gb x1 fails naming 1g.10gb in words."""
    fit = fit_layout(_model("A100-SXM4-80GB"), {"3g.40gb": 2, "1g.10gb": 1})
    assert not fit.ok
    assert fit.unplaced == "1g.10gb"
    assert fit.detail == "3g.40gb x2 uses all 8 memory slots; 1g.10gb x1 has no slot left."
    assert [(p.profile, p.start) for p in fit.placements] == [("3g.40gb", 0), ("3g.40gb", 4)]


def test_reference_consequences() -> None:
    """Consequences of the placement rules hold (4g+3g, 2g x3 + 1g, 3g + 2g x2).

    4g+3g and 3g + 2g x2 are layouts of NVIDIA cloud-native-docs ``mig-cm-values.yaml``.
    """
    model = _model("H100-SXM5-80GB")
    assert fit_layout(model, {"4g.40gb": 1, "3g.40gb": 1}).ok
    assert fit_layout(model, {"2g.20gb": 3, "1g.10gb": 1}).ok
    assert fit_layout(model, {"3g.40gb": 1, "2g.20gb": 2}).ok
    assert not fit_layout(model, {"3g.40gb": 2, "1g.10gb": 1}).ok
    placed = fit_layout(model, {"2g.20gb": 3, "1g.10gb": 1}).placements
    assert [(p.profile, p.start) for p in placed][-1] == ("1g.10gb", 6)


def test_a100_40gb_double_memory_1g_fills_memory() -> None:
    """On A100-40GB four 1g.10gb use all memory, so no 1g.5gb fits beside them."""
    model = _model("A100-40GB")
    assert fit_layout(model, {"1g.10gb": 4}).ok
    fit = fit_layout(model, {"1g.10gb": 4, "1g.5gb": 1})
    assert not fit.ok and fit.unplaced == "1g.5gb"
    assert "uses all 8 memory slots" in fit.detail


def test_partial_detail_names_free_slots() -> None:
    """When slots stay free but none suits the profile, the detail lists the starts it needs."""
    toy = GpuModel(
        name="TOY",
        aliases=(),
        memory_gib=20,
        compute_capability="8.0",
        nvlink=False,
        bf16_tflops=None,
        fp16_tflops=None,
        product_label="TOY",
        gke_accelerator=None,
        mig=MigGeometry(
            compute_slices=4,
            memory_slots=4,
            profiles=(
                MigProfile("1g.5gb", 1, 1, 5, 1, (3,)),
                MigProfile("2g.10gb", 2, 2, 10, 1, (2,)),
            ),
        ),
    )
    fit = fit_layout(toy, {"1g.5gb": 1, "2g.10gb": 1})
    assert not fit.ok and fit.unplaced == "1g.5gb"
    assert fit.detail == (
        "2g.10gb x1 uses memory slots 2-3; 1g.5gb x1 has no slot left "
        "(it needs 1 free slot starting at 3)."
    )
    assert fit.placements == (PlacedInstance("2g.10gb", 2, 2),)


def test_rejections_before_search() -> None:
    """Unknown profiles, bad counts, max counts, two +me and compute overflow are named."""
    model = _model("A100-SXM4-80GB")
    unknown = fit_layout(model, {"7g.79gb": 1})
    assert not unknown.ok and unknown.unplaced == "7g.79gb" and "7g.80gb" in unknown.detail
    negative = fit_layout(model, {"1g.10gb": -1})
    assert not negative.ok and "non-negative integer" in negative.detail
    too_many = fit_layout(model, {"1g.20gb": 5})
    assert not too_many.ok and "limit of 4" in too_many.detail
    media = fit_layout(_model("A30"), {"1g.6gb+me": 1, "2g.12gb+me": 1})
    assert not media.ok and "+me" in media.detail
    compute = fit_layout(model, {"3g.40gb": 1, "2g.20gb": 3})
    assert not compute.ok and "9 compute slices" in compute.detail


def test_non_mig_and_unknown_tables() -> None:
    """A GPU without MIG, or without a known profile table, never reports a fit."""
    l4 = fit_layout(_model("L4"), {"1g.10gb": 1})
    assert not l4.ok and "does not support MIG" in l4.detail
    # every catalog MIG model now has a table; a model without one (a catalog file that names
    # MIG but no profiles) is still refused rather than guessed at
    rtx = dataclasses.replace(_model("RTX-PRO-6000"), mig=MigGeometry(4, 4, ()))
    assert rtx.mig_capable and rtx.mig is not None and not rtx.mig.profiles_known
    unknown = fit_layout(rtx, {"1g.24gb": 1})
    assert not unknown.ok and "no MIG profile table" in unknown.detail


def test_empty_layout_and_case_insensitive_profiles() -> None:
    """An empty layout fits trivially; profile names match regardless of case."""
    model = _model("A100-SXM4-80GB")
    assert fit_layout(model, {}).ok
    assert fit_layout(model, {"1g.10gb": 0}).ok
    fit = fit_layout(model, {"3G.40GB": 2})
    assert fit.ok and {p.profile for p in fit.placements} == {"3g.40gb"}


def test_mig_resource_name() -> None:
    """The device plugin's mixed-strategy resource replaces '+' with '.'."""
    assert mig_resource_name("1g.10gb") == "nvidia.com/mig-1g.10gb"
    assert mig_resource_name("1g.10gb+me") == "nvidia.com/mig-1g.10gb.me"
