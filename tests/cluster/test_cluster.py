"""gpupool.cluster on recorded-style NodeList responses (tests/fixtures/nodes).

The stand-in API serves each fixture through the real kubernetes client deserialiser, so
``read_gpu_nodes`` converts genuine ``V1Node`` objects, exactly as it does against a cluster.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from gpupool import cluster
from gpupool.cluster import ClusterUnavailableError, ObservedNode, parse_quantity, read_gpu_nodes
from gpupool.errors import GpupoolError
from tests.paths import FIXTURES

kubernetes = pytest.importorskip("kubernetes")
from kubernetes.client import ApiClient, V1NodeList  # noqa: E402
from kubernetes.client.exceptions import ApiException  # noqa: E402

NODES = FIXTURES / "nodes"
ALL_FIXTURES = sorted(p.name for p in NODES.glob("*.json"))


def deserialize_node_list(payload: dict[str, Any]) -> V1NodeList:
    """Turn a response body into V1NodeList with the client's own deserialiser."""
    api_client = ApiClient()
    text = json.dumps(payload)
    if "content_type" in inspect.signature(api_client.deserialize).parameters:
        return api_client.deserialize(text, "V1NodeList", "application/json")
    return api_client.deserialize(SimpleNamespace(data=text), "V1NodeList")  # client < 34


class RecordedCoreV1Api:
    """Serves recorded NodeList bodies, paging like the API server does with limit/continue."""

    def __init__(self, *fixtures: str, error: Exception | None = None) -> None:
        self.items: list[dict[str, Any]] = []
        self.resource_version = "1"
        for name in fixtures:
            body = json.loads((NODES / name).read_text())
            self.items.extend(body["items"])
            self.resource_version = body["metadata"]["resourceVersion"]
        self.error = error
        self.calls: list[dict[str, Any]] = []

    def list_node(self, **kwargs: Any) -> V1NodeList:
        self.calls.append(kwargs)
        if self.error is not None:
            raise self.error
        start = int(kwargs.get("_continue") or 0)
        limit = kwargs.get("limit") or len(self.items)
        page = self.items[start : start + limit]
        metadata: dict[str, Any] = {"resourceVersion": self.resource_version}
        if start + limit < len(self.items):
            metadata["continue"] = str(start + limit)
        return deserialize_node_list(
            {"apiVersion": "v1", "kind": "NodeList", "metadata": metadata, "items": page}
        )


def read(*fixtures: str) -> list[ObservedNode]:
    return read_gpu_nodes(api=RecordedCoreV1Api(*fixtures))


def by_name(nodes: list[ObservedNode]) -> dict[str, ObservedNode]:
    return {n.name: n for n in nodes}


def gpu_count(node: ObservedNode) -> int:
    return int(node.labels["nvidia.com/gpu.count"])


# --------------------------------------------------------------------------- scenarios


def test_exclusive_node_and_cpu_node_are_both_listed() -> None:
    nodes = read("exclusive.json")
    assert [n.name for n in nodes] == [
        "ip-10-0-3-17.ec2.internal",
        "ip-10-0-12-34.ec2.internal",
    ]
    cpu, gpu = nodes
    assert cpu.pool is None
    assert not any(k.startswith("nvidia.com/") for k in cpu.labels)
    assert cpu.allocatable_amount("nvidia.com/gpu") == 0.0

    assert gpu.pool == "train-a100"
    assert gpu.labels["nvidia.com/gpu.product"] == "NVIDIA-A100-SXM4-80GB"
    assert gpu.labels["nvidia.com/gpu.sharing-strategy"] == "none"
    assert gpu.labels["nvidia.com/gpu.replicas"] == "1"
    assert gpu_count(gpu) == 8
    assert gpu.allocatable["nvidia.com/gpu"] == "8"
    assert gpu.capacity["nvidia.com/gpu"] == "8"
    assert gpu.allocatable_amount("nvidia.com/gpu") == 8.0
    assert gpu.allocatable_amount("cpu") == pytest.approx(95.69)
    assert gpu.labels["node.kubernetes.io/instance-type"] == "p4de.24xlarge"
    assert gpu.ready is True and gpu.unschedulable is False


