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
- ``topology: compact`` has no VKE counterpart, and a placement group holds one zone: a compact
  pool that lists several zones, or (AWS) whose subnets span several zones, is refused;
- on AWS a node group's zones are its subnets' (``gpupool.facts.placement``): a pool zone no
  listed subnet is in is refused, ``subnets`` and ``subnetIds`` together are refused, a subnet
  listed twice is refused (a subnet is in one zone), a zone whose name is of another region
  (``Cloud.zone_in_region``) is refused, and zones that cannot take effect because the stack
  gives no subnet zones are warned about;
- an existing node can belong to one pool only (``cloud: kubernetes``);
- a machine type whose GPUs talk across nodes over secondary NICs (GKE A3 High, GPUDirect-TCPX
  over 4; A3 Mega, GPUDirect-TCPXO over 8: GKE docs ``gpu-bandwidth-gpudirect-tcpx``) gets them
  from ``placement.gpuNetworks``, which must list one network per NIC, only on such a machine
  type, with GKE managing the node image (multi-network pods need Container-Optimized OS: GKE
  docs ``setup-multinetwork-support-for-pods``); across the stack a VPC network keeps one subnet
  and a subnet one network (one device-mode ``GKENetworkParamSet`` per VPC and per subnet:
  gke-networking-api ``DeviceModeVPCAlreadyInUse``, ``DeviceModeSubnetAlreadyInUse``). A compact
  pool on such a machine type that lists none gets only its primary NIC: warned, naming what the
  cluster and node pool need.
"""

from __future__ import annotations

from gpupool import facts
from gpupool.facts import placement
from gpupool.facts.groups import capacity_groups
from gpupool.facts.network import gpudirect_unconfigured
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
        for group in capacity_groups(pool, stack.cloud):
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


def _subnets(stack: Stack) -> list[Diagnostic]:
    settings = stack.provider.settings
    out: list[Diagnostic] = []
    if stack.cloud.zones_by_subnet and settings.subnet_zones and settings.subnet_ids:
        out.append(error(
            "clouds.subnets-twice",
            "Give subnets or subnetIds, not both",
            "settings.subnets lists each subnet with its zone and replaces subnetIds; move every "
            "subnet there and remove subnetIds.",
            ("provider", "settings", "subnetIds"),
            anchor="key",
        ))
    seen: dict[str, str] = {}
    for i, (subnet, zone) in enumerate(settings.subnet_zones):
        where = ("provider", "settings", "subnets", i)
        if subnet in seen:
            out.append(error(
                "clouds.subnet-listed-twice",
                f"Subnet {subnet} is listed twice",
                f"A subnet is in one zone; settings.subnets already lists {subnet} in "
                f"{seen[subnet]}{'' if zone == seen[subnet] else f', and here in {zone}'}. "
                "List each subnet once, with the zone the cloud says it is in.",
                (*where, "id"),
            ))
        else:
            seen[subnet] = zone
        out += _zone_of_region(stack, zone, (*where, "zone"), f"subnet {subnet}")
    return out


def _zone_of_region(stack: Stack, zone: str, path: tuple[str | int, ...],
                    what: str) -> list[Diagnostic]:
    """Refuse a zone whose name says it is of another region (``Cloud.zone_in_region``)."""
    belongs, region = stack.cloud.zone_in_region, stack.provider.region
    if belongs is None or region is None or belongs(zone, region):
        return []
    return [error(
        "clouds.zone-other-region",
        f"Zone {zone} is not in region {region}",
        f"The stack's region is {region}, and {stack.cloud.display} names its zones after their "
        f"region ({region}a, or {region}-<location> for a Local Zone); {zone} is not one, so "
        f"{what} cannot be placed there. Use a zone of {region}, or the region of {zone}.",
        path,
    )]


def _zones(stack: Stack, pool: Pool) -> list[Diagnostic]:
    """Check a pool's zones against the subnets that decide them (``Cloud.zones_by_subnet``)."""
    cloud = stack.cloud
    if not cloud.zones_by_subnet or not cloud.provisions:
        return []
    settings = stack.provider.settings
    if not placement.zones_known(stack):
        elsewhere = [d for i, zone in enumerate(pool.zones) for d in _zone_of_region(
            stack, zone, (*pool.path, "placement", "zones", i), f"pool {pool.name}")]
        if elsewhere:
            return elsewhere
        wide = len(settings.subnet_ids) > 1
        if pool.zones and wide:
            return [
                warning(
                    "clouds.zones-unknown",
                    "placement.zones has no effect without the subnets' zones",
                    f"On {cloud.display} a node group's nodes land in the zones of its subnets, "
                    "and subnetIds does not say which zone each is in, so every pool gets every "
                    "subnet. List them as settings.subnets: [{id, zone}] instead; each pool then "
                    "gets the subnets of its zones.",
                    (*pool.path, "placement", "zones"),
                )
            ]
        if pool.topology == "compact" and wide and cloud.zonal_compact:
            return [
                warning(
                    "clouds.zones-unknown",
                    "A compact pool over several subnets may span zones",
                    f"A cluster placement group lives in one zone and {cloud.display} refuses "
                    "one whose node group spans zones, but subnetIds does not say which zone "
                    "each subnet is in. List them as settings.subnets: [{id, zone}] and give "
                    "the pool one zone in placement.zones.",
                    (*pool.path, "placement", "topology"),
                )
            ]
        return []
    known = {zone for _, zone in settings.subnet_zones}  # a subnet listed twice: both zones
    out: list[Diagnostic] = []
    for i, zone in enumerate(pool.zones):
        path = (*pool.path, "placement", "zones", i)
        other = _zone_of_region(stack, zone, path, f"pool {pool.name}")
        if other:
            out += other
        elif zone not in known:
            out.append(error(
                "clouds.zone-without-subnet",
                f"No subnet is in zone {zone}",
                f"On {cloud.display} a node group's nodes land in the zones of its subnets; none "
                f"of settings.subnets is in {zone} (they are in {', '.join(sorted(known))}). Add "
                "a subnet of that zone or remove the zone.",
                path,
            ))
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
    if not stack.cloud.zonal_compact:
        return []
    if len(pool.zones) > 1:
        return [
            error(
                "clouds.compact-multi-zone",
                "Compact placement keeps nodes in one zone",
                f"A cluster placement group (or compact policy) lives in one zone, and the cloud "
                f"refuses a node group that spans zones with one, but the pool lists "
                f"{len(pool.zones)} zones. List one zone.",
                (*pool.path, "placement", "zones"),
            )
        ]
    zones = placement.pool_subnet_zones(stack, pool)
    if stack.cloud.zones_by_subnet and not pool.zones and len(zones) > 1:
        return [
            error(
                "clouds.compact-multi-zone",
                "Compact placement keeps nodes in one zone",
                f"A cluster placement group lives in one zone, and {stack.cloud.display} refuses "
                f"a node group that spans zones with one, but this pool gets every subnet of the "
                f"stack, in {', '.join(zones)}. Give it one zone in placement.zones.",
                path,
            )
        ]
    return []


