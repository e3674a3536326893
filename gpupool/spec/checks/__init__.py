"""Semantic checks beyond the JSON Schema (docs/stack-file.md, Checks).

Each submodule owns one family of rules and exposes ``run(stack) -> list[Diagnostic]``. Checks read
only the model (never raw YAML) and report JSON paths; placement on lines happens later.

This module also owns what each family reads outside the pool or tenant it reports on
(``_FAMILIES``, ``_CODE_READS``), so that validation can still run the checks of a stack whose
schema errors it set aside, and keep only the findings that do not rest on a part it set aside.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import ModuleType
from typing import Any

from gpupool.model import Stack
from gpupool.spec.checks import (
    advice,
    capacity,
    checkpoint,
    clouds,
    faultisolation,
    gpus,
    monitoring,
    regions,
    rendering,
    scheduler,
    services,
    sharing,
    simulation,
    spot,
    state,
    structure,
    tenancy,
)
from gpupool.spec.diagnostics import Diagnostic

#: Each family with the stack fields its rules read besides the provider's cloud (which every
#: family reads) and the pool or tenant a finding is on: ``"cluster.scheduler"`` (one field),
#: ``"simulation"`` (a whole section); ``"pools"`` and ``"tenants"``: a finding outside the pools
#: and tenants depends on the whole list (a node count over every pool, say).
_FAMILIES: tuple[tuple[ModuleType, tuple[str, ...]], ...] = (
    (structure, ()),
    (regions, ("provider.region",)),
    (gpus, ()),
    (sharing, ("cluster.scheduler",)),
    (spot, ()),
    (checkpoint, ("cluster.scheduler", "pools", "tenants")),
    (capacity, ()),
    (tenancy, ("cluster.admission", "cluster.kubernetesVersion", "cluster.scheduler",
               "cluster.gpuOperator", "metadata.name", "tenants")),
    (rendering, ("cluster.gpuOperator", "cluster.scheduler", "metadata.name", "pools",
                 "tenants")),
    (monitoring, ("cluster.monitoring", "cluster.faultIsolation", "cluster.scheduler", "pools")),
    (faultisolation, ("cluster.faultIsolation", "cluster.gpuOperator",
                      "cluster.kubernetesVersion", "pools")),
    (clouds, ("provider.region", "provider.settings", "cluster.gpuOperator", "cluster.scheduler",
              "pools")),
    (scheduler, ("cluster.scheduler", "cluster.schedulerHighAvailability", "metadata.environment",
                 "pools")),
    (advice, ()),
    (state, ("state",)),
    (simulation, ("simulation",)),
    (services, ("services", "pools", "tenants", "cluster.monitoring", "cluster.scheduler",
                "metadata.environment")),
)

#: Rules that read more than the rest of their family.
_CODE_READS: Mapping[str, tuple[str, ...]] = {
    "spot.all-spot-production": ("metadata.environment",),
}

_ITEM_LISTS = ("pools", "tenants")


def _overlap(a: str, b: str) -> bool:
    """Return whether field ``a`` is field ``b``, lies inside it, or holds it."""
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


def _trusted(d: Diagnostic, reads: Iterable[str], broken: frozenset[str]) -> bool:
    """Return whether nothing ``d``'s rule reads was set aside (a pruned list spares its items)."""
    for field in reads:
        if any(_overlap(field, b) for b in broken):
            if field in _ITEM_LISTS and d.path[:1] in (("pools",), ("tenants",)):
                continue
            return False
    return True


def run(
    stack: Stack, raw: Mapping[str, Any], broken: frozenset[str] = frozenset()
) -> list[Diagnostic]:
    """Run every check family on a stack and return all diagnostics (unplaced).

    ``raw`` is the schema-valid data the stack was built from; the structural rules need it to
    tell a field that was written from one that was defaulted. ``broken`` names the fields that
    validation set aside (in the terms of ``_FAMILIES``; ``"pools"``/``"tenants"`` when some
    items of the list were): a finding whose rule reads one of them is left out.
    """
    out: list[Diagnostic] = []
    for family, reads in _FAMILIES:
        found = structure.run(stack, raw) if family is structure else family.run(stack)
        if broken:
            found = [d for d in found
                     if _trusted(d, (*reads, *_CODE_READS.get(d.code, ())), broken)]
        out.extend(found)
    return out
