"""Run rendered Pulumi programs under ``pulumi.runtime.set_mocks`` and record what they register.

Usage from tests::

    from tests.pulumi_mocks import run_programs
    [run] = run_programs([out_dir])
    run.resources   # [{"type", "name", "inputs", "provider", "dependencies", "secrets", "urn"}]
    run.calls       # [{"token", "args", "provider"}, ...]
    run.by_type("aws:eks/nodeGroup:NodeGroup")
    [run] = run_programs([out_dir], calls={"volcengine:vke/getKubeconfigs:getKubeconfigs": {...}})

Each batch of programs runs in one fresh subprocess (``python tests/pulumi_mocks.py``), so
Pulumi's process-wide state never leaks between tests; inside the subprocess the programs run one
after the other, each with a new mock monitor and a reset root stack. The mocks check argument
names and types against the real provider SDKs (an unknown keyword fails the constructor) and
answer every invoke the rendered helpers make (``calls`` replaces answers of ``CALLS`` for one
batch); an unknown invoke token fails the run. The child gets a clean environment: no kubeconfig,
no cloud credentials or regions.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()

FAKE_KUBECONFIG = "apiVersion: v1\nkind: Config\nclusters: []\n"

# invoke token -> what the mocks answer (wire names)
CALLS: dict[str, Any] = {
    "aws:eks/getCluster:getCluster": {
        "endpoint": "https://eks.example",
        "certificateAuthorities": [{"data": "Q0EtREFUQQ=="}],
        "vpcConfig": {"vpcId": "vpc-0mock", "clusterSecurityGroupId": "sg-0mockcluster"},
    },
    "gcp:container/getCluster:getCluster": {
        "endpoint": "10.0.0.1",
        "masterAuths": [{"clusterCaCertificate": "Q0EtREFUQQ=="}],
    },
    "azure-native:containerservice:listManagedClusterUserCredentials": {
        "kubeconfigs": [
            {"name": "clusterUser", "value": base64.b64encode(FAKE_KUBECONFIG.encode()).decode()}
        ]
    },
    "volcengine:vke/getKubeconfigs:getKubeconfigs": {
        "kubeconfigs": [
            {
                "kubeconfig": base64.b64encode(FAKE_KUBECONFIG.encode()).decode(),
                "type": "Private",
                "id": "kc-private",
            },
            {
                "kubeconfig": base64.b64encode(FAKE_KUBECONFIG.encode()).decode(),
                "type": "Public",
                "id": "kc-public",
            },
        ],
        "totalCount": 2,
    },
}


@dataclass(frozen=True)
class Run:
    """What one program registered and invoked."""

    resources: list[dict[str, Any]]
    calls: list[dict[str, Any]]
    error: str | None

    def by_type(self, type_: str) -> list[dict[str, Any]]:
        """Return the registered resources of one type."""
        return [r for r in self.resources if r["type"] == type_]

    def get(self, type_: str, name: str) -> dict[str, Any]:
        """Return the registered resource of this type and name."""
        found = [r for r in self.resources if r["type"] == type_ and r["name"] == name]
        assert len(found) == 1, f"{type_} {name}: {len(found)} registered"
        return found[0]


_CALLS_ENV = "GPUPOOL_MOCK_CALLS"


def run_programs(
    dirs: Sequence[Path], timeout: float = 240, calls: dict[str, Any] | None = None
) -> list[Run]:
    """Execute each rendered program directory under mocks; one subprocess for the batch.

    ``calls`` maps invoke tokens to the answers the mocks give instead of those in ``CALLS``.
    """
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(
            ("KUBECONFIG", "AWS_", "VOLCENGINE_", "GOOGLE_", "ARM_", "AZURE_", "PULUMI_")
        )
    }
    env["PYTHONHASHSEED"] = "0"
    env[_CALLS_ENV] = json.dumps(calls or {})
    proc = subprocess.run(
        [sys.executable, str(HERE), *(str(d) for d in dirs)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )
    if proc.returncode != 0:
        raise AssertionError(f"mock runner failed ({proc.returncode}):\n{proc.stderr[-6000:]}")
    data = json.loads(proc.stdout)
    return [Run(d["resources"], d["calls"], d["error"]) for d in data]


# -- the child process ---------------------------------------------------------------------------

_SECRET_SIG = ("4dabf18193072939515e22adb298388d", "1b47061264138c4ac30d75fd1eb44270")


def _unwrap(value: Any, path: str, secrets: list[str]) -> Any:
    """Replace Pulumi secret envelopes by their values, noting their dotted paths."""
    if isinstance(value, dict):
        if value.get(_SECRET_SIG[0]) == _SECRET_SIG[1]:
            secrets.append(path)
            return _unwrap(value.get("value"), path, secrets)
        return {k: _unwrap(v, f"{path}.{k}" if path else k, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [_unwrap(v, f"{path}.{i}", secrets) for i, v in enumerate(value)]
    return value


def _child(dirs: list[str]) -> list[dict[str, Any]]:
    import runpy
    import traceback

    import pulumi
    from pulumi.runtime import settings
    from pulumi.runtime.mocks import MockMonitor
    from pulumi.runtime.stack import run_pulumi_func
    from pulumi.runtime.sync_await import _sync_await

    class Mocks(pulumi.runtime.Mocks):
        def __init__(self) -> None:
            self.calls: list[dict[str, Any]] = []
            self.inputs: dict[tuple[str, str], dict[str, Any]] = {}

        def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict]:
            self.inputs[(args.typ, args.name)] = dict(args.inputs)
            state = dict(args.inputs)
            state.setdefault("name", args.name)
            if args.typ == "aws:ec2/launchTemplate:LaunchTemplate":
                state["latestVersion"] = 3
            return f"{args.name}-id", state

        def call(self, args: pulumi.runtime.MockCallArgs) -> dict:
            self.calls.append({"token": args.token, "args": args.args, "provider": args.provider})
            if args.token == "volcengine:vke/getClusters:getClusters":
                wanted = args.args.get("name") or (args.args.get("ids") or [""])[0]
                return {"clusters": [{"id": "cc-mock-id", "name": wanted}], "totalCount": 1}
            if args.token not in answers:
                raise KeyError(f"unexpected invoke {args.token}")
            return answers[args.token]

    class Monitor(MockMonitor):
        def __init__(self, mocks: Mocks) -> None:
            super().__init__(mocks)
            self.registered: list[dict[str, Any]] = []

        def RegisterResource(self, request: Any) -> Any:  # the gRPC method's name
            response = super().RegisterResource(request)
            if request.type != "pulumi:pulumi:Stack":
                self.registered.append(
                    {
                        "type": request.type,
                        "name": request.name,
                        "urn": response.urn,
                        "inputs": self.mocks.inputs[(request.type, request.name)],
                        "provider": request.provider,
                        "dependencies": sorted(request.dependencies),
                    }
                )
            return response

    answers = {**CALLS, **json.loads(os.environ.get(_CALLS_ENV) or "{}")}
    out = []
    for d in dirs:
        mocks = Mocks()
        monitor = Monitor(mocks)
        settings.ROOT.set(None)
        settings.SETTINGS.outputs.clear()
        pulumi.runtime.set_mocks(
            mocks, project="gpupool", stack="test", preview=False, monitor=monitor
        )
        main = str(Path(d) / "__main__.py")
        error = None
        try:
            _sync_await(run_pulumi_func(lambda m=main: runpy.run_path(m, run_name="__main__")))
        except Exception:  # reported to the test
            error = traceback.format_exc()
        urn_names = {r["urn"]: f"{r['type']}::{r['name']}" for r in monitor.registered}
        for r in monitor.registered:
            secrets: list[str] = []
            r["inputs"] = _unwrap(r["inputs"], "", secrets)
            r["secrets"] = secrets
            r["dependencies"] = sorted(urn_names.get(u, u) for u in r["dependencies"])
            # an explicit provider reference is "<provider urn>::<provider id>"
            urn = r["provider"].rsplit("::", 1)[0] if r["provider"] else ""
            r["provider"] = urn_names.get(urn, r["provider"])
        out.append({"resources": monitor.registered, "calls": mocks.calls, "error": error})
    return out


if __name__ == "__main__":
    result = _child(sys.argv[1:])
    sys.stdout.write(json.dumps(result, default=str, sort_keys=True))
