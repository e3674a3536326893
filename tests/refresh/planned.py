"""``gpupool plan --format json`` in a child process that reads a given price overlay.

A helper of the refresh tests (not collected): each vendor's test shows that the overlay its
refresh wrote changes what a real ``gpupool plan`` prices, in a fresh process, so nothing the
test process already loaded of the catalog can stand in for the overlay.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from gpupool import catalog
from tests.paths import ROOT


def plan(stack: Path, overlay: Path) -> dict[str, Any]:
    """Return the JSON plan of ``stack`` with ``overlay`` as the catalog's price overlay.

    The prices are what is compared, so a workload the stack names is not replayed (a stack
    copied to a test's folder leaves its workload behind).
    """
    env = {**os.environ, catalog.OVERLAY_ENV: str(overlay), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "gpupool", "plan", str(stack), "--format", "json",
         "--no-simulation"],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode in (0, 2), done.stderr
    return json.loads(done.stdout)
