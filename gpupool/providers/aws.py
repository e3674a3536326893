"""AWS: each pool becomes EKS managed node groups (``aws:eks/nodeGroup:NodeGroup``).

What a pool renders to:

- one node group per ``gpupool.facts.groups.capacity_groups`` entry, on the NVIDIA EKS-optimised AMI
  (``AL2023_x86_64_NVIDIA``), with the pool's instance type, scaling, labels, taints
  (``NO_SCHEDULE``...), subnets, node role and tags. The subnets decide the zones: with
  ``settings.subnets`` (each with its zone) a pool gets the subnets of its ``placement.zones``
  (``gpupool.facts.placement``), else every subnet of the stack. The labels include
  ``k8s.amazonaws.com/accelerator`` (``accelerator_type``): the kubelet sets it when the node
  joins, so the cluster autoscaler counts the node as a GPU node before the device plugin
  advertises its GPUs and does not scale out again meanwhile (kubernetes/autoscaler
  ``cluster-autoscaler/cloudprovider/aws/README.md``, "Special note on GPU instances"); a pool
  label of that key wins. The root disk is ``disk_size`` (``disk.sizeGiB``; EKS's default is
  20 GiB), or, for a node group with a launch template, the template's root volume
  (``block_device_mappings`` of ``/dev/xvda``, gp3): EKS refuses ``diskSize`` beside a launch
  template (CreateNodegroup API, ``diskSize``);
- ``topology: compact``: a cluster placement group (``aws:ec2/placementGroup:PlacementGroup``,
  strategy ``cluster``) reached through a launch template
  (``aws:ec2/launchTemplate:LaunchTemplate`` with ``placement.group_name``); the node group takes
  the template's id and latest version. A cluster placement group lives in one Availability
  Zone, and an Auto Scaling group with one cannot span zones, so validation refuses a compact
  pool whose subnets span zones (``gpupool.spec.checks.clouds``);
- a compact pool on an EFA instance type (``gpupool.facts.network``): the launch template
  attaches every EFA interface the type takes, one per network card (``network_card_index`` i,
  ``device_index`` 0 on card 0 and 1 on the others, ``interface_type: efa``: terraform-aws-eks
  ``modules/eks-managed-node-group/main.tf``), no subnet (EKS sets it: EKS user guide
  ``launch-templates.md``). Security groups then sit on each interface, so each carries the
  cluster security group (which EKS adds only to a template without security groups) and the
  pool's EFA security group (``aws:ec2/securityGroup:SecurityGroup``, in the cluster's VPC),
  which admits all traffic from and to itself, as EFA requires (AWS PCS user guide "Create a
  security group to support EFA communications": ingress and egress, protocol -1, source the
  group itself; terraform-aws-eks ``efa_security_group_rules``, ``self = true``). The cluster's
  VPC and security group are read from
  ``aws.eks.get_cluster`` when the program runs;
- a split spot pool: its spot group is preferred by the cluster autoscaler through the priority
  expander ConfigMap (``gpupool.providers.expander``).

The Kubernetes provider reads the cluster's endpoint and CA from ``aws.eks.get_cluster`` and
authenticates with ``aws eks get-token`` (exec plugin; the AWS CLI must be on PATH where Pulumi
runs). Which inputs force replacement is from the Terraform AWS provider's ``ForceNew`` flags
(``internal/service/eks/node_group.go``), which Pulumi passes through.
"""

from __future__ import annotations

from typing import Any

from gpupool.catalog import GpuModel
from gpupool.facts.groups import CapacityGroup, capacity_groups
from gpupool.facts.network import efa_interfaces
from gpupool.facts.placement import pool_subnets
from gpupool.graph import CloudResult, Lookup, Ref, Resource
from gpupool.model import Pool, Stack
from gpupool.providers import common, expander
from gpupool.providers.expander import regex_literal

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
PLACEMENT_GROUP = "aws:ec2/placementGroup:PlacementGroup"
SECURITY_GROUP = "aws:ec2/securityGroup:SecurityGroup"
AMI_TYPE = "AL2023_x86_64_NVIDIA"

