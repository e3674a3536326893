"""Volcengine's Cloud Control type ``Volcengine::VKE::NodePool``: the facts gpupool's tests use.

Read from volcengine/terraform-provider-volcenginecc at commit
fe912e8600d5c09f239d54efe4c9bd1db10d1cb5, ``internal/service/cloudcontrol/schemas/
Volcengine_VKE_NodePool.json`` (the schema pulumi-volcenginecc 0.0.64's ``vke.NodePool``
bridges). ``tests/test_upstream_facts.py`` checks these facts against the unchanged file in
``../shared/reference/upstream/`` (``UPSTREAM_FILE``) where that folder exists.
"""

from __future__ import annotations

UPSTREAM_FILE = "volcenginecc-fe912e86-Volcengine_VKE_NodePool.json"

#: definitions.NodeConfig.properties
NODE_CONFIG = frozenset(
    {
        "AdditionalContainerStorageEnabled", "AutoRenew", "AutoRenewPeriod", "DataVolumes",
        "DeploymentSetGroupNumber", "DeploymentSetId", "Hostname", "HpcClusterIds", "ImageId",
        "InitializeScript", "InstanceChargeType", "InstanceName", "InstanceTypeIds",
        "InstancesDistribution", "NamePrefix", "NetworkTrafficMode", "Period", "PreScript",
        "ProjectName", "PublicAccessConfig", "PublicAccessEnabled", "Security", "SpotStrategy",
        "SubnetIds", "SystemVolume", "Tags",
    }
)  # fmt: skip
#: definitions.InstancesDistribution.properties
INSTANCES_DISTRIBUTION = frozenset(
    {
        "CapacityRebalance",
        "CompensateWithOnDemand",
        "OnDemandBaseCapacity",
        "OnDemandPercentageAboveBaseCapacity",
    }
)
#: NodeConfig.SpotStrategy's enum, in order: no price-limit strategy
SPOT_STRATEGIES = ("NoSpot", "SpotAsPriceGo")
#: InstancesDistribution.OnDemandBaseCapacity: an integer, "Value range: [0,500]"
ON_DEMAND_BASE_CAPACITY_RANGE = (0, 500)
#: createOnlyProperties (the Terraform provider marks them RequiresReplaceIfConfigured)
CREATE_ONLY = (
    "/properties/NodeConfig/DeploymentSetGroupNumber",
    "/properties/NodeConfig/DeploymentSetId",
    "/properties/NodeConfig/SpotStrategy",
)
