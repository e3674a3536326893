"""Per-job records: where each job ran, when, and why it waited, as an observer of the run.

This module owns ``JobRecords``, an observer (``observers``) that writes one record per job as
it finishes (the others at the run's end), and holds only the live jobs' state: a million jobs'
records never sit in memory. A record says the job's tenant, pool and node, when it was
submitted, first started and finished, how long it waited in all, and that wait broken into
``REASONS`` with the seconds spent in each (they add up to the wait).

How a wait is attributed. Every job of a queue (one shape, tenant and priority level) waits for
the reason its first job's last try was judged (``on_wait``), from that judgement to the next:
a try the queues' gating skips, since it would fail alike, carries the last reason on. Each
queue keeps the seconds per reason so far; a job joining it notes them, and on leaving it owns
the difference. The engine's reasons are split here, by the same state the engine decided on:

- ``quota`` (KAI: a non-preemptible job beyond its queue's quota) stays ``quota``;
- ``limit`` is ``resource-quota`` where the tenant's ResourceQuota refuses the pods on every
  pool the job may use, else ``limit`` (its KAI queue's limit);
- a try that fits nowhere is ``min-runtime`` where a victim it could evict had not yet run its
  queue's minimum runtime (``preempt``: ``held_back``); else ``scale-up`` where a node is being
  asked for on one of its pools once the pass is over (judged before the clock moves: a node
  not yet ready, or a spot request the cloud will not fill); else
  ``gang`` where one pod of a gang of several fits a node now but the whole gang does not,
  ``fragmentation`` where the pools have the GPUs free in total, else ``capacity`` (no node
  has room and none is coming: the pools are at their most nodes, or backed off).

A job evicted and requeued waits, until it starts again, for ``preempted`` (the record names
the jobs that evicted it) or ``interrupted`` (a spot node taken back). With ``explain``, one
job's story is kept too (``Story``), for ``gpupool simulate --explain``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gpupool.simulate.accounting import Outcome
from gpupool.simulate.gang import DONE, FRAGMENTATION, GAVE_UP, GAVE_UP_STATE, Gang
from gpupool.simulate.observers import Observer, RunView
from gpupool.simulate.placement import inert
from gpupool.simulate.tenancy import LIMIT, QUOTA

_NONE: dict[str, float] = {}  # no seconds noted (shared, never written)

REASONS = ("quota", "limit", "resource-quota", "capacity", "scale-up", "fragmentation", "gang",
           "preempted", "interrupted", "min-runtime")
"""The reasons a wait is broken into, in the order records and summaries list them."""

Record = dict[str, Any]


class _Queue:
    """One live queue: seconds per reason so far, the reason now and since when."""

    __slots__ = ("key", "members", "reason", "seconds", "since")

    def __init__(self, key: tuple[object, ...], now: float) -> None:
        self.key = key
        self.seconds: dict[str, float] = {}
        self.reason = ""
        self.since = now
        self.members = 0

    def upto(self, t: float) -> dict[str, float]:
        """Return the seconds per reason from the queue's making to ``t``."""
        out = dict(self.seconds)
        if self.reason and t > self.since:
            out[self.reason] = out.get(self.reason, 0.0) + (t - self.since)
        return out

    def judge(self, reason: str, now: float) -> None:
        """Let the queue wait for ``reason`` from ``now`` on."""
        if reason == self.reason:
            return
        if self.reason and now > self.since:
            self.seconds[self.reason] = self.seconds.get(self.reason, 0.0) + (now - self.since)
        self.reason, self.since = reason, max(now, self.since)


