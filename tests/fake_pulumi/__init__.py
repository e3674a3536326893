"""The stand-in ``pulumi`` CLI for tests (see fake_cli.py) and how to put it on PATH."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import pytest

FAKE_CLI = Path(__file__).resolve().parent / "fake_cli.py"


def install(bin_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Write a ``pulumi`` launcher into ``bin_dir`` running the stand-in with this interpreter,
    and put ``bin_dir`` first on PATH for the test. Returns the launcher."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    launcher = bin_dir / "pulumi"
    launcher.write_text(
        f'#!/bin/sh\nexec {shlex.quote(sys.executable)} {shlex.quote(str(FAKE_CLI))} "$@"\n'
    )
    launcher.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    return launcher
