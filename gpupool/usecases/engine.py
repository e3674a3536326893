"""``gpupool preview``, ``up`` and ``destroy``: the stack through the Pulumi Automation API.

This module owns the wiring between the pieces: render the program where the engine expects it
(where ``gpupool render`` writes it), point the engine at the stack's backend, translate the
engine's steps into the plan's vocabulary (so ``preview`` reads like ``plan``; a refresh's own
steps are left out), check that the engine can run before ``up`` and ``destroy`` ask anything,
hand ``up``'s preview to the caller's ``approve`` before it applies, record the applied graph
after ``up`` and ``destroy`` (also after a partial failure), and hold the stack lock from the
check to the record. Progress goes to the caller's ``on_event``; nothing here prints.
"""

from __future__ import annotations

import os
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
#: Sees the engine's preview before ``up`` applies it; True applies.
Approve = Callable[[PlanResult], bool]

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


def backend_from(folder: Path, stack_file: Path, stack: Stack) -> str:
    """Return the backend as a ``pulumi`` command run in ``folder`` must name it.

    A relative ``file://`` path is gpupool's from the stack file's folder (``backend_url``);
    Pulumi reads one from its working directory (pulumi/docs, using-a-diy-backend.md: "A
    relative ``file://./x`` is relative to the working directory"), so the path is rewritten
    relative to ``folder``. Any other backend is the same from everywhere.
    """
    url = stack.backend
    path = url[len("file://") :] if url.startswith("file://") else None
    if path is None or path.startswith("~") or Path(path).is_absolute():
        return url
    state = Path(backend_url(stack_file, stack)[len("file://") :])
    return "file://./" + Path(os.path.relpath(state, folder.resolve())).as_posix()


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
    out_dir = renderer.default_out_dir(stack_file, stack)
    renderer.render(stack, graph, out_dir, backend_from(out_dir, stack_file, stack))
    target = EngineTarget(work_dir(stack_file, stack), stack.name, backend_url(stack_file, stack))
    return Prepared(stack, graph, target)


def _address_index(graph: ResourceGraph) -> dict[tuple[str, str], tuple[str, str]]:
    return {(r.type, r.name): (r.address, r.owner) for r in graph.resources}


def engine_changes(result: EngineResult, *graphs: ResourceGraph) -> list[ResourceChange]:
    """Translate engine steps into plan changes, matched to graph addresses where possible.

    A step is matched by its type token and logical name (the URN's last two parts), which is
    how the rendered program names each graph resource. The graph's own providers (the
    Kubernetes provider) are kept; the stack resource and Pulumi's default providers, which
    the graph does not hold, are left out, as are the steps of a refresh.
    """
    index: dict[tuple[str, str], tuple[str, str]] = {}
    for g in graphs:
        for key, value in _address_index(g).items():
            index.setdefault(key, value)
    seen: dict[str, ResourceChange] = {}
    for step in result.steps:
        replaces = step.op in _REPLACE_OPS
        if step.refreshed or not (replaces or step.op in _OPS_TO_ACTIONS):
            continue  # a refresh's steps read the cloud; they change nothing of the program
        known = index.get((step.type, step.name))
        if known is None and step.type.startswith("pulumi:"):
            continue  # the stack itself and default providers: no resource of the graph
        address, owner = known or (f"{step.type}::{step.name}", "")
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


def check(stack_file: Path, stack: Stack) -> Prepared:
    """Render the program and check that the engine can run it, before anything is asked.

    Raises:
        RenderError: the program cannot be written.
        EngineNotInstalledError, CredentialsError: the CLI or the passphrase is missing.

    """
    prepared = prepare(stack_file, stack)
    engine.check_ready(prepared.target)
    return prepared


def _preview(stack_file: Path, prepared: Prepared, on_event: OnEvent | None,
             refresh: bool) -> PlanResult:
    stack = prepared.stack
    base = load_base(stack_file, stack.name, None)
    offline = make_plan(base, prepared.graph, stack)
    result = engine.preview(prepared.target, on_event, refresh=refresh)
    reasons = {c.address: c.reasons for c in offline.changes}
    changes = [
        replace(c, reasons=tuple(dict.fromkeys([*reasons.get(c.address, ()), *c.reasons])))
        for c in engine_changes(result, prepared.graph, *(g for g in [base.graph] if g))
    ]
    return replace(offline, changes=tuple(changes))


