"""``gpupool preview``, ``up`` and ``destroy``: the stack through the Pulumi Automation API.

This module owns the wiring between the pieces: render the program where the engine expects it
(where ``gpupool render`` writes it), point the engine at the stack's backend, translate the
engine's steps into the plan's vocabulary (so ``preview`` reads like ``plan``), record the applied
graph after ``up`` and ``destroy`` (also after a partial failure), and hold the stack lock while
anything writes. Progress goes to the caller's ``on_event``; nothing here prints.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from gpupool import record
from gpupool import render as renderer
from gpupool.assemble import build
from gpupool.engine import pulumi as engine
from gpupool.engine.results import EngineResult, EngineTarget, ProgressEvent, UpdateFailedError
from gpupool.graph import ResourceGraph
from gpupool.lock import lock_path, stack_lock
from gpupool.model import Stack
from gpupool.plan import (
    REPLACE,
    REPLACE_DELETE_FIRST,
    PlanResult,
    ResourceChange,
    make_plan,
)
from gpupool.usecases.base import load_base

OnEvent = Callable[[ProgressEvent], None]

_OPS_TO_ACTIONS = {
    "create": ("create",),
    "update": ("update",),
    "delete": ("delete",),
    "same": ("no-op",),
}
# The steps of one replacement. Pulumi runs ``delete-replaced`` first when the resource deletes
# before it replaces, else ``create-replacement`` first; the first step seen gives the order.
_REPLACE_OPS = frozenset({"replace", "create-replacement", "delete-replaced"})


def backend_url(stack_file: Path, stack: Stack) -> str:
    """Return the stack's state backend; a relative ``file://`` is relative to the stack file."""
    url = stack.backend
    if url.startswith("file://"):
        path = Path(url[len("file://") :]).expanduser()
        if not path.is_absolute():
            path = stack_file.resolve().parent / path
        return "file://" + str(path)
    return url


def work_dir(stack_file: Path, stack: Stack) -> Path:
    """Return where the engine runs the program: where ``gpupool render`` writes it."""
    return renderer.default_out_dir(stack_file, stack).resolve()


@dataclass(frozen=True)
class Prepared:
    """A stack ready for the engine: its graph and where the program was rendered."""

    stack: Stack
    graph: ResourceGraph
    target: EngineTarget


def prepare(stack_file: Path, stack: Stack) -> Prepared:
    """Build the graph, render the program into the work dir, and describe the engine target."""
    graph = build(stack)
    # render below .gpupool as given (render refuses a link there), then hand Pulumi the real path
    renderer.render(stack, graph, renderer.default_out_dir(stack_file, stack))
    target = EngineTarget(work_dir(stack_file, stack), stack.name, backend_url(stack_file, stack))
    return Prepared(stack, graph, target)


def _address_index(graph: ResourceGraph) -> dict[tuple[str, str], tuple[str, str]]:
    return {(r.type, r.name): (r.address, r.owner) for r in graph.resources}


def engine_changes(result: EngineResult, *graphs: ResourceGraph) -> list[ResourceChange]:
    """Translate engine steps into plan changes, matched to graph addresses where possible."""
    index: dict[tuple[str, str], tuple[str, str]] = {}
    for g in graphs:
        for key, value in _address_index(g).items():
            index.setdefault(key, value)
    seen: dict[str, ResourceChange] = {}
    for step in result.steps:
        replaces = step.op in _REPLACE_OPS
        if step.type.startswith("pulumi:") or not (replaces or step.op in _OPS_TO_ACTIONS):
            continue
        address, owner = index.get((step.type, step.name), (f"{step.type}::{step.name}", ""))
        if step.op == "delete-replaced":
            actions = REPLACE_DELETE_FIRST
        elif replaces:
            actions = REPLACE
        else:
            actions = _OPS_TO_ACTIONS[step.op]
        reasons = tuple(f"{k} forces replacement" for k in step.replace_keys)
        prior = seen.get(address)
        if prior is not None and prior.action == "replace":
            continue
        seen[address] = ResourceChange(
            address,
            step.type,
            step.name,
            owner or "cluster",
            actions,
            replace_paths=tuple((k,) for k in step.replace_keys),
            reasons=reasons,
        )
    return list(seen.values())


def preview(stack_file: Path, stack: Stack, on_event: OnEvent | None = None) -> PlanResult:
    """Run the engine's preview and return it as a plan, with gpupool's capacity and cost.

    GPU reasons from the offline plan are kept for resources the engine also changes.
    """
    prepared = prepare(stack_file, stack)
    base = load_base(stack_file, stack.name, None)
    offline = make_plan(base, prepared.graph, stack)
    result = engine.preview(prepared.target, on_event)
    reasons = {c.address: c.reasons for c in offline.changes}
    changes = [
        replace(c, reasons=tuple(dict.fromkeys([*reasons.get(c.address, ()), *c.reasons])))
        for c in engine_changes(result, prepared.graph, *(g for g in [base.graph] if g))
    ]
    return replace(offline, changes=tuple(changes))


def _applied_graph(
    prepared: Prepared, previous: ResourceGraph | None, result: EngineResult
) -> ResourceGraph:
    """Return the graph that now runs after a partial update: what applied, plus what stayed."""
    done = {(s.type, s.name) for s in result.steps if s.op != "delete"}
    deleted = {(s.type, s.name) for s in result.steps if s.op == "delete"}
    keep = [r for r in prepared.graph.resources if (r.type, r.name) in done]
    have = {(r.type, r.name) for r in keep}
    for r in previous.resources if previous else ():
        if (r.type, r.name) not in have and (r.type, r.name) not in deleted:
            keep.append(r)
    return ResourceGraph(prepared.graph.stack, prepared.graph.cloud, tuple(keep))


def _apply(stack_file: Path, stack: Stack, command: str, on_event: OnEvent | None) -> EngineResult:
    """Run ``up`` or ``destroy`` under the stack lock and keep the applied record true.

    The engine's processes inherit the lock's descriptor (``EngineTarget.keep_fds``), so a
    second run is refused for as long as the engine runs, even after this process was killed
    (``gpupool.engine.child``). A signal cancels the engine and waits for it; what applied is
    recorded like a failure's. On success the record becomes the desired graph (``up``) or an
    empty one (``destroy``). When the engine fails part way, the record holds what did apply plus
    what the last record had that was not touched, then the error propagates.
    """
    run = engine.up if command == "up" else engine.destroy
    with stack_lock(lock_path(stack_file, stack.name), command) as lock_fd:
        prepared = prepare(stack_file, stack)
        path = record.record_path(stack_file, stack.name)
        previous = record.read_applied(path)
        # the engine inherits the lock: it stays held while Pulumi runs, even if gpupool dies
        target = replace(prepared.target, keep_fds=(lock_fd,))
        try:
            result = run(target, on_event)
        except UpdateFailedError as exc:
            record.write_applied(path, _applied_graph(prepared, previous, exc.partial))
            raise
        empty = ResourceGraph(stack.name, stack.provider.cloud, ())
        record.write_applied(path, prepared.graph if command == "up" else empty)
        return result


def up(stack_file: Path, stack: Stack, on_event: OnEvent | None = None) -> EngineResult:
    """Apply the stack and record the applied graph (see ``_apply``)."""
    return _apply(stack_file, stack, "up", on_event)


def destroy(stack_file: Path, stack: Stack, on_event: OnEvent | None = None) -> EngineResult:
    """Destroy the stack's resources; the record becomes an empty graph (see ``_apply``)."""
    return _apply(stack_file, stack, "destroy", on_event)
