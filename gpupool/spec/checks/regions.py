"""Rules on the stack's region: a region the cloud has, and instance types offered there.

The catalog lists each cloud's regions (``catalog.cloud(name).regions``; empty where it has no
confirmed list, as for Volcengine) and, for some instance types, the regions they are offered in
(``InstanceType.regions``; empty where unknown). A region the cloud lacks is an error with the
closest names (an AWS stack given a GCP region fails here); a pool whose instance type the
catalog knows is not offered in the stack's region gets a warning, because the catalog's list can
lag behind the cloud's. Where a cloud's catalog lists regions for some of its types (AWS), a type
without a list is said once to be unchecked (advice), rather than passed over in silence, unless
its price row is for the stack's region (an on-demand price there is the cloud offering it).
"""

from __future__ import annotations

from gpupool import catalog, didyoumean
from gpupool.model import Stack
from gpupool.spec.diagnostics import Diagnostic, error, info, warning


def _region(stack: Stack) -> list[Diagnostic]:
    region = stack.provider.region
    if region is None:
        return []
    known = catalog.cloud(stack.provider.cloud).regions
    if not known or region in known:
        return []
    other = [c.display_name for c in catalog.clouds() if c.name != stack.provider.cloud
             and region in c.regions]  # fmt: skip
    elsewhere = f" '{region}' is a {other[0]} region." if other else ""
    return [
        error(
            "catalog.unknown-region",
            f"Unknown {stack.cloud.display} region '{region}'",
            f"Did you mean: {', '.join(didyoumean.closest(region, known))}?{elsewhere} See the "
            f"regions in gpupool catalog regions --cloud {stack.provider.cloud}.",
            ("provider", "region"),
        )
    ]


def _offered(stack: Stack) -> list[Diagnostic]:
    region = stack.provider.region
    out: list[Diagnostic] = []
    listed = any(i.regions for i in catalog.instances(stack.provider.cloud))
    unknown: set[str] = set()
    for pool in stack.pools:
        inst = pool.instance
        if region is not None and inst is not None and not inst.regions and listed:
            priced_here = inst.price.region == region and inst.price.on_demand_hourly is not None
            if not priced_here and inst.name not in unknown:
                unknown.add(inst.name)
                out.append(_unknown(inst.name, region, pool.path))
            continue
        if region is None or inst is None or not inst.regions or region in inst.regions:
            continue
        out.append(
            warning(
                "catalog.instance-not-in-region",
                f"{inst.name} is not listed in {region}",
                f"The catalog lists {inst.name} only in {', '.join(inst.regions)} (its data "
                "notes say where the list comes from); a node group cannot start where the type "
                "is not offered. Pick a listed region or another instance type, or check the "
                "cloud's current offer (the list can lag behind it).",
                (*pool.path, "instanceType"),
            )
        )
    return out


def _unknown(name: str, region: str, path: tuple[str | int, ...]) -> Diagnostic:
    """Advice: the catalog has no region list for ``name``, so its region is not checked."""
    return info(
        "catalog.region-availability-unknown",
        f"region availability unknown for {name}",
        f"The catalog has no list of the regions {name} is offered in, so whether {region} has "
        "it is not checked (catalog.instance-not-in-region cannot warn). Check the cloud's "
        "offer (aws ec2 describe-instance-type-offerings) before the first apply.",
        (*path, "instanceType"),
    )


def run(stack: Stack) -> list[Diagnostic]:
    """Check the stack's region and where its pools' instance types are offered."""
    unknown = _region(stack)
    return unknown or _offered(stack)
