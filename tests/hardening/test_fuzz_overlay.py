"""Fuzzing the local price overlay reader: a mutated overlay is read whole or refused in one line.

Issue 27, item 2. The overlay ``gpupool catalog refresh`` writes is read by every later
``validate`` and ``plan``, from a folder anything of the user's can write. Starting from the
overlays a refresh writes (AWS price rows; Volcengine price and instance rows), hypothesis
replaces values anywhere with hostile ones (NaN, the infinities, 1e308, zero, negatives, a
5,000-digit integer, booleans, lists, objects, control characters, an HTML comment, another
stack's plan marker), drops and adds keys, duplicates rows, nests values deep, cuts the text
short and flips bytes. Whatever comes out:

- the catalog reads it, and then every price it serves is a finite positive figure at most
  ``MAX_HOURLY`` in the currency that cloud's refresh writes, every date a real one, every
  instance a sane one; or
- it raises ``OverlayError`` naming the file and the refresh to run, and nothing else.

A smaller sample goes through ``gpupool validate`` and ``plan --format markdown`` on the command
line, which must never print "internal error" or a NaN figure.

The budget is ``GPUPOOL_FUZZ_EXAMPLES`` cases (default 400), as for the stack fuzzing.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import math
import os
import re
from collections import Counter
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpupool import catalog, cli
from gpupool.catalog import instance_rows, instance_types, overlay_file, price_overlay
from tests.paths import EXAMPLES

FUZZ_EXAMPLES = int(os.environ.get("GPUPOOL_FUZZ_EXAMPLES", "400"))
STATS: Counter[str] = Counter()

PRICE = {"region": "us-east-1", "currency": "USD", "on_demand_hourly": 0.9776,
         "spot_hourly": 0.4575, "source": "gpupool catalog refresh 2026-12-02: AWS Price List "
         "API", "as_of": "2026-12-02"}  # fmt: skip
SEEDS: dict[str, dict[str, Any]] = {
    "aws": {
        "format_version": "1", "source": ["gpupool catalog refresh 2026-12-02"],
        "as_of": "2026-12-02", "notes": ["Written by gpupool catalog refresh"], "cloud": "aws",
        "prices": [{"name": "g6.2xlarge", "price": PRICE},
                   {"name": "g6e.2xlarge", "price": {**PRICE, "on_demand_hourly": 2.242}}],
    },
    "volcengine": {
        "format_version": "1", "source": ["gpupool catalog refresh 2026-12-02"],
        "as_of": "2026-12-02", "notes": [], "cloud": "volcengine",
        "prices": [{"name": "ecs.gni2.3xlarge", "price": {
            "region": "cn-beijing", "currency": "CNY", "on_demand_hourly": None,
            "spot_hourly": 2.35, "source": "refresh", "as_of": "2026-12-02"}}],
        "instances": [{
            "cloud": "volcengine", "name": "ecs.gni3cl.11xlarge",
            "machine_type": "ecs.gni3cl.11xlarge", "gpu": "L20", "gpu_count": 1, "vcpus": 44,
            "memory_gib": 232, "interconnect": {"nvlink": False, "nvswitch": False,
                                                "efa": False, "infiniband": False},
            "price": {"region": "cn-beijing", "currency": "CNY", "on_demand_hourly": None,
                      "spot_hourly": 3.5, "source": "refresh", "as_of": "2026-12-02"},
            "confidence": "A", "source": "gpupool catalog refresh 2026-12-02: ECS "
            "DescribeInstanceTypes cn-beijing"}],
    },
}  # fmt: skip

NAN = "__NAN__"  # json.dumps writes these as they are; substituted into the text after
HOSTILE_TEXT = {NAN: "NaN", "__INF__": "Infinity", "__NINF__": "-Infinity", "__BIG__": "1e999",
                "__DIGITS__": "1" + "0" * 5000}  # fmt: skip
HOSTILE_VALUES: list[Any] = [
    *HOSTILE_TEXT, 1e308, 0, -1, -4.5, 100_000, True, False, None, "", [], {}, [1, 2], {"a": 1},
    "USD", "EUR", "<!--", "<!-- gpupool-plan:other -->", "No changes", "2026-02-30",
    "us-east-1\n::warning::x", "\x1b[31mred", "\u202eevil", "eastuss", "x" * 600,
]
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def paths(value: Any, at: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every path into the document below its root, containers included."""
    if at:
        yield at
    if isinstance(value, dict):
        for key, child in value.items():
            yield from paths(child, (*at, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from paths(child, (*at, i))


def parent(doc: Any, at: tuple[Any, ...]) -> Any:
    """The container that holds the value at ``at``."""
    return value_at(doc, at[:-1])


def value_at(doc: Any, at: tuple[Any, ...]) -> Any:
    for part in at:
        doc = doc[part]
    return doc


def replace_value(doc: dict[str, Any], data: st.DataObject) -> None:
    at = data.draw(st.sampled_from(list(paths(doc))))
    parent(doc, at)[at[-1]] = copy.deepcopy(data.draw(st.sampled_from(HOSTILE_VALUES)))


def drop_key(doc: dict[str, Any], data: st.DataObject) -> None:
    keyed = [at for at in paths(doc) if isinstance(at[-1], str)]
    at = data.draw(st.sampled_from(keyed))
    del parent(doc, at)[at[-1]]


def add_key(doc: dict[str, Any], data: st.DataObject) -> None:
    objects = [doc, *(v for at in paths(doc) if isinstance(v := value_at(doc, at), dict))]
    target = data.draw(st.sampled_from(objects))
    key = data.draw(st.sampled_from(["extra", "format_version", "instances", "regions"]))
    target[key] = copy.deepcopy(data.draw(st.sampled_from(HOSTILE_VALUES)))


def duplicate_row(doc: dict[str, Any], data: st.DataObject) -> None:
    lists = [v for at in paths(doc) if isinstance(v := value_at(doc, at), list) and v]
    if lists:
        rows = data.draw(st.sampled_from(lists))
        rows.append(copy.deepcopy(rows[0]))


def nest(doc: dict[str, Any], data: st.DataObject) -> None:
    at = data.draw(st.sampled_from(list(paths(doc))))
    value: Any = 1
    for _ in range(data.draw(st.integers(2, 40))):
        value = [value]
    parent(doc, at)[at[-1]] = value


MUTATIONS = [replace_value, drop_key, add_key, duplicate_row, nest]


def text_of(doc: dict[str, Any], data: st.DataObject) -> bytes:
    """The document as a refresh would write it, hostile numbers spliced in, maybe damaged."""
    text = json.dumps(doc, indent=2, ensure_ascii=False)
    for marker, number in HOSTILE_TEXT.items():
        text = text.replace(f'"{marker}"', number)
    raw = text.encode("utf-8")
    damage = data.draw(st.sampled_from(["none", "none", "cut", "flip"]))
    if damage == "cut":
        raw = raw[: data.draw(st.integers(0, len(raw)))]
    elif damage == "flip":
        i = data.draw(st.integers(0, max(len(raw) - 1, 0)))
        raw = raw[:i] + bytes([data.draw(st.integers(0, 255))]) + raw[i + 1 :]
    return raw


def clear() -> None:
    price_overlay.read_overlay.cache_clear()
    instance_types._instance_catalog.cache_clear()


def check_served(cloud: str) -> None:
    """Everything the catalog serves from an accepted overlay is a sane figure."""
    for entry in catalog.instances(cloud):
        price = entry.price
        for figure in (price.on_demand_hourly, price.spot_hourly):
            top = instance_rows.MAX_HOURLY
            assert figure is None or (math.isfinite(figure) and 0 < figure <= top)
        if price.source.startswith("gpupool catalog refresh") or price.source == "refresh":
            assert price.currency == overlay_file.CURRENCIES[cloud]
        date.fromisoformat(price.as_of)
        assert 1 <= entry.gpu_count <= instance_rows.MAX_GPUS
        assert 1 <= entry.vcpus <= instance_rows.MAX_VCPUS
        assert math.isfinite(entry.memory_gib) and entry.gpus > 0
        for text in (entry.name, price.currency, price.region, price.source):
            assert not RAW_CONTROL.search(text) and "<!--" not in text


@settings(max_examples=FUZZ_EXAMPLES, deadline=None, database=None, print_blob=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])  # fmt: skip
@given(
    st.sampled_from(sorted(SEEDS)),
    st.lists(st.sampled_from(MUTATIONS), min_size=0, max_size=4),
    st.data(),
)
def _fuzz(folder: Path, cloud: str, mutations: list[Any], data: st.DataObject) -> None:
    doc = copy.deepcopy(SEEDS[cloud])
    for mutate in mutations:
        mutate(doc, data)
    path = folder / f"instances-{cloud}.json"
    path.write_bytes(text_of(doc, data))
    clear()
    STATS["cases"] += 1
    try:
        check_served(cloud)
    except catalog.OverlayError as exc:
        message = str(exc)
        assert str(path) in message and f"gpupool catalog refresh --cloud {cloud}" in message
        assert len(message) < 1500 and "\n" not in message.replace("\\n", "")
        STATS["refused"] += 1
    else:
        STATS["read"] += 1


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv(catalog.OVERLAY_ENV, str(tmp_path))
    clear()
    yield tmp_path
    clear()


@pytest.mark.slow  # fuzzing; plain `pytest` runs it (-m "not slow" skips it)
def test_mutated_overlays_are_read_sane_or_refused_in_one_line(folder: Path) -> None:
    """No mutation gives an exception other than OverlayError, or a figure that is not sane;
    enough of them stay readable for the accepted side to be exercised."""
    STATS.clear()
    _fuzz(folder)
    print(f"\noverlay fuzz: {dict(STATS)}")
    assert STATS["refused"] >= STATS["cases"] // 4, dict(STATS)
    assert STATS["read"] >= max(STATS["cases"] // 50, 1), dict(STATS)


@settings(max_examples=max(FUZZ_EXAMPLES // 20, 10), deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])  # fmt: skip
@given(st.lists(st.sampled_from(MUTATIONS), min_size=1, max_size=3), st.data())
def _through_the_cli(folder: Path, mutations: list[Any], data: st.DataObject) -> None:
    doc = copy.deepcopy(SEEDS["aws"])
    for mutate in mutations:
        mutate(doc, data)
    (folder / "instances-aws.json").write_bytes(text_of(doc, data))
    clear()
    stack = EXAMPLES / "aws-inference-l4.yaml"
    for argv in (["validate", str(stack)], ["plan", "--format", "markdown", str(stack)]):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out):
            code = cli.run(argv, stderr=err)
        shown = out.getvalue() + err.getvalue()
        assert "internal error" not in shown and "Traceback" not in shown, shown[-2000:]
        assert code in (0, 1, 2), argv
        # the markdown on stdout is what a pull-request comment carries; the error line on
        # stderr may quote the overlay's value (repr, cut short) to say what is wrong
        assert "$nan" not in out.getvalue() and "$inf" not in out.getvalue()
        assert "gpupool-plan:other" not in out.getvalue()
        assert not RAW_CONTROL.search(shown), f"{argv[0]} printed a control character"


@pytest.mark.slow
def test_mutated_overlays_never_give_an_internal_error_on_the_command_line(
    folder: Path,
) -> None:
    """validate and plan on a mutated overlay: a plan or one error line, never a bug."""
    _through_the_cli(folder)
