"""Observers watch a run through the loop's hooks (``gpupool/simulate/observers.py``).

Hand-worked: one node of 4 L4 GPUs (the run names it a/0); job ``a`` asks 4 GPUs from 0 for
100 s, ``b`` asks 2 at 10 s for 50 s. ``a`` starts at 0; ``b`` finds no GPU free at 10 (4 in use
of 4, so "waiting for capacity", not fragmentation) and is tried again only when ``a`` releases
its GPUs at 100, starts then and stops at 150, which is the run's end.
"""

from __future__ import annotations

from gpupool.simulate.engine import CAPACITY, DONE, Gang, Outcome, Simulation, simulate
from gpupool.simulate.generate import generate
from gpupool.simulate.observers import Observer, RunView, hooks
from gpupool.simulate.report import document, report
from tests.paths import EXAMPLES
from tests.simulate.simstacks import job, lab, workload
from tests.stacks import load_stack

ONE_NODE = "  - {name: a, nodeNames: [n1], gpu: {model: L4, count: 4}}\n"


class Recorder(Observer):
    """Writes down every hook call, with the run's clock as the view shows it."""

    def __init__(self) -> None:
        self.seen: list[tuple[object, ...]] = []
        self.view: RunView | None = None

    def attach(self, run: RunView) -> None:
        self.view = run

    def on_advance(self, t: float) -> None:
        self.seen.append(("advance", t))

    def on_start(self, gang: Gang, now: float) -> None:
        self.seen.append(("start", gang.job.name, now, gang.last_nodes))

    def on_stop(self, gang: Gang, now: float, requeued: bool) -> None:
        self.seen.append(("stop", gang.job.name, now, requeued, gang.state))

    def on_wait(self, gang: Gang, now: float, reason: str) -> None:
        self.seen.append(("wait", gang.job.name, now, reason))

    def on_end(self, outcome: Outcome) -> None:
        self.seen.append(("end", outcome.end))


def test_an_observer_hears_starts_waits_stops_and_the_end_in_order() -> None:
    wl = workload(job("a", 0, 100, gpus=4), job("b", 10, 50, gpus=2))
    rec = Recorder()
    Simulation(lab(ONE_NODE), wl, observers=[rec]).run()
    assert [s for s in rec.seen if s[0] != "advance"] == [
        ("start", "a", 0.0, ("a/0",)),
        ("wait", "b", 10.0, CAPACITY),
        ("stop", "a", 100.0, False, DONE),
        ("start", "b", 100.0, ("a/0",)),
        ("stop", "b", 150.0, False, DONE),
        ("end", 150.0),
    ]
    # the clock moves to each instant once, the first at 0
    assert [s[1] for s in rec.seen if s[0] == "advance"] == [0.0, 10.0, 100.0, 150.0]
    assert rec.view is not None and rec.view.now == 150.0
    assert [n.name for n in rec.view.nodes["a"]] == ["a/0"]


def test_an_observer_changes_nothing_a_report_shows() -> None:
    stack = load_stack(EXAMPLES / "azure-kai-fair.yaml")
    wl = generate(stack, 4, jobs=300)
    plain = document(report(simulate(stack, wl)))
    watched = document(report(Simulation(stack, wl, observers=[Recorder()]).run()))
    assert watched == plain


def test_an_observer_may_ask_to_be_called_at_an_instant_after_its_other_events() -> None:
    wl = workload(job("a", 0, 100, gpus=4))
    calls: list[tuple[float, str]] = []

    class Alarm(Observer):
        def attach(self, run: RunView) -> None:
            self.run = run
            run.call_at(100.0, lambda: calls.append((run.now, "alarm")))

        def on_stop(self, gang: Gang, now: float, requeued: bool) -> None:
            calls.append((now, "stop"))

    Simulation(lab(ONE_NODE), wl, observers=[Alarm()]).run()
    assert calls == [(100.0, "stop"), (100.0, "alarm")]  # the finish first, at the same instant


def test_only_the_hooks_an_observer_defines_are_called() -> None:
    assert hooks([Observer()], "on_start") == []
    rec = Recorder()
    assert hooks([Observer(), rec], "on_start") == [rec.on_start]

    class Duck:
        def on_end(self, outcome: Outcome) -> None:
            pass

    assert len(hooks([Duck()], "on_end")) == 1 and hooks([Duck()], "on_start") == []


def test_an_observer_hears_each_job_join_its_queue() -> None:
    """``on_queue``: at submission (a at 0, b at 10), and again after an eviction: kube-scheduler
    evicts the low-priority ``a`` for ``crit`` at 10, and ``a`` joins its queue again then."""
    seen: list[tuple[str, float]] = []

    class Joins(Observer):
        def on_queue(self, gang: Gang, now: float) -> None:
            seen.append((gang.job.name, now))

    wl = workload(job("a", 0, 100, gpus=4, priority="low"),
                  job("crit", 10, 50, gpus=4, priority="critical"))
    Simulation(lab(ONE_NODE, admission="off"), wl, observers=[Joins()]).run()
    assert seen == [("a", 0.0), ("crit", 10.0), ("a", 10.0)]
