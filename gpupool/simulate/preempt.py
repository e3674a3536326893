"""Preemption and reclaim: which running pods a waiting job may evict, and evicting them.

This module owns the part of ``engine.Simulation`` that makes room for a job that fits nowhere.
Preemption follows the scheduler: kube-scheduler evicts pods of lower priority from one node;
KAI preempts preemptible pods (PriorityClass below 100) of the same queue that ran past its
``preemptMinRuntime``, and reclaims preemptible pods of queues above their fair share that ran
past their ``reclaimMinRuntime``, for a queue within its fair share (``_victims``); a victim not
yet past its minimum runtime wakes the waiting jobs when it is. A single pod preempts on one
node (``_preempt``: the fewest, lowest victims there); a gang gathers such victims on its pools,
lowest first, until the whole gang fits, and evicts them only then (``_preempt_gang``, as KAI
commits a scenario), sparing the ones it turns out not to need (``_fits_without``).
"""

from __future__ import annotations

from collections.abc import Callable

from gpupool.simulate.accounting import Preemption
from gpupool.simulate.cluster import ClusterModel
from gpupool.simulate.demand import Demand
from gpupool.simulate.events import WAKE
from gpupool.simulate.gang import RUNNING, Gang
from gpupool.simulate.placement import Node, inert, retake
from gpupool.simulate.tenancy import Tenancy


