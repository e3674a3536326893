"""AWS's EFA device plugin release and the EFA request in the workload snippets."""

from __future__ import annotations

import dataclasses

import yaml

from gpupool import assemble, sharing
from gpupool.facts.network import EFA_RESOURCE
from gpupool.model import Stack
from gpupool.sharing import efa
from tests.stacks import load_stack


def _releases(stack: Stack) -> list:
    return [r for r in assemble.build(stack).resources if r.address.startswith("helm.")]


def test_efa_pools_get_the_device_plugin_with_their_tolerations() -> None:
    # EKS user guide "Manage EFA devices on Amazon EKS": the AL2023 NVIDIA AMI has EFA's host
    # components but not the device plugin, which advertises vpc.amazonaws.com/efa. aws/eks-charts
    # stable/aws-efa-k8s-device-plugin templates/daemonset.yaml tolerates only CriticalAddonsOnly
    # plus .Values.tolerations, so a tainted pool's nodes need the pool's toleration there.
    stack = load_stack("aws-training-compact.yaml")
    [release] = [r for r in _releases(stack) if r.address == "helm.aws-efa-k8s-device-plugin"]
    assert release.inputs["chart"] == "aws-efa-k8s-device-plugin"
    assert release.inputs["repository_opts"] == {"repo": "https://aws.github.io/eks-charts"}
    assert release.inputs["version"] == "v0.5.30"
    assert release.inputs["namespace"] == "kube-system"
    assert release.inputs["values"] == {
        "tolerations": [
            {
                "key": "nvidia.com/gpu",
                "operator": "Equal",
                "value": "present",
                "effect": "NoSchedule",
            }
        ]
    }
    # the chart's own instance-type affinity stays: gpupool sets no supportedInstanceLabels
    assert set(release.inputs["values"]) == {"tolerations"}


def test_no_device_plugin_without_efa_pools() -> None:
    for name in (
        "aws-inference-l4.yaml",
        "gcp-training-h100-mig.yaml",
        "clouds-gpudirect-not-configured.yaml",
    ):
        stack = load_stack(name)
        assert efa.values(stack) == {"tolerations": []}
        assert "helm.aws-efa-k8s-device-plugin" not in {r.address for r in _releases(stack)}
    compact = load_stack("aws-training-compact.yaml")
    spread = dataclasses.replace(
        compact, pools=tuple(dataclasses.replace(p, topology=None) for p in compact.pools)
    )
    assert "helm.aws-efa-k8s-device-plugin" not in {r.address for r in _releases(spread)}


def test_efa_snippet_takes_whole_nodes_with_every_interface() -> None:
    # EKS user guide "Manage EFA devices on Amazon EKS": a pod asks for EFA devices as
    # vpc.amazonaws.com/efa in its requests and limits; a multi-node job over EFA runs one pod per
    # node with all of its GPUs and all of its EFA interfaces (32 on p5.48xlarge).
    stack = load_stack("aws-training-compact.yaml")
    text = sharing.workload_snippets(stack)["snippets/foundation--h100-island.yaml"]
    limits = yaml.safe_load(text)["spec"]["containers"][0]["resources"]["limits"]
    assert limits == {"nvidia.com/gpu": 8, EFA_RESOURCE: 32}
    assert "32 EFA interfaces" in text
    # the MIG pool is not compact: no EFA request
    mig = sharing.workload_snippets(stack)["snippets/experiments--a100-mig.yaml"]
    assert EFA_RESOURCE not in mig
