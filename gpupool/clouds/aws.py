"""AWS EKS: managed node groups on the EKS-optimised NVIDIA AMI.

The AMI carries the driver and the container toolkit, so with ``driver: preinstalled`` the GPU
Operator installs neither (EKS user guide, "Amazon EKS optimized accelerated Amazon Linux AMIs").
A managed node group has no zone setting of its own: its nodes land in the zones of the subnets
it is given (EKS CreateNodegroup API, ``subnets``). EFA interfaces are attached through the node
group's launch template, one per network card (terraform-aws-eks ``docs/networking/efa.md``).
A zone's name starts with its region's code (``zone_in_region``).
"""

import re

from gpupool.clouds.base import Cloud, Sdk


def zone_in_region(zone: str, region: str) -> bool:
    """Whether ``zone`` is a zone of ``region`` by its name.

    AWS "Regions and Availability Zones": an Availability Zone's code is its Region's code
    followed by a letter (``us-east-2a``); a Local Zone's is the parent Region's code, a hyphen
    and a location (``us-west-2-lax-1a``), and Wavelength Zones are named the same way.
    """
    return re.fullmatch(re.escape(region) + r"([a-z]|-[a-z0-9][-a-z0-9]*)", zone) is not None


CLOUD = Cloud(
    name="aws",
    # EKS managed node groups label their nodes eks.amazonaws.com/capacityType SPOT or ON_DEMAND
    # (Amazon EKS User Guide, "Managed node groups", capacity types).
    spot_node_labels=(("eks.amazonaws.com/capacityType", "SPOT"),),
    display="AWS",
    node_pool_noun="node group",
    sdk=Sdk("aws", "pulumi_aws", "aws", "pulumi-aws", "7.51.1", extra="aws"),
    operator_values_preinstalled={"toolkit": {"enabled": False}},
    program_helpers=("eks_kubeconfig", "eks_vpc_config"),
    zones_by_subnet=True,
    zone_in_region=zone_in_region,
    attaches_efa=True,
    starter={
        "region": "us-east-1",
        "cluster": "REPLACE-ME-eks-cluster",
        "settings": {
            "subnetIds": ["subnet-REPLACE-ME"],
            "nodeRoleArn": "arn:aws:iam::123456789012:role/REPLACE-ME-gpu-nodes",
        },
    },
)
