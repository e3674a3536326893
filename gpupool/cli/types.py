"""Flag value converters (argparse ``type=``): each turns a bad value into a usage error (64).

The plain ones raise ``argparse.ArgumentTypeError``, which the parser says as
``gpupool CMD: argument --FLAG: ...``; the ones built for one flag (``duration``, ``timestamp``,
``sources``) raise the command's own one-line usage error, which names the flag and an example.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from datetime import datetime

from gpupool.cli.exits import UsageError


def non_negative(text: str) -> float:
    """Read a finite number, 0 or more."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, not {text}")
    return value


def chance(text: str) -> float:
    """Read a chance from 0 to 1."""
    value = non_negative(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"must be a chance from 0 to 1, not {text}")
    return value


def percent(text: str) -> float:
    """Read a percent from 1 to 1000 (capacity mode's target)."""
    value = non_negative(text)
    if not 1 <= value <= 1000:
        raise argparse.ArgumentTypeError(f"must be a percent from 1 to 1000, not {text}")
    return value


_UNITS = {"d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0}


def duration(prog: str, flag: str) -> Callable[[str], float]:
    """Return the converter of ``flag``: seconds in a duration such as ``14d``, ``36h``, ``90m``."""

    def read(text: str) -> float:
        number, unit = text[:-1], text[-1:]
        if unit not in _UNITS or not number.isdigit() or int(number) <= 0:
            raise UsageError(f"{prog}: {flag} takes a duration such as 14d, 36h or 90m, "
                             f"not {text!r}")
        return int(number) * _UNITS[unit]

    return read


def timestamp(prog: str, flag: str) -> Callable[[str], float]:
    """Return the converter of ``flag``: unix seconds, or an RFC 3339 time with its offset."""

    def read(text: str) -> float:
        try:
            return float(text)
        except ValueError:
            pass
        try:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError:
            moment = None
        if moment is None or moment.tzinfo is None:
            raise UsageError(f"{prog}: {flag} takes unix seconds or an RFC 3339 time with "
                             f"its offset such as 2026-12-01T00:00:00Z, not {text!r}")
        return moment.timestamp()

    return read


def sources(prog: str, flag: str, known: Iterable[str]) -> Callable[[str], frozenset[str]]:
    """Return the converter of ``flag``: a comma-separated subset of ``known``."""
    allowed = tuple(known)

    def read(text: str) -> frozenset[str]:
        chosen = frozenset(x for x in text.split(",") if x)
        unknown = chosen - set(allowed)
        if unknown:
            raise UsageError(f"{prog}: {flag} takes {', '.join(allowed)}; not {sorted(unknown)}")
        return chosen

    return read
