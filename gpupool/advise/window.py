"""The window ``gpupool advise`` reads: ``--since`` and ``--until`` as bounded, typed values.

Both are argparse ``type=`` converters (this module imports nothing heavy: the parser of every
command loads it): a value outside its bounds is an
``argparse.ArgumentTypeError``, which the command line reports as a usage error (exit 64).

* ``--since``: whole days, hours, minutes or seconds (``14d``, ``36h``, ``90m``, ``600s``), more
  than zero and at most ``MAX_SINCE_DAYS`` days. A year of hours is one range query a series
  (Prometheus answers at most 11,000 points a series, ``querying/api.md``), and advise keeps one
  slot a pool and hour, so the bound keeps both small.
* ``--until``: unix seconds, or an RFC 3339 time with its offset, from 1970-01-01T00:00:00Z to
  9999-12-31T23:59:59Z (the last second RFC 3339 writes): never NaN, an infinity, or a time so
  far out that adding a step to it no longer changes it.
"""

from __future__ import annotations

import argparse
import math
import re
from datetime import datetime

#: The latest time advise handles, for a window's end and a point of an answer:
#: 9999-12-31T23:59:59Z, the last second RFC 3339 writes (``advise.prometheus`` uses it too).
MAX_TIME = 253_402_300_799.0
#: The longest window advise reads, in days.
MAX_SINCE_DAYS = 366
_UNITS = {"d": 86400, "h": 3600, "m": 60, "s": 1}
_DURATION = re.compile(r"([0-9]{1,12})([dhms])")


def since(text: str) -> float:
    """Return ``--since`` in seconds (an ``ArgumentTypeError`` outside its bounds)."""
    found = _DURATION.fullmatch(text)
    seconds = int(found.group(1)) * _UNITS[found.group(2)] if found else 0
    if not 0 < seconds <= MAX_SINCE_DAYS * 86400:
        raise argparse.ArgumentTypeError(
            f"takes a duration from 1s to {MAX_SINCE_DAYS}d such as 14d, 36h or 90m, "
            f"not {text[:40]!r}"
        )
    return float(seconds)


def until(text: str) -> float:
    """Return ``--until`` as unix seconds (an ``ArgumentTypeError`` outside its bounds)."""
    moment: float | None = None
    try:
        moment = float(text) if len(text) <= 40 else None
    except ValueError:
        try:
            parsed = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError:
            parsed = None
        if parsed is not None and parsed.tzinfo is not None:
            moment = parsed.timestamp()
    if moment is None or not math.isfinite(moment) or not 0 <= moment <= MAX_TIME:
        raise argparse.ArgumentTypeError(
            "takes unix seconds from 0 to 253402300799, or an RFC 3339 time with its offset "
            f"from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z, not {text[:40]!r}"
        )
    return moment