def _gpudirect(stack: Stack, pool: Pool) -> list[Diagnostic]:
    missing = gpudirect_unconfigured(stack, pool)
    if missing is None:
        return []
    protocol, nics = missing
    return [
        warning(
            "clouds.gpudirect-not-configured",
            f"{pool.instance_type} nodes get no {protocol} NICs",
            f"{pool.instance_type} carries GPU traffic between nodes over {protocol} on {nics} "
            "secondary NICs, each in a VPC network of its own, and this pool names none, so the "
            "node pool gets only its primary NIC and multi-node NCCL runs over it at a fraction "
            f"of the bandwidth. Create {nics} VPC networks with a subnet each in this region and "
            f"list them in placement.gpuNetworks ({{network, subnetwork}}, one per NIC): gpupool "
            "then attaches them to the node pool and renders the cluster's Network and "
            "GKENetworkParamSet objects; the rendered README lists what the cluster needs besides "
            '(multi-networking, the NCCL plugin installer). GKE docs, "Maximize GPU network '
            'bandwidth in Standard mode clusters".',
            (*pool.path, "placement", "topology"),
        )
    ]


def _gpu_networks(stack: Stack, pool: Pool) -> list[Diagnostic]:
    """Check a pool's ``placement.gpuNetworks`` against its machine type and node image."""
    nets = pool.gpu_networks
    if not nets:
        return []
    path = (*pool.path, "placement", "gpuNetworks")
    inst = pool.instance
    if inst is None and pool.instance_type is not None:
        return []  # an unknown instance type: catalog.unknown-instance says so
    link = inst.interconnect if inst is not None else None
    if link is None or not link.gpudirect or not stack.cloud.provisions:
        what = pool.instance_type or "An existing node"
        return [
            error(
                "clouds.gpudirect-networks-unsupported",
                f"{what} has no GPUDirect NICs",
                "placement.gpuNetworks names the VPC networks of the secondary NICs that carry "
                "GPU traffic between GKE A3 nodes (a3-highgpu-8g: GPUDirect-TCPX over 4; "
                "a3-megagpu-8g: GPUDirect-TCPXO over 8); this pool's nodes have none for gpupool "
                "to attach. Remove gpuNetworks, or use such a machine type.",
                path,
                anchor="key",
            )
        ]
    out: list[Diagnostic] = []
    if len(nets) != link.gpudirect_nics:
        out.append(
            error(
                "clouds.gpudirect-network-count",
                f"{pool.instance_type} takes {link.gpudirect_nics} GPUDirect networks, "
                f"not {len(nets)}",
                f"{link.gpudirect} runs over all {link.gpudirect_nics} secondary NICs of a "
                f"{pool.instance_type} node, each in a VPC network of its own (GKE docs, "
                '"Maximize GPU network bandwidth in Standard mode clusters"). List one '
                f"{{network, subnetwork}} per NIC: {link.gpudirect_nics} entries.",
                path,
                anchor="key",
            )
        )
    if stack.cluster.gpu_operator.driver != "preinstalled":
        out.append(
            error(
                "clouds.gpudirect-needs-cos",
                "GPUDirect networks need GKE's Container-Optimized OS nodes",
                "With driver: operator gpupool gives the node pool Ubuntu nodes (the GPU "
                "Operator's driver manager needs them), but GKE attaches additional networks to "
                'pods only on Container-Optimized OS nodes (GKE docs, "Set up multi-network '
                f"support for Pods\"), and {link.gpudirect}'s NCCL plugin installer writes to "
                "COS's /home/kubernetes/bin. Set cluster.gpuOperator.driver: preinstalled.",
                path,
                anchor="key",
            )
        )
    return out


