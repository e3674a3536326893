"""``gpupool drift`` end to end against a Kubernetes API served from node objects.

A loopback HTTP server (127.0.0.1 only) answers ``GET /api/v1/nodes`` with a ``NodeList`` of
gpupool's own node documents (tests/fixtures/nodes/docs/; see its README), and a
kubeconfig in the test's temporary home points the stack's context at it. Everything between
is the product path: the CLI, stack validation, ``gpupool.cluster`` building a real
``CoreV1Api`` from the kubeconfig (kubernetes client ``config.new_client_from_config``), the
client's HTTP request and deserialiser, drift and the report. The only stand-in is the API
server; Pulumi is absent from PATH, so the cloud source is skipped and ``--require cluster``
makes the cluster source count.

The documents hold what GFD, HAMi and the agents write, not gpupool's own labels, so the
server lays the labels gpupool's node pools set (``facts.node_labels``) over each node, as
gpupool would have.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from gpupool.cli import run
from tests.node_docs import (
    ONPREM,
    load,
    node_list,
    own_labels,
    stack,
    stack_text,
    with_condition,
)

HAMI_POOL = (
    "{{name: rtx, nodeNames: [lab-rtx6000-01], gpu: {{model: RTX-PRO-6000, count: 1}},"
    " host: {{memoryGiB: 256}},"
    " sharing: {{mode: fractional, fractional: {{slotsPerGpu: {slots}}}}}}}"
)
H100_POOL = (
    "{name: h100, nodeNames: [lab-h100-01], gpu: {model: H100-SXM5-80GB, count: 1},"
    " host: {memoryGiB: 512}, sharing: {mode: exclusive}}"
)


class NodesApi(BaseHTTPRequestHandler):
    """Answers ``GET /api/v1/nodes`` with the server's node list and
    ``GET /apis/apps/v1/namespaces/<ns>/deployments/<name>`` with a Deployment of the server's
    ``deployments`` ((spec.replicas, status.readyReplicas) by (namespace, name)); 404 for
    anything else."""

    server: Any

    def do_GET(self) -> None:
        self.server.paths.append(self.path)
        path = urlsplit(self.path).path
        parts = path.strip("/").split("/")
        if parts[:4] == ["apis", "apps", "v1", "namespaces"] and len(parts) == 7:
            found = self.server.deployments.get((parts[4], parts[6]))
            if found is None:
                self.send_error(404)
                return
            self._send({"apiVersion": "apps/v1", "kind": "Deployment",
                        "metadata": {"name": parts[6], "namespace": parts[4]},
                        "spec": {"replicas": found[0], "selector": {}, "template": {}},
                        "status": {"readyReplicas": found[1]} if found[1] else {}})
            return
        if path != "/api/v1/nodes":
            self.send_error(404)
            return
        self._send(node_list(*self.server.nodes), self.server.answer)

    def _send(self, doc: Any, answer: tuple[str, bytes] | None = None) -> None:
        kind, body = "application/json", json.dumps(doc).encode()
        if answer is not None:  # what a proxy or a login page answers instead
            kind, body = answer
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Keep the test output quiet."""


@pytest.fixture
def api_server() -> Iterator[Any]:
    """A Kubernetes API stand-in on 127.0.0.1 (a free port), serving ``server.nodes``."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), NodesApi)
    server.nodes = []
    server.paths = []
    server.answer = None
    # the HAMi scheduler a stack under HAMi declares (one replica outside production), ready
    server.deployments = {("kube-system", "hami-scheduler"): (1, 1)}
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _kubeconfig(home: Path, url: str) -> None:
    """Write ``~/.kube/config`` in the test's empty home (conftest) with context ``lab``, the
    stack's ``provider.settings.context``, pointing at ``url``; KUBECONFIG stays unset."""
    kube = home / ".kube"
    kube.mkdir(parents=True, exist_ok=True)
    (kube / "config").write_text(
        json.dumps(  # JSON is YAML: the client reads it as a kubeconfig
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "lab", "cluster": {"server": url}}],
                "users": [{"name": "lab", "user": {"token": "loopback"}}],
                "contexts": [{"name": "lab", "context": {"cluster": "lab", "user": "lab"}}],
                "current-context": "lab",
            }
        )
    )


