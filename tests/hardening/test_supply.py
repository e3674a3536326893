"""Supply chain: the lower bounds CI tests are the ones pyproject.toml states, and the README
states the limits and the SDK versions gpupool actually uses.

``.ci/run`` installs ``tests/lower-bounds.txt`` as constraints in a second virtualenv and runs
every test not marked ``cloud_sdks``; these tests keep that file, the CI step and the README in
step with ``pyproject.toml``, ``gpupool.spec.load`` and ``gpupool.render.SDK_PINS``.
"""

from __future__ import annotations

import re

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from gpupool import render
from gpupool.spec import load
from tests.paths import ROOT, TESTS

tomllib = pytest.importorskip("tomllib")  # Python 3.11+


def _core_requirements() -> dict[str, Requirement]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    reqs = [Requirement(r) for r in data["project"]["dependencies"]]
    return {r.name.lower().replace("_", "-"): r for r in reqs}


def _lower_bounds() -> dict[str, Version]:
    pins = {}
    for line in (TESTS / "lower-bounds.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            pins[name.strip().lower().replace("_", "-")] = Version(version.strip())
    return pins


def test_every_core_dependency_has_a_tested_lower_bound() -> None:
    """Each core dependency has a '>=' bound, and tests/lower-bounds.txt pins exactly it."""
    pins = _lower_bounds()
    for name, req in _core_requirements().items():
        lows = [Version(s.version) for s in req.specifier if s.operator == ">="]
        assert len(lows) == 1, f"{name} has no single lower bound in pyproject.toml"
        assert name in pins, f"{name} is not in tests/lower-bounds.txt"
        assert pins[name] == lows[0], f"{name}: pyproject says >={lows[0]}, CI uses {pins[name]}"
        assert req.specifier.contains(pins[name]), name
    assert set(pins) == set(_core_requirements())


def test_ci_runs_the_lower_bounds() -> None:
    """.ci/run installs the constraints in a second virtualenv and runs the SDK-free tests."""
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "--constraint tests/lower-bounds.txt" in script
    assert '-m "not cloud_sdks"' in script


def test_ci_runs_the_readme_commands_on_the_newest_allowed_versions_in_a_fresh_venv() -> None:
    """The README's install and test commands, in a new virtualenv, every dependency at its newest
    allowed version (eager: nothing already installed is kept): what a new user gets. PyYAML
    6.0.4 once broke two tests that the development machine's 6.0.3 passed."""
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    commands = [line.strip() for line in script.splitlines() if not line.lstrip().startswith("#")]
    venv = next(c for c in commands if c.startswith("python -m venv"))
    install = next(c for c in commands if "--upgrade-strategy eager" in c)
    assert venv.split()[-1].strip('"') in install  # installs into that fresh virtualenv
    assert "--upgrade" in install.split() and "-e '.[dev]'" in install
    newest = commands[commands.index(install) :]
    assert "python -m pytest" in newest  # the README's test command, all markers
    assert newest.index("python -m pytest") < next(
        i for i, c in enumerate(newest) if "lower-bounds" in c
    )
    assert not any(c.startswith("python -m pip install") for c in commands)  # nothing outside


def test_the_security_doc_states_the_limits_and_the_tested_sdk_versions() -> None:
    section = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    assert f"{load.MAX_BYTES // 2**20} MiB" in section
    assert f"{load.MAX_DEPTH} levels" in section
    assert f"{load.MAX_NODES:,}" in section
    assert f"{load.MAX_CHARS // 2**20} MiB of" in section or "8 MiB (an anchored" in section
    stated = dict(re.findall(r"^\| (pulumi[-\w]*) \| ([\d.]+) \|$", section, re.M))
    assert stated == render.SDK_PINS
