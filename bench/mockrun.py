"""Run one Pulumi program under mocks and time how long its resources take to register.

``python bench/mockrun.py PROGRAM_DIR GRAPH_JSON OUT_JSON`` (a child process of ``bench/run.py``,
one per run so that Pulumi's process-wide state starts fresh). The mocks are those of
``tests/pulumi_mocks.py`` (same invoke answers, every resource's state is its inputs); the
program runs through ``pulumi.runtime.stack.run_pulumi_func``, which returns only once every
registration RPC and every outstanding task has finished. Before the clock starts, the SDK
modules the graph's types need are imported, so the time is the program's own: building its
inputs and registering each resource. The child checks that every resource of the graph was
registered and writes the time, the count and a digest of what was registered (type, name,
inputs, provider, dependencies) so that two programs can be shown to create the same resources.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import runpy
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from pulumi_mocks import CALLS  # noqa: E402  (the tests' invoke answers)


def sdk_modules(types: set[str]) -> list[str]:
    """Return the SDK modules that define the classes of these type tokens."""
    out = {"pulumi_aws", "pulumi_kubernetes"}
    for token in types:
        package, module, _ = token.split(":")
        if package == "aws":
            out.add(f"pulumi_aws.{module.split('/')[0]}")
        elif package == "kubernetes":
            group, _, version = module.rpartition("/")
            if group in ("core", "helm.sh") or group.endswith(".k8s.io"):
                out.add(f"pulumi_kubernetes.{group.split('.')[0]}.{version}")
            else:
                out.add("pulumi_kubernetes.apiextensions")
    return sorted(out)


def main() -> None:
    program, graph_file, out_file = (Path(a) for a in sys.argv[1:4])
    import pulumi
    from pulumi.runtime import settings
    from pulumi.runtime.mocks import MockMonitor
    from pulumi.runtime.stack import run_pulumi_func
    from pulumi.runtime.sync_await import _sync_await

    graph = json.loads(graph_file.read_text(encoding="utf-8"))
    for module in sdk_modules({r["type"] for r in graph["resources"]}):
        importlib.import_module(module)

    class Mocks(pulumi.runtime.Mocks):
        def __init__(self) -> None:
            self.inputs: dict[tuple[str, str], dict[str, Any]] = {}

        def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict]:
            self.inputs[(args.typ, args.name)] = args.inputs
            state = dict(args.inputs)
            state.setdefault("name", args.name)
            return f"{args.name}-id", state

        def call(self, args: pulumi.runtime.MockCallArgs) -> dict:
            return CALLS[args.token]

    class Monitor(MockMonitor):
        def __init__(self, mocks: Mocks) -> None:
            super().__init__(mocks)
            self.registered: list[tuple[str, str, str, list[str]]] = []

        def RegisterResource(self, request: Any) -> Any:  # the gRPC method's name
            response = super().RegisterResource(request)
            if request.type != "pulumi:pulumi:Stack":
                provider = request.provider.rsplit("::", 1)[0]
                deps = sorted(request.dependencies)
                self.registered.append((request.type, request.name, provider, deps))
            return response

    mocks = Mocks()
    monitor = Monitor(mocks)
    settings.ROOT.set(None)
    pulumi.runtime.set_mocks(mocks, project="bench", stack="bench", preview=False, monitor=monitor)
    main_py = str(program / "__main__.py")
    start, cpu = time.perf_counter(), time.process_time()
    _sync_await(run_pulumi_func(lambda: runpy.run_path(main_py, run_name="__main__")))
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    expected = {(r["type"], r["name"]) for r in graph["resources"]}
    got = {(t, n) for t, n, _, _ in monitor.registered}
    if got != expected or len(monitor.registered) != len(expected):
        raise SystemExit(
            f"{program}: registered {len(monitor.registered)} resources, expected {len(expected)}"
        )
    lines = sorted(
        json.dumps([t, n, mocks.inputs[(t, n)], p, d], sort_keys=True, default=str)
        for t, n, p, d in monitor.registered
    )
    digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()
    out_file.write_text(
        json.dumps({"seconds": seconds, "cpu": cpu, "resources": len(got), "digest": digest}),
        encoding="utf-8",
    )


if __name__ == "__main__":
    main()
