"""``gpupool advise``: read what the stack's GPUs did, propose checked edits, optionally write them.

The edits come from the rules ``advise.rules`` registers, walked by ``_propose`` (scope by
scope, pool by pool, in the registry's order).
Each recommendation is checked before it is offered: the stack file with that one edit must
validate (``gpupool validate``'s rules), and where a workload is known (``--workload``, or the
window's pods ``--export-workload`` writes) the simulator replays it on the stack before and
after the edit (``usecases.advise_replay``) and no tenant's p95 queue wait may grow beyond the
tolerance (``advise.workload.regressions``); one that fails either is dropped and the result
says why. With ``--export-workload`` the replay of today's stack is also set against what the
window showed (``advise.workload.fidelity``).
``--write FILE`` / ``--in-place`` writes the file with every kept edit (checked together again),
atomically, only after every step succeeded, and only when the stack file is still what was read
(``advise.edit.write_back``: nothing made meanwhile is lost).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from gpupool.advise import coverage, edit, evidence, overflow, rule, rules, services, workload
from gpupool.advise.prometheus import Auth, Prometheus
from gpupool.advise.recommendation import Dropped, Recommendation
from gpupool.advise.report import AdviseResult
from gpupool.assemble import build
from gpupool.errors import InputError
from gpupool.files import write_atomic
from gpupool.graph import ResourceGraph
from gpupool.model import Stack
from gpupool.plan.cost import price_currency
from gpupool.plan.tenant_cost import tenant_costs
from gpupool.simulate.jobs import Workload
from gpupool.simulate.workload import read_workload
from gpupool.spec.validate import validate_text
from gpupool.usecases import advise_services
from gpupool.usecases.advise_replay import replayer

STACK_LIMIT = 4 * 1024 * 1024  # the same bound stack files are read with


def _prices(stack: Stack) -> tuple[dict[str, float | None], str]:
    graph = build(stack)
    report = tenant_costs(ResourceGraph(stack.name, graph.cloud, ()), graph)
    hourly = {name: span.min for name, span in report.gpu_hourly.items()}
    return hourly, price_currency(graph)


def _propose(stack: Stack, ev: evidence.Evidence, gpu_hourly: Mapping[str, float | None],
             overflow_share: float = overflow.DEFAULT_SHARE
             ) -> tuple[list[Recommendation], list[str]]:
    """Walk the rule registry: the recommendations the evidence supports, and the gaps met.

    Scope by scope (``advise.rule.Scope``), case by case in the stack's order, each rule of the
    scope in the registry's order judges the case; a pool the guard holds back is judged by none.
    """
    found: list[Recommendation] = []
    gaps: list[str] = []
    covered = coverage.of(stack, ev)
    for scope in rule.Scope:
        for case in rule.cases(stack, ev, gpu_hourly, covered, scope, overflow_share):
            held = rule.guard(case) if scope is rule.Scope.POOL_USE else None
            if held is not None:
                gaps.extend(held)
                continue
            for each in rules.of_scope(scope):
                findings = each.judge(case)
                found.extend(findings.recommendations)
                gaps.extend(findings.gaps)
    return found, gaps


def _check(text: str, file: str, edits: list[tuple[tuple[str | int, ...], object]]) -> str | None:
    """Return why the edited stack is not valid, or None when it validates."""
    edited = edit.apply(text, edits)
    checked = validate_text(edited, file)
    errors = [d for d in checked.diagnostics if d.is_error]
    if checked.stack is None or errors:
        first = errors[0] if errors else None
        return f"the edited stack does not validate: {first.summary if first else 'invalid'}"
    return None


def advise(
    stack_file: Path,
    stack: Stack,
    *,
    url: str,
    since_seconds: float,
    auth: Auth | None = None,
    end: float | None = None,
    write: Path | None = None,
    export_workload: Path | None = None,
    export_requests: Path | None = None,
    replay: Workload | None = None,
    simulate: workload.Simulate | None = None,
    progress: Callable[[str], None] | None = None,
    overflow_share: float = overflow.DEFAULT_SHARE,
) -> AdviseResult:
    """Read the window before ``end`` (now) from ``url`` and return checked recommendations.

    ``export_workload`` writes the pods seen in the window as a workload CSV; the edits are
    replayed with ``replay`` (``--workload``), else with that exported workload. Each service
    recommendation is replayed on the window's demand (``usecases.advise_services``), which
    ``export_requests`` writes as a rate series. ``simulate``
    replaces the simulator (tests at its boundary); None: ``advise_replay.replayer``.
    ``overflow_share`` is the share of 5-minute windows ``memory-overcommit`` lets overflow.

    Raises:
        PrometheusError: the server cannot be read.
        InputError: the stack file cannot be read again or written.

    """
    try:
        source = edit.read_source(stack_file, STACK_LIMIT)
        text = source.text
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"cannot read {stack_file} again to edit it: {err}") from err
    server = Prometheus(url, auth)
    until = end if end is not None else time.time()
    ev = evidence.read(server, stack, until, since_seconds, progress)
    gpu_hourly, currency = _prices(stack)
    found, rule_gaps = _propose(stack, ev, gpu_hourly, overflow_share)
    start = until - since_seconds
    pods, csv_text = _window_pods(server, stack, until, since_seconds, ev, export_workload,
                                  progress)
    if export_workload is not None and replay is None and any(p.started is not None for p in pods):
        replay = _read_csv(csv_text, str(export_workload))
    if simulate is None and replay is not None:
        simulate = replayer(replay, str(stack_file))
    baseline = simulate(text) if simulate is not None and found else None
    if simulate is not None and export_workload is not None and pods:
        today = baseline if baseline is not None else simulate(text)
        fidelity: workload.Fidelity | None = workload.fidelity(pods, start, until, today)
    else:
        fidelity = None
    kept, dropped = _checked(text, str(stack_file), found, simulate, baseline)
    kept, unserved = advise_services.check(text, str(stack_file), stack, ev.services, kept)
    dropped.extend(unserved)
    check_gaps = _unchecked(simulate, found)
    written = _write(source, str(stack_file), write, kept)
    exported = _export(export_workload, csv_text, export_requests, ev)
    return AdviseResult(
        stack=stack.name,
        file=str(stack_file),
        evidence=ev,
        currency=currency,
        recommendations=tuple(kept),
        dropped=tuple(dropped),
        gaps=tuple(ev.gaps) + tuple(rule_gaps) + tuple(check_gaps),
        written=written,
        coverage=coverage.of(stack, ev),
        workload_file=exported,
        workload_pods=sum(1 for p in pods if p.started is not None),
        observed_waits=workload.observed_waits(pods),
        fidelity=fidelity,
        replayed=None if simulate is None else (replay.source if replay else "the caller's"),
        requests_file=None if export_requests is None else str(export_requests),
    )


def _window_pods(
    server: Prometheus, stack: Stack, until: float, since_seconds: float, ev: evidence.Evidence,
    export_workload: Path | None, progress: Callable[[str], None] | None,
) -> tuple[list[workload.ObservedPod], str]:
    """Return the window's pods and their workload CSV, read only for ``--export-workload``."""
    pods: list[workload.ObservedPod] = []
    csv_text = ""
    if export_workload is not None:
        if progress:
            progress("reading the pods of the window for the workload")
        pods = workload.read(server, stack, until, since_seconds, ev.node_pools)
        csv_text = workload.to_csv(pods, until - since_seconds, until)
    return pods, csv_text


