"""The README's samples are what gpupool prints."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from gpupool.cli import run
from tests.paths import FIXTURES, ROOT


def _sample(section: str) -> str:
    """Return the first ``` block after the README heading that starts with ``section``."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index(section)
    match = re.compile(r"^```[a-z]*\n(.*?)^```$", re.M | re.S).search(readme, start)
    assert match is not None, f"no sample under {section}"
    return match.group(1)


def test_validate_sample_is_what_gpupool_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Section 2's output, byte for byte: diagnostics (stderr) in file order, then the verdict."""
    sample = _sample("### 2. `gpupool validate")
    command, *shown = sample.splitlines(keepends=True)
    assert command == "$ gpupool validate stacks/prod.yaml\n"
    (tmp_path / "stacks").mkdir()
    shutil.copy(FIXTURES / "invalid" / "schema-and-gpu-errors.yaml", tmp_path / "stacks/prod.yaml")
    monkeypatch.chdir(tmp_path)
    assert run(["validate", "stacks/prod.yaml"]) == 1
    printed = capsys.readouterr()
    assert printed.err + printed.out == "".join(shown)
