"""``gpupool advise``'s check of the services' recommendations: the window's demand replayed.

This module owns how advise meets the services' standalone replay
(``gpupool.simulate.services.replay``, the model of docs/services-simulation.md). For each
service recommendation (``advise.service_advice``), the service's observed demand (the rate
series ``--export-requests`` writes, ``advise.services.rate_rows``) is replayed through KEDA,
the HPA and the queue on the stack as it is and on the stack with that one edit, both with the
capacity the rules reason with (the observed one, else ``capacityPerReplica``) as what one
replica serves. A recommendation that raises the share of requests not served in time by more
than ``TOLERANCE`` (1 point) is dropped, with both shares; a kept one states both in its
evidence, with the replay's GPU-hours and its saving (the replay's cost before less after, for a
month of 730 hours). ``capacityPerReplica`` changes nothing KEDA or the HPA do, only what
``gpupool simulate`` assumes, so its replay before and after is the same; its evidence adds the
share the stack's own figure would have predicted. Its own check is against the window: the
share of the window's points at which the service's pods were saturated (GPU activity at
``service_advice.SATURATED``, 95%, or more: demand beyond what the replicas serve) is what a
right capacity's replay shows short of capacity (demand above ready replicas x C). A proposed
capacity whose replay misses that share by more than 1 point beyond the miss of the stack's own
figure explains the window worse than the figure it replaces, and is dropped with both.

The replay steps at 1 s, or at 3, 5 or 15 s where the window would take more than
``MAX_REPLAY_STEPS`` steps (the controllers' 15 s sync and 30 s poll stay on the clock), and
says which.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from gpupool.advise import edit
from gpupool.advise.recommendation import Dropped, Recommendation
from gpupool.advise.service_advice import SATURATED, SERVICE_RULES, model_capacity
from gpupool.advise.services import ServiceUse, rate_rows
from gpupool.catalog import HOURS_PER_MONTH
from gpupool.model import Stack
from gpupool.simulate.requests import RateSeries
from gpupool.simulate.services.replay import replay
from gpupool.spec.validate import validate_text

TOLERANCE = 0.01  # one point of the share not served in time
MAX_REPLAY_STEPS = 100_000
STEPS = (1.0, 3.0, 5.0, 15.0)
KINDS = frozenset(r.kind for r in SERVICE_RULES)


def replay_step(window_seconds: float) -> float:
    """Return the replay's step: the finest of ``STEPS`` within ``MAX_REPLAY_STEPS``."""
    return next((s for s in STEPS if window_seconds / s <= MAX_REPLAY_STEPS), STEPS[-1])


def trace(use: ServiceUse) -> RateSeries:
    """Return the service's observed demand as the replay reads a rate series."""
    rows = rate_rows(use)
    return RateSeries(use.service, "the window's demand", 1, tuple(t for t, _ in rows),
                      tuple(r for _, r in rows))


def _stack(text: str, file: str) -> Stack:
    checked = validate_text(text, file)
    if checked.stack is None:
        raise ValueError(f"{file}: the stack to replay does not validate")
    return checked.stack


_Replays = dict[tuple[str, str], dict[str, Any]]


def _figures(text: str, file: str, name: str, use: ServiceUse, seen: _Replays) -> dict[str, Any]:
    """Return the service's replay on ``text``; a text replayed before is not replayed again."""
    key = (name, text)
    if key not in seen:
        window = len(use.times) * use.step
        found = replay(_stack(text, file), {name: trace(use)}, step_seconds=replay_step(window))
        seen[key] = found[0]
    return seen[key]


def _saving(before: Mapping[str, Any], after: Mapping[str, Any], hours: float) -> float | None:
    if before.get("cost") is None or after.get("cost") is None or hours <= 0:
        return None
    return round((before["cost"] - after["cost"]) / hours * HOURS_PER_MONTH, 2)


def _pct(share: float) -> float:
    return round(100 * share, 2)


