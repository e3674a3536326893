"""Write the ``first-apply`` and ``edited-outside`` scenarios from the volcengine-a10 graph.

The stand-in answers for the resources a rendered program registers, which are the graph's
(type token, logical name) pairs. These two scenarios are made from
``stacks/examples/volcengine-a10.yaml``'s graph in the shape of real engine streams
(tests/engine/events): ``planning`` on previews, ``detailedDiff: null`` where there is none,
``old: null`` on creates, the stack's outputs event twice in a preview and once at the end of an
update, and a refresh's ``refresh`` pre-event closed by an outputs event carrying its outcome
(Pulumi's lifecycle test TestRefreshBasics; tests/engine/events/refresh-preview-drift.json),
all refreshes before the steps that converge. After a change to what that example renders, run
``python -m tests.fake_pulumi.vke_scenarios`` and review the diff;
tests/cli/test_cli_reconcile.py fails until the scenarios match the graph.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gpupool.assemble import build
from tests.stacks import load_stack

SCENARIOS = Path(__file__).resolve().parent / "scenarios"
STACK_TYPE = "pulumi:pulumi:Stack"
STACK_URN = "urn:pulumi:{stack}::{project}::pulumi:pulumi:Stack::{project}-{stack}"
PROVIDERS = {"volcengine": "7c1e3a52-0b8e-4d2f-9a61-2f7d9c4b1e01",
             "k8s": "3b9d6f10-8e2c-4a7b-b5d3-6c1f0e9a2d44"}
PROVIDER_URN = {
    "volcengine": "urn:pulumi:{stack}::{project}::pulumi:providers:volcengine::volcengine",
    "k8s": "urn:pulumi:{stack}::{project}::pulumi:providers:kubernetes::k8s",
}
CONFIGMAP = ("kubernetes:core/v1:ConfigMap", "gpu-operator/gpupool-device-plugin-config")
_DEVICE_PLUGIN = ("version: v1\nsharing:\n  timeSlicing:\n    resources:\n"
                  "    - name: nvidia.com/gpu\n      replicas: {}\n")
INPUTS = {
    ("volcengine:vke/nodePool:NodePool", "a10"): {"name": "a10"},
    CONFIGMAP: {"data": {"a10": _DEVICE_PLUGIN.format(3)}},
}
EDITED = {"data": {"a10": _DEVICE_PLUGIN.format(8)}}  # kubectl edit: replicas 3 -> 8
EDIT_DIFF = {"diffs": ["data"],
             "detailedDiff": {"data.a10": {"diffKind": "update", "inputDiff": True}}}

Resource = tuple[str, str]
Event = dict[str, Any]


def urn(res: Resource) -> str:
    if res[0] == STACK_TYPE:
        return STACK_URN
    return f"urn:pulumi:{{stack}}::{{project}}::{res[0]}::{res[1]}"


def state(res: Resource, inputs: dict[str, Any] | None = None, *, planned: bool = False) -> Event:
    """A resource's state as events carry it (no id while a create is only planned)."""
    kind, name = res
    if kind == STACK_TYPE:
        return {"type": kind, "urn": STACK_URN, "id": "", "parent": "", "provider": "",
                "inputs": {}}
    if kind.startswith("pulumi:providers:"):
        rid, provider = PROVIDERS[name], ""
    else:
        rid = "np-" + name if kind.startswith("volcengine:") else name
        which = "volcengine" if kind.startswith("volcengine:") else "k8s"
        provider = f"{PROVIDER_URN[which]}::{PROVIDERS[which]}"
    return {"type": kind, "urn": urn(res), "id": "" if planned else rid, "parent": STACK_URN,
            "provider": provider, "custom": True,
            "inputs": INPUTS.get(res, {}) if inputs is None else inputs}


def meta(op: str, res: Resource, old: Event | None, new: Event | None, **extra: Any) -> Event:
    found = {"op": op, "urn": urn(res), "type": res[0],
             "provider": (new or old or {}).get("provider", ""), "old": old, "new": new}
    found.update(extra)
    found.setdefault("detailedDiff", None)
    found["logical"] = True
    return found


def pre(m: Event, planning: bool) -> Event:
    return {"resourcePreEvent": {"metadata": m, **({"planning": True} if planning else {})}}


def outputs(m: Event, planning: bool) -> Event:
    return {"resOutputsEvent": {"metadata": m, **({"planning": True} if planning else {})}}


def operation(resources: list[Resource], steps: list[tuple[str, Resource, Event | None,
              Event | None, dict[str, Any]]], planning: bool,
              refreshed: list[Event] | None = None) -> list[Event]:
    """The events of one operation: prelude, refreshes, the stack, each step, summary."""
    events: list[Event] = [{"preludeEvent": {"config": {"volcengine:region": "cn-beijing"}}}]
    events += refreshed or []
    stack_op = steps[0][0] if all(s[0] == steps[0][0] for s in steps) else "same"
    stack = meta(stack_op, (STACK_TYPE, ""), None if stack_op == "create" else state(
        (STACK_TYPE, "")), state((STACK_TYPE, "")))
    events.append(pre(stack, planning))
    if planning:
        events.append(outputs(stack, planning))
    counts: dict[str, int] = {stack_op: 1}
    for op, res, old, new, extra in steps:
        m = meta(op, res, old, new, **extra)
        events += [pre(m, planning), outputs(m, planning)]
        counts[op] = counts.get(op, 0) + 1
    events.append(outputs(stack, planning))
    events.append({"summaryEvent": {"maybeCorrupt": False, "durationSeconds": 2,
                                    "resourceChanges": counts, "PolicyPacks": {}}})
    return events