def _gpu_network_pairs(stack: Stack) -> list[Diagnostic]:
    """Check that, across the stack, a VPC network keeps one subnet and a subnet one network."""
    subnet_of: dict[str, tuple[str, str]] = {}  # network -> (subnetwork, pool)
    network_of: dict[str, tuple[str, str]] = {}  # subnetwork -> (network, pool)
    out: list[Diagnostic] = []
    for pool in stack.pools:
        for i, net in enumerate(pool.gpu_networks):
            path = (*pool.path, "placement", "gpuNetworks", i)
            sub, first = subnet_of.setdefault(net.network, (net.subnetwork, pool.name))
            other, owner = network_of.setdefault(net.subnetwork, (net.network, pool.name))
            if sub != net.subnetwork:
                summary = f"GPUDirect network {net.network} is given two subnets"
                clash = f"network {net.network} with subnet {sub} (pool {first}) and "
                clash += net.subnetwork
            elif other != net.network:
                summary = f"Subnet {net.subnetwork} is given to two GPUDirect networks"
                clash = f"subnet {net.subnetwork} in network {other} (pool {owner}) and "
                clash += net.network
            else:
                continue
            out.append(
                error(
                    "clouds.gpudirect-network-conflict",
                    summary,
                    f"The stack pairs {clash}. GKE admits one device-mode GKENetworkParamSet per "
                    "VPC network and one per subnet (gke-networking-api: "
                    "DeviceModeVPCAlreadyInUse, DeviceModeSubnetAlreadyInUse), and gpupool "
                    "renders one per network, so wherever pools name them each network keeps one "
                    "subnet and each subnet one network. Give each NIC a network of its own.",
                    path,
                )
            )
    return out


def run(stack: Stack) -> list[Diagnostic]:
    """Check that the stack's cloud module can render every pool as written."""
    out = _names(stack) + _subnets(stack)  # two pools' node: structure's pool.duplicate-node
    for pool in stack.pools:
        out += _gke_mig(stack, pool) + _placement(stack, pool) + _zones(stack, pool)
        out += _gpudirect(stack, pool) + _gpu_networks(stack, pool)
    out += _gpu_network_pairs(stack)
    return out