def test_time_slicing_multiplies_allocatable_by_replicas_and_marks_product_shared() -> None:
    nodes = by_name(read("time-slicing.json"))
    for node in nodes.values():
        replicas = int(node.labels["nvidia.com/gpu.replicas"])
        assert node.labels["nvidia.com/gpu.sharing-strategy"] == "time-slicing"
        assert replicas == 4 and gpu_count(node) == 4  # gpu.count stays the physical count
        assert node.labels["nvidia.com/gpu.product"] == "NVIDIA-L4-SHARED"
        assert node.labels["nvidia.com/device-plugin.config"] == "pool-infer-l4"
        assert node.allocatable_amount("nvidia.com/gpu") == gpu_count(node) * replicas
    assert nodes["ip-10-0-40-11.ec2.internal"].unschedulable is False
    cordoned = nodes["ip-10-0-41-92.ec2.internal"]
    assert cordoned.unschedulable is True and cordoned.ready is True


def test_mps_node() -> None:
    (node,) = read("mps.json")
    assert node.labels["nvidia.com/gpu.sharing-strategy"] == "mps"
    assert node.labels["nvidia.com/mps.capable"] == "true"
    assert node.labels["nvidia.com/device-plugin.config"] == "pool-batch-a10g"
    assert node.labels["nvidia.com/gpu.product"] == "NVIDIA-A10G-SHARED"
    replicas = int(node.labels["nvidia.com/gpu.replicas"])
    assert node.allocatable_amount("nvidia.com/gpu") == gpu_count(node) * replicas == 32


def test_mig_single_exposes_mig_devices_as_nvidia_com_gpu() -> None:
    (node,) = read("mig-single.json")
    labels = node.labels
    assert labels["nvidia.com/mig.strategy"] == "single"
    assert labels["nvidia.com/mig.config"] == "pool-infer-mig"
    assert labels["nvidia.com/mig.config.state"] == "success"
    assert labels["nvidia.com/gpu.product"] == "NVIDIA-A100-SXM4-80GB-MIG-1g.10gb"
    assert labels["nvidia.com/gpu.memory"] == "9728"
    assert labels["nvidia.com/gpu.slices.gi"] == "1"
    # 8 physical A100s x 7 instances of 1g.10gb
    assert gpu_count(node) == 56 == 7 * 8
    assert node.allocatable_amount("nvidia.com/gpu") == 56


def test_mig_mixed_exposes_one_resource_per_profile() -> None:
    (node,) = read("mig-mixed.json")
    labels = node.labels
    assert labels["nvidia.com/mig.strategy"] == "mixed"
    assert labels["nvidia.com/mig.config"] == "pool-research-mig"
    assert labels["nvidia.com/gpu.product"] == "NVIDIA-A100-SXM4-80GB"
    assert labels["nvidia.com/gpu.replicas"] == "0"
    assert node.allocatable_amount("nvidia.com/gpu") == 0
    profiles = {"1g.10gb": 16, "2g.20gb": 8, "3g.40gb": 8}
    slices = 0
    for profile, count in profiles.items():
        prefix = f"nvidia.com/mig-{profile}"
        assert labels[f"{prefix}.count"] == str(count)
        assert labels[f"{prefix}.product"] == f"NVIDIA-A100-SXM4-80GB-MIG-{profile}"
        assert node.allocatable_amount(prefix) == count
        slices += count * int(labels[f"{prefix}.slices.gi"])
    # the balanced layout uses all 7 compute slices of each of the 8 GPUs
    assert slices == 7 * gpu_count(node)


def test_failed_mig_reconfiguration_is_visible() -> None:
    (node,) = read("mig-failed.json")
    assert node.labels["nvidia.com/mig.config"] == "pool-infer-mig"
    assert node.labels["nvidia.com/mig.config.state"] == "failed"
    assert "-MIG-" not in node.labels["nvidia.com/gpu.product"]
    assert node.allocatable_amount("nvidia.com/gpu") == 8
    assert node.labels["nvidia.com/gpu.deploy.device-plugin"] == "true"


