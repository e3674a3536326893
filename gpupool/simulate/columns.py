"""The columns of gpupool's workload format: their names, defaults, units and how a cell is read.

One table (``COLUMNS``) says, for every column of a workload row (a CSV cell or a JSON Lines
value), what it means and how its text or JSON value becomes a ``Job`` field, so the CSV and
JSON Lines readers cannot disagree, and ``schemas/workload.schema.json`` is tested against it.
A cell's reader raises ``BadValue`` with a sentence saying what is wrong; the reader that called
it places that sentence on the row's line. Every number must be finite (``nan`` and ``inf`` are
refused in both formats) and within its column's bounds (docs/workload.md, Bounds): a duration
or a submit time at most ``MAX_SECONDS``, so that no sum of them overflows on the way to a
report.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

#: A MIG profile name as ``nvidia-smi mig -lgip`` prints it (the stack schema's own pattern).
MIG_PROFILE = re.compile(r"[1-7]g\.[0-9]+gb(\+me|\+me\.all|\+gfx|-me)?")
#: A duration with units, largest first, each at most once: ``2h``, ``30m``, ``1h30m``, ``1d``.
_DURATION = re.compile(
    r"(?:(?P<d>\d+(?:\.\d+)?)d)?(?:(?P<h>\d+(?:\.\d+)?)h)?"
    r"(?:(?P<m>\d+(?:\.\d+)?)m)?(?:(?P<s>\d+(?:\.\d+)?)s)?"
)
_UNIT_SECONDS = {"d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0}
#: An RFC 3339 date-time (``T`` or space, fraction optional, ``Z`` or an offset required).
_RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})")
#: The longest name, tenant, pool or priority read (a Kubernetes object name is at most 253).
MAX_NAME = 253
#: Upper bounds that keep a typo from becoming a job no cluster holds for a reason no one sees.
MAX_GPUS = 4096
MAX_PODS = 100_000
MAX_CPU = 100_000.0
MAX_MEMORY_GIB = 1_048_576.0
MAX_GPU_MEMORY_GIB = 4096.0
#: The longest duration, and the latest submit time from the workload's start: 366 days, so a
#: workload's simulated span is at most two years and every figure derived from it stays finite.
MAX_SECONDS = 366 * 86400.0


class BadValue(ValueError):
    """A cell that cannot be read; the message says why, in one sentence."""


@dataclass(frozen=True)
class Submit:
    """A submit time: seconds from the start, or an RFC 3339 time (seconds since the epoch)."""

    seconds: float
    rfc3339: bool


@dataclass(frozen=True)
class Column:
    """One column of the format.

    Attributes:
        name: the column's name (a CSV header cell, a JSON Lines key).
        read: turns a cell (CSV text, or a JSON value) into the field's value; raises BadValue.
        default: the value of an empty cell, a missing key or JSON null.
        required: an empty cell is an error (the column itself must be present in CSV).
        meaning: what the column says, with its unit (docs/workload.md says the same).
        json_strings: what a JSON string may be in this column: ``text`` (a name), ``notation``
            (a form a number has no other way to write: an RFC 3339 time, ``2h``, ``500m``;
            a plain number must be a JSON number), or ``none`` (JSON numbers only).

    """

    name: str
    read: Callable[[object], object]
    default: object
    required: bool
    meaning: str
    json_strings: str = "none"


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_PLAIN_NUMBER = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*")


def read_json(column: Column, value: object) -> object:
    """Read a JSON Lines value: as a cell, but a number must be a JSON number, not a string."""
    if (
        isinstance(value, str)
        and column.json_strings != "text"
        and (column.json_strings == "none" or _PLAIN_NUMBER.fullmatch(value))
    ):
        raise BadValue(f"{column.name} must be a JSON number, not the string {value!r}")
    return column.read(value)


def _number(value: object, what: str) -> float:
    if isinstance(value, bool):
        raise BadValue(f"{what} must be a number, not {value!r}")
    if isinstance(value, (int, float)):
        try:
            number = float(value)
        except OverflowError:  # a JSON integer of hundreds of digits
            raise BadValue(f"{what} must be a finite number, not {value}") from None
    elif type(value) is str and value.isascii() and "_" not in value:
        try:  # the common case first: float() reads what _PLAIN_NUMBER allows, and nan/inf
            number = float(value)
        except ValueError:
            raise BadValue(f"{what} must be a number, not {value!r}") from None
        if math.isfinite(number) and _PLAIN_NUMBER.fullmatch(value):
            return number
        raise BadValue(
            f"{what} must be a finite number, not {value!r}"
            if _PLAIN_NUMBER.fullmatch(value)
            else f"{what} must be a number, not {value!r}"
        )
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            raise BadValue(f"{what} must be a number, not {value!r}") from None
        if not _PLAIN_NUMBER.fullmatch(value):
            raise BadValue(f"{what} must be a number, not {value!r}")
    else:
        raise BadValue(f"{what} must be a number, not {type(value).__name__}")
    if not math.isfinite(number):
        raise BadValue(f"{what} must be a finite number, not {value!r}")
    return number


def _bounded(
    number: float,
    what: str,
    low: float,
    high: float,
    *,
    open_low: bool = False,
    open_high: bool = False,
) -> float:
    too_low = number < low or (open_low and number == low)
    too_high = number > high or (open_high and number == high)
    if too_low or too_high:
        floor = f"more than {figure(low)}" if open_low else f"at least {figure(low)}"
        ceiling = f"less than {figure(high)}" if open_high else f"at most {figure(high)}"
        allowed = floor if math.isinf(high) else f"{floor} and {ceiling}"
        raise BadValue(f"{what} must be {allowed}, not {figure(number)}")
    return number


def figure(number: float) -> str:
    """Return a number as a message shows it: ``31,622,400``, ``0.5``, ``1e+308``."""
    if math.isfinite(number) and number == int(number) and abs(number) < 1e15:
        return f"{int(number):,}"
    return f"{number:g}"


def _seconds(seconds: float, what: str) -> float:
    """Return ``seconds`` when at most ``MAX_SECONDS`` (a sum of units can reach infinity)."""
    if seconds <= MAX_SECONDS:
        return seconds
    shown = f"{figure(seconds)} seconds" if math.isfinite(seconds) else "a number above 1.8e308"
    raise BadValue(f"{what} must be at most 366 days ({figure(MAX_SECONDS)} seconds), not {shown}")


def _integer(value: object, what: str, low: int, high: int) -> int:
    number = _number(value, what)
    if number != int(number):
        raise BadValue(f"{what} must be a whole number, not {value!r}")
    return int(_bounded(number, what, low, high))


def read_text(value: object, what: str) -> str:
    """Read a name: non-empty text without control characters, at most ``MAX_NAME`` long."""
    if not isinstance(value, str):
        raise BadValue(f"{what} must be text, not {type(value).__name__}")
    if _CONTROL.search(value):
        raise BadValue(f"{what} holds a control character")
    if len(value) > MAX_NAME:
        raise BadValue(f"{what} is longer than {MAX_NAME} characters")
    text = value.strip()
    if not text:
        raise BadValue(f"{what} is empty")
    return text


def read_duration(value: object) -> float:
    """Seconds (a number), or a duration with units: ``30m``, ``2h``, ``1h30m``, ``1d``, ``45s``."""
    if type(value) is str and value.isascii() and value.isdigit():  # whole seconds: most files
        return _seconds(float(value), "duration")
    if isinstance(value, str) and value.strip() and not re.fullmatch(r"\s*[\d.eE+-]+\s*", value):
        match = _DURATION.fullmatch(value.strip())
        if match is None or not any(match.groupdict().values()):
            raise BadValue(
                f"duration must be seconds or a duration such as 30m, 2h or 1h30m, not {value!r}"
            )
        total = sum(float(n) * _UNIT_SECONDS[u] for u, n in match.groupdict().items() if n)
        return _seconds(total, "duration")
    return _seconds(_bounded(_number(value, "duration"), "duration", 0, math.inf), "duration")


def read_submit(value: object) -> Submit:
    """Seconds from the workload's start (a number), or an RFC 3339 time."""
    if type(value) is str and value.isascii() and value.isdigit():  # whole seconds: most files
        return Submit(_seconds(float(value), "submit"), rfc3339=False)
    if type(value) is str and value[:1].isdigit() and "-" not in value and ":" not in value:
        return Submit(_submit_seconds(value), rfc3339=False)
    if isinstance(value, str) and _RFC3339.fullmatch(value.strip()):
        text = value.strip().replace("t", "T").replace("z", "+00:00").replace("Z", "+00:00")
        # datetime (Python 3.10) reads a fraction of exactly 3 or 6 digits: make it 6
        text = re.sub(r"\.(\d+)", lambda m: "." + (m.group(1) + "00000")[:6], text)
        try:
            when = datetime.fromisoformat(text)
        except ValueError:
            raise BadValue(f"submit {value!r} is not a real date and time") from None
        return Submit(when.timestamp(), rfc3339=True)
    if isinstance(value, str) and re.match(r"\s*\d{4}-\d", value):
        raise BadValue(
            f"submit must be seconds or an RFC 3339 time with its offset "
            f"(2026-01-05T09:00:00Z), not {value!r}"
        )
    return Submit(_submit_seconds(value), rfc3339=False)


