"""``gpupool up --expect PLAN.json``: apply only what was reviewed.

This module owns the reviewed plan: reading the ``gpupool plan --format json`` document a pull
request showed (``load_reviewed``), and comparing it with the engine's preview just before ``up``
applies (``differences``, ``require_same``). Two plans are the same when they change the same
addresses with the same actions and were made from the same graph: the plan's ``pins`` (digests
of every desired resource's inputs, ``gpupool.plan.pins``) must match those of the graph about
to be applied, so a file whose values changed after the review is refused even where the
actions agree. Reasons and costs are not compared (they are what the reviewer read, not what the
engine does). Resources without change (``no-op``) are left out of the actions on both sides.
The engine's steps reach the comparison already translated to graph addresses by
``gpupool.usecases.engine.engine_changes``; an engine step no graph resource matches keeps the
address ``<type>::<name>`` and so always differs.

The document is read like every other input: a regular file only (a FIFO, a device, a folder are
refused), at most ``MAX_PLAN_BYTES``; JSON nested too deeply for the parser is an input error.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpupool import files
from gpupool.errors import GpupoolError, InputError
from gpupool.formats import FORMAT_VERSION
from gpupool.plan import (
    CREATE,
    DELETE,
    NO_OP,
    REPLACE,
    REPLACE_DELETE_FIRST,
    UPDATE,
    GraphPins,
    PlanResult,
)
from gpupool.plan import pins as plan_pins

MAX_PLAN_BYTES = 64 * 1024 * 1024
_ACTIONS = {CREATE, DELETE, NO_OP, REPLACE, REPLACE_DELETE_FIRST, UPDATE}


class PlanMismatchError(GpupoolError):
    """The engine's preview is not the reviewed plan; ``differences`` says how (one per line)."""

    def __init__(self, message: str, differences: Sequence[str]) -> None:
        super().__init__(message)
        self.differences = tuple(differences)


@dataclass(frozen=True)
class ReviewedPlan:
    """A reviewed plan: its changes (address -> Terraform actions, no-ops left out) and pins."""

    path: str
    stack: str
    actions: Mapping[str, tuple[str, ...]]
    pins: GraphPins


def load_reviewed(path: Path, stack_name: str) -> ReviewedPlan:
    """Read a ``gpupool plan --format json`` document of stack ``stack_name``.

    Raises:
        InputError: the file cannot be read, is not a plan document of this format version,
            or is another stack's plan.

    """
    where = f"--expect {path}"
    doc = _read(path, where)
    changes = doc.get("resource_changes") if isinstance(doc, dict) else None
    if not isinstance(changes, list) or "stack" not in doc:
        raise InputError(f"{where}: not a plan document (no 'stack' and 'resource_changes'); "
                         "give the output of `gpupool plan --format json`")
    if doc.get("format_version") != FORMAT_VERSION:
        raise InputError(f"{where}: format_version {_short(doc.get('format_version'))}, but this "
                         f"gpupool reads {FORMAT_VERSION!r}; plan again with this version")
    if doc["stack"] != stack_name:
        raise InputError(f"{where} is the plan of stack {_short(doc['stack'])}, not "
                         f"'{stack_name}'")
    actions: dict[str, tuple[str, ...]] = {}
    for change in changes:
        address = change.get("address") if isinstance(change, dict) else None
        acts = change.get("actions") if isinstance(change, dict) else None
        if (not isinstance(address, str) or not isinstance(acts, list)
                or not all(isinstance(a, str) for a in acts)):
            raise InputError(f"{where}: a resource change without an address and actions")
        if tuple(acts) not in _ACTIONS:
            raise InputError(f"{where}: {_short(address)} has actions {_short(acts)}, which no "
                             "plan of gpupool writes")
        if tuple(acts) != NO_OP:
            actions[address] = tuple(acts)
    if doc.get("pins") is None:
        raise InputError(f"{where}: the plan does not pin the graph it was made from (written "
                         "by an older gpupool); plan again with this version and review that")
    try:
        pins = plan_pins.from_json(doc["pins"])
    except ValueError as exc:
        raise InputError(f"{where}: {exc}; give the output of `gpupool plan --format json`, "
                         "unedited") from None
    return ReviewedPlan(str(path), doc["stack"], actions, pins)