def test_wrong_instance_type_and_not_ready_node() -> None:
    nodes = by_name(read("wrong-instance-type.json"))
    good = nodes["ip-10-0-60-5.ec2.internal"]
    wrong = nodes["ip-10-0-61-23.ec2.internal"]
    assert good.pool == wrong.pool == "infer-a10g"
    assert good.labels["node.kubernetes.io/instance-type"] == "g5.xlarge"
    assert good.labels["nvidia.com/gpu.product"] == "NVIDIA-A10G"
    assert wrong.labels["node.kubernetes.io/instance-type"] == "g6.xlarge"
    assert wrong.labels["nvidia.com/gpu.product"] == "NVIDIA-L4"
    assert good.ready is True
    assert wrong.ready is False  # Ready=Unknown: the kubelet stopped reporting


def test_hami_node() -> None:
    (node,) = read("hami.json")
    assert node.labels["gpu"] == "on"
    assert node.pool == "shared-l40s"
    assert not any(k.startswith("nvidia.com/") for k in node.labels)
    devices = json.loads(node.annotations["hami.io/node-nvidia-register"])
    assert [d["count"] for d in devices] == [10, 10]
    assert node.allocatable_amount("nvidia.com/gpu") == sum(d["count"] for d in devices)
    assert node.annotations["hami.io/node-handshake"].startswith("Requesting_")


# --------------------------------------------------------------------------- label formats


SANITISED = re.compile(
    r"^[A-Za-z0-9_.-]+$"
)  # GFD sanitise(): [^A-Za-z0-9-_. ] dropped, spaces -> -
INTEGER = re.compile(r"^\d+$")
FULL_GPU_LABELS = ("product", "count", "replicas", "sharing-strategy", "memory")


@pytest.mark.parametrize("fixture", ALL_FIXTURES)
def test_fixture_labels_follow_the_gfd_formats(fixture: str) -> None:
    for node in read(fixture):
        labels = node.labels
        if "nvidia.com/gpu.product" not in labels:
            continue
        for key in FULL_GPU_LABELS:
            assert f"nvidia.com/gpu.{key}" in labels, (node.name, key)
        assert SANITISED.match(labels["nvidia.com/gpu.product"])
        for key in ("count", "memory", "replicas"):
            assert INTEGER.match(labels[f"nvidia.com/gpu.{key}"]), (node.name, key)
        strategy = labels["nvidia.com/gpu.sharing-strategy"]
        replicas = int(labels["nvidia.com/gpu.replicas"])
        assert strategy in {"none", "time-slicing", "mps"}
        # a strategy is only set when replicas > 1, and the product then says -SHARED
        assert (strategy != "none") == (replicas > 1)
        assert labels["nvidia.com/gpu.product"].endswith("-SHARED") == (replicas > 1)
        if replicas > 1:
            assert node.allocatable_amount("nvidia.com/gpu") == gpu_count(node) * replicas
        assert labels["nvidia.com/mig.capable"] in {"true", "false"}
        assert labels["nvidia.com/mps.capable"] == ("true" if strategy == "mps" else "false")
        assert labels.get("nvidia.com/mig.strategy", "single") in {"single", "mixed"}
        if "nvidia.com/mig.config.state" in labels:
            assert labels["nvidia.com/mig.config.state"] in {
                "pending",
                "rebooting",
                "success",
                "failed",
            }
            assert labels["nvidia.com/mig.capable"] == "true"
        for key, value in labels.items():
            if key.startswith("nvidia.com/mig-"):
                assert re.match(r"^nvidia\.com/mig-\d+g\.\d+gb\.[a-z.-]+$", key), key
                if key.endswith((".count", ".memory", ".replicas")):
                    assert INTEGER.match(value), key


def test_every_fixture_is_a_node_list_the_client_accepts() -> None:
    assert len(ALL_FIXTURES) == 8
    for name in ALL_FIXTURES:
        body = json.loads((NODES / name).read_text())
        assert (body["apiVersion"], body["kind"]) == ("v1", "NodeList")
        parsed = deserialize_node_list(body)
        assert isinstance(parsed, V1NodeList)
        assert all(item.metadata.name for item in parsed.items)


# --------------------------------------------------------------------------- mechanics