def _submit_seconds(value: object) -> float:
    return _seconds(_bounded(_number(value, "submit"), "submit", 0, math.inf), "submit")


def read_cpu(value: object) -> float:
    """Cores (``0.5``), or millicores as Kubernetes writes them (``500m``)."""
    if isinstance(value, str) and value.strip().endswith("m"):
        milli = _number(value.strip()[:-1], "cpu")
        return _bounded(milli / 1000, "cpu", 0, MAX_CPU)
    return _bounded(_number(value, "cpu"), "cpu", 0, MAX_CPU)


def read_mig(value: object) -> str:
    """Read a MIG profile name such as ``1g.10gb`` or ``3g.40gb``."""
    text = read_text(value, "mig")
    if not MIG_PROFILE.fullmatch(text):
        raise BadValue(f"mig must be a MIG profile name such as 1g.10gb or 3g.40gb, not {text!r}")
    return text


def _gpu_memory(value: object) -> float:
    number = _number(value, "gpu_memory_gib")
    return _bounded(number, "gpu_memory_gib", 0, MAX_GPU_MEMORY_GIB, open_low=True)


def _fraction(value: object) -> float:
    return _bounded(_number(value, "fraction"), "fraction", 0, 1, open_low=True, open_high=True)


def _memory(value: object) -> float:
    return _bounded(_number(value, "memory_gib"), "memory_gib", 0, MAX_MEMORY_GIB)