def refreshes(resources: list[Resource], planning: bool) -> list[Event]:
    """Every resource in state read back; only the edited ConfigMap comes back changed."""
    stack = state((STACK_TYPE, ""))
    events = [pre(meta("refresh", (STACK_TYPE, ""), stack, stack), planning),
              outputs(meta("same", (STACK_TYPE, ""), stack, stack), planning)]
    for res in resources:
        old = state(res)
        if res == CONFIGMAP:
            after = meta("update", res, old, state(res, EDITED), **EDIT_DIFF)
        else:
            after = meta("same", res, old, old)
        events += [pre(meta("refresh", res, old, old), planning), outputs(after, planning)]
    return events


def creates(resources: list[Resource], planning: bool) -> list[Event]:
    return operation(resources, [("create", r, None, state(r, planned=planning), {})
                                 for r in resources], planning)


def converges(resources: list[Resource], planning: bool, refresh: bool) -> list[Event]:
    steps = []
    for res in resources:
        if refresh and res == CONFIGMAP:
            steps.append(("update", res, state(res, EDITED), state(res), EDIT_DIFF))
        else:
            steps.append(("same", res, state(res), state(res), {}))
    return operation(resources, steps, planning,
                     refreshes(resources, planning) if refresh else None)


def dump(path: Path, data: dict[str, Any]) -> None:
    """Write a scenario with one event per line, like the others."""
    lines = ["{"]
    for i, (key, value) in enumerate(data.items()):
        comma = "," if i < len(data) - 1 else ""
        if not isinstance(value, dict):
            lines.append(f" {json.dumps(key)}: {json.dumps(value)}{comma}")
            continue
        lines.append(f" {json.dumps(key)}: {{")
        for j, (inner, item) in enumerate(value.items()):
            sep = "," if j < len(value) - 1 else ""
            if inner == "events":
                lines.append('  "events": [')
                lines.append(",\n".join("   " + json.dumps(e) for e in item))
                lines.append("  ]" + sep)
            else:
                lines.append(f"  {json.dumps(inner)}: {json.dumps(item)}{sep}")
        lines.append(" }" + comma)
    lines.append("}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def scenarios() -> dict[str, dict[str, Any]]:
    resources = [(r.type, r.name) for r in build(load_stack("volcengine-a10")).resources]
    n = len(resources)
    return {
        "first-apply": {
            "description": "The first apply of stacks/examples/volcengine-a10.yaml: preview and "
            "update create the stack and every resource its rendered program registers, under "
            "the type tokens and logical names gpupool renders (the explicit volcengine and "
            "kubernetes providers included), so the engine's preview has exactly the addresses "
            "and actions of `gpupool plan` against an empty base. Written by "
            "tests/fake_pulumi/vke_scenarios.py.",
            "preview": {"events": creates(resources, True),
                        "stdout": f"Previewing update ({{stack}}):\n\nResources:\n    + {n + 1} "
                        "to create\n"},
            "up": {"events": creates(resources, False),
                   "stdout": f"Updating ({{stack}}):\n\nResources:\n    + {n + 1} created\n\n"
                   "Duration: 2s\n", "outputs": {}},
        },
        "edited-outside": {
            "description": "stacks/examples/volcengine-a10.yaml as applied, but someone edited "
            "the device plugin ConfigMap with kubectl (replicas 3 -> 8). Without --refresh the "
            "engine compares the program with its recorded state and sees no change; with "
            "--refresh (preview and up) it first reads every resource back (op refresh; the "
            "ConfigMap's outcome is update, the rest same), then plans the update that puts "
            "the file's config back. The refresh steps are not counted in the summary "
            "(RefreshStep.Logical() is false in pkg/resource/deploy/step.go). Written by "
            "tests/fake_pulumi/vke_scenarios.py.",
            "preview": {"events": converges(resources, True, False),
                        "stdout": f"Previewing update ({{stack}}):\n\nResources:\n    {n + 1} "
                        "unchanged\n"},
            "preview+refresh": {"events": converges(resources, True, True),
                                "stdout": "Previewing update ({stack}):\n\nResources:\n    ~ 1 "
                                f"to update\n    {n} unchanged\n"},
            "up": {"events": converges(resources, False, False),
                   "stdout": f"Updating ({{stack}}):\n\nResources:\n    {n + 1} unchanged\n",
                   "outputs": {}},
            "up+refresh": {"events": converges(resources, False, True),
                           "stdout": "Updating ({stack}):\n\nResources:\n    ~ 1 updated\n    "
                           f"{n} unchanged\n", "outputs": {}},
        },
    }


def main() -> None:
    for name, data in scenarios().items():
        dump(SCENARIOS / f"{name}.json", data)


if __name__ == "__main__":
    main()