def test_pages_are_followed_with_continue_tokens(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cluster, "_PAGE_SIZE", 1)
    api = RecordedCoreV1Api("exclusive.json", "time-slicing.json")
    nodes = read_gpu_nodes(api=api)
    assert len(nodes) == 4
    assert [c.get("_continue") for c in api.calls] == [None, "1", "2", "3"]
    assert all(c["limit"] == 1 and "_request_timeout" in c for c in api.calls)


def test_observed_node_is_read_only_and_json_ready() -> None:
    node = read("mig-single.json")[0]
    with pytest.raises(TypeError):
        node.labels["gpupool.io/pool"] = "other"  # type: ignore[index]
    data = node.to_json()
    assert json.loads(json.dumps(data)) == data
    assert data["allocatable"]["nvidia.com/gpu"] == "56"


def test_conditions_and_taints_are_read_as_the_api_wrote_them() -> None:
    """Node conditions keep type, status, reason, message and lastTransitionTime (which the
    client parses into a datetime) as RFC 3339; taints keep key, value and effect; both go
    into the JSON shape."""
    node = by_name(read("time-slicing.json"))["ip-10-0-41-92.ec2.internal"]
    body = json.loads((NODES / "time-slicing.json").read_text())
    [raw] = [i for i in body["items"] if i["metadata"]["name"] == node.name]
    assert [c.to_json() for c in node.conditions] == [
        {k: c.get(k, "") for k in ("type", "status", "reason", "message", "lastTransitionTime")}
        for c in raw["status"]["conditions"]
    ]
    assert [(t.key, t.value, t.effect) for t in node.taints] == [
        (t["key"], t.get("value", ""), t["effect"]) for t in raw["spec"]["taints"]
    ]
    assert node.unschedulable
    data = node.to_json()
    assert data["conditions"][0]["lastTransitionTime"] == raw["status"]["conditions"][0][
        "lastTransitionTime"
    ]
    assert {"key": "node.kubernetes.io/unschedulable", "value": "", "effect": "NoSchedule"} in (
        data["taints"]
    )


def test_missing_status_and_spec_do_not_crash() -> None:
    api = RecordedCoreV1Api()
    api.items = [{"metadata": {"name": "bare"}}]
    (node,) = read_gpu_nodes(api=api)
    assert node == ObservedNode("bare", {}, {}, {}, unschedulable=False, ready=False)


# --------------------------------------------------------------------------- failures


@pytest.mark.parametrize(
    ("status", "reason", "words"),
    [
        (401, "Unauthorized", "rejected the credentials for context 'prod' (401 Unauthorized)"),
        (403, "Forbidden", "forbids listing nodes for context 'prod' (403 Forbidden)"),
        (500, "Internal Server Error", "failed for context 'prod': HTTP 500 Internal Server Error"),
    ],
)
def test_api_errors_become_one_sentence(status: int, reason: str, words: str) -> None:
    error = ApiException(status=status, reason=reason)
    api = RecordedCoreV1Api(error=error)
    with pytest.raises(ClusterUnavailableError) as caught:
        read_gpu_nodes(context="prod", api=api)
    message = str(caught.value)
    assert words in message
    assert message.endswith(".") and "\n" not in message
    assert isinstance(caught.value, GpupoolError) and caught.value.__cause__ is error


def test_connection_failure_from_a_stand_in_api() -> None:
    import urllib3

    error = urllib3.exceptions.MaxRetryError(None, "/api/v1/nodes", reason="timed out")
    with pytest.raises(ClusterUnavailableError, match=r"^Cannot reach the Kubernetes API server"):
        read_gpu_nodes(api=RecordedCoreV1Api(error=error))


def test_unrelated_exceptions_are_not_disguised() -> None:
    with pytest.raises(ZeroDivisionError):
        read_gpu_nodes(api=RecordedCoreV1Api(error=ZeroDivisionError("bug")))


def write_kubeconfig(path: Path, server: str) -> None:
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": "lab",
        "contexts": [{"name": "lab", "context": {"cluster": "lab", "user": "lab"}}],
        "clusters": [{"name": "lab", "cluster": {"server": server}}],
        "users": [{"name": "lab", "user": {"token": "not-a-real-token"}}],
    }
    path.write_text(json.dumps(config))