class _Live:
    """What is kept of one job while it is queued or running."""

    __slots__ = ("evicted", "gpu_seconds", "interruptions", "noted", "placed", "preempted_by",
                 "preemptions", "queue", "run_from", "since", "started", "submitted", "wait",
                 "waits")

    def __init__(self, since: float = 0.0) -> None:
        self.queue: _Queue | None = None
        self.noted: dict[str, float] = _NONE  # the queue's seconds at joining
        self.since = since  # when this stretch of waiting began
        self.submitted = since  # when it first joined a queue (a replica: when it was made)
        self.evicted = ""  # "preempted" / "interrupted": this stretch follows an eviction
        self.waits: dict[str, float] = {}
        self.wait = 0.0
        self.preempted_by: list[str] | None = None
        self.preemptions = 0
        self.interruptions = 0
        self.started: float | None = None
        self.run_from = 0.0  # when its pods last started
        self.placed: tuple[tuple[str, str, float, int, bool], ...] = ()  # pool, node, gpus,
        self.gpu_seconds = 0.0  # pods, inert


@dataclass
class Story:
    """One job's events in order, as (instant, what happened, details)."""

    job: str
    events: list[tuple[float, str, dict[str, Any]]] = field(default_factory=list)
    record: Record | None = None


class JobRecords(Observer):
    """Writes a record per job through ``write``; sums the waits per reason (``summary``).

    Args:
        write: called with each record (a plain dict) as its job finishes or at the end.
        explain: the name of a job whose story to keep (``story``), or None.

    """

    def __init__(self, write: Callable[[Record], None], explain: str | None = None) -> None:
        self.write = write
        self.live: dict[int, _Live] = {}
        self.queues: dict[tuple[object, ...], _Queue] = {}
        self.pending: list[tuple[_Queue, Gang, str, float]] = []  # room judged; scale-up undecided
        self.totals: dict[str, list[float]] = {r: [0, 0, 0.0] for r in REASONS}  # jobs, pods, s
        self.records = 0
        self.explain = explain
        self.focus: int | None = None
        self.story: Story | None = Story(explain) if explain is not None else None
        self.run: RunView

    def attach(self, run: RunView) -> None:
        """Keep the view of the run."""
        self.run = run

    # -- the hooks ---------------------------------------------------------------------------
    def on_advance(self, t: float) -> None:
        """Settle the capacity judgements of the instant left: a node being added, or none."""
        if self.pending:
            self._settle()

    def on_queue(self, gang: Gang, now: float) -> None:
        """Note the queue's seconds as a job joins it, or that an eviction began this wait."""
        live = self.live.get(gang.id)
        if live is None:
            live = self.live[gang.id] = _Live(now)
            if self.explain is not None and self.focus is None and gang.job.name == self.explain:
                self.focus = gang.id
                self._tell(gang, gang.job.submit, "submitted", {})
        live.since = now
        if gang.preemptions > live.preemptions:
            live.preemptions = gang.preemptions
            live.evicted = "preempted"
            by = self.run.preemptor
            name = by.job.name if by is not None else "?"
            if live.preempted_by is None:
                live.preempted_by = []
            live.preempted_by.append(name)
            self._tell(gang, now, "preempted", {"by": name})
            return
        if gang.interruptions > live.interruptions:
            live.interruptions = gang.interruptions
            live.evicted = "interrupted"
            self._tell(gang, now, "interrupted", {})
            return
        q = self.queues.get(gang.key)
        if q is None:
            q = self.queues[gang.key] = _Queue(gang.key, now)
        q.members += 1
        live.queue, live.noted, live.evicted = q, q.upto(now), ""
        if q.reason and gang.id == self.focus:
            self._tell_wait(gang, q, q.reason, now)

    def on_wait(self, gang: Gang, now: float, reason: str) -> None:
        """Let a queue whose first job failed a try wait for the reason judged."""
        q = self.queues.get(gang.key)
        if q is None:
            return
        why, room = self._judge(gang, reason, now)
        q.judge(why, now)
        if room:  # or scale-up: settled before the clock moves
            self.pending.append((q, gang, why, now))
            return
        self._tell_wait(gang, q, why, now)

    def on_start(self, gang: Gang, now: float) -> None:
        """Close a starting job's stretch of waiting and note where its pods run."""
        live = self.live.get(gang.id)
        if live is None:  # capacity mode places without a queue
            live = self.live[gang.id] = _Live(since=now)
        self._close(live, now)
        if live.started is None:
            live.started = now
        # tuples of plain values only: the collector stops tracking them (as few tracked
        # objects per live job as may be: with many, the run's full collections come sooner)
        allocs = [(node.pm.name, node.name, node.allocs[key]) for node, key in gang.placed]
        live.placed = tuple((p, n, d.gpus, pods, inert(d)) for p, n, (d, _, pods) in allocs)
        live.run_from = now
        if gang.id == self.focus:
            self._tell(gang, now, "started",
                       {"nodes": [(p, n, k) for p, n, _, k, _ in live.placed]})

    def on_stop(self, gang: Gang, now: float, requeued: bool) -> None:
        """Count a stopping job's GPU-seconds; write its record if it is over."""
        live = self.live.get(gang.id)
        if live is None:
            return
        ran = now - live.run_from
        for _, _, gpus, pods, dead in live.placed:
            for _ in range(1 if dead else pods):  # pod by pod, as the engine sums them
                live.gpu_seconds += gpus * ran
        if requeued:
            return  # on_queue has told the eviction
        gave_up = gang.interruptions > live.interruptions
        if gang.id == self.focus:
            self._tell(gang, now, *(("interrupted", {"gave_up": True}) if gave_up
                                    else ("finished", {})))
        del self.live[gang.id]
        self._emit(gang, live, None if gave_up else now, GAVE_UP_STATE if gave_up else DONE,
                   GAVE_UP if gave_up else "")

    def on_end(self, outcome: Outcome) -> None:
        """Write the records of the jobs not over: still queued, rejected or never started."""
        if self.pending:
            self._settle()
        end = outcome.end
        for gang in outcome.gangs:
            live = self.live.pop(gang.id, None)
            if live is None:
                if gang.first_start is not None:
                    continue  # written when it finished
                live = _Live(since=gang.job.submit)
            else:
                self._close(live, max(end, live.since, live.queue.since if live.queue else 0.0))
            self._emit(gang, live, None, gang.state, gang.reason)

    # -- judging -----------------------------------------------------------------------------
    def _judge(self, gang: Gang, reason: str, now: float) -> tuple[str, bool]:
        """Return the reason of a failed try, and whether it is one of room on a node.

        A reason of room (``gang``, ``fragmentation``, ``capacity``) becomes ``scale-up``
        where a node is being added on the job's pools once the pass is over (``_settle``).
        """
        if reason == QUOTA:
            return "quota", False
        if reason == LIMIT:
            return ("resource-quota" if self._resource_quota(gang) else "limit"), False
        if self.run.held_back == (gang.id, now):
            return "min-runtime", False
        if gang.pods > 1 and self._one_pod_fits(gang):
            return "gang", True
        if reason == FRAGMENTATION:
            return "fragmentation", True
        return "capacity", True

    def _resource_quota(self, gang: Gang) -> bool:
        """Whether the tenant's ResourceQuota refuses the gang's pods on every pool it may use."""
        st = gang.tenant
        if st is None:
            return False
        for d in gang.options:
            if not any(st.hard.get(res) is not None
                       and st.used.get(res, 0) + count * gang.pods > st.hard[res]
                       for res, count in d.quota_units):
                return False
        return True

    def _one_pod_fits(self, gang: Gang) -> bool:
        nodes = self.run.nodes
        return any(n.schedulable and n.fits(d) for d in gang.options for n in nodes[d.pool.name])

    def _settle(self) -> None:
        """Make the room judged in the instant left ``scale-up`` where a node is being added."""
        inflight = self.run.inflight
        for q, gang, why, at in self.pending:
            if q.reason != why:
                continue  # judged again since
            if any(inflight.get(d.pool.name, 0) > 0 for d in gang.options):
                q.judge("scale-up", at)  # from the judgement on (no time has passed since)
            self._tell_wait(gang, q, q.reason, at)
        self.pending.clear()

    # -- closing and writing -----------------------------------------------------------------
    def _close(self, live: _Live, now: float) -> None:
        """End the job's stretch of waiting at ``now``, adding its seconds per reason."""
        q = live.queue
        if q is not None:
            for reason, seconds in q.upto(now).items():
                part = seconds - live.noted.get(reason, 0.0)
                if part > 0:
                    live.waits[reason] = live.waits.get(reason, 0.0) + part
            q.members -= 1
            if q.members <= 0 and self.queues.get(q.key) is q:
                del self.queues[q.key]
            live.queue, live.noted = None, _NONE
        elif live.evicted and now > live.since:
            live.waits[live.evicted] = live.waits.get(live.evicted, 0.0) + (now - live.since)
        live.wait += max(0.0, now - live.since)
        live.evicted = ""

    def _emit(self, gang: Gang, live: _Live, finished: float | None, state: str,
              reason: str) -> None:
        job = gang.job
        waits = live.waits
        reasons = waits if len(waits) < 2 else {r: waits[r] for r in REASONS if r in waits}
        for r, seconds in reasons.items():
            t = self.totals[r]
            t[0] += 1
            t[1] += job.pods
            t[2] += seconds
        base: Record = {
            "job": job.name, "line": job.line, "pods": job.pods,
            "tenant": job.tenant, "pool": None, "node": None, "state": state,
            "submitted": max(job.submit, live.submitted), "started": gang.first_start,
            "finished": finished,
            "wait": live.wait, "reasons": reasons,
        }
        if live.preempted_by:
            base["preempted_by"] = live.preempted_by
        if gang.interruptions:
            base["interruptions"] = gang.interruptions
        base["gpu_hours"] = live.gpu_seconds / 3600
        if reason:
            base["reason"] = reason
        if self.story is not None and gang.id == self.focus:
            self.story.record = base
        placed = live.placed
        if len(placed) <= 1 or len({n for _, n, _, _, _ in placed}) == 1:
            if placed:
                base["pool"], base["node"] = placed[0][0], placed[0][1]
            self._out(base)
            return
        pods = [(p, n) for p, n, _, k, _ in placed for _ in range(k)]
        share = live.gpu_seconds / 3600 / len(pods)
        for i, (pool, node) in enumerate(pods):
            head = {"job": job.name, "line": job.line, "pod": i}
            self._out({**head, **base, "pods": 1, "pool": pool, "node": node,
                       "gpu_hours": share})

    def _out(self, record: Record) -> None:
        self.records += 1
        self.write(record)

    def summary(self) -> dict[str, dict[str, float]]:
        """Per reason: the jobs and pods that waited for it, and the seconds in all."""
        return {r: {"jobs": int(t[0]), "pods": int(t[1]), "seconds": round(t[2], 1)}
                for r, t in self.totals.items()}

    # -- the story of one job ------------------------------------------------------------------
    def _tell(self, gang: Gang, t: float, what: str, details: dict[str, Any]) -> None:
        if self.story is not None and gang.id == self.focus:
            self.story.events.append((t, what, details))

    def _tell_wait(self, gang: Gang, q: _Queue, why: str, t: float) -> None:
        """Note a judgement of the queue the explained job waits in (with who holds the share)."""
        if self.story is None or self.focus is None:
            return
        live = self.live.get(self.focus)
        if live is None or live.queue is not q:
            return
        events = self.story.events
        t = max(t, events[-1][0]) if events else t
        details: dict[str, Any] = {"reason": why}
        if why in ("quota", "limit", "resource-quota") and gang.tenant is not None:
            details["holders"] = sorted(
                g.job.name for g in self.run.running.values() if g.tenant is gang.tenant)
        if events and events[-1][1] == "waits":
            if events[-1][0] == t:  # judged again at the same instant: the last word holds
                events[-1] = (t, "waits", details)
                return
            if events[-1][2]["reason"] == why:
                return
        events.append((t, "waits", details))
