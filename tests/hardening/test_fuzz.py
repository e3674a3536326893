"""Fuzzing the whole pipeline: load -> validate -> model -> graph -> render -> plan.

Every example stack is mutated in ways that keep it schema-valid often enough to get past the
validator (numbers changed, enum values swapped, optional keys dropped, pools and tenants
duplicated under new names, inference services added in shapes their pools may not serve,
instance types and GPU models swapped for other catalog entries, sharing modes replaced by
plausible ones), then pushed through every stage gpupool runs on a file: validate, build the
model and the resource graph, round-trip the graph through the applied record format, render the
Pulumi program into a temporary directory (without running it), and plan it against an empty
base and against the unmutated example, in every report format, and replay a workload generated
for it (``gpupool simulate --generate``), and again with checkpoint columns on spot nodes.

Hostile mutations add what a red-team pass found: NaN, infinities and 1e308 at any number,
explicit YAML tags with values their constructors refuse (``!!bool perhaps``), a trailing
newline after a name, and terminal escapes, GitHub Actions workflow commands and markdown in
keys, free text and the services' queries and names. A stack with any of the first three (or an
unknown key) must be invalid; each hostile case also goes through ``validate``, ``plan``,
``render`` and ``drift`` on the command line, which must never print "internal error", a raw
control character or a line GitHub Actions would run as a workflow command.

Any exception other than a diagnostic is a failure. A ``GpupoolError`` from a later stage on a
stack the validator accepted is a failure too: it means a validation rule is missing.

The budget is fixed: ``GPUPOOL_FUZZ_EXAMPLES`` cases (default 400; raise it for a long local
run, e.g. ``GPUPOOL_FUZZ_EXAMPLES=20000 python -m pytest tests/hardening/test_fuzz.py``), no
deadline.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import io
import json
import math
import os
import re
import tempfile
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpupool import assemble, catalog, cli, plan, render
from gpupool.graph import ResourceGraph
from gpupool.plan import Base
from gpupool.simulate.engine import Settings, simulate_metered
from gpupool.simulate.generate import generate, to_csv
from gpupool.simulate.jobs import Workload
from gpupool.simulate.report import document, report
from gpupool.simulate.workload import check_workload, read_workload
from gpupool.spec.validate import validate_text
from gpupool.views import plan as plan_view
from tests import paths
from tests.stacks import load_stack_text

EXAMPLES = sorted(paths.EXAMPLES.glob("*.yaml"))
FUZZ_EXAMPLES = int(os.environ.get("GPUPOOL_FUZZ_EXAMPLES", "400"))

ENUMS: dict[str, tuple[Any, ...]] = {
    "environment": ("production", "staging", "development"),
    "driver": ("operator", "preinstalled"),
    "scheduler": ("default", "kai", "hami"),
    "workload": ("training", "inference", "mixed"),
    "checkpoint": ("required", "recommended", "none"),
    "mode": ("exclusive", "time-slicing", "mps", "mig", "fractional"),
    "policy": ("priority", "fair", "strict"),
    "qos": ("exclusive", "guaranteed", "shared"),
    "topology": ("any", "compact", "spread"),
    "effect": ("NoSchedule", "PreferNoSchedule", "NoExecute"),
    "priority": ("critical", "high", "normal", "low", "preemptible"),
    "type": ("on-demand", "spot"),
    "install": (True, False),
    "dcgmExporter": (True, False),
    "fallbackToOnDemand": (True, False),
}
REQUIRED = {"apiVersion", "kind", "metadata", "provider", "cloud", "pools", "name"}
STATS: Counter[str] = Counter()
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


@cache
def original(path: Path) -> tuple[dict[str, Any], ResourceGraph]:
    """The example's data and its unmutated graph (the second plan base)."""
    text = path.read_text(encoding="utf-8")
    return yaml.safe_load(text), assemble.build(load_stack_text(text, path.name))


