"""Observers: what may watch a run from outside without being part of it.

This module owns the hook protocol between the loop (``loop.Loop``) and whatever watches a run:
fragmentation metering today (``metered.FragmentationMeter``), and per-pod records or a service
autoscaler later. An observer is attached when the run is made (``engine.Simulation(...,
observers=[...])``) and is handed a read-only view of the run (``RunView``); it is then told, in
the run's own order:

- ``on_advance(t)``: the clock is about to move to ``t`` (the cluster is still as the last
  instant left it);
- ``on_queue(gang, now)``: ``gang`` joined its queue, at its submission or after an eviction
  (``gang.key`` names the queue; every job of a queue waits for the reason its first one's
  last try was told by ``on_wait``);
- ``on_start(gang, now)``: every pod of ``gang`` was placed and it runs (``gang.placed``,
  ``gang.last_nodes``, ``gang.pools_used`` say where);
- ``on_stop(gang, now, requeued)``: its pods were released, because it finished or was evicted
  (``requeued``: it goes back to its queue; ``gang.state`` says which);
- ``on_wait(gang, now, reason)``: a try of the first job of a queue failed, and why (the reason
  the report shows: a ceiling, fragmentation, waiting for capacity); tries the queues' gating
  skips, since they would fail alike, are not told, and a job still queued at the end gets its
  final reason in the ``Outcome``;
- ``on_end(outcome)``: the run is over.

Only the hooks an observer defines are called, so a run without observers pays nothing. An
observer never changes the run's state; one that must act at a time of its own asks the view
to call it then (``RunView.call_at``), after everything else at that instant. The one exception
declares itself (``places_pods``): ``services.actor.ServiceActor`` hands the run its services'
replicas through the engine's ``submit_pod`` and ``withdraw``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from gpupool.simulate.accounting import Outcome
    from gpupool.simulate.cluster import ClusterModel
    from gpupool.simulate.gang import Gang, Settings
    from gpupool.simulate.jobs import Workload
    from gpupool.simulate.placement import Node
    from gpupool.simulate.tenancy import Tenancy

HOOKS = ("on_advance", "on_queue", "on_start", "on_stop", "on_wait", "on_end")
"""The hooks the loop calls, in the order of the module docstring."""


class RunView(Protocol):
    """What an observer may read of the run it watches (and the one thing it may ask)."""

    @property
    def now(self) -> float:
        """The run's clock: the instant being handled."""

    @property
    def cluster(self) -> ClusterModel:
        """The pools and node groups the run's nodes come from."""

    @property
    def nodes(self) -> Mapping[str, Sequence[Node]]:
        """Per pool, its nodes now (asked for, ready or draining; removed ones are gone)."""

    @property
    def settings(self) -> Settings:
        """The run's settings."""

    @property
    def workload(self) -> Workload:
        """The jobs replayed."""

    @property
    def tenancy(self) -> Tenancy:
        """The tenants' grants and what their running pods hold (read, never changed)."""

    @property
    def running(self) -> Mapping[int, Gang]:
        """The running jobs by id."""

    @property
    def inflight(self) -> Mapping[str, int]:
        """Per pool, the nodes asked for and not yet ready (or not to be filled)."""

    @property
    def preemptor(self) -> Gang | None:
        """The job whose try is evicting victims now (set before its victims stop)."""

    @property
    def held_back(self) -> tuple[int, float] | None:
        """The last try held back by a victim's minimum runtime: (job id, instant)."""

    def call_at(self, t: float, fn: Callable[[], None]) -> None:
        """Call ``fn`` at instant ``t``, after every other event of that instant."""


class Observer:
    """A base for observers: every hook does nothing; define the ones you need.

    The loop registers only the hooks a subclass defines (or any object's attributes of the
    hooks' names), so defining none costs the run nothing.
    """

    def attach(self, run: RunView) -> None:
        """Keep the view of the run this observer watches (called once, before the run)."""

    def on_advance(self, t: float) -> None:
        """Look at the run before the clock moves to ``t``."""

    def on_queue(self, gang: Gang, now: float) -> None:
        """Hear that ``gang`` joined its queue at ``now`` (submitted, or evicted and requeued)."""

    def on_start(self, gang: Gang, now: float) -> None:
        """Hear that ``gang`` started at ``now``."""

    def on_stop(self, gang: Gang, now: float, requeued: bool) -> None:
        """Hear that ``gang``'s pods were released at ``now``; ``requeued``: it waits again."""

    def on_wait(self, gang: Gang, now: float, reason: str) -> None:
        """Hear that a try of ``gang`` failed at ``now`` for ``reason``."""

    def on_end(self, outcome: Outcome) -> None:
        """Hear that the run ended with ``outcome``."""


def hooks(observers: Sequence[object], name: str) -> list[Callable[..., None]]:
    """Return the observers' hooks of ``name`` that do something (defined, not the base's)."""
    out = []
    for o in observers:
        fn = getattr(o, name, None)
        if fn is None or getattr(type(o), name, None) is getattr(Observer, name):
            continue
        out.append(fn)
    return out
