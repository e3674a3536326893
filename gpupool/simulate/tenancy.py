"""The stack's tenancy as the simulated cluster enforces it.

This module owns, per tenant, what gpupool renders and the cluster then enforces:

* **admission** (``cluster.admission.action: deny``): the tenant's ValidatingAdmissionPolicy
  denies a GPU pod pinned to a pool outside the tenant's pools, one with another priority than
  the tenant's, and on a HAMi fractional pool one asking more than a slot; the pod is counted
  as rejected with the policy's own message (``gpupool.sharing.admission.validations``);
* **the ResourceQuota** (``facts.tenancy.quota_lines``): per GPU resource, the units the
  tenant's running pods may request together; a pod that would pass it waits (reason ``limit``);
* **KAI's queue** (scheduler ``kai``; ``sharing/kai.py``): ``quota`` and ``limit`` in the units
  KAI counts, a non-preemptible pod (PriorityClass 100 or more) only within its queue's quota
  (reason ``quota``; KAI v0.17.0 ``docs/priority/README.md``), preemptible pods beyond it up to
  the limit; the queue's ``preemptMinRuntime`` and ``reclaimMinRuntime``;
* **priorities**: PriorityClass values (``facts.tenancy.PRIORITY_VALUES``), the tenant's unless
  the row names one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gpupool import facts
from gpupool.facts.tenancy import PRIORITY_VALUES, kai_preemptible, quota_lines
from gpupool.model import Stack, Tenant
from gpupool.sharing import admission, kai
from gpupool.simulate.demand import Demand

QUOTA = "quota"
LIMIT = "limit"
DEFAULT_PRIORITY = "normal"

_DURATION = re.compile(r"([0-9]+(?:\.[0-9]+)?)(ns|us|ms|s|m|h)")
_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def go_duration(text: str | None) -> float:
    """Seconds in a Go duration (``1h30m``); 0 for None."""
    if not text:
        return 0.0
    return sum(float(n) * _SECONDS[u] for n, u in _DURATION.findall(text))


@dataclass
class TenantState:
    """One tenant's grant and what its running pods hold.

    Attributes:
        tenant: the tenant, or None for pods of no tenant.
        hard: ResourceQuota ``requests.<resource>`` ceilings.
        used: units its running pods request, per resource.
        kai_quota: its KAI queue's quota (KAI units), 0 when none.
        kai_limit: its KAI queue's limit, None when unlimited.
        kai_used: what its running pods count in KAI units.
        preempt_min: seconds before its pods may be preempted within the queue.
        reclaim_min: seconds before another queue may reclaim from its pods.

    """

    tenant: Tenant | None
    hard: dict[str, int] = field(default_factory=dict)
    used: dict[str, int] = field(default_factory=dict)
    kai_quota: float = 0.0
    kai_limit: float | None = None
    kai_used: float = 0.0
    preempt_min: float = 0.0
    reclaim_min: float = 0.0
    weight: float = 1.0
    priority: int = PRIORITY_VALUES[DEFAULT_PRIORITY]

    @property
    def name(self) -> str:
        """The tenant's name (``-`` for none)."""
        return self.tenant.name if self.tenant is not None else "-"