def _drift(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    server: Any,
    pool: tuple[str, str],
    *names: str,
    scheduler: str = "default",
    failure: dict[str, Any] | None = None,
    fmt: str = "text",
) -> int:
    """Serve the node documents ``names`` with gpupool's labels of ``pool`` (name, YAML line) and
    run ``gpupool drift`` on a stack of that one pool; ``failure`` puts one condition on each
    node (``tests.node_docs.with_condition``)."""
    name, line = pool
    own = own_labels(stack(ONPREM, line, scheduler=scheduler), name)
    for saved in names:
        doc = load(saved)
        node = (with_condition(doc, failure) if failure else doc)["node"]
        node["metadata"]["labels"] = {**node["metadata"].get("labels", {}), **own}
        server.nodes.append(node)
    _kubeconfig(Path(os.environ["HOME"]), f"http://127.0.0.1:{server.server_address[1]}")
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(var, raising=False)
    bin_dir = tmp_path / "bin"  # no pulumi on PATH: the cloud source is skipped
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))
    stack_file = tmp_path / "stack.yaml"
    stack_file.write_text(stack_text(ONPREM, line, scheduler=scheduler))
    return run(["drift", "--require", "cluster", "--format", fmt, str(stack_file)])


@pytest.mark.parametrize(
    ("slots", "code", "lines"),
    [
        (10, 0, ["No drift: stack real matches what runs"]),
        (
            5,
            2,
            [
                "HAMi splits each GPU into 10 vGPUs, expected 5",
                "allocatable nvidia.com/gpu is 10, expected 5",
            ],
        ),
    ],
    ids=["matching stack", "slots per GPU changed"],
)
def test_hami_lab_node_through_the_api(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    api_server: Any,
    slots: int,
    code: int,
    lines: list[str],
) -> None:
    """A lab node under HAMi (one RTX PRO 6000 split 10 ways, as HAMi's isolation lab shows:
    Project-HAMi/website tutorials/labs/hami-isolation-k3s.md): the CLI lists nodes over HTTP;
    the stack that declares the node exits 0, and declaring 5 slots per GPU where HAMi splits
    into 10 exits 2 naming the split and the allocatable count."""
    pool = ("rtx", HAMI_POOL.format(slots=slots))
    got = _drift(
        tmp_path, monkeypatch, api_server, pool, "hami-register-rtx-pro-6000", scheduler="hami"
    )
    out = capsys.readouterr().out
    assert got == code, out
    assert "source cluster: checked" in out
    for line in lines:
        assert line in out
    assert [urlsplit(p).path for p in api_server.paths] == [
        "/api/v1/nodes", "/apis/apps/v1/namespaces/kube-system/deployments/hami-scheduler"]


def test_a_scheduler_without_ready_replicas_is_drift_through_the_api(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    api_server: Any,
) -> None:
    """The stack's HAMi scheduler Deployment is read with the client's AppsV1Api over HTTP: none
    of its replicas ready is drift (exit 2), named at scheduler/<namespace>/<name>."""
    api_server.deployments = {("kube-system", "hami-scheduler"): (1, 0)}
    pool = ("rtx", HAMI_POOL.format(slots=10))
    got = _drift(tmp_path, monkeypatch, api_server, pool, "hami-rtx-pro-6000-lab", scheduler="hami")
    out = capsys.readouterr().out
    assert got == 2, out
    assert ("scheduler/kube-system/hami-scheduler: hami Deployment kube-system/hami-scheduler "
            "has 0 of 1 declared replicas ready; none is ready") in out


