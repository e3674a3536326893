"""The bundled examples are what new users copy, so they stay exemplary.

Every stack under ``stacks/examples/`` validates with no diagnostics at all: no error and no
warning. A new check that fires on an example means the example no longer models good practice:
fix the example (keeping what it is there to show), not this test. The README's table of examples
names exactly the files that exist.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpupool.spec.validate import validate_file
from tests.paths import EXAMPLES, ROOT

EXAMPLE_FILES = sorted(EXAMPLES.glob("*.yaml"))


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


def test_readme_table_names_every_example() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([a-z0-9-]+\.yaml)` \|", readme, flags=re.MULTILINE))
    assert listed == {p.name for p in EXAMPLE_FILES}
