"""The sharing resources' inputs are accepted by the real pulumi-kubernetes SDK classes.

Each resource is constructed under ``pulumi.runtime.set_mocks`` (Pulumi's unit-test method) with
its ``inputs`` as keyword arguments; the mock records what the SDK would send to the engine. That
must carry the resource's type token, and for Kubernetes objects exactly the manifest (so no
keyword was dropped or renamed on the way).
"""

from __future__ import annotations

from typing import Any

import pulumi
import pytest

from gpupool import sharing
from gpupool.graph import CloudResult
from gpupool.model import Stack
from tests.paths import EXAMPLES, FIXTURES

pytestmark = pytest.mark.cloud_sdks  # needs the provider SDKs or kubernetes-validate

STACKS = sorted(EXAMPLES.glob("*.yaml")) + sorted((FIXTURES / "valid").glob("sharing-*.yaml"))


class _Recorder(pulumi.runtime.Mocks):
    def __init__(self) -> None:
        self.created: dict[tuple[str, str], dict[str, Any]] = {}

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
        self.created[(args.typ, args.name)] = dict(args.inputs)
        return f"{args.name}-id", dict(args.inputs)

    def call(self, args: pulumi.runtime.MockCallArgs) -> dict[str, Any]:
        return {}


def _sdk_class(type_token: str) -> Any:
    import pulumi_kubernetes as k8s

    classes = {
        "kubernetes:core/v1:ConfigMap": k8s.core.v1.ConfigMap,
        "kubernetes:core/v1:Namespace": k8s.core.v1.Namespace,
        "kubernetes:core/v1:ResourceQuota": k8s.core.v1.ResourceQuota,
        "kubernetes:scheduling.k8s.io/v1:PriorityClass": k8s.scheduling.v1.PriorityClass,
        "kubernetes:policy/v1:PodDisruptionBudget": k8s.policy.v1.PodDisruptionBudget,
        "kubernetes:helm.sh/v3:Release": k8s.helm.v3.Release,
        "kubernetes:scheduling.run.ai/v2:Queue": k8s.apiextensions.CustomResource,
        "kubernetes:monitoring.coreos.com/v1:PrometheusRule": k8s.apiextensions.CustomResource,
        "kubernetes:networking.gke.io/v1:GKENetworkParamSet": k8s.apiextensions.CustomResource,
        "kubernetes:networking.gke.io/v1:Network": k8s.apiextensions.CustomResource,
        "kubernetes:keda.sh/v1alpha1:ScaledObject": k8s.apiextensions.CustomResource,
        "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicy":
            k8s.admissionregistration.v1.ValidatingAdmissionPolicy,
        "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicyBinding":
            k8s.admissionregistration.v1.ValidatingAdmissionPolicyBinding,
    }
    return classes[type_token]


@pytest.mark.parametrize("example_stack", STACKS, ids=lambda p: p.stem, indirect=True)
def test_sdk_accepts_inputs(example_stack: Stack) -> None:
    pools = {p.name: ("n",) for p in example_stack.pools}
    resources = sharing.build(example_stack, CloudResult((), "cluster.k8s_provider", pools))
    mocks = _Recorder()
    pulumi.runtime.set_mocks(mocks, preview=False)
    try:
        objs = [_sdk_class(r.type)(r.name, **r.inputs) for r in resources]

        @pulumi.runtime.test
        def settle() -> Any:
            return pulumi.Output.all(*[o.urn for o in objs])

        settle()
    finally:
        pulumi.runtime.settings.reset_options()
    for r in resources:
        sent = mocks.created[(r.type, r.name)]
        if r.manifest is not None:
            assert sent == r.manifest, r.address
        else:
            assert sent["values"] == r.facts["values"]
            assert sent["chart"] == r.inputs["chart"]
            assert sent["version"] == r.inputs["version"]
            assert sent["namespace"] == r.inputs["namespace"]
