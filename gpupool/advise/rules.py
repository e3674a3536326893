"""The registry of advise rules: every rule ``gpupool advise`` runs, in the order it runs them.

The use case (``gpupool.usecases.advise``) walks ``RULES`` scope by scope (``rule.Scope``), each
pool in the stack's order and, for each, the rules of that scope in the order below; so the
recommendations and gaps come out in that order. ``gpupool advise --list-rules`` and the rules
table of ``docs/commands.md`` are generated from it. Adding a rule is its class (``rule.Rule``)
and one line here.
"""

from __future__ import annotations

from gpupool.advise.capacity import InstanceType, Spot
from gpupool.advise.checkpoint_interval import CheckpointInterval
from gpupool.advise.floor import LowerFloor
from gpupool.advise.overcommit import MemoryOvercommit
from gpupool.advise.quota import TenantQuota
from gpupool.advise.rule import Rule, Scope
from gpupool.advise.share import ShareGpus
from gpupool.advise.slots import GrowHamiSlots, GrowMig

RULES: tuple[Rule, ...] = (
    ShareGpus(),
    GrowMig(),
    LowerFloor(),
    Spot(),
    InstanceType(),
    GrowHamiSlots(),
    MemoryOvercommit(),
    CheckpointInterval(),
    TenantQuota(),
)

# The inference services' rules (issue 39, item 5), after the pools' and the tenants'.
from gpupool.advise.service_advice import SERVICE_RULES  # noqa: E402

RULES += SERVICE_RULES


def of_scope(scope: Scope) -> tuple[Rule, ...]:
    """Return the rules of ``scope``, in the registry's order."""
    return tuple(r for r in RULES if r.scope is scope)