def leaves(data: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    """Every (path, value) in the document, containers included."""
    out = [(path, data)]
    if isinstance(data, dict):
        for k, v in data.items():
            out += leaves(v, (*path, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out += leaves(v, (*path, i))
    return out


def put(data: Any, path: tuple[Any, ...], value: Any) -> None:
    for part in path[:-1]:
        data = data[part]
    data[path[-1]] = value


def get(data: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        data = data[part]
    return data


# -- mutations: each takes the document and a hypothesis ``data`` object ------------------------


def set_number(doc: dict[str, Any], data: st.DataObject) -> None:
    spots = [(p, v) for p, v in leaves(doc) if isinstance(v, (int, float))
             and not isinstance(v, bool) and p]  # fmt: skip
    if not spots:
        return
    path, old = data.draw(st.sampled_from(spots))
    if isinstance(old, int):
        new: Any = data.draw(st.one_of(st.integers(-1, 20), st.integers(0, 1100), st.just(old + 1)))
    else:
        new = data.draw(st.one_of(
            st.floats(0, 200, allow_nan=False), st.floats(0.9, 2.1), st.integers(0, 100)
        ))  # fmt: skip
    put(doc, path, new)


def swap_enum(doc: dict[str, Any], data: st.DataObject) -> None:
    spots = [p for p, v in leaves(doc) if p and p[-1] in ENUMS and not isinstance(v, (dict, list))]
    if not spots:
        return
    path = data.draw(st.sampled_from(spots))
    put(doc, path, data.draw(st.sampled_from(ENUMS[path[-1]])))


def drop_optional(doc: dict[str, Any], data: st.DataObject) -> None:
    spots = [(p, k) for p, v in leaves(doc) if isinstance(v, dict) for k in v if k not in REQUIRED]
    if not spots:
        return
    path, key = data.draw(st.sampled_from(spots))
    del get(doc, path)[key]


def duplicate_pool(doc: dict[str, Any], data: st.DataObject) -> None:
    pools = doc.get("pools") or []
    if not pools:
        return
    src = data.draw(st.sampled_from(pools))
    new = copy.deepcopy(src)
    new["name"] = f"{src['name'][:30]}-d{len(pools)}"
    if "nodeNames" in new:
        new["nodeNames"] = [f"{n[:200]}-d{len(pools)}" for n in new["nodeNames"]]
    for t in new.get("taints", []):
        if t.get("value") == src["name"]:
            t["value"] = new["name"]
    pools.append(new)
    for tenant in doc.get("tenants") or []:
        if data.draw(st.booleans()):
            tenant.setdefault("pools", []).append(new["name"])


def duplicate_tenant(doc: dict[str, Any], data: st.DataObject) -> None:
    tenants = doc.get("tenants") or []
    if not tenants:
        return
    src = data.draw(st.sampled_from(tenants))
    new = copy.deepcopy(src)
    new["name"] = f"{src['name'][:30]}-t{len(tenants)}"
    if "namespace" in new:
        new["namespace"] = f"{new['namespace'][:30]}-t{len(tenants)}"
    tenants.append(new)


def remove_entry(doc: dict[str, Any], data: st.DataObject) -> None:
    key = data.draw(st.sampled_from(["pools", "tenants"]))
    items = doc.get(key) or []
    if len(items) > 1:
        gone = items.pop(data.draw(st.integers(0, len(items) - 1)))
        if key == "pools" and data.draw(st.integers(0, 3)):  # usually keep the references right
            for tenant in doc.get("tenants") or []:
                left = [p for p in tenant.get("pools", []) if p != gone.get("name")]
                tenant["pools"] = left or [items[0]["name"]]


DNS_LABEL = st.from_regex(r"\A[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?\Z")
LABEL_KEY = st.from_regex(
    r"\A([a-z0-9]([-a-z0-9.]{0,60}[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?\Z"
)
LABEL_VALUE = st.from_regex(r"\A([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?\Z")
ANY_TEXT = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=40)


def rename(doc: dict[str, Any], data: st.DataObject) -> None:
    """Give the stack, a pool or a tenant another valid name (references follow)."""
    what = data.draw(st.sampled_from(["stack", "pool", "tenant"]))
    new = data.draw(DNS_LABEL)
    if what == "stack":
        doc["metadata"]["name"] = new
        return
    items = doc.get(what + "s") or []
    if not items:
        return
    item = data.draw(st.sampled_from(items))
    old, item["name"] = item.get("name"), new
    if what == "pool":
        for tenant in doc.get("tenants") or []:
            tenant["pools"] = [new if p == old else p for p in tenant.get("pools", [])]


def free_text(doc: dict[str, Any], data: st.DataObject) -> None:
    """Put unusual text where the schema lets any text (or any label-shaped text) through."""
    pools = [p for p in doc.get("pools") or [] if isinstance(p, dict)]
    where = data.draw(st.sampled_from(
        ["region", "cluster", "setting", "zones", "taint", "label", "stack-label", "nodeNames"]
    ))  # fmt: skip
    provider = doc["provider"]
    if where in ("region", "cluster") and where in provider:
        provider[where] = data.draw(ANY_TEXT)
    elif where == "setting" and provider.get("settings"):
        key = data.draw(st.sampled_from(sorted(provider["settings"])))
        old = provider["settings"][key]
        text = data.draw(ANY_TEXT)
        provider["settings"][key] = [text] if isinstance(old, list) else text
    elif where == "stack-label":
        doc["metadata"].setdefault("labels", {})[data.draw(LABEL_KEY)] = data.draw(LABEL_VALUE)
    elif pools:
        pool = data.draw(st.sampled_from(pools))
        if where == "zones":
            pool.setdefault("placement", {})["zones"] = data.draw(
                st.lists(ANY_TEXT, min_size=1, max_size=3, unique=True)
            )
        elif where == "taint":
            pool.setdefault("taints", []).append({
                "key": data.draw(ANY_TEXT),
                "value": data.draw(st.text(max_size=63)),
                "effect": data.draw(st.sampled_from(ENUMS["effect"])),
            })  # fmt: skip
        elif where == "label":
            pool.setdefault("labels", {})[data.draw(LABEL_KEY)] = data.draw(LABEL_VALUE)
        elif where == "nodeNames" and "nodeNames" in pool:
            pool["nodeNames"] = data.draw(st.lists(
                st.from_regex(r"\A[a-z0-9]([-a-z0-9.]{0,60}[a-z0-9])?\Z"),
                min_size=1, max_size=3, unique=True,
            ))  # fmt: skip


def change_cluster(doc: dict[str, Any], data: st.DataObject) -> None:
    """Switch scheduler and make one pool's sharing something that scheduler serves."""
    scheduler = data.draw(st.sampled_from(ENUMS["scheduler"]))
    doc.setdefault("cluster", {})["scheduler"] = scheduler
    if scheduler != "default":
        change_sharing(doc, data)


def change_hardware(doc: dict[str, Any], data: st.DataObject) -> None:
    pools = doc.get("pools") or []
    if not pools:
        return
    pool = data.draw(st.sampled_from(pools))
    cloud = doc["provider"]["cloud"]
    if "instanceType" in pool and catalog.instances(cloud):
        names = [i.name for i in catalog.instances(cloud)]
        pool["instanceType"] = data.draw(st.sampled_from(names))
    else:
        pool["gpu"] = {
            "model": data.draw(st.sampled_from(catalog.gpu_names())),
            "count": data.draw(st.integers(1, 8)),
        }


def change_sharing(doc: dict[str, Any], data: st.DataObject) -> None:
    pools = doc.get("pools") or []
    if not pools:
        return
    pool = data.draw(st.sampled_from(pools))
    mode = data.draw(st.sampled_from(ENUMS["mode"]))
    sharing: dict[str, Any] = {"mode": mode}
    if mode in ("time-slicing", "mps"):
        sharing["replicas"] = data.draw(st.integers(1, 50))
    elif mode == "mig":
        gpus = [g for g in catalog.gpus() if g.mig is not None and g.mig.profiles]
        profiles = [p for g in gpus for p in g.mig.profiles]  # type: ignore[union-attr]
        chosen = data.draw(st.lists(st.sampled_from(profiles), min_size=1, max_size=3))
        layout = {p.name: data.draw(st.integers(1, p.max_count)) for p in chosen}
        sharing["mig"] = {"layout": layout}
    elif mode == "fractional":
        frac: dict[str, Any] = {"slotsPerGpu": data.draw(st.integers(2, 16))}
        which = data.draw(st.sampled_from(["none", "memoryGiB", "memoryPercent"]))
        if which == "memoryGiB":
            frac["memoryGiB"] = data.draw(st.sampled_from([0.5, 1, 4, 10, 20, 47.5, 80]))
        elif which == "memoryPercent":
            frac["memoryPercent"] = data.draw(st.integers(1, 100))
        if data.draw(st.booleans()):
            frac["coresPercent"] = data.draw(st.integers(1, 100))
        if data.draw(st.booleans()):
            frac["memoryOvercommit"] = data.draw(st.sampled_from([1.0, 1.5, 2.0]))
        sharing["fractional"] = frac
    pool["sharing"] = sharing
    if data.draw(st.booleans()):
        pool.pop("qos", None)


def change_capacity(doc: dict[str, Any], data: st.DataObject) -> None:
    pools = doc.get("pools") or []
    if not pools:
        return
    pool = data.draw(st.sampled_from(pools))
    cap: dict[str, Any] = {"type": data.draw(st.sampled_from(ENUMS["type"]))}
    if data.draw(st.booleans()):
        cap["onDemandBase"] = data.draw(st.integers(0, 5))
    if data.draw(st.booleans()):
        cap["fallbackToOnDemand"] = data.draw(st.booleans())
    if data.draw(st.integers(0, 3)) == 0:
        cap["maxPricePerHour"] = data.draw(st.sampled_from([0.01, 0.5, 3.0, 100.0]))
    pool["capacity"] = cap
    if cap["type"] == "spot" and data.draw(st.booleans()):
        pool["interruption"] = {
            "drainSeconds": data.draw(st.sampled_from([0, 20, 25, 30, 90, 120, 600])),
            "checkpoint": data.draw(st.sampled_from(ENUMS["checkpoint"])),
        }
        if data.draw(st.booleans()):
            pool["interruption"]["perHour"] = data.draw(st.sampled_from([0.001, 0.05, 1, 3600]))
    if "nodes" in pool and data.draw(st.booleans()):
        lo = data.draw(st.integers(0, 6))
        pool["nodes"] = {"min": lo, "max": data.draw(st.integers(max(lo, 1), 12))}
        if data.draw(st.booleans()):
            pool["nodes"]["desired"] = data.draw(st.integers(lo, pool["nodes"]["max"]))


def change_tenant(doc: dict[str, Any], data: st.DataObject) -> None:
    tenants = doc.get("tenants") or []
    pools = [p["name"] for p in doc.get("pools") or [] if isinstance(p, dict) and "name" in p]
    if not tenants or not pools:
        return
    tenant = data.draw(st.sampled_from(tenants))
    tenant["pools"] = data.draw(st.lists(st.sampled_from(pools), min_size=1, max_size=3,
                                         unique=True))  # fmt: skip
    for key, field in (("quota", "gpus"), ("limit", "gpus"), ("fairShare", "weight")):
        choice = data.draw(st.sampled_from(["keep", "drop", "set"]))
        if choice == "drop":
            tenant.pop(key, None)
        elif choice == "set":
            tenant[key] = {field: data.draw(st.sampled_from([0, 0.25, 0.5, 1, 2, 3.5, 8, 64]))}


def add_checkpoint(doc: dict[str, Any], data: st.DataObject) -> None:
    """A checkpoint, downtime budget and startup on a pool or a tenant, sometimes ones validate
    refuses (a write as long as the interval, or longer than the cloud's notice or the drain)."""
    owners = [o for o in [*(doc.get("pools") or []), *(doc.get("tenants") or [])]
              if isinstance(o, dict)]
    if not owners:
        return
    owner = data.draw(st.sampled_from(owners))
    every = data.draw(st.sampled_from([1, 60, 600, 1800, 36000, 31_622_400]))
    owner["checkpoint"] = {
        "everySeconds": every,
        "writeSeconds": data.draw(st.sampled_from([1, 10, 30, 31, 119, 121, 600, 86400])),
        "restoreSeconds": data.draw(st.sampled_from([0, 30, 600, 86400])),
    }
    if data.draw(st.booleans()):
        owner["maxDowntimeSeconds"] = data.draw(st.sampled_from([1, 90, 900, 31_622_400]))
    if data.draw(st.booleans()):
        owner["startupSeconds"] = data.draw(st.sampled_from([0, 120, 86400]))


SERVICE_SHAPES = ({"gpus": 1}, {"gpus": 2}, {"fraction": 0.5}, {"mig": "1g.10gb"},
                  {"mig": "3g.40gb"}, {"gpuMemoryGiB": 4})
SERVICE_QUERIES = ("sum(rate(http_requests_total[1m]))", "max(vllm:num_requests_waiting)",
                   "sum by (pod) (x)", "rate(x[5m])", "sum(x")


def _fitting_shape(pool: dict[str, Any]) -> dict[str, Any]:
    """A request the pool's sharing mode serves (docs/stack-file.md, services)."""
    sharing = pool.get("sharing") or {}
    if sharing.get("mode") == "mig":
        layout = (sharing.get("mig") or {}).get("layout") or {"1g.10gb": 1}
        return {"mig": next(iter(layout))}
    if sharing.get("mode") == "fractional":
        return {"fraction": 0.5}
    return {"gpus": 1}


def add_service(doc: dict[str, Any], data: st.DataObject) -> None:
    """An inference service on one of a tenant's pools, in a shape the pool may not serve."""
    tenants = [t for t in doc.get("tenants") or [] if isinstance(t, dict) and t.get("pools")]
    if not tenants:
        return
    tenant = data.draw(st.sampled_from(tenants))
    services = doc.setdefault("services", [])
    metric = data.draw(st.sampled_from(["requests-per-second", "queue-time-ratio",
                                        "pending-requests", "gpu-utilization", "gpu-memory"]))
    trigger: dict[str, Any] = {"metric": metric, "target": data.draw(st.sampled_from([1, 50]))}
    if metric in ("requests-per-second", "pending-requests"):
        bad = data.draw(st.integers(0, 3)) == 0  # one in four a query validate refuses
        trigger["query"] = data.draw(st.sampled_from(SERVICE_QUERIES[2:] if bad
                                                     else SERVICE_QUERIES[:2]))
    name = data.draw(st.sampled_from(tenant["pools"]))
    pool = next((p for p in doc.get("pools") or [] if isinstance(p, dict)
                 and p.get("name") == name), {})
    low = data.draw(st.integers(0, 2))
    services.append({
        "name": f"svc-{len(services)}", "tenant": tenant.get("name"), "pool": name,
        **(data.draw(st.sampled_from(SERVICE_SHAPES)) if data.draw(st.integers(0, 3)) == 0
           else _fitting_shape(pool)),  # usually one the pool serves, so later stages run
        "replicas": {"min": low, "max": max(1, low + data.draw(st.integers(0, 2)))},
        "scaleOn": [trigger],
    })
    if data.draw(st.integers(0, 4)):  # usually say where KEDA's Prometheus is
        cluster = doc.setdefault("cluster", {})
        prom = cluster.setdefault("monitoring", {}).setdefault("prometheus", {})
        prom["url"] = "http://prometheus.monitoring:9090"


# -- hostile mutations: values that must end in a diagnostic, never in a crash or a render --

#: Text put into the dumped YAML in place of a marker string (explicit tags cannot be dumped).
SUBSTITUTE: dict[str, str] = {}
#: Set by a mutation that must make the stack invalid.
MUST_FAIL: list[str] = []
BAD_TAGS = ("!!bool perhaps", "!!timestamp not-a-date", "!!int twelve", "!!float one",
            "!!binary 'not base64 %'", "!!timestamp 2024-13-45")  # fmt: skip
CONTROL_STRINGS = (
    "\x1b[2J\x1b]0;owned\x07", "x\n::error title=t::forged", "\u202egnp.exe", "a\x00b",
    "\x9b31m", "y\r\n::add-mask::secret", "##[group]z", "<!-- ![i](https://e.example/i.png)",
)  # fmt: skip
CONTROL_TEXT = st.sampled_from(CONTROL_STRINGS)
#: Fields whose pattern must refuse a trailing newline.
PATTERNED = ("name", "namespace", "version")


def hostile_number(doc: dict[str, Any], data: st.DataObject) -> None:
    """NaN, +-inf or 1e308 at any number (``.nan``, ``.inf``, ``-.inf``, ``1.0e+308``)."""
    spots = [p for p, v in leaves(doc) if isinstance(v, (int, float))
             and not isinstance(v, bool) and p]  # fmt: skip
    if spots:
        path = data.draw(st.sampled_from(spots))
        put(doc, path, data.draw(st.sampled_from([math.nan, math.inf, -math.inf, 1e308])))
        MUST_FAIL.append(f"{path}: not a finite number in range")


def explicit_tag(doc: dict[str, Any], data: st.DataObject) -> None:
    """An explicit YAML tag whose value its constructor refuses, at any scalar."""
    spots = [p for p, v in leaves(doc) if p and not isinstance(v, (dict, list))]
    if spots:
        marker = f"__tag_{len(SUBSTITUTE)}__"
        put(doc, data.draw(st.sampled_from(spots)), marker)
        SUBSTITUTE[marker] = data.draw(st.sampled_from(BAD_TAGS))
        MUST_FAIL.append("a value its tag cannot read")


def trailing_newline(doc: dict[str, Any], data: st.DataObject) -> None:
    """One trailing newline after a name, a namespace or a version (patterns match it all)."""
    spots = [p for p, v in leaves(doc) if p and p[-1] in PATTERNED and isinstance(v, str)]
    if spots:
        path = data.draw(st.sampled_from(spots))
        put(doc, path, get(doc, path) + "\n")
        MUST_FAIL.append(f"{path}: a trailing newline")


def control_characters(doc: dict[str, Any], data: st.DataObject) -> None:
    """Terminal escapes, workflow commands and markdown in free text, a key or a label."""
    where = data.draw(st.sampled_from(["region", "key", "pool-key", "cluster"]))
    text = data.draw(CONTROL_TEXT)
    if where == "key":
        doc[text] = 1
        MUST_FAIL.append("an unknown key")
    elif where == "pool-key" and doc.get("pools"):
        pool = data.draw(st.sampled_from([p for p in doc["pools"] if isinstance(p, dict)] or [{}]))
        pool[text] = "x"
        MUST_FAIL.append("an unknown key")
    elif where in doc["provider"]:
        doc["provider"][where] = doc["provider"][where] + text


def service_text(doc: dict[str, Any], data: st.DataObject) -> None:
    """Terminal escapes, workflow commands and markdown in a service's query or name."""
    add_service(doc, data)
    services = [s for s in doc.get("services") or [] if isinstance(s, dict)]
    if not services:
        return
    service = data.draw(st.sampled_from(services))
    text = data.draw(CONTROL_TEXT)
    if data.draw(st.booleans()):  # inside a PromQL string literal: valid text, must stay data
        quoted = text.replace("\\", "\\\\").replace('"', '\\"')
        service["scaleOn"] = [{"metric": "pending-requests", "target": 5,
                               "query": 'sum(q{l="' + quoted + '"})'}]
    else:
        service["name"] = text
        MUST_FAIL.append("a service name that is not a DNS label")


HOSTILE = (hostile_number, explicit_tag, trailing_newline, control_characters, service_text)
MUTATIONS = (
    set_number, swap_enum, drop_optional, duplicate_pool, duplicate_tenant, remove_entry,
    change_hardware, change_sharing, change_capacity, change_tenant, rename, free_text,
    change_cluster, hostile_number, explicit_tag, trailing_newline, control_characters,
    add_service, service_text, add_checkpoint,
)  # fmt: skip


def pipeline(
    name: str, text: str, base_graph: ResourceGraph, must_fail: tuple[str, ...] = ()
) -> None:
    """Run every stage gpupool runs on a file; raise on anything but diagnostics."""
    STATS["cases"] += 1
    result = validate_text(text, name)
    if must_fail:
        assert result.stack is None, f"valid despite {must_fail}"
    if result.stack is None:
        assert not result.valid
        return
    STATS["valid"] += 1
    stack = result.stack
    desired = assemble.build(stack)
    assert ResourceGraph.from_json(json.loads(desired.dumps())) == desired
    with tempfile.TemporaryDirectory() as tmp:
        written = render.render(stack, desired, Path(tmp) / "out")
        main = (written.out_dir / "__main__.py").read_text(encoding="utf-8")
        compile(main, "__main__.py", "exec")
        STATS["rendered"] += 1
    for base in (Base("empty", None, None), Base("file", name, base_graph)):
        result_plan = plan.make_plan(base, desired, stack)
        for fmt in ("text", "json", "markdown"):
            out = plan_view.render(result_plan, fmt)
            if fmt == "json":
                json.loads(out.result)
    STATS["planned"] += 1
    replay_generated(stack, len(text))


def replay_generated(stack: Any, seed: int) -> None:
    """A workload made up for the stack (``simulate --generate``) fits it and replays finite.

    Every row names only what the stack has (no error, no warning: its fractions are on
    fractional pools), reads back from its CSV the same, and the simulated report's JSON holds
    only finite numbers.
    """
    workload = generate(stack, seed, jobs=12)
    assert check_workload(stack, workload) == [], stack.name
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "w.csv"
        path.write_text(to_csv(workload.jobs), encoding="utf-8")
        assert read_workload(path).jobs == workload.jobs
    doc = document(report(*simulate_metered(stack, workload, Settings(seed=seed))))
    json.loads(json.dumps(doc), parse_constant=_not_finite)
    # every other job with its own checkpoint columns, on spot nodes interrupted often
    jobs = tuple(dataclasses.replace(j, checkpoint_every=60.0 + seed % 3000,
                                     checkpoint_write=1.0 + seed % 50,
                                     checkpoint_restore=float(seed % 7)) if i % 2 else j
                 for i, j in enumerate(workload.jobs))
    spot = Settings(seed=seed, spot_interruptions_per_hour=2.0)
    doc = document(report(*simulate_metered(stack, Workload(workload.source, jobs), spot)))
    json.loads(json.dumps(doc), parse_constant=_not_finite)
    STATS["replayed"] += 1


def _not_finite(name: str) -> None:
    raise AssertionError(f"{name} in a simulated report")


@settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    st.sampled_from(EXAMPLES),
    st.lists(st.sampled_from(MUTATIONS), min_size=1, max_size=6),
    st.data(),
)
def _fuzz(example: Path, mutations: list[Any], data: st.DataObject) -> None:
    source, base_graph = original(example)
    doc = copy.deepcopy(source)
    SUBSTITUTE.clear()
    MUST_FAIL.clear()
    # hostile values last, so that no later mutation drops or overwrites them
    for mutate in sorted(mutations, key=lambda m: m in HOSTILE):
        mutate(doc, data)
    text = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)
    for marker, tagged in SUBSTITUTE.items():
        text = text.replace(marker, tagged)
    pipeline(example.name, text, base_graph, tuple(MUST_FAIL))
    if any(m in HOSTILE for m in mutations):
        STATS["hostile"] += 1
        through_the_cli(text)


def through_the_cli(text: str) -> None:
    """validate, plan, render and drift as a user runs them: no internal error, inert output."""
    with tempfile.TemporaryDirectory() as tmp:
        stack = Path(tmp) / "stack.yaml"
        stack.write_text(text, encoding="utf-8")
        for argv in (["validate", str(stack)], ["plan", "--format", "markdown", str(stack)],
                     ["render", "--out", str(Path(tmp) / "out"), str(stack)],
                     ["drift", "--format", "markdown", str(stack)]):  # fmt: skip
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = cli.run(argv)
            shown = out.getvalue() + err.getvalue()
            assert "internal error" not in shown, f"{argv[0]}: {shown[-2000:]}"
            assert code in (0, 1, 2), argv
            for line in shown.splitlines():
                assert not line.lstrip().startswith("::") and "##[" not in line, line
            assert not RAW_CONTROL.search(shown), f"{argv[0]} printed a control character"


@pytest.mark.slow  # about a minute; plain `pytest` runs it (-m "not slow" skips it)
def test_mutated_examples_survive_the_whole_pipeline() -> None:
    """Mutated examples yield diagnostics or a rendered program and a plan, never an exception.

    Enough of the mutations must stay valid for the later stages to be exercised at all.
    """
    STATS.clear()
    _fuzz()
    print(f"\nfuzz: {dict(STATS)}")
    assert STATS["cases"] >= FUZZ_EXAMPLES // 2
    # a share, not a count: a run of 400 cases rendered 76 to 117 of them (CI, 2026-12-04)
    assert STATS["rendered"] >= STATS["cases"] // 8, dict(STATS)
    assert STATS["planned"] == STATS["rendered"] == STATS["replayed"]


def test_unmutated_examples_pass_every_stage() -> None:
    """The examples themselves go through every stage (the fuzz baseline)."""
    for example in EXAMPLES:
        _, base_graph = original(example)
        pipeline(example.name, example.read_text(encoding="utf-8"), base_graph)
