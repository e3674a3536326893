"""What an advise rule is: the case it judges, what it finds, and the guard before it judges.

Every rule is an object with a stable ``id``, the ``kind`` its recommendations carry, the
``scope`` of the cases it judges, a one-line ``summary`` (``gpupool advise --list-rules`` and the
docs print it), and one method, ``judge(case) -> Findings``: the recommendations the case
supports and the gaps the rule met (what it could not judge, and why). A rule keeps no state
and shares no list with another; ``gpupool.advise.rules`` registers them in the order they run.

The scopes, walked in this order (``gpupool.usecases.advise``):

* ``Scope.POOL_USE``: once per pool the GPU memory evidence covers, after ``guard``: no rule of
  this scope judges a pool from fewer than ``MIN_SAMPLES`` memory samples or ``MIN_HOURS``
  hours, or whose coverage is under ``MEDIUM`` (a gap says so);
* ``Scope.POOL``: once per pool, whatever the DCGM evidence (the rule reads evidence of its own);
* ``Scope.STACK``: once for the whole stack (tenants);
* ``Scope.SERVICE``: once per inference service (``services[]``), on its own evidence
  (``advise.services``).
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from gpupool.advise.coverage import MEDIUM, MIN_HOURS, MIN_SAMPLES, Coverage
from gpupool.advise.evidence import Evidence, PoolUse
from gpupool.advise.hami import SlotUse
from gpupool.advise.overflow import DEFAULT_SHARE
from gpupool.advise.pods import PoolPods
from gpupool.advise.recommendation import Recommendation
from gpupool.advise.services import ServiceUse
from gpupool.model import Pool, Stack
from gpupool.service_model import Service


class Scope(enum.Enum):
    """The cases a rule judges, in the order the walk takes them."""

    POOL_USE = "pool-evidence"  # each pool whose GPU memory evidence passes the guard
    POOL = "pool"  # each pool, on evidence of the rule's own
    STACK = "stack"  # the stack once (its tenants)
    SERVICE = "service"  # each inference service


@dataclass(frozen=True)
class Case:
    """Everything a rule may read: the stack, the evidence, prices, and the pool judged.

    ``index`` is the pool's index in ``stack.pools`` (None: the stack as a whole), or for a
    service case the service's in ``stack.services``.
    """

    stack: Stack
    evidence: Evidence
    gpu_hourly: Mapping[str, float | None]  # pool name -> price of one GPU an hour
    coverage: Mapping[str, Coverage]
    index: int | None = None
    overflow_share: float = DEFAULT_SHARE  # --overflow-share: windows that may overflow

    @property
    def pool(self) -> Pool:
        """The pool judged (a pool scope's case only)."""
        return self.stack.pools[self.at]

    @property
    def at(self) -> int:
        """The pool's index in ``stack.pools`` (a pool scope's case only)."""
        if self.index is None:
            raise LookupError("a stack case judges no one pool")
        return self.index

    @property
    def service(self) -> Service:
        """The service judged (a service case only)."""
        return self.stack.services[self.at]

    @property
    def service_use(self) -> ServiceUse | None:
        """The service's evidence, None where it was not read (a gap says why)."""
        return self.evidence.services.get(self.service.name)

    @property
    def use(self) -> PoolUse | None:
        """The pool's GPU memory evidence, None where none came back."""
        return self.evidence.pools.get(self.pool.name)

    @property
    def seen(self) -> PoolUse:
        """The pool's GPU memory evidence, which every ``POOL_USE`` case has (the guard's)."""
        use = self.use
        if use is None:
            raise LookupError(f"pool {self.pool.name} has no GPU memory evidence")
        return use

    @property
    def pods(self) -> PoolPods | None:
        """The GPU pods seen on the pool's nodes (kube-state-metrics), None where none were."""
        return self.evidence.pods.get(self.pool.name)

    @property
    def slots(self) -> tuple[SlotUse, ...]:
        """The pool's HAMi containers and their slots (none outside HAMi)."""
        return tuple(self.evidence.slots.get(self.pool.name, ()))

    @property
    def window(self) -> float:
        """The window read, in seconds."""
        return self.evidence.window_seconds

    @property
    def gpu_price(self) -> float | None:
        """The price of one of the pool's GPUs an hour, None where unknown."""
        return self.gpu_hourly.get(self.pool.name)

    @property
    def node_price(self) -> float | None:
        """The price of one of the pool's nodes an hour (its GPUs'), None where unknown."""
        per_gpu = self.gpu_price
        return None if per_gpu is None else per_gpu * self.pool.gpus_per_node


@dataclass(frozen=True)
class Findings:
    """What one rule found in one case: recommendations, and gaps (what it could not judge)."""

    recommendations: tuple[Recommendation, ...] = ()
    gaps: tuple[str, ...] = ()

    @classmethod
    def of(cls, *recommendations: Recommendation) -> Findings:
        """Return the findings of these recommendations and no gap."""
        return cls(recommendations=recommendations)

    @classmethod
    def gap(cls, why: str) -> Findings:
        """Return the findings of one gap and no recommendation."""
        return cls(gaps=(why,))


NOTHING = Findings()  # the rule has nothing to say of the case


class Rule(ABC):
    """One advise rule: its id, kind, scope and summary, and how it judges a case."""

    id: ClassVar[str]  # stable: what --list-rules and the docs name it by
    kind: ClassVar[str]  # the kind its recommendations carry (two rules may share one)
    scope: ClassVar[Scope]
    summary: ClassVar[str]  # one line: when it proposes what
    edits: ClassVar[str]  # the stack path it edits, as the docs write it: pools[i].nodes.min
    saving: ClassVar[str]  # one line: how the saving it states is figured

    @abstractmethod
    def judge(self, case: Case) -> Findings:
        """Return the recommendations ``case`` supports and the gaps met judging it."""


def cases(stack: Stack, evidence: Evidence, gpu_hourly: Mapping[str, float | None],
          coverage: Mapping[str, Coverage], scope: Scope,
          overflow_share: float = DEFAULT_SHARE) -> list[Case]:
    """Return the cases of ``scope``, in the stack's order (a ``POOL_USE`` one: with evidence)."""
    if scope is Scope.STACK:
        return [Case(stack, evidence, gpu_hourly, coverage, None, overflow_share)]
    if scope is Scope.SERVICE:
        return [Case(stack, evidence, gpu_hourly, coverage, i, overflow_share)
                for i in range(len(stack.services))]
    return [Case(stack, evidence, gpu_hourly, coverage, i, overflow_share)
            for i, pool in enumerate(stack.pools)
            if scope is Scope.POOL or pool.name in evidence.pools]


def guard(case: Case) -> tuple[str, ...] | None:
    """Return None where a ``POOL_USE`` case may be judged, else the gaps saying why not.

    A pool of no GPU seen is not judged and needs no gap (coverage shows it).
    """
    use = case.seen
    if not use.gpus:
        return ()
    cover = case.coverage.get(case.pool.name)
    if cover is not None and cover.gpus_seen and cover.share < MEDIUM:
        expected = "?" if cover.gpus_expected is None else cover.gpus_expected
        return (f"pool {use.pool}: low coverage ({cover.gpus_seen} of {expected} GPUs and "
                f"{cover.hours_seen} of {cover.window_hours:g} hours seen): not judged",)
    if use.samples < MIN_SAMPLES or use.hours < MIN_HOURS:
        return (f"pool {use.pool}: too little data to judge ({use.samples} memory samples over "
                f"{use.hours} h; at least {MIN_SAMPLES} samples and {MIN_HOURS} h are needed)",)
    return None
