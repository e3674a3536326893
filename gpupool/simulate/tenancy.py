"""The stack's tenancy as the simulated cluster enforces it.

This module owns, per tenant, what gpupool renders and the cluster then enforces:

* **admission** (``cluster.admission.action: deny``): the tenant's ValidatingAdmissionPolicy
  denies a GPU pod pinned to a pool outside the tenant's pools, one with another priority than
  the tenant's, and on a HAMi fractional pool one asking more than a slot; the pod is counted
  as rejected with the policy's own message (``gpupool.sharing.admission.validations``);
* **the ResourceQuota** (``facts.tenancy.quota_lines``): per GPU resource, the units the
  tenant's running pods may request together; a pod that would pass it waits (reason ``limit``);
* **KAI's queue** (scheduler ``kai``; ``sharing/kai.py``): ``quota`` and ``limit`` in the units
  KAI counts; every pod counts against the limit, and a non-preemptible pod (PriorityClass 100 or
  more) starts only while the queue's *non-preemptible* pods stay within its quota (reason
  ``quota``; KAI v0.17.0 ``proportion/capacity_policy/quota_check.go``: preemptible pods do not
  count against it); the queue's ``preemptMinRuntime`` and ``reclaimMinRuntime``; its fair
  share (``schedulers.kai_division``), its place in the queue order and its reclaim rules
  (``schedulers.kai``), from what its pods hold and what its waiting pods ask for;
* **priorities**: PriorityClass values (``facts.tenancy.PRIORITY_VALUES``), the tenant's unless
  the row names one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gpupool import schedulers
from gpupool.facts.tenancy import PRIORITY_VALUES, kai_preemptible, quota_lines
from gpupool.model import Stack, Tenant
from gpupool.schedulers import kai as kai_rules
from gpupool.schedulers.kai_division import QueueAsk, fair_shares
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
        kai_np_used: what its running non-preemptible pods count in KAI units.
        kai_pending: what its waiting pods ask for in KAI units.
        created: its rank among the stack's tenants (KAI's queue creation order).
        preempt_min: seconds before its pods may be preempted within the queue.
        reclaim_min: seconds before another queue may reclaim from its pods.

    """

    tenant: Tenant | None
    hard: dict[str, int] = field(default_factory=dict)
    used: dict[str, int] = field(default_factory=dict)
    kai_quota: float = 0.0
    kai_limit: float | None = None
    kai_used: float = 0.0
    kai_np_used: float = 0.0
    kai_pending: float = 0.0
    created: int = 0
    preempt_min: float = 0.0
    reclaim_min: float = 0.0
    weight: float = 1.0
    priority: int = PRIORITY_VALUES[DEFAULT_PRIORITY]
    changed: bool = False  # in ``Tenancy.changed``: its usage moved since that list was read

    @property
    def name(self) -> str:
        """The tenant's name (``-`` for none)."""
        return self.tenant.name if self.tenant is not None else "-"

    def usage(self) -> tuple[float, ...]:
        """Return what its ceilings judge (``Tenancy.blocked``): same usage, same verdict."""
        return (*self.used.values(), self.kai_used, self.kai_np_used)