def _unchecked(simulate: workload.Simulate | None, found: list[Recommendation]) -> list[str]:
    """Return the gap of recommendations that no replay checked (no workload to replay)."""
    check_gaps: list[str] = []
    if simulate is None and found:
        check_gaps.append(
            "queue waits were not checked: no workload to replay (give --workload FILE, or "
            "--export-workload FILE to replay the window's pods), so each recommendation was "
            "checked by validating the edited stack only"
        )
    return check_gaps


def _checked(
    text: str, file: str, found: list[Recommendation], simulate: workload.Simulate | None,
    baseline: workload.Replayed | None,
) -> tuple[list[Recommendation], list[Dropped]]:
    """Keep each recommendation whose edit validates and, replayed, lengthens no tenant's wait."""
    kept: list[Recommendation] = []
    dropped: list[Dropped] = []
    for rec in found:
        why = _check(text, file, [(rec.path, rec.value)])
        if why is None and simulate is not None and baseline is not None:
            after = simulate(edit.apply(text, [(rec.path, rec.value)]))
            worse = workload.regressions(baseline.waits_counting_unstarted,
                                         after.waits_counting_unstarted)
            if worse:
                why = f"simulate shows longer queue waits for {', '.join(worse)}"
        if why is None:
            kept.append(rec)
        else:
            dropped.append(Dropped(rec, why))
    return kept, dropped


def _write(
    source: edit.Source, file: str, write: Path | None, kept: list[Recommendation]
) -> str | None:
    """Write the stack file with every kept edit (checked together again); where it went."""
    if write is None or not kept:
        return None
    text = source.text
    edits = [(r.path, r.value) for r in kept]
    why = _check(text, file, edits)
    if why is not None:
        raise InputError(
            f"the recommendations together do not validate, nothing written: {why}"
        )
    try:
        edit.write_back(source, write, edit.apply(text, edits).encode("utf-8"), STACK_LIMIT)
    except OSError as err:
        raise InputError(f"cannot write {write}: {err.strerror or err}") from err
    return str(write)


def _export(
    export_workload: Path | None, csv_text: str, export_requests: Path | None,
    ev: evidence.Evidence,
) -> str | None:
    """Write the window's pods and the services' requests where asked; the workload's file."""
    exported: str | None = None
    if export_workload is not None:
        try:
            write_atomic(export_workload, csv_text.encode("utf-8"))
        except OSError as err:
            raise InputError(f"cannot write {export_workload}: {err.strerror or err}") from err
        exported = str(export_workload)
    if export_requests is not None:
        try:
            write_atomic(export_requests, services.requests_csv(ev.services).encode("utf-8"))
        except OSError as err:
            raise InputError(f"cannot write {export_requests}: {err.strerror or err}") from err
    return exported


def _read_csv(csv_text: str, source: str) -> Workload:
    """Return the exported workload CSV read by ``gpupool simulate``'s reader."""
    with tempfile.TemporaryDirectory(prefix="gpupool-advise-") as folder:
        path = Path(folder) / "workload.csv"
        path.write_text(csv_text, encoding="utf-8")
        jobs = read_workload(path, "csv").jobs
    return Workload(source, jobs)
