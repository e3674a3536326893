"""``--overflow-share``: the share of 5-minute windows the overcommit advice may see overflow.

``gpupool advise`` recommends ``fractional.memoryOvercommit`` (rule ``memory-overcommit``,
``gpupool.advise.overcommit``) as the largest factor at which the pods' summed GPU memory would
have exceeded the GPU's physical memory in at most this share of the window's 5-minute windows.
This module imports nothing heavy: the parser of every command loads its converter.
"""

from __future__ import annotations

import argparse
import math
import re

#: The share of 5-minute windows that may overflow by default: 0.1%.
DEFAULT_SHARE = 0.001
#: The largest share accepted: half of the windows (beyond, the advice means nothing).
MAX_SHARE = 0.5
#: The length of one window, in seconds.
WINDOW_SECONDS = 300.0
_PERCENT = re.compile(r"([0-9]{1,3}(?:\.[0-9]{1,6})?)%?")


def share(text: str) -> float:
    """Return ``--overflow-share`` (percent, ``0.1`` or ``0.1%``) as a share from 0 to 0.5."""
    found = _PERCENT.fullmatch(text.strip())
    value = float(found.group(1)) / 100 if found else math.nan
    if not 0 <= value <= MAX_SHARE:
        raise argparse.ArgumentTypeError(
            f"takes a percentage from 0 to {MAX_SHARE * 100:g} such as 0.1 or 0.1%, "
            f"not {text[:40]!r}"
        )
    return value


def percent(value: float) -> str:
    """Return a share as the docs write it: ``0.1%``."""
    return f"{value * 100:.3g}%"
