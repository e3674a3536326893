"""Rules on what the cloud node-pool APIs can render faithfully.

The schema and the sharing checks allow these stacks, but the cloud module for their cloud
(``gpupool.providers.<cloud>``) could not express them, or the cloud would build something other
than what the file says:

- GKE with ``driver: preinstalled`` partitions MIG GPUs itself, from one partition size per node
  pool, and always into as many partitions of that size as fit (``gpu_partition_size``); a
  layout with several profile types, or fewer instances than fit, cannot be rendered;
- names gpupool derives must stay unique and within the clouds' limits: the on-demand companion
  of a split spot pool (``<pool>-od``), GKE node-pool names (at most 40 characters, of which
  Pulumi's random suffix takes 8), AKS agent-pool names (12 characters);
- ``topology: compact`` has no VKE counterpart, and a placement group holds one zone;
- an existing node can belong to one pool only (``cloud: kubernetes``).
"""

from __future__ import annotations

from gpupool import facts
from gpupool.facts.groups import capacity_groups
from gpupool.model import Pool, Stack
from gpupool.spec.diagnostics import Diagnostic, error, warning


def _gke_mig(stack: Stack, pool: Pool) -> list[Diagnostic]:
    if not facts.of(stack).cloud_shares_gpus:
        return []
    layout = pool.sharing.mig_layout
    kind = pool.sharing.kind
    if not kind.partitioned or not layout:
        return []
    path = (*pool.path, "sharing", kind.section or "", "layout")
    fix = (
        "Set cluster.gpuOperator.driver: operator to have the GPU Operator's MIG Manager "
        "partition the GPUs instead."
    )
    if len(layout) > 1:
        names = ", ".join(name for name, _ in layout)
        return [
            error(
                "clouds.gke-mig-mixed-layout",
                "GKE node pools take one MIG partition size",
                f"With driver: preinstalled, GKE partitions the GPUs from a single "
                f"gpu_partition_size per node pool; this layout mixes {names}. Use one profile "
                f"per pool (one pool per profile). {fix}",
                path,
            )
        ]
    name, count = layout[0]
    gpu = pool.gpu
    profile = gpu.mig.profile(name) if gpu is not None and gpu.mig is not None else None
    if profile is not None and count != profile.max_count:
        return [
            error(
                "clouds.gke-mig-partial-layout",
                f"GKE creates {profile.max_count} {name} partitions per GPU",
                f"GKE always creates as many partitions of the gpu_partition_size as fit "
                f"({profile.max_count} x {name} on {gpu.name if gpu else 'this GPU'}), not "
                f"{count}. Set the layout to {{{name}: {profile.max_count}}}. {fix}",
                path,
            )
        ]
    return []


def _names(stack: Stack) -> list[Diagnostic]:
    cloud = stack.cloud
    if not cloud.provisions:
        return []
    name_max = cloud.node_pool_name_max
    out: list[Diagnostic] = []
    taken: dict[str, str] = {p.name: p.name for p in stack.pools}
    agent_pools: dict[str, str] = {}
    for pool in stack.pools:
        for group in capacity_groups(pool):
            logical = pool.name + group.suffix
            if group.suffix and logical in taken:
                out.append(
                    error(
                        "clouds.node-pool-name-clash",
                        f"Pool {pool.name}'s on-demand group clashes with pool {logical}",
                        f"A spot pool with onDemandBase or fallbackToOnDemand gets an on-demand "
                        f"companion node pool named {logical}, which is also a pool's name. "
                        "Rename one of the pools.",
                        (*pool.path, "name"),
                    )
                )
            taken[logical] = pool.name
            if name_max is not None and len(logical) > name_max:
                out.append(
                    error(
                        "clouds.gke-name-too-long",
                        f"GKE node-pool name {logical} is too long",
                        f"GKE node-pool names have at most 40 characters and Pulumi appends 8 "
                        f"to {logical!r}; use a pool name of at most "
                        f"{name_max - len(group.suffix)} characters.",
                        (*pool.path, "name"),
                    )
                )
            if cloud.node_pool_name is not None:
                name = cloud.node_pool_name(pool.name, bool(group.suffix))
                if name in agent_pools and agent_pools[name] != logical:
                    out.append(
                        error(
                            "clouds.aks-name-clash",
                            f"AKS agent-pool name {name} is used twice",
                            f"AKS agent-pool names are 12 lowercase letters and digits; "
                            f"{logical} and {agent_pools[name]} both become {name}. Rename one "
                            "of the pools.",
                            (*pool.path, "name"),
                        )
                    )
                agent_pools[name] = logical
    return out


def _placement(stack: Stack, pool: Pool) -> list[Diagnostic]:
    if pool.topology != "compact":
        return []
    path = (*pool.path, "placement", "topology")
    if stack.cloud.provisions and not stack.cloud.compact_placement:
        return [
            warning(
                "clouds.compact-unsupported",
                "VKE node pools have no compact placement",
                "gpupool renders this pool without a placement policy; nodes may land on "
                "different racks.",
                path,
            )
        ]
    if len(pool.zones) > 1 and stack.cloud.zonal_compact:
        return [
            warning(
                "clouds.compact-multi-zone",
                "Compact placement keeps nodes in one zone",
                f"A cluster placement group (or compact policy) lives in one zone, but the pool "
                f"lists {len(pool.zones)} zones; list one zone (and, on AWS, subnets of that "
                "zone).",
                (*pool.path, "placement", "zones"),
            )
        ]
    return []


def run(stack: Stack) -> list[Diagnostic]:
    """Check that the stack's cloud module can render every pool as written."""
    out = _names(stack)  # a node listed in two pools is structure's pool.duplicate-node
    for pool in stack.pools:
        out += _gke_mig(stack, pool) + _placement(stack, pool)
    return out
