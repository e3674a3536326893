"""Volcengine VKE: what the rendered program does with the cluster it joins.

The rendered program is executed under Pulumi's mocks with the real ``pulumi_volcengine`` SDK
(``tests/pulumi_mocks.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpupool import assemble, render
from tests.pulumi_mocks import run_programs
from tests.stacks import load_stack

pytestmark = pytest.mark.cloud_sdks

GET_KUBECONFIGS = "volcengine:vke/getKubeconfigs:getKubeconfigs"


def _render(tmp_path: Path) -> Path:
    stack = load_stack("volcengine-a10.yaml")
    render.render(stack, assemble.build(stack), tmp_path / "out")
    return tmp_path / "out"


def test_program_fails_closed_when_the_cluster_has_no_kubeconfig(tmp_path: Path) -> None:
    # pulumi/pulumi-kubernetes PR #2180 ("Load default kubeconfig if not specified in
    # provider"): a provider whose kubeconfig is unset loads the ambient kubeconfig, and
    # vke.get_kubeconfigs (pulumi-volcengine v0.0.47 vke/get_kubeconfigs.py) lists no
    # kubeconfig for a cluster that has no Kubeconfig object. The program must stop there
    # instead of applying the GPU Operator to whatever cluster the local kubeconfig points at.
    [run] = run_programs(
        [_render(tmp_path)], calls={GET_KUBECONFIGS: {"kubeconfigs": [], "totalCount": 0}}
    )
    assert run.error is not None
    assert "has no kubeconfig" in run.error
    assert "will not fall back to the local kubeconfig" in run.error
    # nothing inside the cluster was registered with a fallback configuration
    k8s = [r for r in run.resources if r["type"] == "pulumi:providers:kubernetes"]
    assert all(r["inputs"].get("kubeconfig") for r in k8s)


def test_program_uses_the_public_kubeconfig_when_there_is_one(tmp_path: Path) -> None:
    [run] = run_programs([_render(tmp_path)])
    assert run.error is None, run.error
    [k8s] = run.by_type("pulumi:providers:kubernetes")
    assert k8s["inputs"]["kubeconfig"].startswith("apiVersion: v1")
    assert "kubeconfig" in k8s["secrets"]
