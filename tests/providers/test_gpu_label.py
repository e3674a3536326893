"""The GPU label cluster-autoscaler waits on, on the node pools of pools that serve services.

cluster-autoscaler treats a new node as a GPU node still coming up, and does not add another,
only when the node carries its provider's GPU label before the device plugin advertises
``nvidia.com/gpu`` (kubernetes/autoscaler #1949, PR #461). AWS's node groups carry
``k8s.amazonaws.com/accelerator`` from gpupool on every GPU pool (``gpupool/providers/aws.py``)
and GKE labels its nodes ``cloud.google.com/gke-accelerator`` itself; the Azure provider reads
``accelerator`` (kubernetes/autoscaler ``cluster-autoscaler/cloudprovider/azure``, ``GPULabel``),
which AKS does not set, so gpupool sets it on the pools that serve services.
"""

from __future__ import annotations

from gpupool.providers import aws, common
from tests.paths import EXAMPLES
from tests.stacks import load_stack, load_stack_text

SERVICE = """
services:
  - name: detect
    tenant: team-apps
    pool: t4-spot
    fraction: 0.5
    replicas: {min: 1, max: 4}
    scaleOn: [{metric: queue-time-ratio, target: 1}]
"""


def _azure(with_service: bool) -> str:
    text = (EXAMPLES / "azure-kai-fair.yaml").read_text(encoding="utf-8")
    text = text.replace("kubeStateMetricsPoolLabel: true}",
                        'kubeStateMetricsPoolLabel: true, url: "http://prometheus:9090"}')
    return text + (SERVICE if with_service else "")


def test_an_aks_pool_that_serves_a_service_carries_the_autoscalers_gpu_label() -> None:
    stack = load_stack_text(_azure(True))
    served, other = stack.pool("t4-spot"), stack.pool("a100")
    assert served is not None and other is not None
    assert common.node_labels(stack, served)["accelerator"] == "nvidia"
    assert "accelerator" not in common.node_labels(stack, other)


def test_without_services_nothing_is_added() -> None:
    stack = load_stack_text(_azure(False))
    assert all("accelerator" not in common.node_labels(stack, p) for p in stack.pools)


def test_aws_node_groups_carry_their_gpu_label_already() -> None:
    """Nothing to add on AWS: every GPU node group has the label (gpupool/providers/aws.py)."""
    stack = load_stack("aws-inference-l4")
    assert stack.cloud.autoscaler_gpu_label is None
    groups = [r for r in aws.build(stack).resources if r.type == "aws:eks/nodeGroup:NodeGroup"]
    assert groups and all(aws.ACCELERATOR_LABEL in r.inputs["labels"] for r in groups)
