"""The diff of two resource graphs: which resources change, how, and which inputs.

This module owns matching resources by address and deciding each one's Terraform action: only
in the desired graph is a create, only in the base a delete, a changed type or a changed input
under the resource's ``replace_on`` paths a replace (in the order Pulumi runs it:
``["create", "delete"]``, or ``["delete", "create"]`` for the types the rendered program marks
``delete_before_replace``; ``changes.replace_actions``), any other changed input an update, else
a no-op. Inputs are compared recursively (mappings by key, equal-length
lists by index, ``Ref`` and ``Lookup`` as values). Reasons come from ``gpupool.plan.reasons``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpupool.graph import Ref, Resource, ResourceGraph
from gpupool.plan import reasons
from gpupool.plan.changes import (
    CREATE,
    DELETE,
    MISSING,
    NO_OP,
    UPDATE,
    InputChange,
    InputPath,
    ResourceChange,
    dotted,
    replace_actions,
)


def _is_list(v: Any) -> bool:
    return isinstance(v, (list, tuple))


def _same(a: Any, b: Any) -> bool:
    """Compare leaf values as JSON would (``True`` is not ``1``; lists equal tuples)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and bool(a == b)
    if isinstance(a, Ref) or isinstance(b, Ref):
        return bool(a == b)
    if _is_list(a) and _is_list(b):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return set(a) == set(b) and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


def diff_inputs(before: Any, after: Any, path: InputPath = ()) -> list[InputChange]:
    """Return the leaf-level differences between two input values.

    Mappings are compared key by key and lists of equal length item by item; a list that
    changes length, or a value that changes type, is one change at its own path. A ``Ref`` is
    a leaf compared by address and attribute.

    Args:
        before: the base value.
        after: the desired value.
        path: where these values sit.

    Returns:
        The changes, in the order of the desired value's keys (removed keys last).

    """
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        out: list[InputChange] = []
        for key in [*after, *(k for k in before if k not in after)]:
            if key not in before:
                out.append(InputChange((*path, key), MISSING, after[key]))
            elif key not in after:
                out.append(InputChange((*path, key), before[key], MISSING))
            else:
                out.extend(diff_inputs(before[key], after[key], (*path, key)))
        return out
    if _is_list(before) and _is_list(after) and len(before) == len(after):
        out = []
        for i, (x, y) in enumerate(zip(before, after, strict=True)):
            out.extend(diff_inputs(x, y, (*path, i)))
        return out
    return [] if _same(before, after) else [InputChange(path, before, after)]


def _under(path: InputPath, replace_on: str) -> bool:
    """Whether a changed ``path`` touches the dotted ``replace_on`` path."""
    text = dotted(path)
    return (
        text == replace_on
        or text.startswith(replace_on + ".")
        or (replace_on.startswith(text + "."))
    )


def _path_of(dotted_path: str) -> InputPath:
    return tuple(int(s) if s.isdigit() else s for s in dotted_path.split("."))


def diff(base: ResourceGraph, desired: ResourceGraph) -> tuple[ResourceChange, ...]:
    """Compare two graphs resource by resource.

    Args:
        base: what is there (an empty graph for a first apply).
        desired: what the stack file asks for.

    Returns:
        One change per address in either graph (no-ops included): pools' resources first,
        then tenants', then cluster-wide ones, each group by owner and address.

    """
    old, new = base.by_address(), desired.by_address()
    ctx = reasons.Context(desired.cloud, reasons.pool_facts(base), reasons.pool_facts(desired),
                          reasons.queued_tenants(desired))
    out = []
    for address in set(old) | set(new):
        out.append(_change(old.get(address), new.get(address), ctx))
    return tuple(sorted(out, key=_order))


def _order(c: ResourceChange) -> tuple[int, str, str]:
    """Sort pools' resources first, then tenants', then cluster-wide ones; by address within."""
    rank = 0 if c.owner.startswith("pool:") else 1 if c.owner.startswith("tenant:") else 2
    return rank, c.owner, c.address


def _change(
    before: Resource | None, after: Resource | None, ctx: reasons.Context
) -> ResourceChange:
    res = after or before
    assert res is not None  # one side always exists
    if before is None or after is None:
        actions = CREATE if before is None else DELETE
        return ResourceChange(
            res.address, res.type, res.name, res.owner, actions,
            reasons=tuple(reasons.lifecycle(res, actions, ctx)),
        )  # fmt: skip
    if before.type != after.type:
        why = (f"type {before.type} -> {after.type}: a different kind of resource",)
        return ResourceChange(
            res.address, after.type, after.name, after.owner, replace_actions(after.type),
            reasons=why,
        )  # fmt: skip
    raw = [
        c for c in diff_inputs(before.inputs, after.inputs)
        if not any(_under(c.path, p) for p in after.ignore_changes)
    ]  # fmt: skip
    if not raw:
        return ResourceChange(res.address, after.type, after.name, after.owner, NO_OP)
    changes = tuple(
        InputChange(c.path, c.before, c.after, any(_under(c.path, r) for r in after.replace_on))
        for c in raw
    )
    forcing = [r for r in after.replace_on if any(_under(c.path, r) for c in changes)]
    replace_paths = tuple(dict.fromkeys(_path_of(r) for r in forcing))
    actions = replace_actions(after.type) if replace_paths else UPDATE
    explained = reasons.explain(before, after, changes, replace_paths, ctx)
    return ResourceChange(
        res.address, after.type, after.name, after.owner, actions, changes, replace_paths,
        tuple(explained),
    )  # fmt: skip
