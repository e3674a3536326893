"""MIG labels of GPU Feature Discovery's 2020 releases, read as the profiles they stand for.

GFD of 2020 named a MIG profile in its ``nvidia.com/mig-<profile>.*`` labels by the instance's
memory in decimal gigabytes, rounded, while the device plugin advertised NVML's profile name: on
NVIDIA's DGX A100 example under strategy mixed (NVIDIA/cloud-native-docs ``kubernetes/index.rst``,
"MIG Support in Kubernetes"; driver 450.80.02) the labels say ``nvidia.com/mig-3g.21gb.count`` and
``.memory: 20096`` (MiB) beside the allocatable ``nvidia.com/mig-3g.20gb``: 20096 MiB is 21.07 GB.
The same rule gives ``1g.5gb`` (4864 MiB, 5.10 GB) and ``2g.10gb`` (9984 MiB, 10.47 GB), the names
those labels carry, so only profiles whose rounding differs are spelt differently.

This module owns ``relabel``: which label profiles are such old spellings of the GPU's profiles,
and the labels with them renamed, so drift compares what the node has rather than its spelling.
A label profile is an old spelling of profile ``P`` of the GPU when the GPU has no profile of
that name, ``P`` has the same compute slices and attributes (``+me``), and the label's memory in
decimal GB, rounded, is the name's: the label's own ``.memory`` where GFD wrote one, else ``P``'s.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

_MIG_LABEL = re.compile(r"^nvidia\.com/mig-(?P<profile>[^/]+?)\.(?P<attr>[a-z.-]+)$")
_PROFILE = re.compile(r"^(?P<g>\d+)g\.(?P<m>\d+)gb(?P<rest>.*)$")
_MIB = 2**20
_GB = 10**9


def _key(profile: str) -> str:
    """GFD and the device plugin write ``+`` as ``.`` (``1g.10gb+me`` -> ``1g.10gb.me``)."""
    return profile.replace("+", ".").lower()


def _decimal_gb(mib: float) -> int:
    return round(mib * _MIB / _GB)


def _count_profiles(labels: Mapping[str, str]) -> set[str]:
    out = set()
    for key in labels:
        m = _MIG_LABEL.match(key)
        if m and m["attr"] == "count":
            out.add(m["profile"])
    return out


def old_spellings(
    profiles: Sequence[tuple[str, float]], labels: Mapping[str, str]
) -> dict[str, str]:
    """Return ``{label profile: GPU profile}`` for each 2020 GFD spelling among the labels.

    Args:
        profiles: the GPU's MIG profiles, ``(name, memory in MiB)``.
        labels: the node's labels.

    """
    known = {_key(name) for name, _ in profiles}
    out: dict[str, str] = {}
    for seen in sorted(_count_profiles(labels)):
        m = _PROFILE.match(seen)
        if m is None or _key(seen) in known:
            continue
        raw = labels.get(f"nvidia.com/mig-{seen}.memory", "")
        label_mib = float(raw) if raw.isdigit() else None
        for name, mib in profiles:
            p = _PROFILE.match(_key(name))
            if p is None or (p["g"], p["rest"]) != (m["g"], m["rest"]):
                continue
            if _decimal_gb(label_mib if label_mib is not None else mib) == int(m["m"]):
                out[seen] = _key(name)
                break
    return out


def relabel(
    profiles: Sequence[tuple[str, float]], labels: Mapping[str, str]
) -> tuple[dict[str, str], dict[str, str]]:
    """Return the labels with each old spelling renamed to its profile, and the renames made."""
    renames = old_spellings(profiles, labels)
    if not renames:
        return dict(labels), {}
    out: dict[str, str] = {}
    for key, value in labels.items():
        m = _MIG_LABEL.match(key)
        if m and m["profile"] in renames:
            key = f"nvidia.com/mig-{renames[m['profile']]}.{m['attr']}"
        out.setdefault(key, value)
    return out, renames