def _short(value: Any) -> str:
    """Return a value read from the document for a message: quoted, at most 80 characters."""
    if isinstance(value, list) and len(value) <= 4 and all(isinstance(v, str) for v in value):
        pass  # a short list of strings reads as it is
    elif not isinstance(value, (str, int, float, bool)) and value is not None:
        return f"of type {type(value).__name__}"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _read(path: Path, where: str) -> Any:
    """Return the JSON of the regular file ``path``, bounded in size and depth."""
    try:
        data = files.read_regular(path, MAX_PLAN_BYTES)
    except FileNotFoundError:
        raise InputError(f"{where}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{where}: is a directory; give the plan's JSON file") from None
    except files.TooLargeError:
        raise InputError(f"{where}: larger than {MAX_PLAN_BYTES // 2**20} MiB; not a plan of "
                         "gpupool") from None
    except files.UnsafePathError:
        if path.is_dir():
            raise InputError(f"{where}: is a directory; give the plan's JSON file") from None
        raise InputError(f"{where}: not a regular file (a pipe, a device or a folder); give "
                         "the plan's JSON file") from None
    except OSError as exc:
        raise InputError(f"{where}: cannot be read: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{where}: not UTF-8 text; give the output of "
                         "`gpupool plan --format json`") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: not JSON ({exc.msg} at line {exc.lineno}); give the output "
                         "of `gpupool plan --format json`") from None
    except RecursionError:
        raise InputError(f"{where}: JSON nested too deeply to read; not a plan of "
                         "gpupool") from None
    except ValueError as exc:  # an integer of more digits than Python converts
        raise InputError(f"{where}: not a plan of gpupool ({str(exc)[:120]})") from None



def _say(actions: tuple[str, ...] | None) -> str:
    if actions is None:
        return "no change"
    if len(actions) == 2:
        return "replace (" + " then ".join(actions) + ")"
    return actions[0]


def differences(reviewed: ReviewedPlan, preview: PlanResult) -> list[str]:
    """Return one line per difference, actions first, then the graph the plan pinned.

    Actions in the preview's then the plan's order; then each other resource whose pinned
    inputs differ from the reviewed plan's, or that only one of the two graphs has.
    """
    engine = {c.address: tuple(c.actions) for c in preview.changes if tuple(c.actions) != NO_OP}
    found = []
    for address in [*engine, *(a for a in reviewed.actions if a not in engine)]:
        want, got = reviewed.actions.get(address), engine.get(address)
        if want != got:
            found.append(f"{address}: reviewed plan: {_say(want)}; engine preview: {_say(got)}")
    if preview.pins is None:
        found.append("the preview carries no pins of its graph to hold against the reviewed plan")
    else:
        named = {line.split(": ", 1)[0] for line in found}
        found += [line for line in plan_pins.differences(reviewed.pins, preview.pins)
                  if line.split(": ", 1)[0] not in named]  # said once per address
    return found


def require_same(reviewed: ReviewedPlan, preview: PlanResult) -> None:
    """Raise ``PlanMismatchError`` unless the preview is the reviewed plan.

    It must have exactly the reviewed changes and be made from the graph the plan pinned.
    """
    found = differences(reviewed, preview)
    if found:
        n = len({line.split(": ", 1)[0] for line in found})
        raise PlanMismatchError(
            f"the engine's preview differs from the reviewed plan {reviewed.path} in {n} "
            f"resource{'s' * (n != 1)}; nothing was applied: review a new plan",
            found,
        )
