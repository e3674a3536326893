"""``gpupool simulate --jobs FILE`` and ``--explain JOB``: per-job records out of a run.

This module owns where the records go and which job is explained. ``RecordsFile`` streams the
records (``simulate.records.JobRecords``) as JSON Lines, one line as each job is over, into a
temporary file beside ``FILE`` that is renamed over it once the run is whole, so a run that fails
leaves ``FILE`` as it was; the path is checked before the run, the way gpupool writes every file
(``gpupool.files``): a link, a folder, a FIFO or a device at ``FILE`` is refused, never written
through, as is a folder that does not exist or cannot be written. ``explain`` replays the
workload and returns one job's story (``--explain``); ``explained`` finds the job it names in
the workload, with a "did you mean" when it is not there.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

from gpupool import files
from gpupool.didyoumean import closest
from gpupool.errors import InputError
from gpupool.model import Stack
from gpupool.simulate.engine import Settings, Simulation
from gpupool.simulate.jobs import Workload
from gpupool.simulate.records import JobRecords, Story
from gpupool.simulate.requests import Trace
from gpupool.simulate.services.actor import ServiceActor

_SERIAL = itertools.count()
_ROUND = {"submitted": 3, "started": 3, "finished": 3, "wait": 3, "gpu_hours": 6}


def _clean(record: dict[str, Any]) -> dict[str, Any]:
    """Round the record's seconds to the millisecond and its GPU-hours to six places (in place).

    Rounding twice is rounding once, so records that share their reasons (a gang's per pod)
    may come through here in turn.
    """
    for key, places in _ROUND.items():
        value = record.get(key)
        if value.__class__ is float:
            record[key] = round(value, places)
    reasons = record["reasons"]
    for r, s in reasons.items():
        reasons[r] = round(s, 3)
    return record


class RecordsFile:
    """A JSON Lines file of records, written as they come and put in place on ``close``.

    Raises:
        InputError: the path is a link, a folder or not a regular file, or its folder is
            missing or not writable (from the constructor, before the run).

    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.count = 0
        self._stack = contextlib.ExitStack()
        name = self.path.name
        if name in ("", ".", ".."):
            raise InputError(f"--jobs {path}: names a folder; give a file to write the "
                             "records to")
        try:
            self._dir = self._stack.enter_context(files.open_dir(self.path.parent))
            st = self._dir.lstat(name)
            if st is not None and stat.S_ISLNK(st.st_mode):
                raise InputError(f"--jobs {path}: is a symbolic link; gpupool does not write "
                                 "through links")
            if st is not None and stat.S_ISDIR(st.st_mode):
                raise InputError(f"--jobs {path}: is a folder; give a file to write the "
                                 "records to")
            if st is not None and not stat.S_ISREG(st.st_mode):
                raise InputError(f"--jobs {path}: is not a regular file; gpupool does not "
                                 "write through it")
            self._tmp = f".{name}.{os.getpid()}.{next(_SERIAL)}.tmp"
            fd = self._dir.open(self._tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except InputError:
            self._stack.close()
            raise
        except OSError as exc:
            self._stack.close()
            why = exc.strerror or str(exc)
            raise InputError(f"--jobs {path}: cannot be written ({why})") from None
        self._fh = os.fdopen(fd, "w", encoding="utf-8", newline="\n", buffering=1 << 20)
        self._encode = json.JSONEncoder(ensure_ascii=False, check_circular=False).encode

    def write(self, record: dict[str, Any]) -> None:
        """Write one record as a line of JSON."""
        self._fh.write(self._encode(_clean(record)) + "\n")
        self.count += 1

    def close(self, *, keep: bool = True) -> None:
        """Put the file in place (``keep``), or remove what was written (a failed run)."""
        try:
            self._fh.close()
            if keep:
                self._dir.replace(self._tmp, self.path.name)
            else:
                with contextlib.suppress(OSError):
                    self._dir.unlink(self._tmp)
        finally:
            self._stack.close()

    def __enter__(self) -> RecordsFile:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close(keep=exc is None)


def explain(stack: Stack, workload: Workload, settings: Settings, name: str,
            jobs: Path | None = None, traces: Mapping[str, Trace] | None = None) -> Story:
    """Replay ``workload`` on ``stack`` and return the story of the job ``name``.

    ``jobs``: also stream every record into that file (``--jobs`` beside ``--explain``);
    ``traces``: the services' request traces, whose replicas run beside the jobs as in
    ``gpupool simulate`` (``usecases.simulate.simulate``).

    Raises:
        InputError: no job is named so (with the closest names), or ``jobs`` cannot be
            written (both before the run).

    """
    name = explained(workload, name)
    with contextlib.ExitStack() as held:
        sink = held.enter_context(RecordsFile(jobs)) if jobs is not None else None
        records = JobRecords(sink.write if sink is not None else _drop, explain=name)
        actor = [ServiceActor(stack, traces)] if traces else []
        Simulation(stack, workload, settings, observers=[records, *actor]).run()
    assert records.story is not None  # explain was given
    return records.story


def _drop(_: object) -> None:
    """Keep no record (``--explain`` without ``--jobs``)."""


def explained(workload: Workload, name: str) -> str:
    """Return ``name`` where a job of the workload has it.

    Raises:
        InputError: no job is named so (with the closest names).

    """
    names = {j.name for j in workload.jobs}
    if name in names:
        return name
    near = closest(name, sorted(names))
    hint = f"; did you mean {', '.join(near)}?" if near else ""
    raise InputError(f"--explain {name}: no job of {workload.source} is named so{hint}")
