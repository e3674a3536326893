"""``gpupool up --expect PLAN.json``: apply only what was reviewed.

This module owns the reviewed plan: reading the ``gpupool plan --format json`` document a pull
request showed (``load_reviewed``), and comparing it with the engine's preview just before ``up``
applies (``differences``, ``require_same``). Two plans are the same when they change the same
addresses with the same actions; reasons, costs and input values are not compared (they are what
the reviewer read, not what the engine does). Resources without change (``no-op``) are left out on
both sides. The engine's steps reach the comparison already translated to graph addresses by
``gpupool.usecases.engine.engine_changes``; an engine step no graph resource matches keeps the
address ``<type>::<name>`` and so always differs.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from gpupool.errors import GpupoolError, InputError
from gpupool.formats import FORMAT_VERSION
from gpupool.plan import NO_OP, PlanResult

_MAX_PLAN_BYTES = 64 * 1024 * 1024


class PlanMismatchError(GpupoolError):
    """The engine's preview is not the reviewed plan; ``differences`` says how (one per line)."""

    def __init__(self, message: str, differences: Sequence[str]) -> None:
        super().__init__(message)
        self.differences = tuple(differences)


@dataclass(frozen=True)
class ReviewedPlan:
    """The changes of a reviewed plan: address -> Terraform actions (no-ops left out)."""

    path: str
    stack: str
    actions: Mapping[str, tuple[str, ...]]


def load_reviewed(path: Path, stack_name: str) -> ReviewedPlan:
    """Read a ``gpupool plan --format json`` document of stack ``stack_name``.

    Raises:
        InputError: the file cannot be read, is not a plan document of this format version,
            or is another stack's plan.

    """
    where = f"--expect {path}"
    try:
        if path.stat().st_size > _MAX_PLAN_BYTES:
            raise InputError(f"{where}: larger than {_MAX_PLAN_BYTES // 2**20} MiB; not a plan")
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{where}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{where}: is a directory; give the plan's JSON file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{where}: cannot be read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: not JSON ({exc.msg} at line {exc.lineno}); give the output "
                         "of `gpupool plan --format json`") from None
    changes = doc.get("resource_changes") if isinstance(doc, dict) else None
    if not isinstance(changes, list) or "stack" not in doc:
        raise InputError(f"{where}: not a plan document (no 'stack' and 'resource_changes'); "
                         "give the output of `gpupool plan --format json`")
    if doc.get("format_version") != FORMAT_VERSION:
        raise InputError(f"{where}: format_version {doc.get('format_version')!r}, but this "
                         f"gpupool reads {FORMAT_VERSION!r}; plan again with this version")
    if doc["stack"] != stack_name:
        raise InputError(f"{where} is the plan of stack '{doc['stack']}', not '{stack_name}'")
    actions: dict[str, tuple[str, ...]] = {}
    for change in changes:
        address = change.get("address") if isinstance(change, dict) else None
        acts = change.get("actions") if isinstance(change, dict) else None
        if (not isinstance(address, str) or not isinstance(acts, list)
                or not all(isinstance(a, str) for a in acts)):
            raise InputError(f"{where}: a resource change without an address and actions")
        if tuple(acts) != NO_OP:
            actions[address] = tuple(acts)
    return ReviewedPlan(str(path), doc["stack"], actions)


def _say(actions: tuple[str, ...] | None) -> str:
    if actions is None:
        return "no change"
    if len(actions) == 2:
        return "replace (" + " then ".join(actions) + ")"
    return actions[0]


def differences(reviewed: ReviewedPlan, preview: PlanResult) -> list[str]:
    """Return one line per address whose actions differ, in the preview's then the plan's order."""
    engine = {c.address: tuple(c.actions) for c in preview.changes if tuple(c.actions) != NO_OP}
    found = []
    for address in [*engine, *(a for a in reviewed.actions if a not in engine)]:
        want, got = reviewed.actions.get(address), engine.get(address)
        if want != got:
            found.append(f"{address}: reviewed plan: {_say(want)}; engine preview: {_say(got)}")
    return found


def require_same(reviewed: ReviewedPlan, preview: PlanResult) -> None:
    """Raise ``PlanMismatchError`` unless the preview has exactly the reviewed changes."""
    found = differences(reviewed, preview)
    if found:
        n = len(found)
        raise PlanMismatchError(
            f"the engine's preview differs from the reviewed plan {reviewed.path} in {n} "
            f"resource{'s' * (n != 1)}; nothing was applied: review a new plan",
            found,
        )
