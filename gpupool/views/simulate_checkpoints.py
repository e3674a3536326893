"""The checkpoint section of ``gpupool simulate``'s text and markdown (``views.simulate``).

This module owns how a run's ``report_checkpoints.CheckpointFigures`` read: the GPU-hours lost
per tenant and pool, split into work redone and the overhead of writing and restoring (with a
base: each beside its change), the pools' simulated mean time between interruptions with each
declared interval beside Young's and Daly's optimum, and the share of interruptions over a
downtime budget (with a base: the base's rows after the head's, marked ``base:``). A run that
follows no checkpoint has no section.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from gpupool.simulate.report import Report
from gpupool.simulate.report_checkpoints import LostHours, PoolCheckpoints

Number = float | int | None
Cell = Callable[[Number, Number, Callable[[Number], str], bool], str]
Table = tuple[list[str], list[list[str]]]

LOST_HEADER = ["redone GPU-h", "write GPU-h", "restore GPU-h", "lost GPU-h"]


def _lost_cells(h: LostHours | None, b: LostHours | None, has_base: bool, cell: Cell,
                num: Callable[[Number], str]) -> list[str]:
    fields: list[Callable[[LostHours], float]] = [
        lambda x: x.redone, lambda x: x.write, lambda x: x.restore, lambda x: x.total]
    return [cell(None if h is None else f(h), None if b is None else f(b), num, has_base)
            for f in fields]


def lost_tables(r: Report, base: Report | None, cell: Cell,
                num: Callable[[Number], str]) -> tuple[Table, Table]:
    """Return the tenants' and pools' GPU-hours lost, split (head beside base)."""
    head = r.checkpoints
    before = base.checkpoints if base is not None else None
    has_base = base is not None
    tables = []
    for kind in ("tenant", "pool"):
        own: dict[str, LostHours] = {}
        old: dict[str, LostHours] = {}
        for figures, into in ((head, own), (before, old)):
            if figures is None:
                continue
            rows = figures.tenants if kind == "tenant" else tuple(
                (p.pool, p.lost) for p in figures.pools)
            into.update(rows)
        names = [*own, *(n for n in old if n not in own)]
        tables.append(([kind, *LOST_HEADER],
                       [[n, *_lost_cells(own.get(n), old.get(n), has_base, cell, num)]
                        for n in names]))
    return tables[0], tables[1]


def _pools(r: Report, base: Report | None) -> list[tuple[str, PoolCheckpoints]]:
    out = []
    for label, rep in (("", r), ("base: ", base)):
        if rep is not None and rep.checkpoints is not None:
            out += [(label, p) for p in rep.checkpoints.pools]
    return out


def interval_table(r: Report, base: Report | None,
                   duration: Callable[[Number], str]) -> Table:
    """Return each pool's simulated MTBI and each declared interval beside its optimum."""
    header = ["pool", "interruptions", "MTBI", "tenant", "write", "declared every", "Young",
              "optimum (Daly)"]
    rows = []
    for label, p in _pools(r, base):
        mtbi = duration(p.mtbi_seconds)
        if not p.intervals:
            rows.append([f"{label}{p.pool}", str(p.interruptions), mtbi, "-", "-", "-", "-", "-"])
        for i in p.intervals:
            rows.append([f"{label}{p.pool}", str(p.interruptions), mtbi, i.tenant,
                         duration(i.write_seconds), duration(i.every_seconds),
                         duration(i.young_seconds), duration(i.optimum_seconds)])
    return header, rows


def downtime_table(r: Report, base: Report | None, duration: Callable[[Number], str],
                   pct: Callable[[Number], str]) -> Table:
    """Return, per pool with a downtime budget, the interruptions and the share over it."""
    header = ["pool", "budget", "interruptions", "over", "never back", "share over", "worst"]
    rows = []
    for label, p in _pools(r, base):
        d = p.downtime
        if d is None:
            continue
        rows.append([f"{label}{p.pool}", "/".join(duration(b) for b in d.budgets),
                     str(d.interruptions), str(d.over), str(d.never_back), pct(d.share_over),
                     duration(d.worst_seconds)])
    return header, rows


def present(r: Report, base: Report | None) -> bool:
    """Whether the head or the base followed checkpoints."""
    return r.checkpoints is not None or (base is not None and base.checkpoints is not None)


INTRO = ("GPU-hours lost: work redone since the latest checkpoint (all of a run without one), "
         "and the overhead of writes and restores")
INTERVAL_NOTE = ("MTBI: seconds jobs ran on the pool per interruption they met; the optimum "
                 "interval for it by Young and by Daly")
DOWNTIME_NOTE = ("Downtime: from eviction to placed again, plus startupSeconds and the restore; "
                 "a job never placed again is over")


def sections(r: Report, base: Report | None, cell: Cell, num: Callable[[Number], str],
             duration: Callable[[Number], str], pct: Callable[[Number], str],
             ) -> list[tuple[str, Table]]:
    """Return the section's tables, each with the line that says what it shows."""
    tenants, pools = lost_tables(r, base, cell, num)
    out: list[tuple[str, Table]] = [(INTRO, tenants), ("", pools),
                                    (INTERVAL_NOTE, interval_table(r, base, duration))]
    downtime = downtime_table(r, base, duration, pct)
    if downtime[1]:
        out.append((DOWNTIME_NOTE, downtime))
    return out


def lines(tables: Sequence[tuple[str, Table]],
          table: Callable[[Sequence[str], Sequence[Sequence[str]]], list[str]],
          note: Callable[[str], str]) -> list[str]:
    """Return the section's lines: each table after its note, a blank line between."""
    out: list[str] = []
    for text, (header, rows) in tables:
        if text:
            out += [note(text), ""]
        out += [*table(header, rows), ""]
    return out[:-1]
