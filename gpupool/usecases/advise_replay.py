"""``gpupool advise``'s queue-wait check: the simulator run on a stack's text, as advise reads it.

This module owns how advise meets ``gpupool simulate``. ``replayer`` binds a workload (the one
given with ``--workload`` or the one ``--export-workload`` wrote for the window) and returns
the ``advise.workload.Simulate`` hook: a stack file's text in, each tenant's p95 queue wait and
each pool's allocated GPU-hours out, from one run of ``simulate.engine`` with its default
settings (seed 0, no spot interruptions, the autoscaler's 300 s to a ready node).

Each tenant's p95 wait is the one ``gpupool simulate`` prints for the run (its report's, over
the pods that started; nearest rank, ``gpupool.quantile``). The queue-wait check compares the
same p95 counting the pods that never started in the run (rejected, or still queued at its
end) as waiting from their submission to the later of the run's end and the workload's span
(the latest submit plus duration): an edit that leaves a tenant's pods nowhere to run makes
that wait grow, where it would vanish from a percentile of the pods that started.
"""

from __future__ import annotations

from collections.abc import Callable

from gpupool.advise.workload import Replayed, Simulate
from gpupool.errors import InputError
from gpupool.model import Stack
from gpupool.quantile import p95
from gpupool.simulate.engine import Settings, simulate
from gpupool.simulate.jobs import Workload
from gpupool.simulate.report import report
from gpupool.spec.validate import validate_text

#: How ``simulate.report`` names the tenant of pods of none ("" here, as in advise's figures).
_REPORT_NO_TENANT = "-"


def replay(stack: Stack, workload: Workload, settings: Settings | None = None) -> Replayed:
    """Run ``workload`` on ``stack``; return each tenant's p95 waits and each pool's GPU-hours."""
    outcome = simulate(stack, workload, settings)
    figures = report(outcome)
    span = max((j.submit + j.duration for j in workload.jobs), default=0.0)
    last = max(outcome.end, span)
    waits: dict[str, list[float]] = {}
    for g in outcome.gangs:
        wait = (g.first_start if g.first_start is not None else last) - g.job.submit
        waits.setdefault(g.job.tenant or "", []).extend([max(0.0, wait)] * g.pods)
    shown = {("" if t.tenant == _REPORT_NO_TENANT else t.tenant): t.wait.p95
             for t in figures.tenants if t.wait.p95 is not None}
    return Replayed(
        waits=dict(sorted(shown.items())),
        waits_counting_unstarted={t: p95(w) for t, w in sorted(waits.items())},
        gpu_hours={p.pool: p.gpu_hours for p in figures.pools},
    )


def replayer(workload: Workload, file: str) -> Simulate:
    """Return the hook that replays ``workload`` on a stack's text (``file`` names it in errors).

    The hook raises InputError where the text does not validate (advise checks every edit
    before it replays it, so this is a fault of the caller).
    """

    def run(text: str) -> Replayed:
        checked = validate_text(text, file)
        if checked.stack is None:
            raise InputError(f"{file}: the stack to simulate does not validate")
        return replay(checked.stack, workload)

    hook: Callable[[str], Replayed] = run
    return hook
