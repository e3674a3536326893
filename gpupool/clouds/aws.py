"""AWS EKS: managed node groups on the EKS-optimised NVIDIA AMI.

The AMI carries the driver and the container toolkit, so with ``driver: preinstalled`` the GPU
Operator installs neither (EKS user guide, "Amazon EKS optimized accelerated Amazon Linux AMIs").
A managed node group has no zone setting of its own: its nodes land in the zones of the subnets
it is given (EKS CreateNodegroup API, ``subnets``).
"""

from gpupool.clouds.base import Cloud, Sdk

CLOUD = Cloud(
    name="aws",
    display="AWS",
    node_pool_noun="node group",
    sdk=Sdk("aws", "pulumi_aws", "aws", "pulumi-aws", "7.51.1", extra="aws"),
    operator_values_preinstalled={"toolkit": {"enabled": False}},
    program_helpers=("eks_kubeconfig",),
    zones_by_subnet=True,
)
