"""Flag value converters (argparse ``type=``): each turns a bad value into a usage error (64).

Most raise ``argparse.ArgumentTypeError``, which the parser says as
``gpupool CMD: argument --FLAG: ...``; ``sources`` raises the command's own one-line usage error
naming the flag and what it takes. ``advise``'s window has its own (``gpupool.advise.window``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable

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


def at_most(most: float, what: str) -> Callable[[str], float]:
    """Return the converter of a finite number from 0 to ``most`` (docs/workload.md, Bounds)."""

    def read(text: str) -> float:
        value = non_negative(text)
        if value > most:
            raise argparse.ArgumentTypeError(f"must be {what} from 0 to {most:,g}, not {text}")
        return value

    return read


def whole(low: int, high: int) -> Callable[[str], int]:
    """Return the converter of a whole number from ``low`` to ``high``."""

    def read(text: str) -> int:
        digits = text.strip()
        if not (digits.lstrip("-").isascii() and digits.lstrip("-").isdigit()) or len(digits) > 20:
            raise argparse.ArgumentTypeError(f"must be a whole number from {low:,} to {high:,}, "
                                             f"not {text[:40]!r}")
        value = int(digits)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low:,} to {high:,}, not {value}")
        return value

    return read


def jobs(text: str) -> int:
    """Read ``--generate``'s count of jobs, saying where the stack file goes when it is not one."""
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"takes a number of jobs, not {text[:40]!r}; name the "
                                         "stack file before it: gpupool simulate FILE --generate")
    return whole(1, 100_000)(text)


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