NODE_GROUP_REPLACE_ON = (
    "ami_type",
    "capacity_type",
    "cluster_name",
    "disk_size",
    "instance_types",
    "launch_template.id",
    "node_role_arn",
    "region",
    "subnet_ids",
)
PLACEMENT_GROUP_REPLACE_ON = ("region", "strategy")
# terraform-provider-aws internal/service/ec2/vpc_security_group.go: ForceNew fields
SECURITY_GROUP_REPLACE_ON = ("description", "name", "region", "vpc_id")
ALL_TRAFFIC = {"protocol": "-1", "from_port": 0, "to_port": 0}
"""A security-group rule over every protocol and port (protocol ``-1`` needs ports 0)."""
ROOT_DEVICE = "/dev/xvda"
"""The root device of the EKS-optimised Amazon Linux AMIs."""

ACCELERATOR_LABEL = "k8s.amazonaws.com/accelerator"
"""The node label the cluster autoscaler's AWS provider reads as "this is a GPU node"
(``GPULabel`` in cluster-autoscaler/cloudprovider/aws/aws_cloud_provider.go)."""


def accelerator_type(gpu: GpuModel) -> str:
    """Return the ``k8s.amazonaws.com/accelerator`` value of a GPU model.

    The autoscaler's GPU types are lowercase ``nvidia-...`` names (``nvidia-tesla-t4``,
    ``nvidia-a10g``, ``nvidia-l4``, ``nvidia-l40s``: ``availableGPUTypes`` in
    aws_cloud_provider.go): the catalog's lowercase ``nvidia-`` alias when it has one (the cloud
    accelerator names), else ``nvidia-`` and the model's name in lowercase.
    """
    for alias in gpu.aliases:
        if alias.startswith("nvidia-") and alias == alias.lower():
            return alias
    return "nvidia-" + gpu.name.lower()


def _placement(stack: Stack, pool: Pool) -> tuple[list[Resource], dict[str, Any]]:
    """Return a compact pool's placement group and launch template.

    Also returns the node group's ``launch_template`` input.
    """
    region = stack.provider.region
    pg = Resource(
        address=common.address(pool, "placement_group"),
        type=PLACEMENT_GROUP,
        name=pool.name,
        inputs={"strategy": "cluster", "region": region, "tags": common.tags(stack)},
        replace_on=PLACEMENT_GROUP_REPLACE_ON,
        owner=common.owner(pool),
    )
    inputs: dict[str, Any] = {
        "block_device_mappings": [_root_volume(pool)],
        "placement": {"group_name": Ref(pg.address, "name")},
        "region": region,
        "tags": common.tags(stack),
        "update_default_version": True,
    }
    extra = [pg]
    count = efa_interfaces(stack, pool)
    if count:
        sg = _efa_security_group(stack, pool)
        extra.append(sg)
        inputs["network_interfaces"] = _efa_interfaces(stack, count, Ref(sg.address, "id"))
    lt = Resource(
        address=common.address(pool, "launch_template"),
        type=LAUNCH_TEMPLATE,
        name=pool.name,
        inputs=inputs,
        replace_on=("region",),
        owner=common.owner(pool),
    )
    launch_template = {
        "id": Ref(lt.address, "id"),
        # the EKS API wants the version as a string; latest_version is a number
        "version": Lookup("as_string", {"value": Ref(lt.address, "latest_version")}),
    }
    return [*extra, lt], launch_template


def _cluster_vpc(stack: Stack, field: str) -> Lookup:
    """Return a field of the cluster's VPC config, read when the program runs."""
    args = {"cluster_name": stack.provider.cluster, "region": stack.provider.region}
    return Lookup("eks_vpc_config", {**args, "field": field})


def _efa_security_group(stack: Stack, pool: Pool) -> Resource:
    """Return the pool's EFA security group: all traffic from and to itself, nothing else."""
    rule = {**ALL_TRAFFIC, "self": True, "description": "EFA: all traffic within the group"}
    return Resource(
        address=common.address(pool, "efa_security_group"),
        type=SECURITY_GROUP,
        name=f"{pool.name}-efa",
        inputs={
            "description": f"EFA between the nodes of gpupool pool {pool.name}",
            "vpc_id": _cluster_vpc(stack, "vpc_id"),
            "ingress": [dict(rule)],
            "egress": [dict(rule)],
            "region": stack.provider.region,
            "tags": common.tags(stack),
        },
        replace_on=SECURITY_GROUP_REPLACE_ON,
        owner=common.owner(pool),
    )


