"""The offline plan: what changes between two resource graphs, what the pools hold, what they cost.

This package owns ``PlanResult`` and the pure functions that make one (no I/O, no engine):

- ``diff``: resources matched by address, each given Terraform's actions (``create``,
  ``update``, ``delete``, for a replace ``create``+``delete`` or, where the rendered program
  deletes first, ``delete``+``create``, ``no-op``), the input paths that
  changed and the ones that force replacement (``gpupool.plan.diff``), with reasons a GPU engineer
  would write, derived from the resources' ``facts`` (``gpupool.plan.reasons``);
- ``capacity``: GPUs, slots, memory per slot, QoS and TFLOPS per pool, and each tenant's quota
  against what its pools hold, from the desired ``Stack`` and the catalog
  (``gpupool.plan.capacity``);
- ``cost``: hourly and monthly cost at nodes.min and nodes.max from the node-pool facts of both
  graphs (so a recorded base is priced too), its all-on-demand equivalent and the delta
  (``gpupool.plan.cost``);
- ``tenant_cost``: each tenant's guaranteed cost and ceiling per pool, every pool's unallocated
  remainder and the price of one unit of each slot kind, from the same facts
  (``gpupool.plan.tenant_cost``);
- ``checkpoints``: each pool's (or tenant's) checkpoint interval against Young's and Daly's
  optimum, and its expected downtime part by part (``gpupool.plan.checkpoint``);
- ``services``: each inference service's slots, GPUs and cost at ``replicas.min`` and
  ``replicas.max`` beside its pool's slots at ``nodes.max`` (``gpupool.plan.services``);
- ``advice``: what would save money, priced (``gpupool.spec.checks.advice``, the same items
  ``validate`` reports as ``info``);
- ``pins``: digests of what each desired resource makes the engine do, so that ``up --expect``
  applies only the graph that was reviewed (``gpupool.plan.pins``);
- ``acknowledged``: the stack file's acknowledged warnings, as validation found them (the use
  case passes them on; ``gpupool.spec.acknowledge``).

A plan takes its base as data (``Base``: a graph, or None for nothing, and where it came from);
choosing and loading it (the applied record, another stack file, a git revision) is
``gpupool.usecases.base``'s job. How a plan reads is ``gpupool.views``'.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from gpupool import catalog
from gpupool.graph import ResourceGraph
from gpupool.plan.capacity import (
    CEILING_QUEUE,
    CEILING_RESOURCE_QUOTA,
    ZERO,
    Ceiling,
    MinMax,
    PoolCapacity,
    SlotProfile,
    TenantCapacity,
    capacity,
    tenant_capacity,
)
from gpupool.plan.changes import (
    CREATE,
    DELETE,
    MISSING,
    NO_OP,
    REPLACE,
    REPLACE_DELETE_FIRST,
    UPDATE,
    InputChange,
    InputPath,
    ResourceChange,
    Summary,
    dotted,
    replace_actions,
    show_value,
    summarize,
)
from gpupool.plan.checkpoint import CheckpointPlan, checkpoint_plans
from gpupool.plan.cost import HOURS_PER_MONTH, CostReport, PoolCost, cost, price_regions
from gpupool.plan.diff import diff, diff_inputs
from gpupool.plan.pins import GraphPins, pin_graph
from gpupool.plan.services import ServicePlan, service_plans
from gpupool.plan.tenant_cost import (
    PoolShare,
    TenantCost,
    TenantCostReport,
    slot_prices,
    tenant_costs,
)
from gpupool.sharing import scheduler_ha
from gpupool.sharing.scheduler_ha import Placement
from gpupool.spec.acknowledge import Acknowledged
from gpupool.spec.checks.advice import Advice, advice
from gpupool.spec.diagnostics import Diagnostic, Severity

if TYPE_CHECKING:
    from gpupool.model import Stack

__all__ = [
    "CEILING_QUEUE",
    "CEILING_RESOURCE_QUOTA",
    "CREATE",
    "DELETE",
    "HOURS_PER_MONTH",
    "MISSING",
    "NO_OP",
    "REPLACE",
    "REPLACE_DELETE_FIRST",
    "UPDATE",
    "ZERO",
    "Advice",
    "Base",
    "Ceiling",
    "CostReport",
    "GraphPins",
    "InputChange",
    "InputPath",
    "MinMax",
    "PlanResult",
    "PoolCapacity",
    "PoolCost",
    "PoolShare",
    "ResourceChange",
    "ServicePlan",
    "SlotProfile",
    "Summary",
    "TenantCapacity",
    "TenantCost",
    "TenantCostReport",
    "capacity",
    "cost",
    "diff",
    "diff_inputs",
    "dotted",
    "make_plan",
    "replace_actions",
    "show_value",
    "slot_prices",
    "summarize",
    "tenant_capacity",
    "tenant_costs",
]


@dataclass(frozen=True)
class Base:
    """What a plan is compared against: a graph, and where it came from.

    Attributes:
        kind: ``recorded`` (the applied record), ``file`` (another stack file), ``git`` (the
            same stack file at a git revision) or ``empty`` (nothing: every resource is new).
        ref: the record path, base file path or git ref; None for a plain empty base.
        graph: the base graph; None when there is nothing (every resource is new).
        note: one sentence on how the base was chosen, when that is worth saying.

    """

    kind: str
    ref: str | None
    graph: ResourceGraph | None
    note: str | None = None


@dataclass(frozen=True)
class PlanResult:
    """A whole plan: changes, capacity and cost of the desired stack against a base.

    ``diagnostics`` are the desired stack file's warnings and advice (``info``) as ``validate``
    reports them, so that every form of the plan can carry them (a reviewer reads the
    pull-request comment, not the job's stderr); ``stack_file`` is the stack file as the command
    was given it, which names the comment's hidden marker.
    """

    stack: str
    cloud: str
    region: str | None
    base: Base
    changes: tuple[ResourceChange, ...]
    capacity: tuple[PoolCapacity, ...]
    tenants: tuple[TenantCapacity, ...]
    cost: CostReport
    tenant_cost: TenantCostReport | None = None
    advice: tuple[Advice, ...] = ()
    desired: ResourceGraph | None = field(default=None, repr=False, compare=False)
    #: the stack file's acknowledged warnings (``gpupool.spec.acknowledge``), for the JSON
    acknowledged: tuple[Acknowledged, ...] = ()
    # the inference services: slots and cost at replicas.min and max (gpupool.plan.services)
    services: tuple[ServicePlan, ...] = ()
    # checkpoints against the optimum interval, and downtime parts (gpupool.plan.checkpoint)
    checkpoints: tuple[CheckpointPlan, ...] = ()

    @cached_property
    def pins(self) -> GraphPins | None:
        """The digests of the desired graph (``gpupool.plan.pins``), made when first asked for.

        Only the JSON document and ``up --expect`` need them; text and markdown plans skip them.
        """
        return None if self.desired is None else pin_graph(self.desired)
    # where KAI or HAMi runs and what a node loss does to it (None: kube-scheduler alone)
    scheduler: Placement | None = None
    diagnostics: tuple[Diagnostic, ...] = ()
    stack_file: str | None = None

    @property
    def warnings(self) -> tuple[Diagnostic, ...]:
        """The stack file's warnings (its diagnostics less advice)."""
        return tuple(d for d in self.diagnostics if d.severity is Severity.WARNING)

    @property
    def summary(self) -> Summary:
        """Terraform's counts of the changes."""
        return summarize(self.changes)

    @property
    def has_changes(self) -> bool:
        """Whether any resource is created, updated, replaced or deleted."""
        return any(c.actions != NO_OP for c in self.changes)


def make_plan(base: Base, desired: ResourceGraph, stack: Stack, *,
              diagnostics: Sequence[Diagnostic] = (), stack_file: str | None = None) -> PlanResult:
    """Plan ``desired`` (built from ``stack``) against ``base``.

    Args:
        base: the base (its graph None for an empty base).
        desired: the desired graph.
        stack: the desired stack model, for capacity.
        diagnostics: the stack file's diagnostics; its warnings and advice ride on the plan
            (errors cannot: a stack with errors is not planned).
        stack_file: the stack file as the command was given it (``PlanResult.stack_file``).

    Returns:
        The plan.

    """
    base_graph = base.graph or ResourceGraph(desired.stack, desired.cloud, ())
    # the one region the priced rows name (an overlay refreshed for the stack's), else the catalog's
    priced_in = price_regions(desired)
    try:
        reference = catalog.cloud(desired.cloud).reference_region
        region = priced_in[0] if len(priced_in) == 1 else reference
    except LookupError:
        region = None
    pools = capacity(stack)
    tenant_cost = tenant_costs(base_graph, desired)
    return PlanResult(
        stack=desired.stack,
        cloud=desired.cloud,
        region=stack.provider.region,
        base=base,
        changes=diff(base_graph, desired),
        capacity=pools,
        tenants=tenant_capacity(stack, pools),
        cost=cost(base_graph, desired, region),
        tenant_cost=tenant_cost,
        advice=tuple(advice(stack)),
        desired=desired,
        scheduler=scheduler_ha.placement(stack),
        diagnostics=tuple(d for d in diagnostics if not d.is_error),
        stack_file=stack_file,
        services=service_plans(stack, tenant_cost.gpu_hourly if tenant_cost else {}),
        checkpoints=checkpoint_plans(stack),
    )
