"""Checkpoints and the downtime budget of a pool or tenant, as frozen values with defaults applied.

This module owns what the stack file says about how a job survives an interruption
(docs/stack-file.md, Checkpoints and downtime):

* ``checkpoint: {everySeconds, writeSeconds, restoreSeconds}``: the job writes a checkpoint every
  ``everySeconds`` of work, each write takes ``writeSeconds`` of GPU time, and a job placed again
  after an interruption reads its latest checkpoint back in ``restoreSeconds``;
* ``maxDowntimeSeconds``: the longest the team accepts from an interruption to the job running
  again;
* ``startupSeconds``: what a pod takes from placed to working (image pull, start-up), a part of
  that downtime.

A pool and a tenant may each state them; a tenant's own value wins over its pool's, field by
field (``Recovery.over``). ``build`` reads schema-valid data of one pool or tenant. It imports
nothing of gpupool: the model sits above it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

JsonPath = tuple[str | int, ...]


@dataclass(frozen=True)
class Checkpoint:
    """How often a job checkpoints, and what writing and reading one back costs, in seconds."""

    every_seconds: float
    write_seconds: float
    restore_seconds: float
    path: JsonPath  # the ``checkpoint`` block it was read from


@dataclass(frozen=True)
class Recovery:
    """What a pool or a tenant states about surviving an interruption (each field optional).

    ``path`` is the pool's or tenant's own path; ``checkpoint.path`` and the ``*_path``
    properties point at the fields themselves.
    """

    path: JsonPath = ()
    checkpoint: Checkpoint | None = None
    max_downtime_seconds: float | None = None
    startup_seconds: float | None = None
    downtime_path: JsonPath = ()  # where ``maxDowntimeSeconds`` was read from
    startup_path: JsonPath = ()  # where ``startupSeconds`` was read from

    @property
    def stated(self) -> bool:
        """Whether any field was written."""
        return (self.checkpoint is not None or self.max_downtime_seconds is not None
                or self.startup_seconds is not None)

    def over(self, base: Recovery) -> Recovery:
        """Return this recovery with ``base`` filling the fields it leaves unstated."""
        own_downtime = self.max_downtime_seconds is not None
        own_startup = self.startup_seconds is not None
        return Recovery(
            path=self.path,
            checkpoint=self.checkpoint if self.checkpoint is not None else base.checkpoint,
            max_downtime_seconds=(self.max_downtime_seconds if own_downtime
                                  else base.max_downtime_seconds),
            startup_seconds=self.startup_seconds if own_startup else base.startup_seconds,
            downtime_path=self.downtime_path if own_downtime else base.downtime_path,
            startup_path=self.startup_path if own_startup else base.startup_path,
        )


NONE = Recovery()


def build(raw: Mapping[str, Any], path: JsonPath) -> Recovery:
    """Build the recovery fields of one schema-valid pool or tenant at ``path``."""
    block = raw.get("checkpoint")
    checkpoint = None if block is None else Checkpoint(
        every_seconds=float(block["everySeconds"]),
        write_seconds=float(block["writeSeconds"]),
        restore_seconds=float(block["restoreSeconds"]),
        path=(*path, "checkpoint"),
    )
    downtime = raw.get("maxDowntimeSeconds")
    startup = raw.get("startupSeconds")
    return Recovery(
        path=path,
        checkpoint=checkpoint,
        max_downtime_seconds=None if downtime is None else float(downtime),
        startup_seconds=None if startup is None else float(startup),
        downtime_path=(*path, "maxDowntimeSeconds"),
        startup_path=(*path, "startupSeconds"),
    )
