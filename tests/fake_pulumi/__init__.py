"""The stand-in ``pulumi`` CLI for tests (see fake_cli.py) and how to put it on PATH."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

FAKE_CLI = Path(__file__).resolve().parent / "fake_cli.py"


def install(bin_dir: Path, environ: dict[str, str] | None = None) -> Path:
    """Write a ``pulumi`` launcher into ``bin_dir`` running the stand-in with this interpreter.

    Returns the launcher. With ``environ`` (a mapping such as ``os.environ`` or a monkeypatched
    copy), ``bin_dir`` is put first on its PATH.
    """
    bin_dir.mkdir(parents=True, exist_ok=True)
    launcher = bin_dir / "pulumi"
    launcher.write_text(
        f'#!/bin/sh\nexec {shlex.quote(sys.executable)} {shlex.quote(str(FAKE_CLI))} "$@"\n'
    )
    launcher.chmod(0o755)
    if environ is not None:
        environ["PATH"] = f"{bin_dir}{os.pathsep}{environ.get('PATH', '')}"
    return launcher
