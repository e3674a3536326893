"""MIG layout placement: does a set of MIG instances fit on one GPU, and where.

This module owns the offline answer to "will mig-parted be able to apply this layout?". The
NVIDIA driver places each GPU instance on a memory-slot axis (8 slots on A100/H100-class parts,
4 on A30) at one of a few allowed start slots per profile; instances may not overlap, their
compute slices may not exceed the GPU's, a profile has a per-GPU maximum, and only one ``+me``
(media extensions) instance fits because a GPU has one set of media engines. mig-parted only
discovers an impossible layout on the node, at apply time, so gpupool checks it here first.

The search is exact: a backtracking search over the allowed start slots, larger profiles first,
with interchangeable instances of one profile kept in increasing start order. Layouts hold at
most a handful of instances, so it finishes in microseconds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gpupool.catalog.models import GpuModel, MigGeometry, MigProfile

__all__ = ["MigFit", "PlacedInstance", "fit_layout", "mig_resource_name"]


@dataclass(frozen=True)
class PlacedInstance:
    """One GPU instance at its place on the memory-slot axis.

    Attributes:
        profile: Profile name, e.g. ``3g.40gb``.
        start: First memory slot it occupies.
        size: Memory slots it occupies.

    """

    profile: str
    start: int
    size: int


@dataclass(frozen=True)
class MigFit:
    """The outcome of placing a MIG layout on one GPU.

    Attributes:
        ok: Whether the whole layout fits.
        placements: Where each instance goes when ``ok``; when not, the largest partial
            arrangement found (possibly empty), sorted by start slot.
        unplaced: The profile that could not be placed (or was rejected), None when ``ok``.
        detail: One or two human sentences, e.g. "3g.40gb x2 uses all 8 memory slots;
            1g.10gb x1 has no slot left."

    """

    ok: bool
    placements: tuple[PlacedInstance, ...]
    unplaced: str | None
    detail: str


def mig_resource_name(profile: str) -> str:
    """Return the Kubernetes resource the device plugin advertises for a MIG profile.

    With ``mig.strategy: mixed`` the NVIDIA device plugin names each profile
    ``nvidia.com/mig-<profile>`` and turns ``+`` into ``.`` (``1g.10gb+me`` becomes
    ``nvidia.com/mig-1g.10gb.me``).

    Args:
        profile: A MIG profile name.

    Returns:
        The extended-resource name.

    """
    return "nvidia.com/mig-" + profile.strip().replace("+", ".")


def _fail(unplaced: str | None, detail: str, partial: Sequence[PlacedInstance] = ()) -> MigFit:
    """Build a failed fit."""
    return MigFit(ok=False, placements=_by_start(partial), unplaced=unplaced, detail=detail)


def _by_start(placed: Sequence[PlacedInstance]) -> tuple[PlacedInstance, ...]:
    """Sort placed instances along the memory axis."""
    return tuple(sorted(placed, key=lambda p: (p.start, p.profile)))


def _summary(groups: Sequence[tuple[str, int]]) -> str:
    """Write ``[("3g.40gb", 2), ("1g.10gb", 1)]`` as ``3g.40gb x2 + 1g.10gb x1``."""
    return " + ".join(f"{name} x{count}" for name, count in groups)


def _group(names: Sequence[str]) -> list[tuple[str, int]]:
    """Count each name, keeping first-seen order."""
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    return list(counts.items())


def _ranges(slots: Sequence[int]) -> str:
    """Write slot indices ``[0, 1, 2, 5]`` as ``0-2 and 5``."""
    runs: list[list[int]] = []
    for slot in sorted(slots):
        if runs and slot == runs[-1][1] + 1:
            runs[-1][1] = slot
        else:
            runs.append([slot, slot])
    parts = [str(a) if a == b else f"{a}-{b}" for a, b in runs]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _or_list(values: Sequence[int]) -> str:
    """Write ``[0, 2, 4]`` as ``0, 2 or 4``."""
    text = [str(v) for v in values]
    return text[0] if len(text) == 1 else ", ".join(text[:-1]) + " or " + text[-1]


def _search(order: Sequence[MigProfile]) -> tuple[int, list[int]]:
    """Place ``order`` left to right; return how many were placed and their start slots.

    On success the count equals ``len(order)``. On failure it is the deepest prefix of
    ``order`` that some arrangement could place, with that arrangement's starts.
    """
    best: tuple[int, list[int]] = (0, [])
    starts: list[int] = []

    def place(index: int, used: int) -> bool:
        nonlocal best
        if index > best[0]:
            best = (index, list(starts))
        if index == len(order):
            return True
        profile = order[index]
        # Instances of one profile are interchangeable: only try increasing starts.
        lowest = starts[-1] + 1 if index and order[index - 1] is profile else 0
        mask_width = (1 << profile.memory_slots) - 1
        for start in profile.placements:
            mask = mask_width << start
            if start < lowest or used & mask:
                continue
            starts.append(start)
            if place(index + 1, used | mask):
                return True
            starts.pop()
        return False

    place(0, 0)
    return best


def fit_layout(gpu: GpuModel, layout: Mapping[str, int]) -> MigFit:
    """Decide whether a MIG layout fits on one GPU of model ``gpu``, and where.

    Checks, in order: the model supports MIG and its profile table is known; every profile
    exists on the model; counts are non-negative integers within each profile's maximum; at
    most one ``+me`` instance; total compute slices within the GPU's; then an exact search for
    non-overlapping placements on the memory-slot axis. Zero counts are ignored, so an empty
    layout fits (mig-parted's "all counts are 0" rule is the stack checks' business).

    Args:
        gpu: The GPU model.
        layout: Profile name to instance count, e.g. ``{"3g.40gb": 1, "2g.20gb": 2}``.

    Returns:
        A ``MigFit``; when it does not fit, ``unplaced`` names the profile at fault and
        ``detail`` says why in words.

    """
    first = next(iter(layout), None)
    geometry = gpu.mig
    if geometry is None:
        return _fail(first, f"{gpu.name} does not support MIG.")
    if not geometry.profiles_known:
        return _fail(
            first,
            f"The catalog has no MIG profile table for {gpu.name}, so the layout "
            "cannot be checked before it reaches the node.",
        )
    requested = _requested(gpu, geometry, layout)
    if isinstance(requested, MigFit):
        return requested
    if not requested:
        return MigFit(ok=True, placements=(), unplaced=None, detail="No MIG instances requested.")
    summary = _summary([(p.name, c) for p, c in requested])
    media = [(p, c) for p, c in requested if p.media_extensions]
    if sum(c for _, c in media) > 1:
        return _fail(
            media[-1][0].name,
            f"{_summary([(p.name, c) for p, c in media])} asks for "
            f"{sum(c for _, c in media)} media-extension (+me) instances; a GPU has one "
            "set of media engines, so at most one fits.",
        )
    compute = sum(p.compute_slices * c for p, c in requested)
    order = sorted(
        (p for p, c in requested for _ in range(c)),
        key=lambda p: (-p.memory_slots, -p.compute_slices, p.name),
    )
    if compute > geometry.compute_slices:
        verb = "needs" if len(requested) == 1 else "need"
        return _fail(
            order[-1].name,
            f"{summary} {verb} {compute} compute slices; {gpu.name} has {geometry.compute_slices}.",
        )
    placed_count, starts = _search(order)
    pairs = zip(order[:placed_count], starts, strict=True)
    placed = [PlacedInstance(p.name, s, p.memory_slots) for p, s in pairs]
    slots = geometry.memory_slots
    used = sum(p.size for p in placed)
    if placed_count == len(order):
        return MigFit(
            ok=True,
            placements=_by_start(placed),
            unplaced=None,
            detail=f"{summary} fits on {gpu.name}: {compute} of "
            f"{geometry.compute_slices} compute slices, {used} of {slots} memory slots.",
        )
    return _blocked(gpu, geometry.memory_slots, order, placed)


def _requested(
    gpu: GpuModel, geometry: MigGeometry, layout: Mapping[str, int]
) -> list[tuple[MigProfile, int]] | MigFit:
    """Return each profile asked for with its total count, or the failed fit of a bad entry.

    A name the model has no profile of, a count that is not a non-negative integer, or a total
    over the profile's per-GPU maximum fails; zero totals are left out.
    """
    wanted: dict[str, tuple[MigProfile, int]] = {}
    for name, count in layout.items():
        profile = geometry.profile(name)
        if profile is None:
            valid = ", ".join(p.name for p in geometry.profiles)
            return _fail(
                name, f"{name} is not a MIG profile of {gpu.name}; valid profiles: {valid}."
            )
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            return _fail(
                profile.name, f"{name}: count must be a non-negative integer, got {count!r}."
            )
        total = wanted.get(profile.name, (profile, 0))[1] + count
        if total > profile.max_count:
            return _fail(
                profile.name,
                f"{profile.name} x{total} exceeds the limit of "
                f"{profile.max_count} per GPU on {gpu.name}.",
            )
        if total:
            wanted[profile.name] = (profile, total)
    return list(wanted.values())


def _blocked(
    gpu: GpuModel, slots: int, order: Sequence[MigProfile], placed: list[PlacedInstance]
) -> MigFit:
    """Return the failed fit of a search that placed only ``placed`` of ``order``, saying why."""
    placed_count = len(placed)
    used = sum(p.size for p in placed)
    blocked = order[placed_count]
    left = sum(1 for p in order[placed_count:] if p is blocked)
    if not placed:
        return _fail(blocked.name, f"{blocked.name} x{left} cannot be placed on {gpu.name}.")
    groups = _group([p.name for p in order[:placed_count]])
    verb = "uses" if len(groups) == 1 else "use"
    if used == slots:
        detail = (
            f"{_summary(groups)} {verb} all {slots} memory slots; "
            f"{blocked.name} x{left} has no slot left."
        )
    else:
        taken = [p.start + i for p in placed for i in range(p.size)]
        need = "1 free slot" if blocked.memory_slots == 1 else f"{blocked.memory_slots} free slots"
        detail = (
            f"{_summary(groups)} {verb} memory slots {_ranges(taken)}; {blocked.name} "
            f"x{left} has no slot left (it needs {need} starting at "
            f"{_or_list(blocked.placements)})."
        )
    return _fail(blocked.name, detail, placed)
