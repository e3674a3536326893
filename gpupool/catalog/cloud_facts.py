"""Cloud facts: ``clouds.json``'s regions, spot node pools, spot bids and interruption notice.

This module owns the catalog's facts of each cloud (``cloud``, ``clouds``) and whether a name is
one of a cloud's regions (``is_region``: its list where the catalog has one, else a region's
shape).
"""

from __future__ import annotations

import re
from functools import cache

from gpupool.catalog.models import CloudFacts
from gpupool.catalog.rows import field_names, integer, keys, load

_REGION = re.compile(r"[a-z]{2}(-[a-z0-9]+){1,4}")
"""A region name where the catalog has no list of the cloud's regions (``cn-beijing``)."""


@cache
def _cloud_catalog() -> dict[str, CloudFacts]:
    """Cloud facts by cloud name."""
    _, payload = load("clouds")
    facts: dict[str, CloudFacts] = {}
    for row in payload["clouds"]:
        where = f"clouds.json {row.get('name')}"
        optional = ("display_name", "regions")
        required = [n for n in field_names(CloudFacts) if n not in optional]
        keys(row, required, where, *optional)
        notice = row["spot_notice_seconds"]
        facts[str(row["name"])] = CloudFacts(
            name=str(row["name"]),
            spot_node_pools=bool(row["spot_node_pools"]),
            spot_bid=bool(row["spot_bid"]),
            spot_notice_seconds=None if notice is None else integer(notice, where),
            reference_region=row["reference_region"],
            display_name=str(row.get("display_name", row["name"])),
            regions=tuple(str(r) for r in row.get("regions", ())),
        )
    return facts


def cloud(name: str) -> CloudFacts:
    """Return the spot and pricing facts of cloud ``name``.

    Args:
        name: ``aws``, ``gcp``, ``azure``, ``volcengine`` or ``kubernetes``.

    Returns:
        The cloud's facts.

    Raises:
        LookupError: ``name`` is not a cloud gpupool knows.

    """
    facts = _cloud_catalog()
    if name not in facts:
        raise LookupError(f"unknown cloud {name!r}; known clouds: {', '.join(facts)}")
    return facts[name]


def clouds() -> tuple[CloudFacts, ...]:
    """Return the facts of every cloud gpupool knows."""
    return tuple(_cloud_catalog().values())


def is_region(cloud: str, name: str) -> bool:
    """Return whether ``name`` is a region of ``cloud``.

    One of its regions where the catalog lists them, else a name of a region's shape
    (``cn-beijing``).
    """
    known = _cloud_catalog()[cloud].regions if cloud in _cloud_catalog() else ()
    return name in known if known else bool(_REGION.fullmatch(name))
