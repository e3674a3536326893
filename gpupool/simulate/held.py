"""Queues their tenant's ceiling holds back, grouped until that tenant's usage moves.

On stacks with tenants or several priority levels a failed try may leave a trace (a victim
evicted, a ceiling lifted by preemption), so failed queues are not parked (``waiting.Parked``)
and every pass after a release retries every waiting queue's first job. A try stopped by its
tenant's ceiling (``Tenancy.blocked``: ``limit`` or ``quota``) that preemption cannot lift
(``Tenancy.lifted_by_preemption``) leaves none: it sets the queue's reason and version and
tells the ``on_wait`` observers, and its verdict is a function of the queue and of the tenant's
usage alone (``TenantState.usage``). Such a queue is *held*: grouped with the tenant's other
queues held at the same usage, it waits until that usage differs from what it was at the
failure. This module owns the groups (``Holds``), so that a pass costs their number, not their
queues':

- a group keeps its queues in the scheduler's order (``Queues._order``): a prefix common to one
  tenant and KAI job size, worked out as each pass begins, then each queue's static part (its
  first job's priority, time and id), kept from the failure;
- a pass puts one entry per group in its heap, at its first queue's place. Popped while the
  usage is the group's, that queue and every later one would fail alike: the group sleeps, its
  queues counting as tried (one version for them all); popped while the usage differs, that
  queue is let go and tried, and the group's entry moves to the next;
- a sleeping group wakes, at the first of its queues still ahead in the pass, when its tenant's
  usage moves during the pass (a start, an eviction: ``Tenancy.take_changed``);
- a queue is let go when a job joins or leaves it (its first job, or what its observers know
  of it, may change), with the version its last try, skipped or not, would have left.

Which queues a pass tries, in which order, and each queue's reason and version are the
original rule's; the tries skipped would have told the observers the reason they were last told
(``records.JobRecords`` and ``services.actor`` do nothing on it). Versions matter because a
queue is retried only in a pass after its failure's version: a version that moves during a pass
(a victim stopped) splits the groups passed at that point (``bumps``).
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Callable

from gpupool.simulate.tenancy import TenantState

Key = tuple[object, ...]
Order = tuple[float, ...]
Static = tuple[float, ...]  # the last three of a queue's order (``Queues._static``)
Member = tuple[Static, Key]


class Group:
    """Queues of one tenant and KAI job size held at one usage, tried last at one version."""

    __slots__ = ("members", "next", "passing", "prefix", "size", "st", "stamp", "version")

    def __init__(self, st: TenantState, size: float | None, stamp: tuple[float, ...],
                 version: int) -> None:
        self.st = st
        self.size = size  # the KAI job size its prefix depends on (None: no KAI order)
        self.stamp = stamp  # the tenant's usage at the failures
        self.version = version
        self.members: list[Member] = []  # in the scheduler's order
        self.prefix: Order = ()  # the part of the order its queues share, as this pass began
        self.passing = False  # this pass tries its queues (its version is not the pass's)
        self.next: Key | None = None  # the queue its entry in the pass's heap stands for

    def order(self, member: Member) -> Order:
        """Return the member's place in this pass's order."""
        return (*self.prefix, *member[0])

    def key(self) -> tuple[object, ...]:
        """Its key in ``Holds.groups``."""
        return (id(self.st), self.size, self.stamp, self.version)


class Holds:
    """The held queues, by group, and the state of the pass that walks them."""

    def __init__(self) -> None:
        self.of: dict[Key, tuple[Group, Static]] = {}  # held queue -> its group, static order
        self.groups: dict[tuple[object, ...], Group] = {}  # by Group.key, outside a pass
        self.passing: list[Group] = []  # the groups this pass tries (out of ``groups``)
        self.by_tenant: dict[int, list[Group]] = {}  # id of a tenant's state -> passing groups
        self.heap: list[tuple[Order, Key]] | None = None  # the pass's heap (None: none passing)
        self.top: Order | None = None  # the largest order popped in this pass
        self.bumps: list[tuple[Order, int]] = []  # (top, version before) as the version moved
        self.version = 0  # the run's version as the pass last saw it

    def __contains__(self, key: Key) -> bool:
        return key in self.of

    def __len__(self) -> int:
        return len(self.of)

    def hold(self, key: Key, st: TenantState, size: float | None, static: Static,
             version: int) -> None:
        """Hold queue ``key``, just failed at ``version`` for ``st``'s ceiling."""
        stamp = st.usage()
        g = self.groups.get((id(st), size, stamp, version))
        if g is None:
            g = Group(st, size, stamp, version)
            self.groups[g.key()] = g
        bisect.insort(g.members, (static, key))
        self.of[key] = (g, static)

    def begin(self, heap: list[tuple[Order, Key]], version: int,
              first: Callable[[Key], Order]) -> None:
        """Put in ``heap`` one entry per group a pass at ``version`` retries.

        ``first(key)``: the queue's order now (``Queues._order`` of its first job).
        """
        self.top, self.bumps, self.version = None, [], version
        for gkey, g in list(self.groups.items()):
            if g.version == version:
                continue  # tried at this version: the original rule skips its queues too
            del self.groups[gkey]
            head = g.members[0][1]
            order = first(head)
            g.prefix, g.next, g.passing = order[:-3], head, True
            heap.append((order, head))
            self.passing.append(g)
            self.by_tenant.setdefault(id(g.st), []).append(g)
        self.heap = heap if self.passing else None

    def _index(self, g: Group, static: Static) -> int:
        return bisect.bisect_left(g.members, (static,))

    def _push(self, g: Group, i: int) -> None:
        """Put the group's entry in the pass's heap at its member ``i``."""
        assert self.heap is not None
        member = g.members[i]
        g.next = member[1]
        heapq.heappush(self.heap, (g.order(member), member[1]))

    def pop(self, order: Order, key: Key) -> Key | None:
        """Return the queue the pass tries for the entry it popped, or None (a group sleeps)."""
        if self.top is None or order > self.top:
            self.top = order
        found = self.of.get(key)
        if found is None:
            return key
        g, static = found
        assert g.next == key, "a held queue's entry is its group's"
        g.next = None
        if g.st.usage() == g.stamp:
            return None  # this queue and the later ones fail alike while the usage stays
        i = self._index(g, static)
        del g.members[i]
        del self.of[key]
        if i < len(g.members):
            self._push(g, i)
        return key

    def bump(self, version: int) -> None:
        """Note that the version moved during the pass: queues passed so far keep the old one."""
        if self.top is not None:
            self.bumps.append((self.top, self.version))
        self.version = version

    def wake(self, states: list[TenantState]) -> None:
        """Wake the sleeping groups of tenants whose usage moved away from their groups'."""
        for st in states:
            for g in self.by_tenant.get(id(st), ()):
                if g.next is not None or not g.members or st.usage() == g.stamp:
                    continue
                i = 0 if self.top is None else bisect.bisect_right(g.members, self.top,
                                                                   key=g.order)
                if i < len(g.members):
                    self._push(g, i)

    def _version_at(self, order: Order) -> int:
        """Return the version a queue of this place in the pass was tried at."""
        for top, version in self.bumps:
            if order <= top:
                return version
        return self.version

    def release(self, key: Key) -> int | None:
        """Let ``key`` go; return the version its last try left it, or None if the pass tries it.

        In a pass that tries its group, a queue still ahead is put in the pass's heap at its
        place (or keeps the group's entry, which moves to the next queue).
        """
        g, static = self.of.pop(key)
        i = self._index(g, static)
        del g.members[i]
        if not g.passing:
            if not g.members:
                del self.groups[g.key()]
            return g.version
        if g.next == key:
            g.next = None  # the entry in the heap is now the queue's own
            if i < len(g.members):
                self._push(g, i)
            return None
        order = (*g.prefix, *static)
        if self.top is None or order > self.top:
            assert self.heap is not None
            heapq.heappush(self.heap, (order, key))
            return None
        return self._version_at(order)

    def end(self, version: int) -> None:
        """End the pass: file each passing group's queues under the version they got."""
        if version != self.version:
            self.bump(version)
        for g in self.passing:
            g.passing, g.next = False, None
            members, start = g.members, 0
            for top, v in self.bumps:
                cut = bisect.bisect_right(members, top, lo=start, key=g.order)
                if cut > start:
                    self._file(g, members[start:cut], v)
                start = cut
            if start < len(members):
                self._file(g, members if start == 0 else members[start:], self.version)
        self.passing, self.by_tenant, self.heap, self.bumps = [], {}, None, []

    def _file(self, g: Group, members: list[Member], version: int) -> None:
        """Put ``members`` of ``g`` in the group of their usage and ``version`` (merged)."""
        if members is g.members:
            home = g
            home.version = version
        else:
            home = Group(g.st, g.size, g.stamp, version)
            home.members = members
            for static, key in members:
                self.of[key] = (home, static)
        gkey = home.key()
        there = self.groups.get(gkey)
        if there is not None:
            small, home = (there, home) if len(there.members) < len(home.members) else (
                home, there)
            for member in small.members:
                bisect.insort(home.members, member)
                self.of[member[1]] = (home, member[0])
        self.groups[gkey] = home