def preview(stack_file: Path, stack: Stack, on_event: OnEvent | None = None, *,
            refresh: bool = False) -> PlanResult:
    """Run the engine's preview and return it as a plan, with gpupool's capacity and cost.

    GPU reasons from the offline plan are kept for resources the engine also changes. With
    ``refresh`` the engine reads the cloud first and plans against what it found (the
    reconcile step for drift); the refresh's own steps are not changes of the plan.
    """
    return _preview(stack_file, prepare(stack_file, stack), on_event, refresh)


def _applied_graph(
    prepared: Prepared, previous: ResourceGraph | None, result: EngineResult
) -> ResourceGraph:
    """Return the graph that now runs after a partial update: what applied, plus what stayed.

    A refresh step applies nothing of the program, so it counts for neither.
    """
    steps = [s for s in result.steps if not s.refreshed]
    done = {(s.type, s.name) for s in steps if s.op != "delete"}
    deleted = {(s.type, s.name) for s in steps if s.op == "delete"}
    keep = [r for r in prepared.graph.resources if (r.type, r.name) in done]
    have = {(r.type, r.name) for r in keep}
    for r in previous.resources if previous else ():
        if (r.type, r.name) not in have and (r.type, r.name) not in deleted:
            keep.append(r)
    return ResourceGraph(prepared.graph.stack, prepared.graph.cloud, tuple(keep))


def up(stack_file: Path, stack: Stack, on_event: OnEvent | None = None, *,
       refresh: bool = False, approve: Approve | None = None) -> EngineResult | None:
    """Apply the stack and record the applied graph; ``None`` when ``approve`` said no.

    Under the stack lock: check the engine is ready, then, with ``approve``, run the engine's
    preview (refreshed first with ``refresh``) and hand it to ``approve``, which shows it, asks,
    or compares it with a reviewed plan; only when it returns True does the update run (also
    refreshed first with ``refresh``). The record is kept true as in ``destroy``: on success it
    is the desired graph; after a partial failure, what did apply plus what the last record had
    that was not touched, then the error propagates.
    """
    with stack_lock(lock_path(stack_file, stack.name), "up") as lock_fd:
        prepared = _locked(check(stack_file, stack), lock_fd)
        if approve is not None and not approve(_preview(stack_file, prepared, on_event,
                                                        refresh)):
            return None
        return _apply(stack_file, prepared,
                      lambda target: engine.up(target, on_event, refresh=refresh))


def destroy(stack_file: Path, stack: Stack, on_event: OnEvent | None = None, *,
            approve: Callable[[], bool] | None = None) -> EngineResult | None:
    """Destroy the stack's resources; the record becomes an empty graph.

    Under the stack lock: check the engine is ready (the program renders, the CLI and the
    passphrase are there), then ask ``approve``; ``None`` when it said no.
    """
    with stack_lock(lock_path(stack_file, stack.name), "destroy") as lock_fd:
        prepared = _locked(check(stack_file, stack), lock_fd)
        if approve is not None and not approve():
            return None
        return _apply(stack_file, prepared,
                      lambda target: engine.destroy(target, on_event))


def _locked(prepared: Prepared, lock_fd: int) -> Prepared:
    """Return ``prepared`` whose engine processes inherit the stack lock's descriptor.

    The lock then stays held for as long as the engine runs, even if this process is killed
    (``gpupool.engine.child``); a signal cancels the engine and waits for it.
    """
    return replace(prepared, target=replace(prepared.target, keep_fds=(lock_fd,)))


def _apply(stack_file: Path, prepared: Prepared,
           run: Callable[[EngineTarget], EngineResult]) -> EngineResult:
    """Run ``up`` or ``destroy`` (``run``) and keep the applied record true.

    What applied before a failure or a signal is recorded like a failure's.
    """
    stack = prepared.stack
    path = record.record_path(stack_file, stack.name)
    previous = record.read_applied(path)
    try:
        result = run(prepared.target)
    except UpdateFailedError as exc:
        record.write_applied(path, _applied_graph(prepared, previous, exc.partial))
        raise
    empty = ResourceGraph(stack.name, stack.provider.cloud, ())
    record.write_applied(path, prepared.graph if result.kind == "up" else empty)
    return result
