"""Output of ``gpupool render``: where the program was written and what to run next."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from gpupool.escape import one_line
from gpupool.formats import FORMAT_VERSION
from gpupool.render import RenderResult


def summary(result: RenderResult, fmt: str, cwd: Path | None = None) -> str:
    """Return what ``gpupool render`` prints: where it wrote and what to run next.

    Args:
        result: what the render wrote.
        fmt: ``text`` or ``json``.
        cwd: the directory the output directory is shown relative to (default: the current one).

    """
    here, shown = (cwd or Path.cwd()).resolve(), result.out_dir
    if shown.is_relative_to(here):
        shown = shown.relative_to(here)
    next_step = f"cd {shlex.quote(str(shown))} && pulumi preview"
    if fmt == "json":
        doc = {
            "format_version": FORMAT_VERSION,
            "out_dir": str(result.out_dir),
            "files": [p.relative_to(result.out_dir).as_posix() for p in result.files],
            "next": next_step,
        }
        return json.dumps(doc, indent=2) + "\n"
    return (f"Rendered {len(result.files)} files to {one_line(str(shown))}\n"
            f"Next: {one_line(next_step)}\n")
