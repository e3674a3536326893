"""Every catalog note that says something about its own row is true of that row.

A row's ``note`` explains it: where a figure came from, what was assumed, what is unknown. A
note that says "price left null" beside a price, or "8 GPUs" beside a count of 12, misleads
whoever reads the catalog. ``CLAIMS`` are the kinds of statement notes make about their row,
each a pattern and the check it implies; every note of an instance or GPU row must make at
least one claim checked here, or be listed in ``NO_ROW_CLAIM`` with why it says nothing about its
row's fields, so a new note cannot slip past unread.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import gpupool.catalog

DATA = Path(gpupool.catalog.__file__).parent / "data"
Row = dict[str, Any]
Check = Callable[[Row, "re.Match[str]"], bool]


def _gpus() -> dict[str, Row]:
    return {g["name"]: g for g in json.loads((DATA / "gpus.json").read_text("utf-8"))["gpus"]}


def _instances() -> list[Row]:
    out: list[Row] = []
    for path in sorted(DATA.glob("instances-*.json")):
        out += json.loads(path.read_text("utf-8"))["instances"]
    return out


def _price(row: Row, key: str) -> Any:
    return (row.get("price") or {}).get(key)


def _profiles(row: Row) -> dict[str, Row]:
    return {p["name"]: p for p in ((row.get("mig") or {}).get("profiles") or ())}


def _where(text: str) -> list[int]:
    """``0-3`` -> [0, 1, 2, 3]; ``0 or 2`` -> [0, 2]; ``0`` -> [0]."""
    if "-" in text:
        lo, hi = text.split("-")
        return list(range(int(lo), int(hi) + 1))
    return [int(x) for x in text.split(" or ")]


def _placements(row: Row, m: re.Match[str]) -> bool:
    wanted = _where(m["where"])
    plain = [p for name, p in _profiles(row).items()
             if name.startswith(f"{m['g']}g.") and "+" not in name and "-" not in name[3:]]
    return bool(plain) and all(p["placements"] == wanted for p in plain)


#: Instance rows: (pattern, check).
INSTANCE_CLAIMS: list[tuple[str, Check]] = [
    (r"price left null", lambda r, m: _price(r, "on_demand_hourly") is None),
    (r"spot price in the snapshot is a copy of on-demand: unknown|spot unknown",
     lambda r, m: _price(r, "spot_hourly") is None),
    (r"no (?P<region>[a-z]+-[a-z]+-\d) on-demand price",
     lambda r, m: _price(r, "region") == m["region"] and _price(r, "on_demand_hourly") is None),
    (r"spot seen only in (?P<region>[a-z]+-[a-z]+-\d)",
     lambda r, m: _price(r, "region") != m["region"] and _price(r, "spot_hourly") is None),
    (r"no GPU price mapping", lambda r, m: _price(r, "on_demand_hourly") is None),
    (r"price: host row \+ GPU-attachment row of the SkyPilot v7 snapshot, (?P<region>[a-z0-9-]+)"
     r".*so they are shown",
     lambda r, m: _price(r, "region") == m["region"] and _price(r, "on_demand_hourly") is not None),
    (r"NVSwitch by analogy", lambda r, m: r["interconnect"]["nvswitch"] is True),
    (r"NVLink/NVSwitch assumed",
     lambda r, m: r["interconnect"]["nvlink"] is True and r["interconnect"]["nvswitch"] is True),
    (r"NVLink not verified in the sources read, so recorded as false",
     lambda r, m: r["interconnect"]["nvlink"] is False),
    (r"NVLink between the two GPUs not verified", lambda r, m: r["gpu_count"] == 2),
    (r"fractional (?P<gpu>[A-Z0-9]+)",
     lambda r, m: r["gpu"] == m["gpu"] and 0 < r.get("gpu_fraction", 1) < 1),
    (r"page says (?P<n>\d+) GPUs", lambda r, m: r["gpu_count"] == int(m["n"])),
    (r"CPU (?P<cpu>\d+) vCPUs, Memory (?P<mem>\d+) GB, GPU (?P<gpu>[A-Z0-9]+) x (?P<n>\d+)",
     lambda r, m: (r["vcpus"], r["memory_gib"], r["gpu"], r["gpu_count"])
     == (int(m["cpu"]), int(m["mem"]), m["gpu"], int(m["n"]))),
    (r"(?P<n>\d+) x NVIDIA (?P<gpu>[A-Z0-9]+)-\S+, (?P<cpu>\d+) vCPU, (?P<mem>\d+) GiB",
     lambda r, m: (r["gpu_count"], r["gpu"], r["vcpus"], r["memory_gib"])
     == (int(m["n"]), m["gpu"], int(m["cpu"]), int(m["mem"]))),
]

#: GPU rows: (pattern, check).
GPU_CLAIMS: list[tuple[str, Check]] = [
    (r"NVLink bridge connector|NVLink cut to", lambda g, m: g["nvlink"] is True),
    (r"MIG table as (?P<other>[A-Z0-9-]+GB)", lambda g, m: g["mig"] == _gpus()[m["other"]]["mig"]),
    (r"(?:all-|lists |and )(?P<p>\dg\.\d+gb) x(?P<n>\d+)",
     lambda g, m: _profiles(g)[m["p"]]["max_count"] == int(m["n"])),
    (r"(?<![\w.])(?P<p>\dg\.\d+gb)(?![\w.])",  # every MIG profile named is one of the row's
     lambda g, m: m["p"] in _profiles(g)),
    (r"[Nn]o datasheet (?:dense BF16 figure|TFLOPS)", lambda g, m: g["bf16_tflops"] is None),
    (r"labels its nodes (?P<label>[A-Za-z0-9-]+)",
     lambda g, m: m["label"] in (g["product_label"], *g["aliases"])),
    (r"nvidia-smi there prints (?P<name>[A-Za-z0-9 -]+?) \(",
     lambda g, m: m["name"].replace(" ", "-") in (g["product_label"], *g["aliases"])),
    (r"Memory (?P<gb>\d+) GB per", lambda g, m: g["memory_gib"] == int(m["gb"])),
    (r"(?P<total>\d+\.\d+) TFLOPS / (?P<n>\d+)",
     lambda g, m: g["bf16_tflops"] == round(float(m["total"]) / int(m["n"]), 1)),
    (r"four GPUs of (?P<gb>\d+) GB", lambda g, m: g["memory_gib"] == int(m["gb"])),
    (r"(?P<g>\d)g at (?P<where>\d(?:-\d| or \d)?)", _placements),
    (r"memory_gib is the 7g profile's rounding up",
     lambda g, m: any(0 < g["memory_gib"] - int(n.split(".")[1][:-2]) <= 1
                      for n in _profiles(g) if n.startswith("7g."))),
    (r"(?P<name>H20), (?P<gb>\d+)GB, (?P<n>\d+) instances",
     lambda g, m: g["memory_gib"] == int(m["gb"]) and _profiles(g)["1g.12gb"]["max_count"]
     == int(m["n"])),
]

#: Notes that say nothing checkable about their own row's fields, and why.
NO_ROW_CLAIM = {
    "A10G": "where the TFLOPS came from (a third-party comparison); the figure is not restated",
    "RTX-4090": "what kind of figure bf16_tflops is (FP32 accumulate, dense), not its value",
}


def _notes() -> list[tuple[str, str, Row, list[tuple[str, Check]]]]:
    out = [(f"gpu {name}", g["note"], g, GPU_CLAIMS) for name, g in _gpus().items() if "note" in g]
    out += [(f"{r['cloud']} {r['name']}", r["note"], r, INSTANCE_CLAIMS)
            for r in _instances() if "note" in r]
    return out


NOTES = _notes()


@pytest.mark.parametrize(("row", "note", "data", "claims"), NOTES, ids=[n[0] for n in NOTES])
def test_every_claim_a_note_makes_holds_for_its_row(
    row: str, note: str, data: Row, claims: list[tuple[str, Check]]
) -> None:
    made = 0
    for pattern, check in claims:
        for m in re.finditer(pattern, note):
            made += 1
            assert check(data, m), f"{row}: the note says {m[0]!r}, which its row contradicts"
    name = row.split(" ", 1)[1]
    assert made or name in NO_ROW_CLAIM, f"{row}: a note no claim reads: {note!r}"


def test_a_contradicting_note_is_caught() -> None:
    """The check does fail: "price left null" beside a price, and a wrong GPU count."""
    row: Row = {"price": {"on_demand_hourly": 2.9}, "gpu_count": 12}
    for pattern, check in INSTANCE_CLAIMS:
        for text in ("price left null", "Microsoft's page says 8 GPUs"):
            m = re.search(pattern, text)
            if m:
                assert not check(row, m)


def test_notes_of_the_gcp_a2_a3_rows_match_their_prices() -> None:
    """The a2-ultragpu/a3 rows carry SkyPilot's host + GPU prices and say they are shown."""
    rows = [r for r in _instances() if r["cloud"] == "gcp" and "note" in r
            and r["name"].startswith(("a2-ultragpu", "a3-high", "a3-mega", "a3-ultra"))]
    assert rows
    for r in rows:
        assert "left null" not in r["note"] and _price(r, "on_demand_hourly") is not None
