"""The event loop: the run's clock and its heap of events, in the spirit of SimPy's kernel.

This module owns time and order, nothing of the domain. Events sit in a heap keyed by
``(time, kind, sequence)`` (the kinds and their order at one instant are ``events``'s), so the
same workload, stack and seed always give the same run. The workload's jobs are in submit
order, so they are taken from it as the clock reaches them rather than pushed as events: the
same order as the heap's with every submit pushed first, since only submits are of kind
``SUBMIT``. At each instant the loop tells the observers the clock moves, advances the
accounting, handles every event of the instant (each by its kind's handler) and every submit
due, then runs one scheduling pass and samples the timeline.

``Loop`` is the kernel part of ``engine.Simulation``: it calls the other parts by the names
below (``_advance``, ``_submit``, ``_schedule``, ``_sample``) and imports none of them.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping, Sequence

from gpupool.simulate.events import CALL, SUBMIT
from gpupool.simulate.jobs import Job
from gpupool.simulate.observers import hooks

CLOCK_EVERY = 64  # instants of the run between two calls of its clock (progress)


class Loop:
    """The clock, the heap and the observers of a run (state set by ``_init_loop``)."""

    progress: Callable[[int, int], None] | None
    clock: Callable[[float], None] | None
    last_activity: float
    _advance: Callable[[float], None]
    _submit: Callable[[int], None]
    _schedule: Callable[[], None]
    _sample: Callable[[], None]

    def _init_loop(self, observers: Sequence[object]) -> None:
        self.heap: list[tuple[float, int, int, object]] = []
        self.seq = 0
        self.now = 0.0
        self.observers = list(observers)
        self._on_advance: list[Callable[[float], None]] = hooks(self.observers, "on_advance")
        self._on_queue = hooks(self.observers, "on_queue")
        self._on_start = hooks(self.observers, "on_start")
        self._on_stop = hooks(self.observers, "on_stop")
        self._on_wait = hooks(self.observers, "on_wait")
        self._on_end = hooks(self.observers, "on_end")

    def _attach(self) -> None:
        """Hand every observer its view of the run (the run itself, read through ``RunView``)."""
        for o in self.observers:
            attach = getattr(o, "attach", None)
            if attach is not None:
                attach(self)

    def _push(self, t: float, kind: int, obj: object) -> None:
        self.seq += 1
        heapq.heappush(self.heap, (t, kind, self.seq, obj))

    def call_at(self, t: float, fn: Callable[[], None]) -> None:
        """Call ``fn`` at instant ``t``, after every other event of that instant (observers)."""
        self._push(t, CALL, fn)

    def _run_events(self, jobs: Sequence[Job],
                    handlers: Mapping[int, Callable[[object], None]]) -> float:
        """Run until no event and no job is left; return the last instant anything happened."""
        handlers = {**handlers, CALL: lambda fn: fn()}  # type: ignore[operator]
        total = len(jobs)
        submitted = 0
        end = 0.0
        heap = self.heap
        instants = 0
        on_advance = self._on_advance
        while heap or submitted < total:
            t = heap[0][0] if heap else jobs[submitted].submit
            instants += 1
            if self.clock is not None and instants % CLOCK_EVERY == 0:
                self.clock(t)
            if submitted < total and jobs[submitted].submit < t:
                t = jobs[submitted].submit
            for hook in on_advance:
                hook(t)
            self._advance(t)
            while True:
                due = submitted < total and jobs[submitted].submit == t
                if heap and heap[0][0] == t and (not due or heap[0][1] < SUBMIT):
                    _, kind, _, obj = heapq.heappop(heap)
                    handlers[kind](obj)
                elif due:
                    self._submit(submitted)
                    submitted += 1
                    if self.progress is not None and submitted % 10000 == 0:
                        self.progress(submitted, total)
                else:
                    break
            self._schedule()
            self._sample()
            end = self.last_activity
        return end