def test_resource_the_node_lacks_prints_missing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    api_server: Any,
) -> None:
    """The H100 document shows labels only (as NVIDIA's mig-node-labels.json does), no status: the
    report says the resource is missing, never 0.0 (issue 21, item 10), and nothing else
    drifts."""
    pool = ("h100", H100_POOL)
    assert _drift(tmp_path, monkeypatch, api_server, pool, "gfd-exclusive-h100") == 2
    out = capsys.readouterr().out
    assert "allocatable nvidia.com/gpu is missing, expected 1" in out
    assert "observed: nvidia.com/gpu: missing" in out
    assert "0.0" not in out
    assert "Drift: 1 difference(s)" in out


#: NVSentinel's GpuMemWatch as its e2e sees it after a DCGM memory error is injected (NVIDIA/
#: NVSentinel tests/gpu_health_monitor_test.go @1b4b4fe9; reason <check>IsNotHealthy, status
#: True: platform-connectors process_node_events.go), with a time as the API writes it.
GPU_MEM_WATCH = {
    "type": "GpuMemWatch",
    "status": "True",
    "reason": "GpuMemWatchIsNotHealthy",
    "message": "",
    "lastTransitionTime": "2026-08-20T08:30:12Z",
}


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_gpu_health_condition_alone_makes_drift_exit_2(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    api_server: Any,
    fmt: str,
) -> None:
    """The HAMi lab node with the stack that declares it exits 0 (above); the same node with
    NVSentinel's GpuMemWatch True exits 2, the condition reported as a fault in every format."""
    pool = ("rtx", HAMI_POOL.format(slots=10))
    got = _drift(
        tmp_path,
        monkeypatch,
        api_server,
        pool,
        "hami-register-rtx-pro-6000",
        scheduler="hami",
        failure=GPU_MEM_WATCH,
        fmt=fmt,
    )
    out = capsys.readouterr().out
    assert got == 2, out
    addr = "pool.rtx/node/lab-rtx6000-01/condition/GpuMemWatch"
    if fmt == "json":
        doc = json.loads(out)
        assert doc["status"] == "drift" and doc["drifted"] is True
        [item] = doc["items"]
        assert (item["source"], item["kind"], item["address"]) == ("cluster", "fault", addr)
        assert item["observed"]["reason"] == "GpuMemWatchIsNotHealthy"
        assert item["observed"]["lastTransitionTime"] == "2026-08-20T08:30:12Z"
    elif fmt == "markdown":
        assert f"| cluster (fault) | `{addr}` | NVSentinel condition GpuMemWatch is True" in out
        assert "1 finding(s)" in out
    else:
        assert f"  ! {addr}: NVSentinel condition GpuMemWatch is True" in out
        assert "Drift: 0 difference(s), 1 fault(s) in stack real." in out


@pytest.mark.parametrize(
    "answer",
    [
        ("application/json", b""),
        ("text/html", b"<!doctype html><html><body><form action='/login'>Sign in</form></body>"
                      b"</html>"),
        ("application/json", b'{"kind": "Status", "items": "none"}'),
        ("application/json", b'{"kind": "NodeList", "items": [{"metadata": 7}]}'),
        ("application/json", b"[1, 2, 3]"),
    ],
    ids=["empty body", "html login page", "items not a list", "node not an object", "a list"],
)
def test_an_answer_that_is_not_a_node_list_names_the_server(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    api_server: Any,
    answer: tuple[str, bytes],
) -> None:
    """Issue 27 item 5: an API server or proxy that answers 200 with an empty body or an HTML
    login page gave an internal error. The client cannot make a V1NodeList of it
    (kubernetes-client/python ``ApiClient.deserialize`` falls back to the raw text, which the
    model refuses); drift says the server did not answer with a node list, naming it."""
    api_server.answer = answer
    pool = ("rtx", HAMI_POOL.format(slots=10))
    got = _drift(tmp_path, monkeypatch, api_server, pool, "hami-rtx-pro-6000-lab",
                 scheduler="hami")
    cap = capsys.readouterr()
    shown = cap.out + cap.err
    assert got == 1, shown
    assert "internal error" not in shown and "Traceback" not in shown
    url = f"http://127.0.0.1:{api_server.server_address[1]}"
    assert f"The Kubernetes API server at {url} did not answer with a node list" in shown, shown
