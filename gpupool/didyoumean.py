"""Suggestions for a name that is not known: the one "did you mean" of gpupool.

``closest`` is what every message that names a near miss asks: a stack's unknown keys, enum
values and tenant pool references (``gpupool.spec``), catalog GPU models, instance types, MIG
profiles and regions (``gpupool.spec.checks``, ``gpupool init``, ``gpupool catalog``) and a
workload's unknown columns and names (``gpupool.simulate.workload``). This module imports nothing
else of gpupool, so every layer may use it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

#: No known name is longer than 40 characters; comparing more of what was written only costs
#: time (difflib is quadratic in the worst case, and a hostile file can put megabytes in one
#: value).
_MAX_NAME = 100


def closest(
    word: str,
    candidates: Iterable[str],
    n: int = 3,
    *,
    cutoff: float | None = None,
    fold_case: bool = True,
) -> list[str]:
    """Return up to ``n`` of ``candidates`` most similar to ``word``, best first.

    Without ``cutoff`` something is always suggested when there are candidates (a name looked
    up in a catalog): similarity is difflib's ratio on lower-cased strings, raised by 0.5 when
    the candidate contains what was written (so ``A100`` suggests ``A100-80GB`` before
    ``A10``), duplicates counted once, ties alphabetical.

    With ``cutoff`` only candidates at least that similar are suggested (a key or a value of a
    file, where a far guess misleads), by difflib's ``get_close_matches`` rule on the names as
    written. With ``fold_case`` too, a candidate that differs from ``word`` only in case comes
    first, and when none is near as written they are compared lower-cased.

    Args:
        word: What the user wrote.
        candidates: Known names.
        n: How many suggestions at most.
        cutoff: The least similarity (0 to 1) a suggestion needs, or None for no floor.
        fold_case: With ``cutoff``: let a difference in case alone not count.

    Returns:
        Up to ``n`` distinct candidates, most similar first.

    """
    if cutoff is None:
        return _ranked(word, candidates, n)
    choices = list(candidates)
    if not fold_case:
        return difflib.get_close_matches(word, choices, n=n, cutoff=cutoff)
    lowered = {c.lower(): c for c in choices}
    if word.lower() in lowered:
        return [lowered[word.lower()]][:n]
    hits = difflib.get_close_matches(word, choices, n=n, cutoff=cutoff)
    if not hits:
        folded = difflib.get_close_matches(word.lower(), list(lowered), n=n, cutoff=cutoff)
        hits = [lowered[h] for h in folded]
    return hits


def _ranked(word: str, candidates: Iterable[str], n: int) -> list[str]:
    """Every candidate scored on lower-cased names, containment raised; the best ``n``."""
    wanted = word.strip().lower()[:_MAX_NAME]
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(wanted)
    scored: dict[str, float] = {}
    for candidate in candidates:
        if candidate in scored:
            continue
        folded = candidate.lower()
        matcher.set_seq1(folded)
        contained = bool(wanted) and wanted in folded
        scored[candidate] = matcher.ratio() + (0.5 if contained else 0.0)
    ranked = sorted(scored, key=lambda c: (-scored[c], c))
    return ranked[: max(n, 0)]
