"""``gpupool render``: write the stack's Pulumi program where ``--out`` (or the default) says."""

from __future__ import annotations

from pathlib import Path

from gpupool import render as renderer
from gpupool.assemble import build
from gpupool.model import Stack
from gpupool.render import RenderResult
from gpupool.usecases.engine import backend_from


def render(stack_file: Path, stack: Stack, out: str | None) -> RenderResult:
    """Render ``stack`` into ``out``, or ``.gpupool/build/<stack>/`` next to ``stack_file``.

    Raises:
        RenderError: the graph cannot be written as a program.
        InputError: the output directory cannot be written.

    """
    out_dir = Path(out) if out else renderer.default_out_dir(stack_file, stack)
    backend = backend_from(out_dir, stack_file, stack)
    return renderer.render(stack, build(stack), out_dir, backend)
