"""Hostile strings in every free-text field reach the program as data, byte for byte.

Each example puts quotes, newlines, backslashes, template syntax, unicode and a code-injection
attempt into the cluster name, region, subnets, node role, project, resource group, security
groups, kubeconfig context, stack labels, pool labels and taints of one stack per cloud (built
with ``dataclasses.replace``, since the schema forbids most of these characters). The rendered
programs must compile, and under Pulumi's mocks the resources must receive exactly those strings.
All stacks of one example run in one subprocess.
"""

from __future__ import annotations

import ast
import dataclasses
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gpupool import assemble, render
from gpupool.model import Stack, Taint
from tests.pulumi_mocks import run_programs
from tests.stacks import load_stack

pytestmark = pytest.mark.cloud_sdks  # needs the provider SDKs or kubernetes-validate

INJECTION = '"); import os; os.system("x'
NASTY = [
    INJECTION,
    "{{ 7 * 7 }}",
    "{% raw %}x{% endraw %}",
    "line\nbreak\r\n",
    "back\\slash\\",
    "'",
    '"""',
    "'''",
    "ünïcødé ☃ 𝔘",
    "\u2028\u2029\x85",
    "nul\x00byte",
    "# comment",
    "${HOME} $(id)",
    "\t",
]
FIELDS = (
    "cluster", "region", "subnet", "role", "project", "group", "sg", "context",
    "stack_label", "label_key", "label_value", "taint_key", "taint_value",
)  # fmt: skip
text = st.one_of(
    st.sampled_from(NASTY),
    st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=12),
)
record = st.fixed_dictionaries({f: text for f in FIELDS})
EXAMPLES = {
    "aws": "aws-inference-l4.yaml",
    "gcp": "gcp-training-h100-mig.yaml",
    "azure": "azure-kai-fair.yaml",
    "volcengine": "volcengine-a10.yaml",
    "kubernetes": "onprem-hami.yaml",
}


def load(cloud: str) -> Stack:
    return load_stack(EXAMPLES[cloud])


def hostile(cloud: str, h: dict[str, str]) -> Stack:
    stack = load(cloud)
    zoned = stack.provider.settings.subnet_zones  # aws: subnets with their zones
    settings_ = dataclasses.replace(
        stack.provider.settings,
        subnet_ids=() if zoned else (h["subnet"],),
        subnet_zones=tuple((h["subnet"], zone) for zone in stack.pools[0].zones) if zoned else (),
        node_role_arn=h["role"],
        project=h["project"],
        resource_group=h["group"],
        security_group_ids=(h["sg"],),
        context=h["context"],
    )
    provider = dataclasses.replace(
        stack.provider,
        cluster=h["cluster"] if cloud != "kubernetes" else None,
        region=h["region"] if cloud != "kubernetes" else None,
        settings=settings_,
    )
    pool = stack.pools[0]
    pool = dataclasses.replace(
        pool,
        labels={**pool.labels, "x-" + h["label_key"]: h["label_value"]},
        taints=(*pool.taints, Taint("t-" + h["taint_key"], h["taint_value"], "NoSchedule")),
    )
    return dataclasses.replace(
        stack,
        provider=provider,
        labels={**stack.labels, "hostile": h["stack_label"]},
        pools=(pool, *stack.pools[1:]),
    )


def first_pool(run, cloud: str) -> dict:
    types = {
        "aws": "aws:eks/nodeGroup:NodeGroup",
        "gcp": "gcp:container/nodePool:NodePool",
        "azure": "azure-native:containerservice:AgentPool",
        "volcengine": "volcengine:vke/nodePool:NodePool",
        "kubernetes": "kubernetes:core/v1:NodePatch",
    }
    name = {"aws": "infer-l4", "gcp": "train-h100", "azure": "a100", "volcengine": "a10",
            "kubernetes": "dgx-01"}[cloud]  # fmt: skip
    return run.get(types[cloud], name)["inputs"]