class Tenancy:
    """The tenants of one stack and what they hold."""

    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.kai = facts.uses_scheduler(stack, facts.SCHEDULER_KAI)
        self.deny = stack.cluster.admission.action == "deny"
        self.states: dict[str | None, TenantState] = {None: TenantState(None)}
        self._messages: dict[str, list[dict[str, str]]] = {}
        for t in stack.tenants:
            st = TenantState(t, priority=PRIORITY_VALUES[t.priority])
            st.hard = {q.resource: q.units for q in quota_lines(stack, t)}
            st.used = dict.fromkeys(st.hard, 0)
            if self.kai:
                units = kai.units_per_gpu(stack, t)
                st.kai_quota = (t.quota_gpus or 0) * units
                st.kai_limit = None if t.limit_gpus is None else t.limit_gpus * units
                st.weight = t.fair_share_weight or 1.0
                # the queue as rendered: minRuntime, else the tenant's longest checkpoint write
                spec = kai.queue_spec(stack, t)
                st.preempt_min = go_duration(spec.get("preemptMinRuntime"))
                st.reclaim_min = go_duration(spec.get("reclaimMinRuntime"))
            self.states[t.name] = st
            self._messages[t.name] = admission.validations(stack, t)

    def state(self, tenant: str | None) -> TenantState | None:
        """Return the state of a tenant by name (None: not a tenant of the stack)."""
        return self.states.get(tenant)

    def pools(self, tenant: str | None) -> tuple[str, ...] | None:
        """Return the pools a tenant's GPU pods may use (None: any pool)."""
        st = self.states.get(tenant)
        return None if st is None or st.tenant is None else st.tenant.pools

    def priority_level(self, tenant: str | None, row: str | None) -> str:
        """Return a pod's priority level: the row's, else its tenant's, else ``normal``."""
        if row is not None:
            return row
        st = self.states.get(tenant)
        return st.tenant.priority if st is not None and st.tenant is not None else DEFAULT_PRIORITY

    def preemptible(self, level: str) -> bool:
        """Whether a pod of this level may be preempted (KAI: below 100; otherwise always)."""
        return kai_preemptible(level) if self.kai else True

    # -- admission ------------------------------------------------------------------------
    def denied(self, tenant: str | None, priority: str | None, pool: str | None,
               demand: Demand | None) -> str | None:
        """Return the policy message a GPU pod of ``tenant`` is denied with, or None if admitted.

        ``pool`` is the row's pin; ``demand`` the pod's request on its pool where the row pins
        one (for the HAMi slot rule).
        """
        st = self.states.get(tenant)
        if not self.deny or st is None or st.tenant is None:
            return None
        t = st.tenant
        rules = self._messages[t.name]
        if pool is not None and pool not in t.pools:
            return rules[0]["message"]
        if priority is not None and priority != t.priority:
            return rules[1]["message"]
        if demand is not None and demand.devices and demand.pool.pool.sharing.kind.scheduler_slots:
            pm = demand.pool
            if facts.uses_scheduler(self.stack, facts.SCHEDULER_HAMI) and (
                (pm.slot_memory_gib is not None and demand.device_memory_gib > pm.slot_memory_gib
                 + 1e-9) or (pm.slot_cores is not None and demand.device_cores > pm.slot_cores
                             + 1e-9)
            ):
                for rule in rules:
                    if f"on pool {pm.name} get one slot" in rule["message"]:
                        return rule["message"]
        return None

    # -- ceilings -------------------------------------------------------------------------
    def blocked(self, st: TenantState, d: Demand, pods: int, level: str) -> str | None:
        """Why ``pods`` pods with request ``d`` cannot start now (``limit``, ``quota``), or None."""
        for res, count in d.quota_units:
            hard = st.hard.get(res)
            if hard is not None and st.used.get(res, 0) + count * pods > hard:
                return LIMIT
        if self.kai and st.tenant is not None:
            want = st.kai_used + d.kai_gpus * pods
            if st.kai_limit is not None and want > st.kai_limit + 1e-9:
                return LIMIT
            if not kai_preemptible(level) and want > st.kai_quota + 1e-9:
                return QUOTA
        return None

    def never(self, st: TenantState, d: Demand, pods: int, level: str) -> str | None:
        """Why the pods could never start, even with nothing else running, or None."""
        saved_used, saved_kai = st.used, st.kai_used
        st.used, st.kai_used = dict.fromkeys(st.hard, 0), 0.0
        try:
            return self.blocked(st, d, pods, level)
        finally:
            st.used, st.kai_used = saved_used, saved_kai

    def hold(self, st: TenantState, d: Demand, sign: int) -> None:
        """Count one pod's request in (``sign`` 1) or out (-1) of the tenant's usage."""
        for res, count in d.quota_units:
            if res in st.used:
                st.used[res] += sign * count
        st.kai_used += sign * d.kai_gpus

    def fair_share(self, total: float) -> dict[str, float]:
        """KAI's fair share per tenant (KAI units) of ``total``: quota, then the rest by weight.

        KAI v0.17.0 ``pkg/scheduler/plugins/proportion/resource_division/resource_division.go``
        gives every queue its deserved quota first and divides what is left by priority, then
        ``overQuotaWeight``; queues with nothing to run get no surplus there, which this
        division (all tenants of one priority share the surplus by weight) does not model.
        """
        tenants = [s for s in self.states.values() if s.tenant is not None]
        out = {s.name: s.kai_quota for s in tenants}
        left = max(total - sum(out.values()), 0.0)
        by_priority: dict[int, list[TenantState]] = {}
        for s in tenants:
            by_priority.setdefault(s.priority, []).append(s)
        for prio in sorted(by_priority, reverse=True):
            group = by_priority[prio]
            weights = sum(s.weight for s in group) or 1.0
            for s in group:
                extra = left * s.weight / weights
                if s.kai_limit is not None:
                    extra = min(extra, max(s.kai_limit - out[s.name], 0.0))
                out[s.name] += extra
            left -= sum(out[s.name] - s.kai_quota for s in group)
            left = max(left, 0.0)
        return out
