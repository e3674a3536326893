"""What a plan says about each resource: actions, changed inputs, reasons, counts.

This module owns the plan's vocabulary, shared by the diff and the reports: Terraform's action
lists (``CREATE``, ``UPDATE``, ``DELETE``, ``NO_OP``, and for a replacement the order Pulumi
really uses: ``REPLACE`` = ``["create", "delete"]``, its default, or ``REPLACE_DELETE_FIRST`` =
``["delete", "create"]`` for the types a cloud plug-in lists in ``delete_before_replace``, which
the rendered program marks ``delete_before_replace``; ``replace_actions``), ``InputChange`` (one
input path with its old and new value), ``ResourceChange`` and ``Summary`` (Terraform's counting:
a replace is one add, one destroy and one replace), and how an input value reads on one line. It
computes no diff; ``gpupool.plan.diff`` does.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpupool import clouds
from gpupool.graph import Ref

InputPath = tuple[str | int, ...]

CREATE: tuple[str, ...] = ("create",)
UPDATE: tuple[str, ...] = ("update",)
DELETE: tuple[str, ...] = ("delete",)
REPLACE: tuple[str, ...] = ("create", "delete")
"""A replacement as Pulumi makes it by default: the new resource first, then the old one goes
(Terraform's ``create_before_destroy`` order)."""
REPLACE_DELETE_FIRST: tuple[str, ...] = ("delete", "create")
"""A replacement that deletes the old resource first (Pulumi's ``delete_before_replace``)."""
REPLACES = (REPLACE, REPLACE_DELETE_FIRST)
NO_OP: tuple[str, ...] = ("no-op",)

_DELETE_FIRST_TYPES = frozenset(t for c in clouds.all_clouds() for t in c.delete_before_replace)


def replace_actions(type_token: str) -> tuple[str, ...]:
    """Return the actions of replacing a resource of this type, in the order Pulumi runs them.

    Pulumi creates the replacement before it deletes the old resource unless the resource asks
    for ``deleteBeforeReplace`` (Pulumi docs, "Resource options: deleteBeforeReplace"). gpupool's
    rendered programs ask for it exactly for the types a cloud plug-in lists in
    ``Cloud.delete_before_replace`` (AKS agent pools, whose names gpupool chose).
    """
    return REPLACE_DELETE_FIRST if type_token in _DELETE_FIRST_TYPES else REPLACE


class _Missing:
    """Marks an input that one side of a change does not have."""

    def __repr__(self) -> str:
        return "(absent)"


MISSING: Any = _Missing()
"""``InputChange.before`` of an added input and ``after`` of a removed one."""


@dataclass(frozen=True)
class InputChange:
    """One input that differs between the base and the desired resource.

    Attributes:
        path: steps into the inputs (keys and list indexes).
        before: the base value, or ``MISSING`` when the input is new.
        after: the desired value, or ``MISSING`` when the input goes away.
        forces_replacement: the path is under one of the resource's ``replace_on`` paths.

    """

    path: InputPath
    before: Any
    after: Any
    forces_replacement: bool = False

    @property
    def dotted(self) -> str:
        """The path as dotted text, e.g. ``scaling_config.max_size``."""
        return dotted(self.path)


@dataclass(frozen=True)
class ResourceChange:
    """What happens to one resource.

    Attributes:
        address: the resource's address (the identity plans match on).
        type: its Pulumi type token (the desired one; the base one for a delete).
        name: its Pulumi logical name.
        owner: ``pool:<name>``, ``tenant:<name>`` or ``cluster``.
        actions: Terraform's action list: ``CREATE``, ``UPDATE``, ``DELETE``, ``REPLACE``
            (create first), ``REPLACE_DELETE_FIRST`` or ``NO_OP``.
        changes: the inputs that differ (empty for create, delete and no-op).
        replace_paths: the ``replace_on`` paths whose change forces the replacement.
        reasons: sentences explaining the change in GPU terms.

    """

    address: str
    type: str
    name: str
    owner: str
    actions: tuple[str, ...]
    changes: tuple[InputChange, ...] = ()
    replace_paths: tuple[InputPath, ...] = ()
    reasons: tuple[str, ...] = ()

    @property
    def action(self) -> str:
        """One word: ``create``, ``update``, ``delete``, ``replace`` or ``no-op``."""
        return "replace" if self.actions in REPLACES else self.actions[0]

    @property
    def deletes_first(self) -> bool:
        """Whether a replacement deletes the old resource before it creates the new one."""
        return self.actions == REPLACE_DELETE_FIRST


@dataclass(frozen=True)
class Summary:
    """Counts as Terraform gives them: a replace counts in ``add`` and in ``destroy``."""

    add: int
    change: int
    destroy: int
    replace: int


def dotted(path: Sequence[str | int]) -> str:
    """Return ``path`` as dotted text (``a.b.0.c``)."""
    return ".".join(str(step) for step in path)


def summarize(changes: Iterable[ResourceChange]) -> Summary:
    """Count changes as Terraform does: a replace is one add, one destroy and one replace."""
    actions = [c.action for c in changes]
    replace = actions.count("replace")
    return Summary(
        add=actions.count("create") + replace,
        change=actions.count("update"),
        destroy=actions.count("delete") + replace,
        replace=replace,
    )


def _opaque(v: Any) -> str:
    """Name a value JSON cannot hold: a ``Ref`` or a ``Lookup``."""
    if isinstance(v, Ref):
        return f"{v.address}.{v.attr}" if v.attr else v.address
    return f"{getattr(v, 'function', type(v).__name__)}(...)"


def show_value(v: Any, width: int = 60) -> str:
    """Render an input value on one line: strings quoted, refs as ``address.attr``, cut at width.

    Args:
        v: the value (``MISSING`` renders as ``(absent)``).
        width: the most characters to return.

    Returns:
        The rendering.

    """
    if v is MISSING:
        return "(absent)"
    if isinstance(v, (str, int, float, bool, Mapping, list, tuple)) or v is None:
        text = json.dumps(v, default=_opaque, ensure_ascii=False)
    else:
        text = _opaque(v)
    return text if len(text) <= width else text[: width - 3] + "..."