def test_no_kubeconfig_and_not_in_a_cluster(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "missing"))
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_PORT", raising=False)
    with pytest.raises(ClusterUnavailableError, match=r"^No Kubernetes configuration found"):
        read_gpu_nodes()


def test_unknown_context(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kubeconfig = tmp_path / "config"
    write_kubeconfig(kubeconfig, "https://127.0.0.1:1")
    monkeypatch.setenv("KUBECONFIG", str(kubeconfig))
    with pytest.raises(ClusterUnavailableError, match=r"^Kubernetes context 'staging' cannot"):
        read_gpu_nodes(context="staging")


def test_unreachable_server_through_the_real_client(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kubeconfig = tmp_path / "config"
    write_kubeconfig(kubeconfig, "https://127.0.0.1:1")  # nothing listens on port 1
    monkeypatch.setenv("KUBECONFIG", str(kubeconfig))
    with pytest.raises(ClusterUnavailableError) as caught:
        read_gpu_nodes(context="lab")
    message = str(caught.value)
    assert message.startswith(
        "Cannot reach the Kubernetes API server at https://127.0.0.1:1 for context 'lab'"
    )
    assert "\n" not in message


def test_missing_kubernetes_client(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "kubernetes", None)
    with pytest.raises(ClusterUnavailableError, match=r"pip install 'gpupool\[node\]'"):
        read_gpu_nodes(api=RecordedCoreV1Api())


def test_importing_gpupool_cluster_does_not_import_kubernetes() -> None:
    code = textwrap.dedent(
        """
        import sys
        import gpupool.cluster
        assert "kubernetes" not in sys.modules, "gpupool.cluster imported kubernetes"
        print("ok")
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


# --------------------------------------------------------------------------- quantities


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1", 1.0),
        ("8", 8.0),
        ("0", 0.0),
        ("500m", 0.5),
        ("95690m", 95.69),
        ("16Gi", 16 * 2**30),
        ("1176288164Ki", 1176288164 * 1024),
        ("482098735746", 482098735746.0),
        ("1k", 1000.0),
        ("2M", 2e6),
        ("1.5", 1.5),
        ("1e3", 1000.0),
        ("1E3", 1000.0),
        ("2E", 2e18),  # exa, not an exponent
        ("100u", 1e-4),
        ("-1", -1.0),
        (".5", 0.5),
    ],
)
def test_parse_quantity(text: str, value: float) -> None:
    assert parse_quantity(text) == pytest.approx(value)
    # the official client agrees
    assert float(kubernetes.utils.parse_quantity(text)) == pytest.approx(value)


@pytest.mark.parametrize("text", ["", "Gi", "1 Gi", "1gi", "1.2.3", "1KiB", "abc", "1e"])
def test_parse_quantity_rejects_garbage(text: str) -> None:
    with pytest.raises(ValueError, match="not a Kubernetes quantity"):
        parse_quantity(text)


def test_an_alias_built_kubeconfig_is_refused_before_the_client_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nine levels of ten aliases: a few hundred bytes, 10**9 values once expanded.

    The Kubernetes client names every merged entry after its whole content
    (kubernetes-client/python ``config/kube_config.py``, ``KubeConfigMerger._merge``:
    ``'{}/{}'.format(path, new_item)``), which never ends for such a file; gpupool reads the
    file with its own bounded loader first.
    """
    lines = ["apiVersion: v1", "kind: Config", "current-context: c", "x0: &x0 [1]"]
    for i in range(1, 10):
        lines.append(f"x{i}: &x{i} [" + ", ".join([f"*x{i - 1}"] * 10) + "]")
    lines += ["users: [{name: u, user: {token: t}}]",
              "contexts: [{name: c, context: {cluster: c, user: u}}]",
              "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1', x: *x9}}]"]
    kubeconfig = tmp_path / "config"
    kubeconfig.write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.setenv("KUBECONFIG", f"{tmp_path / 'missing'}{os.pathsep}{kubeconfig}")
    with pytest.raises(ClusterUnavailableError, match=r"expands to more than"):
        read_gpu_nodes()
