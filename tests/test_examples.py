"""The bundled examples are what new users copy, so they stay exemplary.

Every stack under ``stacks/examples/`` validates with no diagnostics at all: no error and no
warning. A new check that fires on an example means the example no longer models good practice:
fix the example (keeping what it is there to show), not this test. Every pool of every example is
priced (by the catalog, or by a price it declares), except the few ``UNPRICED`` names with the
reason no price with a source exists. The README's table of examples names exactly the files
that exist.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpupool import plan
from gpupool.assemble import build
from gpupool.spec.validate import validate_file
from tests.paths import EXAMPLES, ROOT
from tests.stacks import load_stack

EXAMPLE_FILES = sorted(EXAMPLES.glob("*.yaml"))

#: (example, pool) whose plan cannot price it, and why. Nothing here may be made up: an example
#: that declares a price says where the figure comes from, and a market price no source gives is
#: left unknown.
UNPRICED = {
    ("volcengine-a10.yaml", "a10"): (
        "Volcengine publishes no price list the bundled catalog can cite, so ecs.gni2.3xlarge "
        "has no price; only a refreshed overlay (gpupool catalog refresh --cloud volcengine) or "
        "the team's own declared price can give one, and the example does not invent one"
    ),
}


def test_there_are_examples() -> None:
    assert len(EXAMPLE_FILES) >= 8, EXAMPLE_FILES


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_example_validates_without_diagnostics(path: Path) -> None:
    result = validate_file(path)
    shown = [
        f"{path.name}:{d.range.start.line if d.range else '?'}: {d.severity.value}: "
        f"{d.summary} [{d.code}]"
        for d in result.diagnostics
    ]
    shown = [line for line in shown if ": info: " not in line]  # advice (info) is not a problem
    assert result.valid and not shown, shown


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_example_prices_every_pool(path: Path) -> None:
    """At nodes.min and nodes.max, every pool's cost and all-on-demand equivalent are known."""
    stack = load_stack(path)
    cost = plan.make_plan(plan.Base("empty", None, None), build(stack), stack).cost
    assert cost.pools
    unpriced = {p.pool for p in cost.pools if not (p.hourly.known and p.on_demand_hourly.known)}
    assert unpriced == {pool for (name, pool) in UNPRICED if name == path.name}, cost.unpriced
    if not unpriced:
        assert cost.unpriced == () and cost.monthly.known


def test_the_unpriced_exceptions_are_real_pools() -> None:
    names = {p.name for p in EXAMPLE_FILES}
    for name, pool in UNPRICED:
        assert name in names
        assert pool in {p.name for p in load_stack(EXAMPLES / name).pools}


def test_the_tour_table_names_every_example() -> None:
    readme = (ROOT / "docs" / "tour.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([a-z0-9-]+\.yaml)` \|", readme, flags=re.MULTILINE))
    assert listed == {p.name for p in EXAMPLE_FILES}
