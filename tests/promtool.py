"""Prometheus's own ``promtool``, for the rendered rules and the dashboard's queries (a helper).

``promtool check rules FILE`` parses every expression with Prometheus's PromQL parser and checks
the rule file's structure; ``promtool test rules FILE`` evaluates rules over input series and
compares the alerts that fire (Prometheus docs, "Unit testing for rules",
configuration/unit_testing_rules.md). Debian's ``prometheus`` package ships it as
``/usr/bin/promtool``; ``.ci/run`` installs it and sets ``GPUPOOL_REQUIRE_PROMTOOL=1``, so in CI
(there, or wherever ``CI`` is set) a missing promtool fails these tests instead of skipping them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

PROMTOOL = shutil.which("promtool")
_REQUIRED = os.environ.get("GPUPOOL_REQUIRE_PROMTOOL") == "1" or bool(os.environ.get("CI"))


def require() -> str:
    """Return promtool's path; skip the test without it, or fail where CI requires it."""
    if PROMTOOL is None:
        if _REQUIRED:
            pytest.fail("promtool is not on PATH; CI needs it (.ci/run installs it)")
        pytest.skip("promtool not on PATH (apt-get install prometheus); CI installs it")
    return PROMTOOL


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [require(), *args], cwd=cwd, capture_output=True, text=True, check=False, timeout=120
    )


def check_rules(groups: list[dict[str, Any]], tmp_path: Path, name: str = "rules.yaml") -> str:
    """Write a rule file of ``groups`` and return promtool's complaint, or "" when it passes."""
    path = tmp_path / name
    path.write_text(yaml.safe_dump({"groups": groups}, sort_keys=False), encoding="utf-8")
    done = _run(["check", "rules", path.name], tmp_path)
    return "" if done.returncode == 0 else done.stdout + done.stderr


def unit_test(
    groups: list[dict[str, Any]], tests: list[dict[str, Any]], tmp_path: Path, interval: str = "1m"
) -> str:
    """Run ``promtool test rules`` on ``tests`` over ``groups``; return its output on failure."""
    rules = tmp_path / "rules.yaml"
    rules.write_text(yaml.safe_dump({"groups": groups}, sort_keys=False), encoding="utf-8")
    spec = {"rule_files": [rules.name], "evaluation_interval": interval, "tests": tests}
    path = tmp_path / "tests.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    done = _run(["test", "rules", path.name], tmp_path)
    return "" if done.returncode == 0 else done.stdout + done.stderr
