"""Acknowledged warnings: the stack's ``acknowledge`` list, applied to its diagnostics.

A team that has weighed a warning (an all-spot production pool it can afford to lose, say) names
its code and the reason in the stack file, optionally with a path that scopes it to one pool,
tenant or field. This module owns which codes may be acknowledged (``WARNING_CODES``: the
warnings validation can give; a test holds it, and ``ADVICE_CODES``, to the source's builders),
how a path is matched, and the rules on the list itself (docs/stack-file.md, acknowledge):

- a warning it matches leaves the printed diagnostics and is kept, with its reason, in
  ``Acknowledged`` (validate and plan show them in their JSON, and count them in text);
- an entry naming an error code, an advice code or a code gpupool does not have is an error
  (``acknowledge.not-a-warning``): an error must be fixed, advice never fails anything, and a
  misspelt code would silence nothing while looking as if it did;
- an entry that matched nothing is a warning (``acknowledge.unused``): the problem it accepted
  is gone, or the path names nothing, and a stale entry would hide the warning's return. It is
  not judged when schema errors set parts of the file aside (their checks did not all run).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from gpupool import didyoumean, model
from gpupool.spec.diagnostics import Diagnostic, Severity, error, warning

#: The codes an ``acknowledge`` entry may name: every warning a stack file's validation gives,
#: except this module's own (tests/spec/test_acknowledge.py holds it to the source).
WARNING_CODES = frozenset({
    "capacity.quota-exceeds-min", "catalog.instance-not-in-region", "catalog.uncatalogued-gpu",
    "checkpoint.downtime-over-budget", "checkpoint.interval-off-optimum",
    "checkpoint.min-runtime-below-write",
    "clouds.compact-unsupported", "clouds.gpudirect-not-configured", "clouds.zones-unknown",
    "fractional.cores-not-enforced", "gpu.memory-ratio", "hami.nvidia-plugin-running",
    "hami.split-count-shared", "hami.split-reaches-whole-gpus",
    "kai.non-preemptible-without-quota", "kai.over-quota-unused", "kai.queue-units-differ",
    "monitoring.alerts-without-exporter", "monitoring.pool-label-unexported",
    "monitoring.prometheus-labels-unset", "monitoring.prometheus-unstated",
    "nvsentinel.circuit-breaker-trips-at-once", "nvsentinel.dry-run-without-action",
    "nvsentinel.own-operator-dcgm", "placement.compact-without-interconnect",
    "scheduler.on-spot", "scheduler.single-replica", "service.cooldown-too-short",
    "service.gpu-memory-never-falls", "service.min-over-quota", "service.on-spot",
    "service.single-replica", "service.zero-under-load", "sharing.slot-memory-small",
    "spot.all-spot-production", "spot.training-without-checkpoint", "state.backend-outside",
    "tenant.pools-not-fenced", "tenant.quota-not-enforced", "tenant.quota-units-mixed",
})  # fmt: skip

#: The advice (``info``) codes, which an entry cannot name either; said as such when one does.
ADVICE_CODES = frozenset({
    "advice.host-memory-high", "advice.host-memory-low", "advice.idle-floor",
    "advice.spot-saving", "catalog.region-availability-unknown", "nvsentinel.datastore-needs",
})  # fmt: skip

_NAMED_LISTS = ("pools", "tenants")


@dataclass(frozen=True)
class Acknowledged:
    """A warning the stack acknowledges, with the reason its entry gives."""

    diagnostic: Diagnostic
    reason: str

    def to_json(self) -> dict[str, Any]:
        """Return the warning's JSON shape with its ``reason`` (docs/commands.md, validate)."""
        return {**self.diagnostic.to_json(), "reason": self.reason}


def entries(data: object, schema_errors: Iterable[Diagnostic]) -> tuple[model.Acknowledgement, ...]:
    """Return the file's ``acknowledge`` entries; none while the schema faults the list."""
    if not isinstance(data, Mapping) or any(d.path[:1] == ("acknowledge",) for d in schema_errors):
        return ()
    return model.acknowledgements(data)


def apply(
    data: Mapping[str, Any],
    acks: tuple[model.Acknowledgement, ...],
    diags: Iterable[Diagnostic],
    *,
    complete: bool,
) -> tuple[list[Diagnostic], list[Acknowledged]]:
    """Split ``diags`` into those still shown and those acknowledged.

    The shown list gains the list's own diagnostics: an entry that names no warning code, and
    (when ``complete``: every check ran) an entry that matched nothing.
    """
    shown: list[Diagnostic] = []
    acknowledged: list[Acknowledged] = []
    used: set[int] = set()
    valid = [a for a in acks if a.code in WARNING_CODES]
    for d in diags:
        entry = _match(d, valid, data) if d.severity is Severity.WARNING else None
        if entry is None:
            shown.append(d)
        else:
            used.add(entry.index)
            acknowledged.append(Acknowledged(d, entry.reason))
    for a in acks:
        if a.code not in WARNING_CODES:
            shown.append(_not_a_warning(a, shown))
        elif complete and a.index not in used:
            where = f" at {a.path}" if a.path else ""
            shown.append(warning(
                "acknowledge.unused",
                f"acknowledge: no {a.code} warning{where} is left",
                f"No {a.code} warning{where} is left to acknowledge: the problem was fixed, or "
                "the path names no pool, tenant or field that has it. Remove the entry, so "
                "that the warning is printed again should it come back.",
                ("acknowledge", a.index),
            ))
    return shown, acknowledged


def _match(
    d: Diagnostic, acks: list[model.Acknowledgement], data: Mapping[str, Any]
) -> model.Acknowledgement | None:
    """Return the first entry that acknowledges ``d``: its code, and its path holding ``d``'s."""
    named = None
    for a in acks:
        if a.code != d.code:
            continue
        if a.path is None:
            return a
        named = named if named is not None else _named(d.path, data)
        want = a.path.split(".")
        if named[: len(want)] == want:
            return a
    return None


def _named(path: tuple[str | int, ...], data: Mapping[str, Any]) -> list[str]:
    """Return ``path`` as an ``acknowledge`` path spells it: a pool or tenant by its name."""
    out = [str(p) for p in path]
    if len(path) >= 2 and path[0] in _NAMED_LISTS and isinstance(path[1], int):
        items = data.get(str(path[0]))
        item = items[path[1]] if isinstance(items, list) and 0 <= path[1] < len(items) else None
        name = item.get("name") if isinstance(item, Mapping) else None
        if isinstance(name, str):
            out[1] = name
    return out


def _not_a_warning(a: model.Acknowledgement, found: list[Diagnostic]) -> Diagnostic:
    """Return the error for an entry whose code no warning has: an error's, advice's, nobody's."""
    severity = next((d.severity for d in found if d.code == a.code), None)
    if severity is Severity.ERROR:
        why = (f"{a.code} is an error in this file: an error cannot be acknowledged, only "
               "fixed.")
    elif a.code in ADVICE_CODES:
        why = (f"{a.code} is advice, which never fails validation; `--quiet` leaves advice "
               "out of the output.")
    else:
        near = didyoumean.closest(a.code, sorted(WARNING_CODES), 1, cutoff=0.6)
        hint = f" Did you mean: {near[0]}?" if near else ""
        why = (f"gpupool gives no warning {a.code}.{hint} The warning codes are listed in "
               "docs/stack-file.md, Checks.")
    return error(
        "acknowledge.not-a-warning",
        f"acknowledge: {a.code} is not a warning code",
        why + " Only warnings can be acknowledged.",
        ("acknowledge", a.index, "code"),
    )
