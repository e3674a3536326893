"""Instance type lookups: each cloud's bundled types with its local overlay laid over them.

This module owns the instance catalog gpupool answers from (``instance``, ``instances``): the
bundled file's types, then the overlay's own, each bundled type with the overlay's price and
regions where it names them. Instance names are exact, as the clouds' APIs are.
"""

from __future__ import annotations

import dataclasses
from functools import cache

from gpupool.catalog import gpu_models
from gpupool.catalog.instance_rows import bundled_by_name
from gpupool.catalog.models import InstanceType
from gpupool.catalog.price_overlay import read_overlay
from gpupool.catalog.rows import INSTANCE_CLOUDS


@cache
def _instance_catalog(cloud_name: str) -> tuple[InstanceType, ...]:
    """All instance types of one cloud: the bundled file's, then the overlay's own types.

    An overlay's instance row of a type the bundled file lacks becomes an instance of the cloud;
    one of a bundled type gives it only its price and (where it lists them) regions, the
    bundled facts stay. An overlay's price row then replaces the price of the type it names.
    """
    built = dict(bundled_by_name(cloud_name))
    loaded = read_overlay(cloud_name)
    if loaded is not None:
        for entry in loaded.instances.values():
            known = built.get(entry.name)
            if known is None:
                built[entry.name] = entry
            else:
                regions = entry.regions or known.regions
                built[entry.name] = dataclasses.replace(
                    known, price=entry.price, regions=regions
                )
        for entry_name, price in loaded.prices.items():
            if entry_name in built:
                built[entry_name] = dataclasses.replace(built[entry_name], price=price)
    return tuple(built.values())


def instance(cloud: str, name: str) -> InstanceType | None:
    """Return the instance type ``name`` of ``cloud``, or None.

    Args:
        cloud: ``aws``, ``gcp``, ``azure`` or ``volcengine``.
        name: The exact name (case-sensitive, as the clouds' APIs are).

    Returns:
        The instance type, or None when the cloud has no such entry in the catalog.

    """
    entries = _instance_catalog(cloud)
    seen = _INSTANCE_INDEX.get(cloud)
    if seen is None or seen[0] is not entries:
        index: dict[str, InstanceType] = {}
        for entry in entries:
            index.setdefault(entry.name, entry)
        _INSTANCE_INDEX[cloud] = seen = (entries, index)
    return seen[1].get(name)



#: per cloud, its instance catalog (the very tuple ``_instance_catalog`` returned) and its entries
#: by name, the first of a name as a scan would find it: a 1,000-pool plan asks ``instance``
#: 36,000 times. Rebuilt whenever ``_instance_catalog`` gives another tuple (its cache cleared).
_INSTANCE_INDEX: dict[str, tuple[tuple[InstanceType, ...], dict[str, InstanceType]]] = {}


def instances(cloud: str | None = None, gpu: str | None = None) -> tuple[InstanceType, ...]:
    """Return instance types, optionally only one cloud's or only those with one GPU model.

    Args:
        cloud: Keep only this cloud's instances; an unknown cloud gives an empty result.
        gpu: Keep only instances carrying this GPU model (any accepted spelling); an unknown
            model gives an empty result.

    Returns:
        Matching instance types, clouds in ``INSTANCE_CLOUDS`` order, then catalog order.

    """
    clouds_wanted = INSTANCE_CLOUDS if cloud is None else (cloud,)
    found = [entry for c in clouds_wanted for entry in _instance_catalog(c)]
    if gpu is not None:
        model = gpu_models.gpu(gpu)
        found = [e for e in found if model is not None and e.gpu == model.name]
    return tuple(found)