def check(cloud: str, run, h: dict[str, str]) -> None:
    assert run.error is None, run.error
    label, value = "x-" + h["label_key"], h["label_value"]
    taint_key, taint_value = "t-" + h["taint_key"], h["taint_value"]
    inputs = first_pool(run, cloud)
    calls = [c["args"] for c in run.calls]
    if cloud == "aws":
        assert inputs["clusterName"] == h["cluster"]
        assert inputs["region"] == h["region"]
        assert inputs["subnetIds"] == [h["subnet"]]
        assert inputs["nodeRoleArn"] == h["role"]
        assert inputs["labels"][label] == value
        assert {"key": taint_key, "value": taint_value, "effect": "NO_SCHEDULE"} in inputs["taints"]
        assert inputs["tags"]["hostile"] == h["stack_label"]
        assert calls == [{"name": h["cluster"], "region": h["region"]}]
    elif cloud == "gcp":
        assert (inputs["cluster"], inputs["location"]) == (h["cluster"], h["region"])
        assert inputs["project"] == h["project"]
        assert inputs["nodeConfig"]["labels"][label] == value
        assert {"key": taint_key, "value": taint_value, "effect": "NO_SCHEDULE"} in (
            inputs["nodeConfig"]["taints"]
        )
        assert inputs["nodeConfig"]["resourceLabels"]["hostile"] == h["stack_label"]
        assert calls == [{"name": h["cluster"], "location": h["region"], "project": h["project"]}]
    elif cloud == "azure":
        assert inputs["resourceName"] == h["cluster"]
        assert inputs["resourceGroupName"] == h["group"]
        assert inputs["nodeLabels"][label] == value
        assert f"{taint_key}={taint_value}:NoSchedule" in inputs["nodeTaints"]
        assert inputs["tags"]["hostile"] == h["stack_label"]
        assert calls == [{"resourceGroupName": h["group"], "resourceName": h["cluster"]}]
    elif cloud == "volcengine":
        assert inputs["nodeConfig"]["subnetIds"] == [h["subnet"]]
        assert inputs["nodeConfig"]["security"]["securityGroupIds"] == [h["sg"]]
        assert {"key": label, "value": value} in inputs["kubernetesConfig"]["labels"]
        assert {"key": taint_key, "value": taint_value, "effect": "NoSchedule"} in (
            inputs["kubernetesConfig"]["taints"]
        )
        assert {"key": "hostile", "value": h["stack_label"]} in inputs["tags"]
        assert (
            run.get("pulumi:providers:volcengine", "volcengine")["inputs"]["region"]
            == (h["region"])
        )
        assert {"name": h["cluster"]} in calls and {"ids": [h["cluster"]]} in calls
    else:
        assert inputs["metadata"]["labels"][label] == value
        assert run.get("pulumi:providers:kubernetes", "k8s")["inputs"]["context"] == h["context"]
    # stack labels reach the in-cluster objects too
    if cloud != "volcengine":
        namespaces = run.by_type("kubernetes:core/v1:Namespace")
        assert namespaces
        assert all(n["inputs"]["metadata"]["labels"]["hostile"] == h["stack_label"]
                   for n in namespaces)  # fmt: skip


def assert_only_data(main: str) -> None:
    """The program imports only pulumi, its SDKs and two stdlib modules, and never names os."""
    tree = ast.parse(main)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
            for name in names:
                assert name in ("json", "base64", "pulumi") or name.startswith("pulumi_"), name
        assert not (isinstance(node, ast.Name) and node.id in ("os", "eval", "exec")), node.id


FIXED = {f: NASTY[i % len(NASTY)] for i, f in enumerate(FIELDS)}


@settings(
    max_examples=3,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(record, min_size=len(EXAMPLES), max_size=len(EXAMPLES)))
@example([dict(FIXED) for _ in EXAMPLES])
@example([{f: INJECTION for f in FIELDS} for _ in EXAMPLES])
def test_hostile_strings_reach_the_program_as_data(records: list[dict[str, str]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        dirs = []
        for (cloud, _), h in zip(EXAMPLES.items(), records, strict=True):
            stack = hostile(cloud, h)
            out = Path(tmp) / cloud
            render.render(stack, assemble.build(stack), out)
            main = (out / "__main__.py").read_text(encoding="utf-8")
            compile(main, str(out / "__main__.py"), "exec")
            assert_only_data(main)
            dirs.append(out)
        runs = run_programs(dirs)
        for (cloud, _), h, run in zip(EXAMPLES.items(), records, runs, strict=True):
            check(cloud, run, h)
