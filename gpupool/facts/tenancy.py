"""Tenancy facts: priority levels, their PriorityClass values and KAI's queue names.

PriorityClass values keep KAI's threshold meaningful: KAI treats a priority of 100 or more as
non-preemptible, and non-preemptible workloads only run within their queue's quota (KAI v0.17.0
``docs/priority/README.md``; ``pkg/common/podgroup/preemptible.go``
``nonPreemptiblePriorityThreshold = 100``). ``preemptible`` 50 and ``low`` 75 may be preempted
and may borrow beyond quota; ``normal`` 100, ``high`` 125 and ``critical`` 150 may not.
"""

from __future__ import annotations

from gpupool.model import Stack

PRIORITY_VALUES = {"preemptible": 50, "low": 75, "normal": 100, "high": 125, "critical": 150}
KAI_NON_PREEMPTIBLE = 100
# Queues the KAI chart creates itself (KAI v0.17.0 values.yaml defaultQueue).
KAI_DEFAULT_QUEUES = frozenset({"default-queue", "default-parent-queue"})


def priority_class_name(level: str) -> str:
    """Return the PriorityClass name of a priority level."""
    return f"gpupool-{level}"


def parent_queue_name(stack: Stack) -> str:
    """Return the name of the stack's parent KAI queue."""
    return f"gpupool-{stack.name}"


def kai_preemptible(level: str) -> bool:
    """Return True when KAI may preempt workloads of this priority level (below 100)."""
    return PRIORITY_VALUES[level] < KAI_NON_PREEMPTIBLE
