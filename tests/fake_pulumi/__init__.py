"""The stand-in ``pulumi`` CLI for tests (see fake_cli.py) and how to put it on PATH."""

from __future__ import annotations

import json
import os
import shlex
import shutil
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


def stack_workspace(example: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Copy a stack file into ``tmp_path/work`` with the stand-in first on PATH; return it.

    The stand-in logs every call to ``tmp_path/calls.jsonl`` (``FAKE_PULUMI_LOG``), runs the
    default scenario, and the state passphrase is set.
    """
    install(tmp_path / "bin", monkeypatch)
    monkeypatch.setenv("FAKE_PULUMI_LOG", str(tmp_path / "calls.jsonl"))
    monkeypatch.setenv("PULUMI_CONFIG_PASSPHRASE", "correct horse battery")
    monkeypatch.delenv("PULUMI_CONFIG_PASSPHRASE_FILE", raising=False)
    monkeypatch.delenv("FAKE_PULUMI_SCENARIO", raising=False)
    monkeypatch.delenv("PULUMI_BACKEND_URL", raising=False)
    target = tmp_path / "work" / "stack.yaml"
    target.parent.mkdir()
    shutil.copy(example, target)
    return target


def calls(tmp_path: Path) -> list[list[str]]:
    """Return the argv of every stand-in call made in a ``stack_workspace`` test."""
    log = tmp_path / "calls.jsonl"
    if not log.is_file():
        return []
    return [json.loads(line)["argv"] for line in log.read_text(encoding="utf-8").splitlines()]
