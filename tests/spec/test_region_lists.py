"""Where AWS GPU types are offered: the catalog's region lists and the check that reads them.

The lists follow the Region column of skypilot-org/skypilot-catalog's AWS ``vms.csv`` (rows per
availability zone, from EC2's instance type offerings): catalogs/v8/aws/vms.csv at e385a0d3 for
p4d, p4de, p5, p5e, p5en and p6-b200, at 00148f2a for p6-b300, catalogs/v7/aws/vms.csv at
27f67dd4 for p3 and p3dn (gpupool/catalog/data/instances-aws.json, notes).
"""

from __future__ import annotations

import pytest

from gpupool import catalog
from gpupool.spec.validate import validate_text

STACK = """\
apiVersion: gpupool.io/v1
kind: GpuPoolStack
metadata: {{name: t}}
provider:
  cloud: {cloud}
  region: {region}
  cluster: c
  settings: {settings}
pools:
{pools}"""
AWS = '{subnetIds: [s-1], nodeRoleArn: "arn:aws:iam::123456789012:role/n"}'


def _codes(region: str, *types: str, cloud: str = "aws", settings: str = AWS) -> list[str]:
    pools = "".join(f"  - name: p{i}\n    instanceType: {t}\n    nodes: {{min: 0, max: 1}}\n"
                    for i, t in enumerate(types))
    text = STACK.format(cloud=cloud, region=region, settings=settings, pools=pools)
    return [d.code for d in validate_text(text, "s.yaml").diagnostics
            if d.code.startswith("catalog.")]


@pytest.mark.parametrize(("region", "codes"), [
    ("us-west-1", []),                                   # a vms.csv row: usw1-az3
    ("ap-southeast-3", []),                              # only in the v8 snapshot's rows
    ("eu-central-1", ["catalog.instance-not-in-region"]),  # no row in either snapshot
])
def test_p5_48xlarge_is_checked_against_its_listed_regions(region: str, codes: list[str]) -> None:
    """The H100 type had no list (nothing was said anywhere); now its region is checked."""
    assert _codes(region, "p5.48xlarge") == codes


def test_every_p_family_type_but_p6_b300_has_a_region_list() -> None:
    """p3..p6-b200 carry lists; p6-b300 has none (Karpenter's file prices it in us-east-1, where
    skypilot-catalog@00148f2a has no row for it: the sources disagree, so nothing is listed)."""
    missing = [i.name for i in catalog.instances("aws") if i.name.startswith("p") and not i.regions]
    assert missing == ["p6-b300.48xlarge"]
    assert _codes("eu-west-2", "p6-b300.48xlarge") == ["catalog.region-availability-unknown"]


def test_a_type_without_a_list_is_said_once_to_be_unchecked() -> None:
    """Two g5 pools and a listed type: one advice item for g5.xlarge, nothing for g6."""
    assert _codes("eu-west-3", "g5.xlarge", "g5.xlarge", "g6.xlarge") == [
        "catalog.region-availability-unknown"]


def test_a_type_priced_in_the_stacks_region_is_known_to_be_offered_there() -> None:
    """g5.xlarge has an on-demand price for us-east-1 (Karpenter's us-east-1 pricing file) and
    no region list: no advice there, where every fixture and example lives; elsewhere, one."""
    assert _codes("us-east-1", "g5.xlarge") == []
    assert _codes("us-west-2", "g5.xlarge") == ["catalog.region-availability-unknown"]


def test_no_advice_where_the_cloud_has_no_region_lists_at_all() -> None:
    """GCP's catalog lists no type's regions: every stack would get it, so none does."""
    settings = "{project: p}"
    assert _codes("us-central1", "g2-standard-4", cloud="gcp", settings=settings) == []
