"""Semantic checks beyond the JSON Schema (docs/stack-file.md, Checks).

Each submodule owns one family of rules and exposes ``run(stack) -> list[Diagnostic]``. Checks read
only the model (never raw YAML) and report JSON paths; placement on lines happens later.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpupool.model import Stack
from gpupool.spec.checks import (
    advice,
    capacity,
    clouds,
    faultisolation,
    gpus,
    monitoring,
    regions,
    rendering,
    scheduler,
    sharing,
    simulation,
    spot,
    state,
    structure,
    tenancy,
)
from gpupool.spec.diagnostics import Diagnostic

_FAMILIES = (
    regions, gpus, sharing, spot, capacity, tenancy, rendering, monitoring, faultisolation, clouds,
    scheduler, advice, state, simulation,
)


def run(stack: Stack, raw: Mapping[str, Any]) -> list[Diagnostic]:
    """Run every check family on a stack and return all diagnostics (unplaced).

    ``raw`` is the schema-valid data the stack was built from; the structural rules need it to
    tell a field that was written from one that was defaulted.
    """
    out: list[Diagnostic] = structure.run(stack, raw)
    for family in _FAMILIES:
        out.extend(family.run(stack))
    return out
