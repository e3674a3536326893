"""``gpupool render``: every example renders to a program that runs under Pulumi's mocks.

All programs of this module execute in one subprocess (``tests/pulumi_mocks.py``) with the real
provider SDKs: a wrong keyword, a wrong nested type or an unanswered invoke fails the run.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpupool import assemble, cli, outdir, render
from gpupool.errors import GpupoolError
from gpupool.render import program
from gpupool.spec.validate import validate_file
from tests.paths import EXAMPLES, FIXTURES, ROOT
from tests.pulumi_mocks import FAKE_KUBECONFIG, Run, run_programs
from tests.stacks import load_stack

pytestmark = pytest.mark.cloud_sdks  # needs the provider SDKs or kubernetes-validate

STACKS = sorted(EXAMPLES.glob("*.yaml")) + sorted((FIXTURES / "valid").glob("*.yaml"))
K8S = "pulumi:providers:kubernetes::k8s"
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
NODE_POOL = "gcp:container/nodePool:NodePool"
AGENT_POOL = "azure-native:containerservice:AgentPool"


class Rendered:
    """A rendered stack, its graph and what its program registered under the mocks."""

    def __init__(self, path: Path, out: Path) -> None:
        self.stack = load_stack(path)
        self.graph = assemble.build(self.stack)
        self.result = render.render(self.stack, self.graph, out)
        self.out = out
        self.run: Run

    def reg(self, address: str) -> dict:
        res = self.graph.get(address)
        assert res is not None, address
        return self.run.get(res.type, res.name)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Rendered]:
    base = tmp_path_factory.mktemp("render")
    out = {p.stem: Rendered(p, base / p.stem) for p in STACKS}
    runs = run_programs([r.out for r in out.values()])
    for r, run in zip(out.values(), runs, strict=True):
        r.run = run
    return out


@pytest.mark.parametrize("stem", [p.stem for p in STACKS])
def test_program_runs_and_registers_every_graph_resource(rendered, stem: str) -> None:
    r = rendered[stem]
    assert r.run.error is None, r.run.error
    assert len(r.run.resources) == len(r.graph.resources)
    names = {(x["type"], x["name"]) for x in r.run.resources}
    for res in r.graph.resources:
        assert (res.type, res.name) in names, res.address
        reg = r.reg(res.address)
        # explicit providers and dependencies arrive as declared
        if res.provider:
            prov = r.graph.get(res.provider)
            assert reg["provider"] == f"{prov.type}::{prov.name}", res.address
        else:
            assert reg["provider"] == "", res.address
        for dep in [*res.depends_on, *(ref.address for ref in res.refs())]:
            target = r.graph.get(dep)
            if target.type.startswith("pulumi:providers:"):
                continue
            assert f"{target.type}::{target.name}" in reg["dependencies"], (res.address, dep)
    # in-cluster objects all go through the cluster's Kubernetes provider
    for x in r.run.resources:
        if x["type"].startswith("kubernetes:"):
            assert x["provider"] == K8S, x["name"]


def test_aws_program(rendered) -> None:
    r = rendered["aws-inference-l4"]
    spot = r.reg("pool.batch-l4-spot.node_group")["inputs"]
    od = r.reg("pool.batch-l4-spot.on_demand_node_group")["inputs"]
    assert spot["capacityType"] == "SPOT" and od["capacityType"] == "ON_DEMAND"
    assert spot["instanceTypes"] == ["g6.2xlarge"]
    assert spot["amiType"] == "AL2023_x86_64_NVIDIA"
    assert spot["scalingConfig"] == {"desiredSize": 0, "maxSize": 14, "minSize": 0}
    assert od["scalingConfig"] == {"desiredSize": 2, "maxSize": 16, "minSize": 2}
    assert spot["subnetIds"] == ["subnet-0a1b2c3d4e5f60718", "subnet-0d4e5f60718293a4b"]
    assert spot["nodeRoleArn"] == "arn:aws:iam::123456789012:role/gpu-nodes"
    infer = r.reg("pool.infer-l4.node_group")["inputs"]
    assert infer["taints"] == [
        {"key": "gpupool.io/pool", "value": "infer-l4", "effect": "NO_SCHEDULE"}
    ]
    assert infer["labels"]["tier"] == "online"
    assert infer["labels"]["nvidia.com/device-plugin.config"] == "pool-infer-l4"
    assert infer["tags"] == {"cost-center": "4711", "team": "ml-platform"}
    cm = r.reg("cluster.autoscaler_priority_expander")
    assert cm["inputs"]["metadata"]["namespace"] == "kube-system"
    assert "^eks-batch-l4-spot-" in cm["inputs"]["data"]["priorities"]
    kubeconfig = json.loads(r.reg("cluster.k8s_provider")["inputs"]["kubeconfig"])
    exec_ = kubeconfig["users"][0]["user"]["exec"]
    assert exec_["command"] == "aws"
    assert exec_["args"][:4] == ["eks", "get-token", "--cluster-name", "ml-prod"]
    assert kubeconfig["clusters"][0]["cluster"]["server"] == "https://eks.example"
    assert kubeconfig["clusters"][0]["cluster"]["certificate-authority-data"] == "Q0EtREFUQQ=="
    assert [c["args"] for c in r.run.calls] == [{"name": "ml-prod", "region": "us-east-1"}]


def test_aws_compact_program(rendered) -> None:
    r = rendered["aws-training-compact"]
    pg = r.reg("pool.h100-island.placement_group")
    assert pg["inputs"]["strategy"] == "cluster"
    lt = r.reg("pool.h100-island.launch_template")
    assert lt["inputs"]["placement"] == {"groupName": "h100-island"}
    ng = r.reg("pool.h100-island.node_group")
    # the launch template's id, and its latest version as a string
    assert ng["inputs"]["launchTemplate"] == {"id": "h100-island-id", "version": "3"}
    assert "aws:ec2/launchTemplate:LaunchTemplate::h100-island" in ng["dependencies"]
    mig = r.reg("pool.a100-mig.node_group")["inputs"]
    assert mig["labels"]["nvidia.com/mig.config"] == "pool-a100-mig"


def test_aws_efa_program(rendered) -> None:
    # Run with pulumi-aws 7.51.1 under the mocks: the EFA security group lands in the cluster's
    # VPC and every launch-template interface carries the cluster security group, both read from
    # aws.eks.get_cluster (pulumi_aws eks/outputs.py GetClusterVpcConfigResult vpc_id,
    # cluster_security_group_id), and the pool's EFA group.
    r = rendered["aws-training-compact"]
    sg = r.reg("pool.h100-island.efa_security_group")
    assert sg["inputs"]["vpcId"] == "vpc-0mock"
    rule = {"protocol": "-1", "fromPort": 0, "toPort": 0, "self": True}
    for direction in ("ingress", "egress"):
        [got] = sg["inputs"][direction]
        assert {k: got[k] for k in rule} == rule
    lt = r.reg("pool.h100-island.launch_template")
    nics = lt["inputs"]["networkInterfaces"]
    assert len(nics) == 32
    assert {tuple(n["securityGroups"]) for n in nics} == {("sg-0mockcluster", "h100-island-efa-id")}
    assert "aws:ec2/securityGroup:SecurityGroup::h100-island-efa" in lt["dependencies"]
    assert r.reg("helm.aws-efa-k8s-device-plugin")["inputs"]["chart"] == "aws-efa-k8s-device-plugin"


def test_nvsentinel_program(rendered) -> None:
    # pulumi-kubernetes 4.34.2 helm.v3.Release under the mocks: the OCI chart is the chart
    # reference itself with no repository (NVIDIA/NVSentinel v1.19.0 README: helm install
    # nvsentinel oci://ghcr.io/nvidia/nvsentinel --version v1.19.0), into the Namespace gpupool
    # renders, after the GPU Operator whose DCGM it reads.
    r = rendered["sharing-nvsentinel-drain"]
    reg = r.reg("helm.nvsentinel")
    inputs = reg["inputs"]
    assert inputs["chart"] == "oci://ghcr.io/nvidia/nvsentinel"
    assert inputs["version"] == "v1.19.0"
    assert inputs["namespace"] == "nvsentinel"
    assert "repositoryOpts" not in inputs
    assert inputs["values"] == r.graph.get("helm.nvsentinel").inputs["values"]
    assert inputs["values"]["global"]["nodeDrainer"] == {"enabled": True}
    assert "kubernetes:core/v1:Namespace::nvsentinel" in reg["dependencies"]
    assert "kubernetes:helm.sh/v3:Release::gpu-operator" in reg["dependencies"]
    operator = r.reg("helm.gpu-operator")["inputs"]["values"]
    assert operator["dcgm"] == {"enabled": True}
    assert (r.out / "manifests" / "k8s.namespace.nvsentinel.yaml").is_file()
    readme = (r.out / "README.md").read_text(encoding="utf-8")
    assert "## GPU fault isolation: NVSentinel" in readme
    assert '"Beta / Stable"' in readme
    assert "Action `drain`" in readme and "node-drainer then evicts" in readme
    assert "cert-manager (kind Certificate, cert-manager.io/v1)" in readme
    monitor = (rendered["nvsentinel-dry-run-monitor"].out / "README.md").read_text("utf-8")
    assert "Action `monitor`: that is all." in monitor and "Dry run" not in monitor
    plain = (rendered["aws-inference-l4"].out / "README.md").read_text(encoding="utf-8")
    assert "NVSentinel" not in plain


def test_gcp_programs(rendered) -> None:
    r = rendered["gcp-training-h100-mig"]
    h100 = r.reg("pool.train-h100.node_group")["inputs"]
    accel = h100["nodeConfig"]["guestAccelerators"][0]
    assert accel["type"] == "nvidia-h100-80gb" and accel["count"] == 8
    assert accel["gpuDriverInstallationConfig"] == {"gpuDriverVersion": "DEFAULT"}
    assert h100["placementPolicy"] == {"type": "COMPACT"}
    compact = rendered["clouds-gpudirect-not-configured"].reg("pool.a2.node_group")["inputs"]
    assert compact["placementPolicy"] == {"type": "COMPACT"}
    assert "networkConfig" not in compact
    assert h100["autoscaling"]["totalMaxNodeCount"] == 4
    assert h100["nodeConfig"]["taints"][0]["effect"] == "NO_SCHEDULE"
    mig = r.reg("pool.exp-a100-mig.node_group")["inputs"]
    assert mig["nodeConfig"]["spot"] is True
    assert mig["nodeConfig"]["guestAccelerators"][0]["gpuPartitionSize"] == "3g.40gb"
    kubeconfig = json.loads(r.reg("cluster.k8s_provider")["inputs"]["kubeconfig"])
    assert kubeconfig["users"][0]["user"]["exec"]["command"] == "gke-gcloud-auth-plugin"
    assert kubeconfig["clusters"][0]["cluster"]["server"] == "https://10.0.0.1"
    shared = rendered["gcp-inference-sharing"]
    ts = shared.reg("pool.l4-shared.node_group")["inputs"]["nodeConfig"]["guestAccelerators"][0]
    assert ts["gpuSharingConfig"] == {
        "gpuSharingStrategy": "TIME_SHARING",
        "maxSharedClientsPerGpu": 4,
    }
    mps = shared.reg("pool.l4-mps.node_group")["inputs"]["nodeConfig"]["guestAccelerators"][0]
    assert mps["gpuSharingConfig"]["gpuSharingStrategy"] == "MPS"
    operator = rendered["sharing-gke-operator-driver"]
    config = operator.reg("pool.sliced.node_group")["inputs"]["nodeConfig"]
    assert config["imageType"] == "UBUNTU_CONTAINERD"
    assert config["labels"]["gke-no-default-nvidia-gpu-device-plugin"] == "true"


def test_gke_gpudirect_networks_reach_the_node_pools_and_the_cluster(rendered) -> None:
    # GKE docs gpu-bandwidth-gpudirect-tcpx: the node pool gets one additional node network per
    # GPU NIC and gVNIC; the cluster a GKENetworkParamSet and a Device Network per VPC network
    # (networking.gke.io/v1, sent as CustomResource by pulumi-kubernetes)
    r = rendered["gpudirect-networks"]
    for address in ("pool.a3-high.node_group", "pool.a3-high-spot.on_demand_node_group"):
        inputs = r.reg(address)["inputs"]
        nets = inputs["networkConfig"]["additionalNodeNetworkConfigs"]
        assert nets == [
            {"network": f"tcpx-net-{i}", "subnetwork": f"tcpx-sub-{i}"} for i in range(1, 5)
        ], address
        assert inputs["nodeConfig"]["gvnic"] == {"enabled": True}
    mega = r.reg("pool.a3-mega.node_group")["inputs"]["networkConfig"]
    assert len(mega["additionalNodeNetworkConfigs"]) == 8
    gnp = r.reg("k8s.gkenetworkparamset.tcpxo-net-8")
    assert gnp["inputs"]["apiVersion"] == "networking.gke.io/v1"
    assert gnp["inputs"]["spec"] == {
        "vpc": "tcpxo-net-8", "vpcSubnet": "tcpxo-sub-8", "deviceMode": "NetDevice"
    }  # fmt: skip
    network = r.reg("k8s.network.tcpxo-net-8")
    assert network["inputs"]["spec"]["parametersRef"]["name"] == "tcpxo-net-8"
    assert "kubernetes:networking.gke.io/v1:GKENetworkParamSet::tcpxo-net-8" in (
        network["dependencies"]
    )
    readme = (r.out / "README.md").read_text(encoding="utf-8")
    assert "--enable-dataplane-v2 --enable-multi-networking" in readme
    assert "gpudirect-tcpxo/nccl-tcpxo-installer.yaml" in readme
    assert (r.out / "manifests" / "k8s.network.tcpx-net-1.yaml").is_file()
    snippet = yaml.safe_load((r.out / "snippets" / "llm--a3-high.yaml").read_text("utf-8"))
    assert "networking.gke.io/interfaces" in snippet["metadata"]["annotations"]


def test_azure_programs(rendered) -> None:
    r = rendered["azure-kai-fair"]
    spot = r.reg("pool.t4-spot.node_group")["inputs"]
    assert spot["scaleSetPriority"] == "Spot" and spot["scaleSetEvictionPolicy"] == "Delete"
    assert spot["spotMaxPrice"] == 0.6
    assert spot["resourceName"] == "shared-aks"
    assert spot["resourceGroupName"] == "rg-ml-platform"
    assert "kubernetes.azure.com/scalesetpriority=spot:NoSchedule" in spot["nodeTaints"]
    assert spot["vmSize"] == "Standard_NC16as_T4_v3"
    od = r.reg("pool.t4-spot.on_demand_node_group")["inputs"]
    assert "scaleSetPriority" not in od
    kube = r.reg("cluster.k8s_provider")
    assert kube["inputs"]["kubeconfig"] == FAKE_KUBECONFIG
    assert kube["secrets"] == ["kubeconfig"]
    mixed = rendered["azure-mig-compact"]
    assert mixed.reg("pool.notebooks.node_group")["inputs"]["gpuInstanceProfile"] == "MIG1g"
    nd = mixed.reg("pool.nd-train.node_group")
    assert nd["inputs"]["proximityPlacementGroupID"] == "nd-train-id"
    assert "azure-native:compute:ProximityPlacementGroup::nd-train" in nd["dependencies"]
    assert mixed.reg("pool.t4-mps.node_group")["inputs"]["nodeLabels"]["tier"] == "online"


def test_volcengine_program(rendered) -> None:
    r = rendered["volcengine-a10"]
    assert r.reg("cloud.provider")["inputs"]["region"] == "cn-beijing"
    np_ = r.reg("pool.a10.node_group")
    assert np_["provider"] == "pulumi:providers:volcengine::volcengine"
    inputs = np_["inputs"]
    assert inputs["clusterId"] == "cc-mock-id"
    assert inputs["nodeConfig"]["instanceTypeIds"] == ["ecs.gni2.3xlarge"]
    assert inputs["nodeConfig"]["subnetIds"] == ["subnet-2fe79j7b4vgg059gp68s8yoxy"]
    assert inputs["nodeConfig"]["security"] == {
        "securityGroupIds": ["sg-1v9zvjkmx14w51j8ehbxrq8u7"]
    }
    assert {"key": "gpupool.io/pool", "value": "a10"} in inputs["kubernetesConfig"]["labels"]
    assert inputs["kubernetesConfig"]["taints"][0]["effect"] == "NoSchedule"
    assert inputs["autoScaling"]["maxReplicas"] == 6
    kube = r.reg("cluster.k8s_provider")
    assert kube["inputs"]["kubeconfig"] == FAKE_KUBECONFIG
    assert kube["secrets"] == ["kubeconfig"]
    tokens = sorted(c["token"] for c in r.run.calls)
    assert tokens[-1] == "volcengine:vke/getKubeconfigs:getKubeconfigs"
    assert all(c["provider"].endswith("-id") for c in r.run.calls)  # the explicit provider


def test_kubernetes_program(rendered) -> None:
    r = rendered["onprem-hami"]
    patch = r.reg("pool.dgx.node.dgx-02")
    meta = patch["inputs"]["metadata"]
    assert meta["name"] == "dgx-02"
    assert meta["labels"]["gpupool.io/pool"] == "dgx" and meta["labels"]["gpu"] == "on"
    assert meta["annotations"] == {"pulumi.com/patchForce": "true"}
    assert "spec" not in patch["inputs"]
    kube = r.reg("cluster.k8s_provider")["inputs"]
    assert kube["context"] == "lab-admin"
    assert "kubeconfig" not in kube  # the ambient kubeconfig; the test runs without one
    assert r.run.calls == []


def test_rendering_is_byte_identical(rendered, tmp_path: Path) -> None:
    for stem, r in rendered.items():
        again = render.render(r.stack, assemble.build(r.stack), tmp_path / "elsewhere" / stem)
        first = {p.relative_to(r.result.out_dir): p.read_bytes() for p in r.result.files}
        second = {p.relative_to(again.out_dir): p.read_bytes() for p in again.files}
        assert first == second, stem


def test_program_files(rendered) -> None:
    r = rendered["aws-inference-l4"]
    files = {p.relative_to(r.result.out_dir).as_posix() for p in r.result.files}
    assert {"Pulumi.yaml", "__main__.py", "requirements.txt", "README.md"} <= files
    assert any(f.startswith("snippets/") for f in files)
    assert any(f.startswith("manifests/") for f in files)
    main = (r.out / "__main__.py").read_text(encoding="utf-8")
    compile(main, "__main__.py", "exec")
    imports = [line for line in main.splitlines() if line.startswith(("import ", "from "))]
    assert imports == [
        "import json",
        "import pulumi",
        "import pulumi_aws as aws",
        "import pulumi_kubernetes as k8s",
    ]
    assert "gpupool" not in "".join(imports)
    assert "# pool batch-l4-spot: aws:eks/nodeGroup:NodeGroup (spot)" in main
    assert str(r.out) not in main and str(ROOT) not in main
    project = (r.out / "Pulumi.yaml").read_text(encoding="utf-8")
    assert 'name: "inference-prod"' in project and "runtime: python" in project
    reqs = (r.out / "requirements.txt").read_text(encoding="utf-8").splitlines()
    assert reqs[1:] == ["pulumi==3.272.0", "pulumi-aws==7.51.1", "pulumi-kubernetes==4.34.2"]


@pytest.mark.parametrize("dist", sorted(render.SDK_PINS))
def test_pins_are_the_versions_the_tests_ran(dist: str) -> None:
    assert importlib.metadata.version(dist) == render.SDK_PINS[dist]


def test_paths_never_escape_and_stale_files_go(rendered, tmp_path: Path) -> None:
    root = tmp_path.resolve()
    for bad in ("../x", "/etc/passwd", "a/../../x", "", "a\\b"):
        with pytest.raises(render.RenderError):
            outdir._inside(root, bad)
    (root / "link").symlink_to(tmp_path.parent)
    with pytest.raises(render.RenderError):
        outdir._inside(root, "link/x")
    r = rendered["aws-inference-l4"]
    out = tmp_path / "out"
    render.render(r.stack, r.graph, out)
    stale = out / "snippets" / "gone.yaml"
    stale.write_text("x", encoding="utf-8")
    index = out / ".gpupool-files"
    written = index.read_text(encoding="utf-8")
    index.write_text(written + "snippets/gone.yaml\n../outside\n", encoding="utf-8")
    mine = out / "notes.txt"
    mine.write_text("user file", encoding="utf-8")
    with pytest.raises(render.RenderError):  # an index entry that escapes is refused...
        render.render(r.stack, r.graph, out)
    assert stale.exists()  # ...before anything it lists is removed
    index.write_text(written + "snippets/gone.yaml\n", encoding="utf-8")
    render.render(r.stack, r.graph, out)
    assert not stale.exists() and mine.exists()
    assert index.read_text(encoding="utf-8") == written


def test_literal_rejects_what_has_no_literal_form() -> None:
    text = program.Program()
    with pytest.raises(render.RenderError):
        text.literal(float("nan"))
    with pytest.raises(render.RenderError):
        text.literal({1: "x"})
    with pytest.raises(render.RenderError):
        text.literal(object())
    with pytest.raises(render.RenderError):
        render.constructor_of("random:index/randomId:RandomId")
    assert render.constructor_of("kubernetes:scheduling.run.ai/v2:Queue")[1] == (
        "k8s.apiextensions.CustomResource"
    )
    assert render.constructor_of("kubernetes:rbac.authorization.k8s.io/v1:Role")[1] == (
        "k8s.rbac.v1.Role"
    )
    assert issubclass(render.RenderError, GpupoolError)


def test_cli_render(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stack = tmp_path / "stack.yaml"
    stack.write_text(
        (EXAMPLES / "volcengine-a10.yaml").read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert cli.run(["render", "stack.yaml"]) == 0
        out = capsys.readouterr().out.splitlines()
        assert out[0].startswith("Rendered ")
        assert out[0].endswith(" files to .gpupool/build/vke-infer")
        assert out[1:] == ["Next: cd .gpupool/build/vke-infer && pulumi preview"]
        assert (tmp_path / ".gpupool/build/vke-infer/__main__.py").is_file()
        assert cli.run(["render", "stack.yaml", "--out", "prog", "--format", "json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert doc["next"] == "cd prog && pulumi preview"
        assert "__main__.py" in doc["files"]
        stack.write_text("apiVersion: gpupool.io/v1\nkind: GpuPoolStack\n", encoding="utf-8")
        assert cli.run(["render", "stack.yaml", "--out", "bad"]) == 1
        captured = capsys.readouterr()
        assert "error" in captured.err and captured.out == ""
        assert not (tmp_path / "bad").exists()
        assert cli.run(["render"]) == 64
    finally:
        os.chdir(cwd)


def test_the_longest_names_render_within_what_a_file_system_takes(tmp_path: Path) -> None:
    """A 253-character node name (Kubernetes' limit, RFC 1123 subdomain) in a 40-character pool.

    The manifest of each node is a file named after its address, longer than the 255 bytes a
    path component may have (NAME_MAX on Linux; APFS and NTFS take 255 characters): it gets a
    shortened name with a digest of the whole address, so two long names stay two files.
    """
    pool = "p" * 40
    first, second = "n" * 252 + "a", "n" * 252 + "b"
    text = (EXAMPLES / "onprem-hami.yaml").read_text("utf-8")
    text = text.replace("nodeNames: [dgx-01, dgx-02]", f"nodeNames: [{first}, {second}]")
    text = text.replace("- name: dgx\n", f"- name: {pool}\n")
    text = text.replace("pools: [dgx]", f"pools: [{pool}]")
    text = text.replace("value: dgx,", f"value: {pool},")
    stack = load_stack(_write(tmp_path / "long.yaml", text))
    out = tmp_path / "out"
    graph = assemble.build(stack)
    render.render(stack, graph, out)
    assert max(len(p.name.encode()) for p in out.rglob("*")) <= 255
    manifests = list((out / "manifests").iterdir())
    assert len(manifests) == sum(1 for r in graph.resources if r.manifest is not None)
    nodes = [p for p in manifests if p.name.startswith(f"pool.{pool}.node.")]
    assert len(nodes) == 2
    assert {first, second} == {n for n in (first, second) for p in nodes
                               if f"name: {n}" in p.read_text("utf-8")}


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _every_manifest() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for path in STACKS:
        stack = validate_file(path).stack
        if stack is not None:
            out += [r.manifest for r in assemble.build(stack).resources if r.manifest]
    return out


def test_manifests_are_the_same_bytes_with_or_without_libyaml() -> None:
    """render uses libyaml's emitter where PyYAML has it; a machine without gets the same files.

    The two emitters fold long scalars at different places (PyYAML's emitter.py vs libyaml's
    emitter.c), so manifests are written with lines never folded, where they agree.
    """
    if not getattr(yaml, "__with_libyaml__", False):
        pytest.skip("PyYAML without libyaml: only one emitter to compare")
    manifests = _every_manifest()
    assert len(manifests) > 300
    for manifest in manifests:
        python = render.manifest_yaml(manifest, yaml.SafeDumper)
        assert render.manifest_yaml(manifest, yaml.CSafeDumper) == python
        assert yaml.safe_load(python) == manifest
    long_value = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"},
                  "data": {"k": "a b " * 2000}}  # fmt: skip
    assert render.manifest_yaml(long_value).count("\n") == 6  # 6 keys, 6 lines