class Tenancy:
    """The tenants of one stack and what they hold."""

    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.kai = schedulers.of(stack).emulation.queue_quotas
        self.deny = stack.cluster.admission.action == "deny"
        self.states: dict[str | None, TenantState] = {None: TenantState(None)}
        self._messages: dict[str, list[dict[str, str]]] = {}
        self._share: tuple[float, dict[str, float]] | None = None  # (at, shares): fair_share
        # tenants whose usage moved (``hold``) since the list was last read and emptied
        # (``take_changed``): the queues their ceilings hold wait for such a move
        self.changed: list[TenantState] = []
        for rank, t in enumerate(stack.tenants):
            st = TenantState(t, priority=PRIORITY_VALUES[t.priority], created=rank)
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
            if schedulers.of(self.stack).emulation.slot_admission and (
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
        """Why ``pods`` pods with request ``d`` cannot start now (``limit``, ``quota``), or None.

        Under KAI the limit counts every pod the queue holds, and the quota only its
        non-preemptible pods, for a non-preemptible request (``schedulers.kai.over_limit``,
        ``non_preemptible_over_quota``).
        """
        if self._hard_blocked(st, d, pods):
            return LIMIT
        if self.kai and st.tenant is not None:
            want = d.kai_gpus * pods
            if kai_rules.over_limit(st.kai_used, want, st.kai_limit):
                return LIMIT
            if not kai_preemptible(level) and kai_rules.non_preemptible_over_quota(
                    st.kai_np_used, want, st.kai_quota):
                return QUOTA
        return None

    def _hard_blocked(self, st: TenantState, d: Demand, pods: int) -> bool:
        """Whether the tenant's ResourceQuota refuses ``pods`` more pods of ``d``."""
        for res, count in d.quota_units:
            hard = st.hard.get(res)
            if hard is not None and st.used.get(res, 0) + count * pods > hard:
                return True
        return False

    def lifted_by_preemption(self, st: TenantState | None, options: list[Demand], pods: int,
                             level: str) -> bool:
        """Whether evicting the queue's own pods could lift the ceiling that holds a job back.

        KAI's preempt action refuses only a non-preemptible job over quota
        (``actions/preempt/preempt.go``, ``IsNonPreemptibleJobOverQueueQuotaFn``); the queue's
        limit it checks as it places the job, with the victims gone. A ResourceQuota refuses the
        pod before any scheduler sees it, so it is never lifted.
        """
        if not self.kai or st is None or st.tenant is None:
            return False
        for d in options:
            want = d.kai_gpus * pods
            if self._hard_blocked(st, d, pods) or (not kai_preemptible(level) and (
                    kai_rules.non_preemptible_over_quota(st.kai_np_used, want, st.kai_quota))):
                continue
            return True
        return False

    def blocked_without(self, st: TenantState, d: Demand, pods: int, level: str,
                        freed: list[tuple[TenantState | None, Demand, int, str]]) -> str | None:
        """Why the pods could not start once ``freed`` are gone, or None.

        ``freed``: victims' (state, request, pods, level). This is the ceiling as KAI checks it
        on the node once the evictions are done.
        """
        gone = [(v, dem, n, lv) for v, dem, n, lv in freed if v is st]
        for v, dem, n, lv in gone:
            for _ in range(n):
                self.hold(v, dem, -1, lv)
        try:
            return self.blocked(st, d, pods, level)
        finally:
            for v, dem, n, lv in gone:
                for _ in range(n):
                    self.hold(v, dem, 1, lv)

    def never(self, st: TenantState, d: Demand, pods: int, level: str) -> str | None:
        """Why the pods could never start, even with nothing else running, or None."""
        saved = st.used, st.kai_used, st.kai_np_used
        st.used, st.kai_used, st.kai_np_used = dict.fromkeys(st.hard, 0), 0.0, 0.0
        try:
            return self.blocked(st, d, pods, level)
        finally:
            st.used, st.kai_used, st.kai_np_used = saved

    def hold(self, st: TenantState, d: Demand, sign: int, level: str) -> None:
        """Count one pod of priority ``level`` in (``sign`` 1) or out (-1) of the tenant's usage."""
        if not st.changed:
            st.changed = True
            self.changed.append(st)
        for res, count in d.quota_units:
            if res in st.used:
                st.used[res] += sign * count
        st.kai_used += sign * d.kai_gpus
        if self.kai and not kai_preemptible(level):
            st.kai_np_used += sign * d.kai_gpus

    def take_changed(self) -> list[TenantState]:
        """Return the tenants whose usage moved since the last call, and forget them."""
        out = self.changed
        if out:
            self.changed = []
            for st in out:
                st.changed = False
        return out

    def wait(self, st: TenantState | None, options: list[Demand], pods: int, sign: int) -> None:
        """Count a job's ``pods`` in (``sign`` 1) or out (-1) of what the tenant's queue awaits.

        KAI's queue request counts pending pods (``proportion/proportion.go``).
        """
        if self.kai and st is not None and st.tenant is not None and options:
            st.kai_pending += sign * options[0].kai_gpus * pods

    def fair_share(self, total: float, now: float | None = None) -> dict[str, float]:
        """KAI's fair share per tenant (KAI units) of ``total`` (``schedulers.kai_division``).

        Each queue asks for what its pods hold and what its waiting pods ask for. KAI works the
        shares out once a scheduling session, from the cluster as the session opens; ``now``
        keeps them for the rest of that instant's pass (None: worked out afresh).
        """
        if now is not None and self._share is not None and self._share[0] == now:
            return self._share[1]
        asks = [QueueAsk(s.name, s.kai_quota, s.kai_limit, s.weight, s.priority,
                         max(s.kai_used + s.kai_pending, 0.0), s.created)
                for s in self.states.values() if s.tenant is not None]
        shares = fair_shares(total, asks)
        if now is not None:
            self._share = (now, shares)
        return shares

    def order(self, st: TenantState, job: float, share: dict[str, float]) -> tuple[float, ...]:
        """Return the queue's place in KAI's allocation order for a next job of ``job`` units.

        See ``schedulers.kai.queue_order``.
        """
        return kai_rules.queue_order(st.kai_used, job, st.kai_quota, share.get(st.name, 0.0),
                                     st.kai_limit, st.priority, st.created)

    def _allocatable(self, st: TenantState, share: dict[str, float]) -> float:
        return kai_rules.allocatable(st.kai_quota, share.get(st.name, 0.0), st.kai_limit)

    def reclaims_from(self, me: TenantState, need: float, level: str, them: TenantState,
                      share: dict[str, float]) -> bool:
        """Whether ``me``'s job of ``need`` KAI units may reclaim from ``them``'s pods at all.

        See ``schedulers.kai.can_reclaim`` and ``reclaim_candidate``.
        """
        if not kai_rules.can_reclaim(me.kai_used, need, share.get(me.name, 0.0), me.kai_np_used,
                                     me.kai_quota, preemptible=kai_preemptible(level)):
            return False
        return kai_rules.reclaim_candidate(me.kai_used, need, me.kai_quota, them.kai_used,
                                           them.kai_quota, self._allocatable(them, share))

    def reclaim_step(self, me: TenantState, need: float, them: TenantState, taken: float,
                     share: dict[str, float]) -> bool:
        """Whether one more victim may go from ``them``, ``taken`` KAI units already chosen.

        See ``schedulers.kai.reclaim_step``.
        """
        within = me.kai_used + need <= me.kai_quota + 1e-9
        return kai_rules.reclaim_step(within, them.kai_used - taken, them.kai_quota,
                                      self._allocatable(them, share))

    def kept_share(self, now: float) -> dict[str, float] | None:
        """Return the fair shares worked out at ``now`` (this instant's pass), or None."""
        return self._share[1] if self._share is not None and self._share[0] == now else None

    def reclaim_walk(self, me: TenantState | None, need: float,
                     victims: list[tuple[TenantState | None, float, bool]],
                     share: dict[str, float]) -> list[bool]:
        """Return which of the ordered ``victims`` (tenant, KAI units held, reclaim) may go.

        A reclaim takes a queue's victims only while it stays above its share
        (``reclaim_step``), its figure falling by each victim taken before. Victims of ``me``'s
        own queue stay.
        """
        taken: dict[str, float] = {}
        keep = []
        for them, units, reclaim in victims:
            ok = not reclaim or me is None or them is None or self.reclaim_step(
                me, need, them, taken.get(them.name, 0.0), share)
            if ok and reclaim and them is not None:
                taken[them.name] = taken.get(them.name, 0.0) + units
            keep.append(ok)
        return keep