def check(text: str, file: str, stack: Stack, services: Mapping[str, ServiceUse],
          recs: list[Recommendation]) -> tuple[list[Recommendation], list[Dropped]]:
    """Replay each service recommendation of ``recs``; return those kept and those dropped.

    The others pass through unchanged, in their order.
    """
    kept: list[Recommendation] = []
    dropped: list[Dropped] = []
    baselines: dict[str, tuple[str, dict[str, Any]]] = {}
    seen: _Replays = {}
    for rec in recs:
        if rec.kind not in KINDS:
            kept.append(rec)
            continue
        index = rec.path[1]
        service = stack.services[int(index)]
        use = services[service.name]
        model = model_capacity(service, use)
        if model is None:  # the rules make none without it
            dropped.append(Dropped(rec, "not replayed: no capacity known"))
            continue
        cap_path = (*service.path, "capacityPerReplica")
        if service.name not in baselines:
            base = edit.apply(text, [(cap_path, model[0])])
            baselines[service.name] = (base, _figures(base, file, service.name, use, seen))
        base, before = baselines[service.name]
        after = (before if _same_run(rec, service.replicas_max, before) else
                 _figures(edit.apply(base, [(rec.path, rec.value)]), file, service.name, use,
                          seen))
        hours = len(use.times) * use.step / 3600
        figures: dict[str, Any] = {
            "replay_step_seconds": replay_step(hours * 3600),
            "replayed_capacity": model[0],
            "not_served_pct_before": _pct(before["not_served_share"]),
            "not_served_pct_after": _pct(after["not_served_share"]),
            "gpu_hours_before": before["gpu_hours"], "gpu_hours_after": after["gpu_hours"],
        }
        why = None
        if rec.path[-1] == "capacityPerReplica":
            stated = (_figures(text, file, service.name, use, seen)
                      if service.capacity_per_replica else None)
            why = _capacity_fit(use, after, stated, figures)
        worse = after["not_served_share"] - before["not_served_share"]
        checked = dataclasses.replace(rec, evidence={**rec.evidence, **figures},
                                      saving_per_month=_saving(before, after, hours))
        if worse > TOLERANCE + 1e-12:
            why = (f"the window's demand replayed leaves {figures['not_served_pct_after']:g}% of "
                   f"requests not served in time, against {figures['not_served_pct_before']:g}% "
                   "today: more than 1 point worse")
        if why is not None:
            dropped.append(Dropped(checked, why))
        else:
            kept.append(checked)
    return kept, dropped


def _same_run(rec: Recommendation, old_max: int, before: Mapping[str, Any]) -> bool:
    """Say whether a ``replicas.max`` edit leaves the replay as it is, unreplayed.

    The replay's replicas never reached the old max and never pass the new one: the HPA's
    desired count was then never cut by the max (a count cut by it is the max, which the
    replicas would have reached; one the policies cut is the same under either max), KEDA sets
    0 or ``max(minReplicaCount, 1)`` whatever the max, and the controllers' state (their
    recommendations and events) follows the same counts, so every step is the same.
    """
    if rec.path[-2:] != ("replicas", "max") or not isinstance(rec.value, int):
        return False
    most = before["replicas"]["max"]
    return bool(most < old_max and most <= rec.value)


def _short_share(figures: Mapping[str, Any], seconds: float) -> float:
    return figures["minutes_short"] * 60 / seconds if seconds > 0 else 0.0


def _capacity_fit(use: ServiceUse, proposed: Mapping[str, Any],
                  stated: Mapping[str, Any] | None, figures: dict[str, Any]) -> str | None:
    """Check a proposed capacity against the window's saturated points; the reason to drop it.

    Adds to ``figures`` the saturated share observed and the share short of capacity the
    replays at the proposed (and the stated) capacity show.
    """
    seconds = len(use.times) * use.step
    saturated = (sum(1 for a in use.activity if a >= SATURATED) / len(use.times)
                 if use.times else 0.0)  # NaN compares False: a gap is not saturated
    new = _short_share(proposed, seconds)
    figures["saturated_pct_observed"] = _pct(saturated)
    figures["short_pct_at_proposed"] = _pct(new)
    if stated is None:
        return None
    old = _short_share(stated, seconds)
    figures["short_pct_at_stated"] = _pct(old)
    figures["not_served_pct_with_stated_capacity"] = _pct(stated["not_served_share"])
    if abs(new - saturated) <= abs(old - saturated) + TOLERANCE + 1e-12:
        return None
    return (f"the window's pods were saturated at {_pct(saturated):g}% of its points; replayed "
            f"at the proposed capacity the service is short of it at {_pct(new):g}%, at the "
            f"stack's own at {_pct(old):g}%: the proposal explains the window more than 1 "
            "point worse than the figure it replaces")