def _efa_interfaces(stack: Stack, count: int, efa_group: Ref) -> list[dict[str, Any]]:
    """Return the launch template's network interfaces: one EFA per network card."""
    groups = [_cluster_vpc(stack, "cluster_security_group_id"), efa_group]
    return [
        {
            "network_card_index": card,
            "device_index": 0 if card == 0 else 1,
            "interface_type": "efa",
            # the SDK takes this flag as a string ("true"/"false")
            "delete_on_termination": "true",
            "security_groups": list(groups),
        }
        for card in range(count)
    ]


def _root_volume(pool: Pool) -> dict[str, Any]:
    """Return the launch template's root volume of a pool's nodes (``disk.sizeGiB``, gp3)."""
    return {
        "device_name": ROOT_DEVICE,
        # the SDK takes this flag as a string ("true"/"false")
        "ebs": {
            "delete_on_termination": "true",
            "volume_size": pool.disk_gib,
            "volume_type": "gp3",
        },
    }


def _node_group(
    stack: Stack, pool: Pool, group: CapacityGroup, launch_template: dict[str, Any] | None
) -> Resource:
    settings = stack.provider.settings
    inst = pool.instance
    taints = [
        {
            "key": t.key,
            "effect": common.upper_effect(t.effect),
            **({"value": t.value} if t.value else {}),
        }
        for t in pool.taints
    ]
    inputs: dict[str, Any] = {
        "cluster_name": stack.provider.cluster,
        "node_role_arn": settings.node_role_arn,
        "subnet_ids": list(pool_subnets(stack, pool)),
        "region": stack.provider.region,
        "ami_type": AMI_TYPE,
        "capacity_type": "SPOT" if group.spot else "ON_DEMAND",
        "instance_types": [inst.machine_type if inst is not None else pool.instance_type],
        "scaling_config": {
            "desired_size": group.desired,
            "max_size": group.max,
            "min_size": group.min,
        },
        "labels": _labels(stack, pool, group),
        "tags": common.tags(stack),
    }
    if taints:
        inputs["taints"] = taints
    if launch_template is not None:
        inputs["launch_template"] = dict(launch_template)
    else:
        inputs["disk_size"] = pool.disk_gib
    return common.node_pool(
        stack,
        pool,
        group,
        NODE_GROUP,
        inputs,
        NODE_GROUP_REPLACE_ON,
        ignore_changes=("scaling_config.desired_size",),
    )


def _labels(stack: Stack, pool: Pool, group: CapacityGroup) -> dict[str, str]:
    """Return a node group's labels: the accelerator label, then the pool's (keys sorted)."""
    labels = common.node_labels(stack, pool, group)
    if pool.gpu is not None and ACCELERATOR_LABEL not in labels:
        labels[ACCELERATOR_LABEL] = accelerator_type(pool.gpu)
    return dict(sorted(labels.items()))


def spot_pattern(logical_name: str) -> str:
    """Return the regular expression matching the autoscaling group of a node group.

    Pulumi names a node group ``<logical name>-<random hex>``; EKS names its autoscaling group
    ``eks-<node group name>-<node group uuid>``.
    """
    return f"^eks-{regex_literal(logical_name)}-[0-9a-f]+-[0-9a-f]{{8}}-"


def k8s_provider(stack: Stack) -> Resource:
    """Return the Kubernetes provider for the EKS cluster the pools join."""
    kubeconfig = Lookup(
        "eks_kubeconfig", {"cluster_name": stack.provider.cluster, "region": stack.provider.region}
    )
    return common.k8s_provider({"kubeconfig": kubeconfig})


def build(stack: Stack) -> CloudResult:
    """Build the EKS node groups (and placement groups, launch templates) of every pool."""
    resources: list[Resource] = [k8s_provider(stack)]
    node_pools: dict[str, tuple[str, ...]] = {}
    spot_patterns: list[str] = []
    split: list[str] = []
    for pool in stack.pools:
        launch_template = None
        if pool.topology == "compact":
            extra, launch_template = _placement(stack, pool)
            resources += extra
        groups = capacity_groups(pool, stack.cloud)
        built = [_node_group(stack, pool, g, launch_template) for g in groups]
        resources += built
        node_pools[pool.name] = tuple(r.address for r in built)
        if len(groups) > 1:
            spot_patterns.append(spot_pattern(built[0].name))
            split += [r.address for r in built]
    priority = expander.configmap(stack, spot_patterns, split)
    if priority is not None:
        resources.append(priority)
    return CloudResult(tuple(resources), common.K8S_PROVIDER, node_pools)