class Preempting:
    """The part of a run that evicts running jobs for waiting ones (state: ``wakes``)."""

    cluster: ClusterModel
    tenancy: Tenancy
    queue_reclaim: bool
    now: float
    nodes: dict[str, list[Node]]
    busy: dict[str, dict[int, Node]]
    owner: dict[int, Gang]
    preemptions: list[Preemption]
    pod_key: int
    _push: Callable[[float, int, object], None]

    def _init_preempting(self) -> None:
        self.wakes: set[float] = set()  # instants a victim reaches its minimum runtime
        # for observers (observers.RunView): the job evicting victims now, and the last try
        # held back by a victim's minimum runtime (job id, instant)
        self.preemptor: Gang | None = None
        self.held_back: tuple[int, float] | None = None

    def _victims(self, gang: Gang, node: Node,
                 share: dict[str, float]) -> list[tuple[Gang, float, bool]]:
        """Return the gangs on ``node`` that ``gang`` may evict: (gang, min runtime, reclaim)."""
        out: dict[int, tuple[Gang, float, bool]] = {}
        for key in node.allocs:
            v = self.owner.get(key)
            if v is None or v.id in out or v.state != RUNNING:
                continue
            ran = self.now - self._since(v)
            if not self.queue_reclaim:
                if v.priority < gang.priority:
                    out[v.id] = (v, 0.0, False)
                continue
            if not self.tenancy.preemptible(v.level) or v.tenant is None or gang.tenant is None:
                continue
            if v.tenant is gang.tenant:
                if v.priority < gang.priority:
                    if ran >= v.tenant.preempt_min:
                        out[v.id] = (v, v.tenant.preempt_min, False)
                    else:
                        self._eligible_at(v, v.tenant.preempt_min)
                        self.held_back = (gang.id, self.now)
                continue
            me, them = gang.tenant, v.tenant
            need = gang.options[0].kai_gpus * gang.pods
            if self.tenancy.reclaims_from(me, need, gang.level, them, share):
                if ran >= them.reclaim_min:
                    out[v.id] = (v, them.reclaim_min, True)
                else:
                    self._eligible_at(v, them.reclaim_min)
                    self.held_back = (gang.id, self.now)
        return sorted(out.values(), key=lambda x: (x[0].priority, -self._since(x[0]), x[0].id))

    def _eligible_at(self, victim: Gang, min_seconds: float) -> None:
        """Wake the waiting jobs when ``victim`` reaches its minimum runtime (once per time)."""
        at = self._since(victim) + min_seconds
        if at > self.now and at not in self.wakes:
            self.wakes.add(at)
            self._push(at, WAKE, None)

    def _reclaim_walk(self, gang: Gang, victims: list[tuple[Gang, float, bool]],
                      share: dict[str, float]) -> list[tuple[Gang, float, bool]]:
        """Drop the reclaim victims, in order, whose queue is down to its share by then."""
        if not self.queue_reclaim:
            return victims
        held = [(v.tenant, sum(n.allocs[k][0].kai_gpus * n.allocs[k][2] for n, k in v.placed), r)
                for v, _, r in victims]
        keep = self.tenancy.reclaim_walk(gang.tenant, gang.options[0].kai_gpus * gang.pods, held,
                                         share)
        return [v for v, k in zip(victims, keep, strict=True) if k]

    def _blocked_without(self, gang: Gang, d: Demand, chosen: list[tuple[Gang, float, bool]],
                         ) -> bool:
        """Whether the tenant's ceilings still refuse one pod of ``d`` with ``chosen`` gone."""
        st = gang.tenant
        if st is None or st.tenant is None:
            return False
        freed = [(v.tenant, n.allocs[k][0], n.allocs[k][2], v.level)
                 for v, _, _ in chosen for n, k in v.placed]
        return self.tenancy.blocked_without(st, d, 1, gang.level, freed) is not None

    def _fair_share(self) -> dict[str, float]:
        kept = self.tenancy.kept_share(self.now)
        if kept is not None:
            return kept
        total = 0.0
        for pm in self.cluster.pools:
            per_gpu = max(pm.unit_kai_gpus.values(), default=1.0)
            total += sum(n.ready for n in self.nodes[pm.name]) * pm.gpus_per_node * per_gpu
        return self.tenancy.fair_share(total, self.now)

    def _preempt(self, gang: Gang) -> bool:
        """Evict the fewest, lowest-priority victims from one node so the pod fits there."""
        best: tuple[tuple[float, ...], Node, Demand, list[tuple[Gang, float, bool]]] | None
        best = None
        share = self._fair_share() if self.queue_reclaim else {}
        for d in gang.options:
            for node in self.busy[d.pool.name].values():
                if not node.schedulable:
                    continue
                victims = self._reclaim_walk(gang, self._victims(gang, node, share), share)
                if not victims:
                    continue
                chosen = self._enough(node, d, victims)
                if chosen is None or self._blocked_without(gang, d, chosen):
                    continue
                # KAI grows one list of victims, in its order, until the job fits somewhere
                # (actions/common/solvers/job_solver.go): the node whose last victim comes first
                last = max((v.priority, -self._since(v), v.id) for v, _, _ in chosen)
                key = (*last, node.id) if self.queue_reclaim else (
                    max(v.priority for v, _, _ in chosen), len(chosen), node.id)
                if best is None or key < best[0]:
                    best = (key, node, d, chosen)
        if best is None:
            return False
        _, node, d, chosen = best
        self.preemptor = gang
        for v, min_seconds, reclaim in chosen:
            ran = self.now - self._since(v)
            self.preemptions.append(Preemption(
                self.now, v.id, v.tenant.name if v.tenant else "-", ran, min_seconds, reclaim,
            ))
            v.preemptions += 1
            self._stop(v, requeue=True)
        st = gang.tenant
        if st is not None and st.tenant is not None and self.tenancy.blocked(st, d, 1, gang.level):
            return False
        if not node.fits(d):
            return False
        self.pod_key += 1
        self._take(node, self.pod_key, d)
        if st is not None:
            self.tenancy.hold(st, d, 1, gang.level)
        self._start(gang, [(node, self.pod_key)])
        return True

    def _preempt_gang(self, gang: Gang) -> bool:
        """Evict victims, lowest first, until every pod of the gang fits; none if it never does.

        KAI decides on a job, not a pod: its reclaim and preempt actions add victims to a
        scenario one job at a time, place the whole pending job on the cluster as it would be
        without them, and commit the evictions only if that succeeds, else roll them back (KAI
        v0.17.0 ``docs/developer/action-framework.md``: scenarios, simulation, statement). The
        candidates are every job ``_victims`` allows on the gang's pools (min runtimes, fair
        share), in its order; victims found not needed once the gang fits are spared.
        """
        share = self._fair_share() if self.queue_reclaim else {}
        found: dict[int, tuple[Gang, float, bool]] = {}
        needs_gpus = all(d.gpus > 0 for d in gang.options)
        for d in gang.options:
            for node in list(self.busy[d.pool.name].values()):
                if node.schedulable:
                    for victim in self._victims(gang, node, share):
                        found.setdefault(victim[0].id, victim)
        candidates = sorted(
            (v for v in found.values()
             if not needs_gpus or any(n.allocs[k][0].gpus > 0 for n, k in v[0].placed)),
            key=lambda x: (x[0].priority, -self._since(x[0]), x[0].id),
        )
        candidates = self._reclaim_walk(gang, candidates, share)
        chosen: list[tuple[Gang, float, bool]] = []
        fits = False
        for victim in candidates:
            chosen.append(victim)
            if self._fits_without(gang, [v for v, _, _ in chosen]):
                fits = True
                break
        if not fits:
            return False
        for victim in reversed(chosen[:-1]):  # spare the ones the gang turns out not to need
            rest = [v for v, _, _ in chosen if v is not victim[0]]
            if self._fits_without(gang, rest):
                chosen.remove(victim)
        self.preemptor = gang
        for v, min_seconds, reclaim in chosen:
            self.preemptions.append(Preemption(
                self.now, v.id, v.tenant.name if v.tenant else "-", self.now - self._since(v),
                min_seconds, reclaim,
            ))
            v.preemptions += 1
            self._stop(v, requeue=True)
        return self._place(gang)

    def _fits_without(self, gang: Gang, victims: list[Gang]) -> bool:
        """Return whether the whole gang would be placed were ``victims`` gone (nothing moves)."""
        released: list[tuple[Node, int, Demand, tuple[int, ...], int, Gang]] = []
        for v in victims:
            for node, key in v.placed:
                dem, devices, pods = node.allocs[key]
                self._give_back(node, key)
                if v.tenant is not None:
                    for _ in range(1 if inert(dem) else pods):
                        self.tenancy.hold(v.tenant, dem, -1, v.level)
                released.append((node, key, dem, devices, pods, v))
        fits = self._place(gang, trial=True)
        for node, key, dem, devices, pods, v in reversed(released):
            self._take(node, key, dem, devices, pods)
            if v.tenant is not None:
                for _ in range(1 if inert(dem) else pods):
                    self.tenancy.hold(v.tenant, dem, 1, v.level)
        return fits

    def _enough(self, node: Node, d: Demand,
                victims: list[tuple[Gang, float, bool]]) -> list[tuple[Gang, float, bool]] | None:
        """Return the first victims whose pods, off ``node``, let ``d`` fit there."""
        released: list[tuple[int, Demand, tuple[int, ...], int]] = []
        chosen = []
        ok = False
        for victim in victims:
            gang = victim[0]
            held = [node.allocs[key][0] for n, key in gang.placed if n is node]
            if (d.gpus > 0 and all(h.gpus <= 0 for h in held)
                    and node.cpu_free >= d.cpu and node.mem_free >= d.memory_gib):
                continue  # it holds no GPU here, and CPU and memory are not short: spare it
            for n, key in gang.placed:
                if n is node:
                    dem, devices, pods = node.allocs[key]
                    node.give_back(key, self.now)
                    released.append((key, dem, devices, pods))
            chosen.append(victim)
            if node.fits(d):
                ok = True
                break
        for key, dem, devices, pods in reversed(released):
            retake(node, key, dem, devices, pods)
        self._reindex(node)  # the same pods, but float sums may differ in the last place
        return chosen if ok else None