def _named_duration(name: str, *, positive: bool) -> Callable[[object], float]:
    """Return a duration reader whose messages name ``name``; ``positive`` refuses 0."""
    def read(value: object) -> float:
        try:
            seconds = read_duration(value)
        except BadValue as exc:
            raise BadValue(str(exc).replace("duration", name, 1)) from None
        if positive and seconds <= 0:
            raise BadValue(f"{name} must be more than 0 seconds, not {figure(seconds)}")
        return seconds
    return read


COLUMNS: tuple[Column, ...] = (
    Column("name", lambda v: read_text(v, "name"), None, False,
           "the job's name, unique in the file (default: job-<line>)", "text"),
    Column("tenant", lambda v: read_text(v, "tenant"), None, False,
           "the stack tenant the job belongs to (default: none, the default namespace)", "text"),
    Column("submit", read_submit, Submit(0.0, rfc3339=False), False,
           "when the job is submitted: seconds from the start, or an RFC 3339 time (the "
           "earliest RFC 3339 time in the file is 0)", "notation"),
    Column("duration", read_duration, None, True,
           "how long each pod runs once started: seconds, or 30m, 2h, 1h30m, 1d", "notation"),
    Column("gpus", lambda v: _integer(v, "gpus", 0, MAX_GPUS), 0, False, "whole GPUs per pod"),
    Column("fraction", _fraction, None, False,
           "a share of one GPU per pod, more than 0 and less than 1"),
    Column("mig", read_mig, None, False, "a MIG profile per pod, such as 1g.10gb", "text"),
    Column("gpu_memory_gib", _gpu_memory, None, False,
           "GPU memory per pod in GiB, beside or instead of fraction"),
    Column("cpu", read_cpu, 0.0, False, "CPU per pod: cores, or millicores as 500m", "notation"),
    Column("memory_gib", _memory, 0.0, False, "host memory per pod in GiB"),
    Column("priority", lambda v: read_text(v, "priority"), None, False,
           "one of the stack's priority names (default: the tenant's)", "text"),
    Column("pool", lambda v: read_text(v, "pool"), None, False,
           "the pool the job must run on (default: any of its tenant's pools)", "text"),
    Column("pods", lambda v: _integer(v, "pods", 1, MAX_PODS), 1, False,
           "pods in the job, all started together or none (a gang)"),
    Column("checkpoint_every", _named_duration("checkpoint_every", positive=True), None, False,
           "seconds of work between two checkpoints, or 30m, 2h (default: the tenant's, else "
           "the pool's checkpoint.everySeconds)", "notation"),
    Column("checkpoint_write", _named_duration("checkpoint_write", positive=True), None, False,
           "GPU seconds one checkpoint takes to write, less than checkpoint_every (default: "
           "checkpoint.writeSeconds)", "notation"),
    Column("checkpoint_restore", _named_duration("checkpoint_restore", positive=False), None, False,
           "seconds the job takes to read its latest checkpoint back when placed again "
           "(default: checkpoint.restoreSeconds)", "notation"),
)  # fmt: skip

BY_NAME = {c.name: c for c in COLUMNS}
