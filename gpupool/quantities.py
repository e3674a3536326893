"""Kubernetes resource quantities (``"500m"``, ``"16Gi"``, ``"1e3"``) read as numbers.

This module owns ``parse_quantity``, which reads a quantity as a node's ``allocatable`` or
``capacity`` holds one (a decimal number with a decimal SI suffix, a binary suffix or an
exponent) in base units, as the Kubernetes client's ``kubernetes.utils.parse_quantity`` does
(tests/cluster/test_cluster.py holds the two equal), without importing the client. It imports
nothing of gpupool; ``gpupool.cluster`` reads nodes with it.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

_QUANTITY = re.compile(
    r"^(?P<number>[+-]?(?:\d+(?:\.\d*)?|\.\d+))"
    r"(?:(?P<exponent>[eE][+-]?\d+)|(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?$"
)
_SUFFIX = {
    "": Decimal(1),
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
    "k": Decimal("1e3"),
    "M": Decimal("1e6"),
    "G": Decimal("1e9"),
    "T": Decimal("1e12"),
    "P": Decimal("1e15"),
    "E": Decimal("1e18"),
    "Ki": Decimal(2**10),
    "Mi": Decimal(2**20),
    "Gi": Decimal(2**30),
    "Ti": Decimal(2**40),
    "Pi": Decimal(2**50),
    "Ei": Decimal(2**60),
}


def parse_quantity(text: str) -> float:
    """Parse a Kubernetes resource quantity such as ``"8"``, ``"500m"``, ``"16Gi"``, ``"1e3"``.

    Args:
        text: The quantity string, as found in ``allocatable`` or ``capacity``.

    Returns:
        The value in base units (cores, bytes, devices).

    Raises:
        ValueError: ``text`` is not a Kubernetes quantity.

    """
    match = _QUANTITY.match(text.strip()) if isinstance(text, str) else None
    if match is None:
        raise ValueError(f"not a Kubernetes quantity: {text!r}")
    try:
        number = Decimal(match["number"])
        if match["exponent"]:
            number = number.scaleb(int(match["exponent"][1:]))
        return float(number * _SUFFIX[match["suffix"] or ""])
    except InvalidOperation as exc:  # pragma: no cover - the pattern admits only valid numbers
        raise ValueError(f"not a Kubernetes quantity: {text!r}") from exc
